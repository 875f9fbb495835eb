import { describe, expect, it } from "vitest";
import { LocalRateLimiter } from "../../src/limits/local-rate-limiter";

describe("LocalRateLimiter (sliding one-minute window)", () => {
  function limiterAt(start: number) {
    const clock = { now: start };
    return { clock, limiter: new LocalRateLimiter(60_000, () => clock.now) };
  }

  it("admits up to the limit, then refuses with the seconds until the oldest admission leaves", () => {
    const { clock, limiter } = limiterAt(1_000_000);
    expect(limiter.checkNow("p", 3)).toEqual({ allowed: true, limit: 3, remaining: 2, resetSeconds: 60 });
    clock.now += 10_000;
    expect(limiter.checkNow("p", 3).remaining).toBe(1);
    expect(limiter.checkNow("p", 3).remaining).toBe(0);
    clock.now += 500;
    expect(limiter.checkNow("p", 3)).toEqual({ allowed: false, limit: 3, remaining: 0, resetSeconds: 50 }); // 60 - 10.5, rounded up
  });

  it("admits again once the window slid past the oldest admission, not before", () => {
    const { clock, limiter } = limiterAt(0);
    limiter.checkNow("p", 1);
    clock.now = 59_999;
    expect(limiter.checkNow("p", 1).allowed).toBe(false);
    clock.now = 60_000;
    expect(limiter.checkNow("p", 1).allowed).toBe(true);
  });

  it("never admits more than the limit in any window of a minute", () => {
    const { clock, limiter } = limiterAt(0);
    const admitted: number[] = [];
    for (let step = 0; step < 3000; step++) {
      clock.now = step * 97; // about 3.7 minutes of steady arrivals
      if (limiter.checkNow("p", 100).allowed) admitted.push(clock.now);
    }
    for (let index = 100; index < admitted.length; index++)
      expect(admitted[index]! - admitted[index - 100]!).toBeGreaterThanOrEqual(60_000);
    expect(admitted.length).toBeGreaterThan(300);
  });

  it("stays exact for a busy project whose window holds thousands of admissions (expired ones dropped in bulk)", () => {
    const { clock, limiter } = limiterAt(0);
    const admitted: number[] = [];
    let first = 0; // the oldest admission still in the window
    let refused = 0;
    for (let step = 0; step < 40_000; step++) {
      clock.now = step * 7; // 280 s of arrivals every 7 ms, against 5,000 a minute
      while (first < admitted.length && admitted[first]! <= clock.now - 60_000) first++;
      const inWindow = admitted.length - first;
      const decision = limiter.checkNow("p", 5_000);
      // Refused exactly when the window is full; remaining counts this admission.
      expect(decision.allowed).toBe(inWindow < 5_000);
      if (decision.allowed) admitted.push(clock.now);
      else refused++;
      expect(decision.remaining).toBe(5_000 - (admitted.length - first));
    }
    expect(admitted.length).toBeGreaterThanOrEqual(5_000 * 4);
    expect(refused).toBeGreaterThan(0);
  });

  it("counts projects separately and refused checks not at all", () => {
    const { limiter } = limiterAt(0);
    expect(limiter.checkNow("a", 1).allowed).toBe(true);
    expect(limiter.checkNow("a", 1).allowed).toBe(false);
    expect(limiter.checkNow("a", 1).allowed).toBe(false);
    expect(limiter.checkNow("b", 1).allowed).toBe(true);
  });

  it("counts admissions recorded from elsewhere (Redis's, for this replica) like its own, until they leave the window", () => {
    const { clock, limiter } = limiterAt(0);
    for (let index = 0; index < 3; index++) limiter.record("p");
    clock.now = 30_000;
    expect(limiter.checkNow("p", 4)).toEqual({ allowed: true, limit: 4, remaining: 0, resetSeconds: 30 });
    expect(limiter.checkNow("p", 4).allowed).toBe(false);
    clock.now = 60_000; // the three recorded ones have left the window
    expect(limiter.checkNow("p", 4)).toEqual({ allowed: true, limit: 4, remaining: 2, resetSeconds: 30 });
  });

  it("lists, per project, the admissions from a time on that are still in the window", () => {
    const { clock, limiter } = limiterAt(0);
    limiter.record("a"); // 0
    clock.now = 10_000;
    limiter.checkNow("a", 10);
    limiter.checkNow("b", 10);
    clock.now = 20_000;
    limiter.checkNow("a", 10);
    expect(limiter.admittedSince(10_000)).toEqual(
      new Map([
        ["a", [10_000, 20_000]],
        ["b", [10_000]],
      ]),
    );
    clock.now = 70_000; // the admissions at 0 and 10,000 have left the window
    expect(limiter.admittedSince(0)).toEqual(new Map([["a", [20_000]]]));
    expect(limiter.admittedSince(20_001)).toEqual(new Map());
  });
});
