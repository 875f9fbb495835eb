import { describe, expect, it, vi } from "vitest";
import { CallCoalescer } from "../../src/call-coalescer";

/** A remote call whose answers the test releases by hand, recording each batch it was sent. */
function manualCall() {
  const batches: number[][] = [];
  const answers: ((results: (number | Error)[] | Error) => void)[] = [];
  const call = (items: number[]) => {
    batches.push(items);
    return new Promise<(number | Error)[]>((resolve, reject) =>
      answers.push((results) => (results instanceof Error ? reject(results) : resolve(results))),
    );
  };
  return { batches, answers, call };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe("CallCoalescer", () => {
  it("sends a lone item at once, and what arrives while a call is in flight together in the next", async () => {
    const { batches, answers, call } = manualCall();
    const coalescer = new CallCoalescer(call, 100);
    const first = coalescer.submit(1);
    expect(batches).toEqual([[1]]);
    const rest = [2, 3, 4].map((item) => coalescer.submit(item));
    expect(batches).toEqual([[1]]);
    answers[0]!([10]);
    expect(await first).toBe(10);
    await tick();
    expect(batches).toEqual([[1], [2, 3, 4]]);
    answers[1]!([20, 30, 40]);
    expect(await Promise.all(rest)).toEqual([20, 30, 40]);
  });

  it("splits a long queue into calls of at most maxBatch items, in order", async () => {
    const { batches, answers, call } = manualCall();
    const coalescer = new CallCoalescer(call, 2);
    const all = [1, 2, 3, 4, 5].map((item) => coalescer.submit(item));
    for (let index = 0; index < 3; index++) {
      await tick();
      answers[index]!(batches[index]!.map((item) => item * 10));
    }
    expect(batches).toEqual([[1], [2, 3], [4, 5]]);
    expect(await Promise.all(all)).toEqual([10, 20, 30, 40, 50]);
  });

  it("fails one item alone on its Error, every item of a call that throws, and items left unanswered", async () => {
    const { answers, call } = manualCall();
    const coalescer = new CallCoalescer(call, 100);
    const lone = coalescer.submit(1);
    const [a, b, c] = [2, 3, 4].map((item) => coalescer.submit(item));
    answers[0]!(new Error("unreachable"));
    await expect(lone).rejects.toThrow("unreachable");
    await tick();
    answers[1]!([20, new Error("this one failed")]);
    expect(await a).toBe(20);
    await expect(b).rejects.toThrow("this one failed");
    await expect(c).rejects.toThrow("a batch of 3 was answered with 2 results");
    // And it goes on working.
    const after = coalescer.submit(5);
    await tick();
    answers[2]!([50]);
    expect(await after).toBe(50);
  });

  it("tells a receiver sent with an item its answer or failure, in the same calls as submitted items", async () => {
    const { batches, answers, call } = manualCall();
    const coalescer = new CallCoalescer(call, 100);
    const told: string[] = [];
    const receiver = (name: string) => ({
      answered: (result: number) => told.push(`${name}=${result}`),
      failed: (error: unknown) => told.push(`${name}!${(error as Error).message}`),
    });
    coalescer.send(1, receiver("one"));
    const two = coalescer.submit(2);
    coalescer.send(3, receiver("three"));
    coalescer.send(4, receiver("four"));
    answers[0]!([10]);
    await tick();
    expect(batches).toEqual([[1], [2, 3, 4]]);
    answers[1]!([20, new Error("this one failed")]);
    expect(await two).toBe(20);
    expect(told).toEqual(["one=10", "three!this one failed", "four!a batch of 3 was answered with 2 results"]);
    coalescer.send(5, receiver("five"));
    answers[2]!(new Error("unreachable"));
    await tick();
    expect(told.at(-1)).toBe("five!unreachable");
  });

  it("with a minimum interval, starts calls at most that often, unless a full batch waits", async () => {
    vi.useFakeTimers();
    try {
      const { batches, answers, call } = manualCall();
      const coalescer = new CallCoalescer(call, 3, 20);
      const first = coalescer.submit(1); // the first goes at once
      expect(batches).toEqual([[1]]);
      answers[0]!([10]);
      expect(await first).toBe(10);
      const next = [2, 3].map((item) => coalescer.submit(item));
      await vi.advanceTimersByTimeAsync(19);
      expect(batches).toEqual([[1]]); // within 20 ms of the last call: they wait, and gather
      await vi.advanceTimersByTimeAsync(1);
      expect(batches).toEqual([[1], [2, 3]]);
      answers[1]!([20, 30]);
      expect(await Promise.all(next)).toEqual([20, 30]);
      const full = [4, 5, 6].map((item) => coalescer.submit(item)); // a full batch does not wait
      await vi.advanceTimersByTimeAsync(0);
      expect(batches).toEqual([[1], [2, 3], [4, 5, 6]]);
      answers[2]!([40, 50, 60]);
      expect(await Promise.all(full)).toEqual([40, 50, 60]);
    } finally {
      vi.useRealTimers();
    }
  });

  it("with a minimum interval, sends what is queued without waiting for it once a caller hurries, after the call in flight", async () => {
    vi.useFakeTimers();
    try {
      const { batches, answers, call } = manualCall();
      const coalescer = new CallCoalescer(call, 100, 1_000);
      const first = coalescer.submit(1);
      answers[0]!([10]);
      expect(await first).toBe(10);
      // Waiting for the interval: a hurry sends it now.
      const second = coalescer.submit(2);
      await vi.advanceTimersByTimeAsync(10);
      expect(batches).toEqual([[1]]);
      coalescer.hurry();
      await vi.advanceTimersByTimeAsync(0);
      expect(batches).toEqual([[1], [2]]);
      // Hurried while a call is in flight: the next goes as soon as it is answered, not an interval after.
      const third = coalescer.submit(3);
      coalescer.hurry();
      await vi.advanceTimersByTimeAsync(10);
      expect(batches).toEqual([[1], [2]]);
      answers[1]!([20]);
      expect(await second).toBe(20);
      await vi.advanceTimersByTimeAsync(0);
      expect(batches).toEqual([[1], [2], [3]]);
      answers[2]!([30]);
      expect(await third).toBe(30);
      // Once sent, the hurry is spent: the next item waits for the interval again.
      void coalescer.submit(4);
      await vi.advanceTimersByTimeAsync(500);
      expect(batches).toEqual([[1], [2], [3]]);
      await vi.advanceTimersByTimeAsync(500);
      expect(batches).toEqual([[1], [2], [3], [4]]);
      answers[3]!([40]);
    } finally {
      vi.useRealTimers();
    }
  });
});
