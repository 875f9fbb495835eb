import { afterEach, describe, expect, it, vi } from "vitest";
import { BudgetLeases, type Lease, type LeaseSettings } from "../../src/billing/budget-leases";
import type { LeaseResponse__Output } from "@gateway/proto";

const settings: LeaseSettings = { minRequestsPerSecond: 3, requestsPerLease: 10, maxAgeMs: 10_000, idleMs: 2_000, drawIntervalMs: 0 };

/** A control plane that grants what is asked (or `grant`), and records lease asks. */
function fakeControlPlane(grant?: (amount: bigint) => bigint | undefined) {
  const asks: { leaseId: string; projectId: string; amount: bigint; min: bigint }[] = [];
  const client = {
    lease: vi.fn(async (leaseId: string, projectId: string, amount: bigint, min: bigint): Promise<LeaseResponse__Output> => {
      asks.push({ leaseId, projectId, amount, min });
      const granted = grant ? grant(amount) : amount;
      return granted === undefined
        ? { granted: false, amountNano: "0", ttlSeconds: 0, drawEntries: true }
        : { granted: true, amountNano: granted.toString(), ttlSeconds: 900, drawEntries: true };
    }),
  };
  return { client, asks };
}

const flush = () => new Promise((resolve) => setImmediate(resolve));

describe("budget leases", () => {
  afterEach(() => vi.useRealTimers());

  it("asks for a lease once a project is busy, then sets requests aside from it without the control plane", async () => {
    const { client, asks } = fakeControlPlane();
    const released: Lease[] = [];
    const leases = new BudgetLeases(client, settings, "dp1", (lease, keep) => keep === 0n && released.push(lease));
    expect(leases.take("p", 100n)).toBeUndefined();
    expect(leases.take("p", 100n)).toBeUndefined();
    expect(leases.take("p", 100n)).toBeUndefined(); // the third request in the second makes it busy: ask
    await flush();
    expect(asks).toEqual([{ leaseId: expect.stringMatching(/^lease:dp1:/), projectId: "p", amount: 1000n, min: 200n }]);

    const lease = leases.take("p", 100n)!;
    expect(lease.remaining).toBe(900n);
    leases.take("q", 100n); // another project is not covered
    expect(leases.take("p", 300n)).toBe(lease);
    expect(lease.remaining).toBe(600n);
    expect(lease.inFlight).toBe(2);
    leases.finish(lease, 300n, 120n); // drew 120 of the 300 set aside
    expect(lease.remaining).toBe(780n);
    leases.finish(lease, 100n, 0n); // released: its share is back
    expect(lease.remaining).toBe(880n);
    expect(released).toEqual([]);
    leases.close();
  });

  it("a request that knows its debit keeps only that set aside while its draw is under way", async () => {
    const { client } = fakeControlPlane();
    const leases = new BudgetLeases(client, settings, "dp1", () => {});
    for (let i = 0; i < 3; i++) leases.take("p", 100n);
    await flush();
    const lease = leases.take("p", 300n)!;
    expect(lease.certainUntil).toBeGreaterThan(performance.now() + 400_000); // half of the 900 s TTL, from the ask
    leases.shrink(lease, 300n, 120n); // its cost is 120: 180 of its share is the lease's again now
    expect(lease.remaining).toBe(880n);
    expect(lease.setAsideNano).toBe(120n);
    expect(lease.inFlight).toBe(1);
    leases.finish(lease, 120n, 120n); // the draw landed
    expect(lease.remaining).toBe(880n);
    expect(lease.setAsideNano).toBe(0n);
    expect(lease.inFlight).toBe(0);
    leases.close();
  });

  it("asks for the next lease when a quarter of the current one is left, and moves to it when granted", async () => {
    const { client, asks } = fakeControlPlane();
    const released: Lease[] = [];
    const reduced: [Lease, bigint][] = [];
    const leases = new BudgetLeases(client, settings, "dp1", (lease, keep) =>
      keep === 0n ? released.push(lease) : reduced.push([lease, keep]),
    );
    for (let i = 0; i < 3; i++) leases.take("p", 100n);
    await flush();
    const first = leases.take("p", 100n)!;
    for (let i = 0; i < 6; i++) expect(leases.take("p", 100n)).toBe(first); // 300 left of 1000: no ask yet
    expect(asks).toHaveLength(1);
    expect(leases.take("p", 100n)).toBe(first); // 200 left: ask ahead
    expect(asks).toHaveLength(2);
    await flush();
    const second = leases.take("p", 100n)!;
    expect(second).not.toBe(first);
    expect(first.retired).toBe(true);
    expect(released).toEqual([]); // eight requests still in flight under the first
    expect(reduced).toEqual([[first, 800n]]); // it keeps only what they set aside
    for (let i = 0; i < 8; i++) leases.finish(first, 100n, 50n);
    expect(released).toEqual([first]);
    // Not reduced again as they finished: that is at most once a second (below).
    expect(reduced.map(([, keep]) => keep)).toEqual([800n]);
    leases.close();
  });

  /** Fake timers; a busy project's lease with `count` requests of 100 in flight, and what that lease's reduces keep. */
  async function requestsUnderLease(count: number) {
    vi.useFakeTimers();
    const { client } = fakeControlPlane();
    const reduced: bigint[] = [];
    let lease: Lease | undefined;
    // (A lease asked for ahead is granted after a change, and goes straight back: not this one.)
    const leases = new BudgetLeases(client, settings, "dp1", (given, keep) => given === lease && reduced.push(keep));
    for (let i = 0; i < 3; i++) leases.take("p", 100n);
    await vi.advanceTimersByTimeAsync(0);
    lease = leases.take("p", 100n)!;
    for (let i = 1; i < count; i++) leases.take("p", 100n);
    return { leases, lease, reduced };
  }

  it("reduces a retired lease again once what its requests keep has halved, at most once a second", async () => {
    const { leases, lease, reduced } = await requestsUnderLease(8); // eight requests in flight, one of them a long stream
    leases.projectChanged("p");
    expect(reduced).toEqual([800n]);
    for (let i = 0; i < 4; i++) leases.finish(lease, 100n, 10n);
    expect(reduced).toEqual([800n]); // halved, but within a second of the last reduce
    await vi.advanceTimersByTimeAsync(1_000); // the sweeper catches up
    expect(reduced).toEqual([800n, 400n]);
    for (let i = 0; i < 3; i++) leases.finish(lease, 100n, 10n);
    expect(reduced).toEqual([800n, 400n]);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(reduced).toEqual([800n, 400n, 100n]); // only the stream's share is left held
    leases.finish(lease, 100n, 10n);
    expect(reduced).toEqual([800n, 400n, 100n, 0n]); // the last one done: released whole
    leases.close();
  });

  it("during shutdown, a retired lease is still reduced as its requests finish, until the last one releases it", async () => {
    const { leases, lease, reduced } = await requestsUnderLease(4);
    leases.close();
    expect(reduced).toEqual([400n]);
    for (let i = 0; i < 2; i++) leases.finish(lease, 100n, 10n);
    await vi.advanceTimersByTimeAsync(1_000); // the sweeper runs on while the data plane drains
    expect(reduced).toEqual([400n, 200n]);
    for (let i = 0; i < 2; i++) leases.finish(lease, 100n, 10n);
    expect(reduced).toEqual([400n, 200n, 0n]); // the last one done: released whole
    expect(vi.getTimerCount()).toBeGreaterThan(0);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(vi.getTimerCount()).toBe(0); // and then the sweeper stops
  });

  it("retires a lease that cannot cover a request and releases it once its requests are done", async () => {
    const { client } = fakeControlPlane();
    const released: Lease[] = [];
    const reduced: bigint[] = [];
    const leases = new BudgetLeases(client, settings, "dp1", (lease, keep) => (keep === 0n ? released.push(lease) : reduced.push(keep)));
    for (let i = 0; i < 3; i++) leases.take("p", 100n);
    await flush();
    const lease = leases.take("p", 900n)!;
    expect(lease.remaining).toBe(100n);
    expect(leases.take("p", 200n)).toBeUndefined(); // does not fit: retired, this request reserves itself
    expect(lease.retired).toBe(true);
    expect(released).toEqual([]); // a request is still in flight under it
    expect(reduced).toEqual([900n]);
    expect(lease.setAsideNano).toBe(900n);
    leases.finish(lease, 900n, 900n);
    expect(lease.setAsideNano).toBe(0n);
    expect(released).toEqual([lease]);
    leases.close();
  });

  it("gives a lease back when idle, when too old, on a project change and on close; never twice", async () => {
    vi.useFakeTimers({ toFake: ["setInterval", "clearInterval", "Date"] });
    const { client } = fakeControlPlane();
    const released: string[] = [];
    const leases = new BudgetLeases(client, settings, "dp1", (lease, keep) => keep === 0n && released.push(lease.id));
    const busy = async (project: string) => {
      for (let i = 0; i < 3; i++) leases.take(project, 10n);
      await vi.advanceTimersByTimeAsync(0);
      return leases.take(project, 10n)!;
    };
    const idle = await busy("idle");
    leases.finish(idle, 10n, 10n);
    await vi.advanceTimersByTimeAsync(settings.idleMs + 1_100);
    expect(released).toEqual([idle.id]);

    const changed = await busy("changed");
    leases.finish(changed, 10n, 0n);
    leases.projectChanged("changed");
    expect(released).toEqual([idle.id, changed.id]);

    const old = await busy("old");
    leases.finish(old, 10n, 10n);
    for (let t = 0; t < settings.maxAgeMs; t += 1_000) {
      await vi.advanceTimersByTimeAsync(1_000);
      const lease = leases.take("old", 10n); // kept busy: never idle
      if (lease) leases.finish(lease, 10n, 10n);
    }
    await vi.advanceTimersByTimeAsync(1_000);
    const current = leases.take("old", 10n);
    expect(current).not.toBe(old); // too old to take new requests
    if (current) leases.finish(current, 10n, 10n);
    expect(released).toContain(old.id);

    leases.close();
    leases.close();
    expect(new Set(released).size).toBe(released.length);
    expect(leases.openCount).toBe(0);
  });

  it("a project busy within the last minute asks at the second request of its next burst (a lone request does not), and the burst waits for that ask", async () => {
    vi.useFakeTimers({ toFake: ["setInterval", "clearInterval", "Date"] });
    const { client, asks } = fakeControlPlane();
    const leases = new BudgetLeases(client, settings, "dp1", () => {});
    for (let i = 0; i < 3; i++) leases.take("p", 10n);
    expect(leases.askUnderWay("p")).toBeDefined(); // the request that made it busy can wait for it
    await leases.askUnderWay("p");
    const lease = leases.takeAfterAsk("p", 10n)!;
    expect(lease.inFlight).toBe(1);
    leases.finish(lease, 10n, 10n);
    await vi.advanceTimersByTimeAsync(settings.idleMs + 1_100); // idle: given back

    expect(leases.take("p", 10n)).toBeUndefined(); // 3 s later, a lone request: no ask
    expect(asks).toHaveLength(1);
    expect(leases.take("p", 10n)).toBeUndefined(); // a second one within the second: a burst, it asks
    expect(asks).toHaveLength(2);
    await leases.askUnderWay("p");
    const fresh = leases.takeAfterAsk("p", 10n)!;
    expect(fresh).toBeDefined();
    expect(asks).toHaveLength(2); // takeAfterAsk does not count the request again
    // A waiter the new lease cannot cover reserves on its own; the lease stays for the rest of the burst.
    expect(leases.takeAfterAsk("p", fresh.remaining + 1n)).toBeUndefined();
    expect(leases.takeAfterAsk("p", 10n)).toBe(fresh);

    leases.projectChanged("p");
    await vi.advanceTimersByTimeAsync(61_000); // quiet for a minute: forgotten
    expect(leases.take("p", 10n)).toBeUndefined();
    expect(leases.take("p", 10n)).toBeUndefined();
    expect(leases.askUnderWay("p")).toBeUndefined();
    expect(asks).toHaveLength(2);
    leases.close();
  });

  it("a refused ask forgets that the project was busy: its next burst reserves until it is busy again", async () => {
    vi.useFakeTimers({ toFake: ["setInterval", "clearInterval", "Date"] });
    const { client, asks } = fakeControlPlane(() => undefined);
    const leases = new BudgetLeases(client, settings, "dp1", () => {});
    for (let i = 0; i < 3; i++) leases.take("p", 10n);
    await leases.askUnderWay("p");
    await vi.advanceTimersByTimeAsync(1_100); // past the pause after a refusal
    for (let i = 0; i < 2; i++) leases.take("p", 10n);
    expect(asks).toHaveLength(1);
    leases.take("p", 10n); // busy again (3 in a second): asks
    expect(asks).toHaveLength(2);
    leases.close();
  });

  it("a refused lease leaves the project reserving per request, and it asks again only after a pause", async () => {
    vi.useFakeTimers({ toFake: ["setInterval", "clearInterval", "Date"] });
    const { client, asks } = fakeControlPlane(() => undefined);
    const leases = new BudgetLeases(client, settings, "dp1", () => {});
    for (let i = 0; i < 10; i++) leases.take("p", 10n);
    await vi.advanceTimersByTimeAsync(0);
    for (let i = 0; i < 10; i++) expect(leases.take("p", 10n)).toBeUndefined();
    expect(asks).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1_100);
    for (let i = 0; i < 3; i++) leases.take("p", 10n);
    await vi.advanceTimersByTimeAsync(0);
    expect(asks).toHaveLength(2);
    leases.close();
  });

  it("a lease granted after its project changed goes straight back; minRequestsPerSecond 0 never leases", async () => {
    let answer: (value: LeaseResponse__Output) => void = () => {};
    const client = {
      lease: vi.fn(
        () =>
          new Promise<LeaseResponse__Output>((resolve) => {
            answer = resolve;
          }),
      ),
    };
    const released: string[] = [];
    const leases = new BudgetLeases(client, settings, "dp1", (lease, keep) => keep === 0n && released.push(lease.id));
    for (let i = 0; i < 3; i++) leases.take("p", 10n);
    leases.projectChanged("p");
    answer({ granted: true, amountNano: "100", ttlSeconds: 900, drawEntries: true });
    await flush();
    expect(released).toHaveLength(1);
    expect(leases.take("p", 10n)).toBeUndefined();
    leases.close();
    const asked = vi.mocked(client.lease).mock.calls.length;

    const off = new BudgetLeases(client, { ...settings, minRequestsPerSecond: 0 }, "dp1", () => {});
    for (let i = 0; i < 100; i++) expect(off.take("p", 10n)).toBeUndefined();
    expect(client.lease).toHaveBeenCalledTimes(asked);
  });
});
