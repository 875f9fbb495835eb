import { afterEach, describe, expect, it, vi } from "vitest";
import { BudgetLeases, type Lease, type LeaseSettings } from "../../src/billing/budget-leases";
import type { ControlPlaneClientWrapper } from "../../src/control-plane/control-plane-client";

const settings: LeaseSettings = { minRequestsPerSecond: 3, requestsPerLease: 10, maxAgeMs: 10_000, idleMs: 2_000 };

/** A control plane that grants what is asked (or `grant`), and records lease asks. */
function fakeControlPlane(grant?: (amount: bigint) => bigint | undefined) {
  const asks: { leaseId: string; projectId: string; amount: bigint; min: bigint }[] = [];
  const client = {
    lease: vi.fn(async (leaseId: string, projectId: string, amount: bigint, min: bigint) => {
      asks.push({ leaseId, projectId, amount, min });
      const granted = grant ? grant(amount) : amount;
      return granted === undefined ? { granted: false, amountNano: "0", ttlSeconds: 0 } : { granted: true, amountNano: granted.toString(), ttlSeconds: 900 };
    }),
  };
  return { client: client as unknown as ControlPlaneClientWrapper, asks };
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

  it("asks for the next lease when a quarter of the current one is left, and moves to it when granted", async () => {
    const { client, asks } = fakeControlPlane();
    const released: Lease[] = [];
    const reduced: [Lease, bigint][] = [];
    const leases = new BudgetLeases(client, settings, "dp1", (lease, keep) => (keep === 0n ? released.push(lease) : reduced.push([lease, keep])));
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
    expect(reduced.map(([, keep]) => keep)).toEqual([800n, 400n, 200n, 100n]); // again as they finished
    leases.close();
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

  it("reduces a retired lease again each time what its requests in flight keep has halved", async () => {
    const { client } = fakeControlPlane();
    const calls: bigint[] = [];
    const leases = new BudgetLeases(client, settings, "dp1", (_lease, keep) => calls.push(keep));
    for (let i = 0; i < 3; i++) leases.take("p", 100n);
    await flush();
    const lease = leases.take("p", 100n)!;
    for (let i = 0; i < 3; i++) leases.take("p", 100n);
    leases.projectChanged("p"); // retired with four requests in flight
    expect(calls).toEqual([400n]);
    leases.finish(lease, 100n, 10n);
    expect(calls).toEqual([400n]); // 300 kept: not yet half
    leases.finish(lease, 100n, 10n);
    expect(calls).toEqual([400n, 200n]);
    leases.finish(lease, 100n, 10n);
    expect(calls).toEqual([400n, 200n, 100n]);
    leases.finish(lease, 100n, 10n);
    expect(calls).toEqual([400n, 200n, 100n, 0n]); // the last one done: released whole
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
    let answer: (value: unknown) => void = () => {};
    const client = { lease: vi.fn(() => new Promise((resolve) => (answer = resolve))) } as unknown as ControlPlaneClientWrapper;
    const released: string[] = [];
    const leases = new BudgetLeases(client, settings, "dp1", (lease, keep) => keep === 0n && released.push(lease.id));
    for (let i = 0; i < 3; i++) leases.take("p", 10n);
    leases.projectChanged("p");
    answer({ granted: true, amountNano: "100", ttlSeconds: 900 });
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
