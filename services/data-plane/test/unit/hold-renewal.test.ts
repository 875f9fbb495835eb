// The renewal of holds of running requests (billing/hold-renewal.ts): each hold once a third of its
// TTL old, all in one call; closed ones dropped; a failed round tried again; never past a day.
import { afterEach, describe, expect, it, vi } from "vitest";
import { HoldRenewal, MAX_RENEWED_MS } from "../../src/billing/hold-renewal";

function fakeControlPlane() {
  const calls: string[][] = [];
  let closed = new Set<string>();
  let fail = false;
  const renew = vi.fn(async (holds: { requestId: string; projectId: string }[]) => {
    calls.push(holds.map((hold) => hold.requestId));
    if (fail) throw new Error("unavailable");
    return { active: holds.map((hold) => !closed.has(hold.requestId)), ttlSeconds: 3 };
  });
  return {
    client: { renew },
    calls,
    close: (ids: string[]) => {
      closed = new Set(ids);
    },
    failing: (value: boolean) => {
      fail = value;
    },
  };
}

const log = { warn: () => {} };

describe("hold renewal", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("renews every hold a third of its TTL old in one call, and stops renewing one the control plane closed", async () => {
    vi.useFakeTimers();
    const { client, calls, close } = fakeControlPlane();
    const renewal = new HoldRenewal(client, log);
    const leaseAnswers: boolean[] = [];
    renewal.track("a", "p", 3);
    renewal.track("lease-1", "p", 3, (active) => leaseAnswers.push(active));
    await vi.advanceTimersByTimeAsync(500);
    expect(calls).toEqual([]); // not a third of the TTL old yet
    renewal.track("b", "p", 3);
    await vi.advanceTimersByTimeAsync(600); // 1.1 s: "a" and the lease are due, "b" (0.6 s) is not
    expect(calls).toEqual([["a", "lease-1"]]);
    expect(leaseAnswers).toEqual([true]);
    close(["lease-1"]);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(calls.slice(1).flat().sort()).toEqual(["a", "b", "lease-1"]);
    expect(leaseAnswers).toEqual([true, false]);
    expect(renewal.trackedCount).toBe(2); // the closed lease is not renewed any more
    renewal.forget("a");
    renewal.forget("b");
    await vi.advanceTimersByTimeAsync(3_000);
    expect(calls.flat().filter((id) => id === "lease-1")).toHaveLength(2);
    expect(renewal.trackedCount).toBe(0);
    renewal.stop();
  });

  it("sends each renewal of a lease well before half its TTL since the last, whatever the ticks' alignment", async () => {
    vi.useFakeTimers();
    const { client } = fakeControlPlane();
    const renewal = new HoldRenewal(client, log);
    const sent: number[] = [performance.now()];
    await vi.advanceTimersByTimeAsync(77); // the lease placed between two ticks of an earlier hold's timer
    renewal.track("earlier", "p", 3);
    await vi.advanceTimersByTimeAsync(123);
    sent[0] = performance.now();
    renewal.track("lease-1", "p", 3, (_, sentAt) => sent.push(sentAt));
    await vi.advanceTimersByTimeAsync(10_000);
    const gaps = sent.slice(1).map((at, index) => at - sent[index]!);
    expect(gaps.length).toBeGreaterThan(5);
    // Half of the 3 s TTL is the lease's certainty; a quarter of a second is left for the call itself.
    expect(Math.max(...gaps)).toBeLessThanOrEqual(1_250);
    renewal.stop();
  });

  it("tries a failed round again at the next tick, and gives a hold up after a day", async () => {
    vi.useFakeTimers();
    const { client, calls, failing } = fakeControlPlane();
    const renewal = new HoldRenewal(client, log);
    renewal.track("a", "p", 3);
    failing(true);
    await vi.advanceTimersByTimeAsync(1_100);
    const failedCalls = calls.length;
    expect(failedCalls).toBeGreaterThan(0);
    failing(false);
    await vi.advanceTimersByTimeAsync(500); // the next ticks, not a third of the TTL later
    expect(calls.length).toBeGreaterThan(failedCalls);
    expect(renewal.trackedCount).toBe(1);
    await vi.advanceTimersByTimeAsync(MAX_RENEWED_MS);
    expect(renewal.trackedCount).toBe(0);
    renewal.stop();
  });

  it("does not renew a hold whose control plane gave no TTL (one older than renewals)", async () => {
    vi.useFakeTimers();
    const { client, calls } = fakeControlPlane();
    const renewal = new HoldRenewal(client, log);
    renewal.track("a", "p", 0);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(calls).toEqual([]);
    expect(renewal.trackedCount).toBe(0);
  });
});
