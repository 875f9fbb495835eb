// RequestBilling's budget-lease paths against a scripted control plane: draws
// that fail and land later finish their request once, lease asks whose answer
// is lost are released, and shutdown releases a lease granted while it drains.
import { decodeDrawEntry, encodeOlderEntry } from "@gateway/proto";
import { afterEach, describe, expect, it, vi } from "vitest";
import { journalEntryOf } from "../../src/billing/local-draw-journal";
import { RequestBilling } from "../../src/billing/request-billing";
import type {
  DrawResponse__Output,
  LeaseResponse__Output,
  ReleaseResponse__Output,
  ReserveResponse__Output,
  SettleResponse__Output,
} from "@gateway/proto";
import type { BillingLog } from "../../src/billing/billing-log";
import type { DrawCall } from "../../src/control-plane/control-plane-client";
import { controlPlaneUnavailable } from "../../src/errors";

const settings = { minRequestsPerSecond: 2, requestsPerLease: 10, maxAgeMs: 60_000, idleMs: 60_000, drawIntervalMs: 0, replicaId: "dp" };
const log: BillingLog = { warn: () => {}, error: () => {} };

function controlPlane(options: { leaseAnswer?: () => Promise<LeaseResponse__Output>; drawnNano?: string; renewFails?: boolean } = {}) {
  const calls = {
    leases: [] as string[],
    releases: [] as string[] /* of leases, whole */,
    reductions: [] as [string, bigint][],
    draws: [] as DrawCall[],
  };
  let drawFailures = 0;
  let failReductions = false;
  let drawDelayMs = 0;
  const fake = {
    reserve: vi.fn(
      async (): Promise<ReserveResponse__Output> => ({
        outcome: "RESERVED",
        reservedNano: "100",
        availableNano: "0",
        retryAfterSeconds: 0,
        ttlSeconds: 900,
      }),
    ),
    checkSpend: vi.fn(
      async (): Promise<ReserveResponse__Output> => ({
        outcome: "RESERVED",
        reservedNano: "0",
        availableNano: "0",
        retryAfterSeconds: 0,
        ttlSeconds: 0,
      }),
    ),
    settle: vi.fn(async (): Promise<SettleResponse__Output> => ({ outcome: "SETTLED", debitedNano: "0" })),
    renew: vi.fn(async (holds: unknown[]) => {
      if (options.renewFails) throw controlPlaneUnavailable();
      return { active: holds.map(() => true), ttlSeconds: 900 };
    }),
    lease: vi.fn(async (leaseId: string): Promise<LeaseResponse__Output> => {
      calls.leases.push(leaseId);
      return options.leaseAnswer ? options.leaseAnswer() : { granted: true, amountNano: "1000", ttlSeconds: 900, drawEntries: true };
    }),
    draw: vi.fn(async (draws: DrawCall[]): Promise<DrawResponse__Output> => {
      calls.draws.push(...draws);
      if (drawDelayMs) await new Promise((resolve) => setTimeout(resolve, drawDelayMs));
      if (drawFailures > 0) {
        drawFailures--;
        throw new Error("unavailable");
      }
      return { results: draws.map((draw) => ({ outcome: "SETTLED", debitedNano: options.drawnNano ?? String(draw.amountNano) })) };
    }),
    release: vi.fn(async (requestId: string, _projectId: string, keepNano = 0n): Promise<ReleaseResponse__Output> => {
      if (keepNano > 0n) {
        calls.reductions.push([requestId, keepNano]);
        if (failReductions) throw new Error("unavailable");
        return { outcome: "REDUCED" };
      }
      if (requestId.startsWith("lease:")) calls.releases.push(requestId); // per-request releases are not of interest here
      return { outcome: "RELEASED" };
    }),
  };
  return {
    client: fake,
    calls,
    failReductions: () => {
      failReductions = true;
    },
    failDraws: (count: number, delayMs = 0) => {
      drawFailures = count;
      drawDelayMs = delayMs;
    },
  };
}

const hold = (requestId: string) => ({ requestId, projectId: "p", amountNano: 100n, minAmountNano: 0n, model: "m", accessPath: "openai" });
const settle = (requestId: string, amountNano: bigint) => ({
  requestId,
  projectId: "p",
  amountNano,
  model: "m",
  accessPath: "openai",
  inputTokens: 1,
  outputTokens: 1,
});

/** A draw journal that keeps what `append` says; the rest as a healthy Redis journal's (landed and forget recorded). */
function fakeJournal(
  append: (draw: DrawCall) => Promise<boolean>,
  overrides: { mode?: string; circuit?: { open: boolean }; takeRecovered?: () => DrawCall[] } = {},
) {
  return {
    stats: { kept: 0, keptLocally: 0, failed: 0, bypassed: 0, recovered: overrides.takeRecovered?.().length ?? 0 },
    mode: overrides.mode ?? "redis",
    circuit: overrides.circuit ?? { open: false },
    append,
    landed: vi.fn(),
    forget: vi.fn(),
    takeRecovered: overrides.takeRecovered ?? ((): DrawCall[] => []),
    close: async () => {},
  };
}

async function busyWithLease(billing: RequestBilling): Promise<void> {
  for (let i = 0; i < 2; i++) {
    await billing.reserve(hold(`warm${i}`));
    await billing.release(`warm${i}`, "p");
  }
  await vi.advanceTimersByTimeAsync(0);
}

/** Fake timers; requests "a" and "b" under a lease, and every Draw call from now on takes 5 s. */
async function twoLeasedWithSlowDraws(options: { drawnNano?: string } = {}) {
  vi.useFakeTimers();
  const { client, calls, failDraws } = controlPlane(options);
  const billing = new RequestBilling(client, log, settings);
  await busyWithLease(billing);
  await billing.reserve(hold("a"));
  await billing.reserve(hold("b"));
  failDraws(0, 5_000);
  return { calls, billing };
}

describe("request billing under budget leases", () => {
  afterEach(() => vi.useRealTimers());

  it("a draw that fails, then lands in the background after overlapping retries, gives its share back to the lease once", async () => {
    vi.useFakeTimers();
    const { client, calls, failDraws } = controlPlane();
    const billing = new RequestBilling(client, log, settings);
    await busyWithLease(billing);
    expect(calls.leases).toHaveLength(1);

    await billing.reserve(hold("a"));
    await billing.reserve(hold("b")); // two requests under the lease
    // Every call fails for a while, and each takes 7 s: background rounds (every 5 s) would overlap.
    failDraws(6, 7_000);
    const told = billing.settle(settle("a", 40n));
    await vi.advanceTimersByTimeAsync(40_000);
    expect(await told).toBe(40n); // the client is told the cost; the draw is pending
    failDraws(0, 7_000);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(billing.pendingCount).toBe(0);
    // "b" is still in flight: the lease must not have been released by a double finish.
    expect(calls.releases).toEqual([]);
    // Retired meanwhile (too old), it was reduced to what "b" set aside.
    expect(calls.reductions).toEqual([[calls.leases[0], 100n]]);
    failDraws(0, 0);
    await billing.settle(settle("b", 30n));
    const flushed = billing.flush(1_000);
    await vi.advanceTimersByTimeAsync(2_000);
    await flushed;
    expect(calls.releases).toEqual([calls.leases[0]]);
    const drawnFor = new Set(calls.draws.map((draw) => draw.requestId));
    expect(drawnFor).toEqual(new Set(["a", "b"]));
  });

  it("answers a leased request at once with its cost, at most its share, and draws that amount in the background", async () => {
    // The control plane would answer 7: a client told 7 would have waited for the draw.
    const { calls, billing } = await twoLeasedWithSlowDraws({ drawnNano: "7" });
    expect(await billing.settle(settle("a", 40n))).toBe(40n);
    expect(await billing.settle(settle("b", 150n))).toBe(100n); // capped at what it set aside
    const flushed = billing.flush(30_000); // shutdown waits for the draws to land
    let done = false;
    void flushed.then(() => (done = true));
    await vi.advanceTimersByTimeAsync(4_000);
    expect(done).toBe(false);
    await vi.advanceTimersByTimeAsync(10_000);
    await flushed;
    // What each draw may debit at most is what the client was told.
    expect(calls.draws.map((draw) => [draw.requestId, draw.amountNano, draw.holdNano])).toEqual([
      ["a", 40n, 40n],
      ["b", 150n, 100n],
    ]);
    expect(calls.releases).toEqual([calls.leases[0]]);
  });

  it("with a draw journal, a leased answer leaves once its draw is journalled; one the journal cannot keep waits for the draw", async () => {
    vi.useFakeTimers();
    const { client, failDraws } = controlPlane({ drawnNano: "7" });
    const appended: string[] = [];
    let journalUp = true;
    let finishAppend: (kept: boolean) => void = () => {};
    const journal = fakeJournal((draw) => {
      appended.push(draw.requestId);
      return journalUp ? new Promise<boolean>((resolve) => (finishAppend = resolve)) : Promise.resolve(false);
    });
    const billing = new RequestBilling(client, log, settings, journal);
    await busyWithLease(billing);
    await billing.reserve(hold("a"));
    await billing.reserve(hold("b"));
    failDraws(0, 5_000); // every draw takes 5 s to land
    let answered: bigint | undefined;
    void billing.settle(settle("a", 40n)).then((debit) => (answered = debit));
    await vi.advanceTimersByTimeAsync(100);
    expect(appended).toEqual(["a"]);
    expect(answered).toBeUndefined(); // not before the journal has it
    finishAppend(true);
    await vi.advanceTimersByTimeAsync(0);
    expect(answered).toBe(40n); // then at once, its draw still under way
    journalUp = false;
    answered = undefined;
    void billing.settle(settle("b", 40n)).then((debit) => (answered = debit));
    await vi.advanceTimersByTimeAsync(4_000);
    expect(answered).toBeUndefined(); // the journal could not keep it: the answer waits for the draw
    await vi.advanceTimersByTimeAsync(10_000); // behind "a"'s draw, 5 s each
    expect(answered).toBe(7n); // the control plane's debit
    await billing.flush(30_000);
    expect(journal.landed.mock.calls).toEqual([["a"], ["b"]]); // each entry is let go once its draw landed
    expect(journal.forget).toHaveBeenCalledTimes(1); // the lease's journal goes once the lease is released
  });

  it("encodes each draw once: the journal keeps the entry the Draw sends; under an older control plane's lease, fields and the older journal form", async () => {
    for (const drawEntries of [true, false]) {
      vi.useFakeTimers();
      const { client, calls } = controlPlane({
        leaseAnswer: async () => ({ granted: true, amountNano: "1000", ttlSeconds: 900, drawEntries }),
      });
      const journalled: string[] = [];
      const journal = fakeJournal(async (draw) => {
        journalled.push(journalEntryOf(draw)); // the text RedisDrawJournal and LocalDrawJournal write
        return true;
      });
      const billing = new RequestBilling(client, log, settings, journal);
      await busyWithLease(billing);
      await billing.reserve({ ...hold("a"), keyId: "key-1" } as never);
      let answered: bigint | undefined;
      void billing
        .settle({ ...settle("a", 40n), costParts: [{ component: "input", units: 1, nano: 40n }] })
        .then((debit) => (answered = debit));
      await vi.advanceTimersByTimeAsync(1_000);
      expect(answered).toBe(40n);
      await billing.flush(30_000);
      const [sent] = calls.draws.filter((draw) => draw.requestId === "a");
      const fields = {
        ...settle("a", 40n),
        leaseId: sent!.leaseId,
        holdNano: 40n,
        costParts: [{ component: "input", units: 1, nano: 40n }],
      };
      if (drawEntries) {
        expect(journalled).toEqual([sent!.entry]);
        expect(decodeDrawEntry(sent!.entry!)).toMatchObject(fields);
      } else {
        expect(sent!.entry).toBeUndefined();
        expect(journalled).toEqual([encodeOlderEntry(sent!)]);
        expect(sent).toMatchObject(fields);
      }
      vi.useRealTimers();
    }
  });

  it("at start, draws its predecessor's journal file left are sent as they were written, retried until they land, each let go once landed", async () => {
    vi.useFakeTimers();
    const { client, calls, failDraws } = controlPlane();
    const recovered: DrawCall[] = ["old-1", "old-2"].map((requestId) => ({
      ...settle(requestId, 40n),
      leaseId: "lease:dead:1",
      holdNano: 40n,
      keyId: "key-1",
    }));
    const journal = fakeJournal(async () => true, { takeRecovered: () => recovered });
    const billing = new RequestBilling(client, log, settings, journal);
    failDraws(4); // the control plane unreachable for the first tries (outages are retried)
    expect(billing.replayRecovered()).toBe(2);
    expect(billing.drawsUnderWayCount).toBe(2);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(calls.draws.slice(-2)).toEqual(recovered); // the same draws, amounts and what each may debit
    expect(journal.landed.mock.calls.map(([id]) => id).sort()).toEqual(["old-1", "old-2"]);
    expect(billing.drawsUnderWayCount).toBe(0);
    await billing.flush(30_000);
  });

  it("an answer that waits for its draw (the journal could not keep it) has the draw sent at once, not at the next draw interval", async () => {
    vi.useFakeTimers();
    const { client, calls } = controlPlane({ drawnNano: "7" });
    // As while the journal's circuit is open and the local file cannot be written.
    const journal = fakeJournal(async () => false, { mode: "bypassed", circuit: { open: true } });
    const billing = new RequestBilling(client, log, { ...settings, drawIntervalMs: 1_000 }, journal);
    await busyWithLease(billing);
    await billing.reserve(hold("a"));
    await billing.reserve(hold("b"));
    expect(await billing.settle(settle("a", 40n))).toBe(7n); // the first Draw call goes at once in any case
    let answered: bigint | undefined;
    void billing.settle(settle("b", 40n)).then((debit) => (answered = debit));
    await vi.advanceTimersByTimeAsync(5);
    expect(calls.draws.map((draw) => draw.requestId)).toEqual(["a", "b"]); // not a second later
    expect(answered).toBe(7n);
    await billing.flush(30_000);
  });

  it("a request on a lease past half its TTL, not renewed since, waits for the control plane's answer (the lease may have expired)", async () => {
    vi.useFakeTimers();
    const { client } = controlPlane({
      leaseAnswer: async () => ({ granted: true, amountNano: "1000", ttlSeconds: 2, drawEntries: true }),
      drawnNano: "7",
      renewFails: true,
    });
    const billing = new RequestBilling(client, log, settings);
    await busyWithLease(billing);
    await billing.reserve(hold("a"));
    await vi.advanceTimersByTimeAsync(999);
    expect(await billing.settle(settle("a", 40n))).toBe(40n); // within the first second: at once
    await billing.reserve(hold("b"));
    await vi.advanceTimersByTimeAsync(1);
    expect(await billing.settle(settle("b", 40n))).toBe(7n); // the control plane's debit
  });

  it("a lease renewed while it holds money stays certain past half its first TTL: answers do not wait for their draws", async () => {
    vi.useFakeTimers();
    const { client } = controlPlane({
      leaseAnswer: async () => ({ granted: true, amountNano: "1000", ttlSeconds: 2, drawEntries: true }),
      drawnNano: "7",
    });
    const billing = new RequestBilling(client, log, settings);
    await busyWithLease(billing);
    await billing.reserve(hold("a"));
    await vi.advanceTimersByTimeAsync(1_500); // renewed at a third of the TTL (and again since)
    expect(client.renew).toHaveBeenCalled();
    expect(await billing.settle(settle("a", 40n))).toBe(40n); // at once: the renewal made it certain again
  });

  it("a reduce that never lands changes nothing else: the lease is released whole after its last request", async () => {
    vi.useFakeTimers();
    const { client, calls, failReductions } = controlPlane();
    const billing = new RequestBilling(client, log, settings);
    await busyWithLease(billing);
    await billing.reserve(hold("a"));
    failReductions();
    billing.leases.projectChanged("p"); // retired with "a" in flight: reduce to its 100, which fails
    await vi.advanceTimersByTimeAsync(30_000);
    expect(calls.reductions.length).toBeGreaterThan(1); // tried more than once, then given up
    expect(calls.releases).toEqual([]);
    expect(await billing.settle(settle("a", 40n))).toBe(40n);
    await vi.advanceTimersByTimeAsync(0);
    expect(calls.releases).toEqual([calls.leases[0]]);
    expect(billing.pendingCount).toBe(0);
  });

  it("warns when a reduce is answered by a whole release (an older control plane, or an expired lease), and its requests' answers then wait for their draws", async () => {
    vi.useFakeTimers();
    const { client } = controlPlane({ drawnNano: "7" });
    client.release.mockImplementation(async () => ({
      outcome: "RELEASED",
    }));
    const warn = vi.fn();
    const billing = new RequestBilling(client, { warn, error: () => {} }, settings);
    await busyWithLease(billing);
    await billing.reserve(hold("a"));
    billing.leases.projectChanged("p");
    await vi.advanceTimersByTimeAsync(0);
    expect(warn).toHaveBeenCalledWith(
      expect.objectContaining({ leaseId: expect.stringMatching(/^lease:/) }),
      expect.stringContaining("released the lease whole"),
    );
    expect(await billing.settle(settle("a", 40n))).toBe(7n); // a late draw: the control plane's debit
  });

  it("a retired lease keeps what its queued draws debit until they land, and is released whole only after", async () => {
    const { calls, billing } = await twoLeasedWithSlowDraws();
    expect(await billing.settle(settle("a", 40n))).toBe(40n);
    expect(billing.drawsUnderWayCount).toBe(1);
    billing.leases.projectChanged("p"); // retired: "a"'s draw is in flight, "b" has not ended
    expect(calls.reductions).toEqual([[calls.leases[0], 140n]]); // 40 to draw, 100 set aside by "b"
    expect(await billing.settle(settle("b", 0n))).toBe(0n); // costs nothing, but its draw is to land too
    await vi.advanceTimersByTimeAsync(4_000);
    expect(calls.releases).toEqual([]);
    expect(billing.drawsUnderWayCount).toBe(2);
    await vi.advanceTimersByTimeAsync(6_000); // "a"'s call lands, then "b"'s
    expect(calls.draws.map((draw) => draw.requestId)).toEqual(["a", "b"]);
    expect(billing.drawsUnderWayCount).toBe(0);
    expect(calls.releases).toEqual([calls.leases[0]]);
    // Reduced again when "a"'s draw landed: only "b"'s draw of 0 was left, and it kept 1 nano-USD,
    // not 0 (a keep of 0 is a whole release, with "b"'s draw still to land).
    expect(calls.reductions.map(([, keep]) => keep)).toEqual([140n, 1n]);
  });

  it("a lease ask whose answer is lost is released, so it never holds money until it expires", async () => {
    vi.useFakeTimers();
    const { client, calls } = controlPlane({ leaseAnswer: () => Promise.reject(new Error("deadline exceeded")) });
    const billing = new RequestBilling(client, log, settings);
    await busyWithLease(billing);
    await vi.advanceTimersByTimeAsync(10);
    expect(calls.leases).toHaveLength(1);
    expect(calls.releases).toEqual([calls.leases[0]]);
  });

  it("the requests of a burst wait for the lease ask under way instead of each reserving", async () => {
    vi.useFakeTimers();
    let grant: (value: LeaseResponse__Output) => void = () => {};
    const { client, calls } = controlPlane({ leaseAnswer: () => new Promise((resolve) => (grant = resolve)) });
    const billing = new RequestBilling(client, log, settings);
    await billing.reserve(hold("first")); // quiet so far: reserved per request
    const burst = ["b", "c", "d"].map((id) => billing.reserve(hold(id))); // "b" makes the project busy: one ask
    await vi.advanceTimersByTimeAsync(10);
    expect(calls.leases).toHaveLength(1);
    grant({ granted: true, amountNano: "1000", ttlSeconds: 900, drawEntries: true });
    expect(await Promise.all(burst)).toEqual([100n, 100n, 100n]);
    expect(client.reserve).toHaveBeenCalledTimes(1);
    expect(billing.leases.stats.leasedRequests).toBe(3);
  });

  it("a burst whose lease ask is refused, or not answered within 250 ms, reserves per request", async () => {
    vi.useFakeTimers();
    const refused = controlPlane({ leaseAnswer: async () => ({ granted: false, amountNano: "0", ttlSeconds: 0, drawEntries: true }) });
    const billing = new RequestBilling(refused.client, log, settings);
    await billing.reserve(hold("first"));
    expect(await Promise.all(["b", "c"].map((id) => billing.reserve(hold(id))))).toEqual([100n, 100n]);
    expect(refused.calls.leases).toHaveLength(1);
    expect(refused.client.reserve).toHaveBeenCalledTimes(3);

    const hung = controlPlane({ leaseAnswer: () => new Promise(() => {}) });
    const waiting = new RequestBilling(hung.client, log, settings);
    await waiting.reserve(hold("first"));
    let answered = 0;
    const burst = ["b", "c"].map((id) =>
      waiting.reserve(hold(id)).then((amount) => {
        answered++;
        return amount;
      }),
    );
    await vi.advanceTimersByTimeAsync(200);
    expect(answered).toBe(0); // waiting for the ask
    await vi.advanceTimersByTimeAsync(100);
    expect(await Promise.all(burst)).toEqual([100n, 100n]);
    expect(hung.client.reserve).toHaveBeenCalledTimes(3);
  });

  it("requests waiting for a lease ask when shutdown begins reserve per request, and the lease then granted goes straight back", async () => {
    vi.useFakeTimers();
    let grant: (value: LeaseResponse__Output) => void = () => {};
    const { client, calls } = controlPlane({ leaseAnswer: () => new Promise((resolve) => (grant = resolve)) });
    const billing = new RequestBilling(client, log, settings);
    await billing.reserve(hold("first"));
    const burst = ["b", "c"].map((id) => billing.reserve(hold(id)));
    await vi.advanceTimersByTimeAsync(10);
    expect(calls.leases).toHaveLength(1);
    billing.leases.close();
    grant({ granted: true, amountNano: "1000", ttlSeconds: 900, drawEntries: true });
    expect(await Promise.all(burst)).toEqual([100n, 100n]);
    expect(client.reserve).toHaveBeenCalledTimes(3);
    expect(billing.leases.stats.leasedRequests).toBe(0);
    await vi.advanceTimersByTimeAsync(0);
    expect(calls.releases).toEqual(calls.leases);
    expect(calls.releases).toHaveLength(1);
    expect(billing.leases.openCount).toBe(0);
  });

  it("a lease granted while the data plane drains goes straight back before flush returns", async () => {
    vi.useFakeTimers();
    let grant: (value: LeaseResponse__Output) => void = () => {};
    let asks = 0;
    const first = { granted: true, amountNano: "1000", ttlSeconds: 900, drawEntries: true };
    const { client, calls } = controlPlane({
      leaseAnswer: () => (asks++ === 0 ? Promise.resolve(first) : new Promise((resolve) => (grant = resolve))),
    });
    const billing = new RequestBilling(client, log, settings);
    await busyWithLease(billing);
    for (let i = 0; i < 8; i++) await billing.reserve(hold(`r${i}`)); // a fifth of the lease left: the next one is asked for ahead
    expect(calls.leases).toHaveLength(2);
    for (let i = 0; i < 8; i++) await billing.release(`r${i}`, "p");
    const flushed = billing.flush(5_000);
    await vi.advanceTimersByTimeAsync(100);
    grant({ granted: true, amountNano: "1000", ttlSeconds: 900, drawEntries: true });
    await vi.advanceTimersByTimeAsync(100);
    await flushed;
    expect(calls.releases).toEqual(calls.leases); // the first on close, the second as soon as it was granted
  });
});
