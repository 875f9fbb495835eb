// The shared per-minute limit against a Redis of the test's own: checks that
// arrive together share script calls but are each answered exactly, in order;
// a Redis that stops answering is replaced by the local fallback within the
// timeout; this process being busy is not mistaken for Redis being slow.
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RedisRateLimiter } from "../../src/limits/redis-rate-limiter";
import { startOwnRedis, type OwnRedis } from "../harness/redis-server";

describe("RedisRateLimiter", () => {
  let redis: OwnRedis;
  let admin: Redis;
  const limiters: RedisRateLimiter[] = [];

  beforeAll(async () => {
    redis = await startOwnRedis();
    admin = new Redis(redis.url);
  });

  afterAll(async () => {
    for (const limiter of limiters) await limiter.close();
    admin?.disconnect();
    await redis?.stop();
  });

  async function limiter(replicaId: string): Promise<RedisRateLimiter> {
    const created = new RedisRateLimiter(redis.url, replicaId, 60_000);
    limiters.push(created);
    while (created.mode !== "redis" || (await admin.zcard("gateway:ratelimit:replicas")) < limiters.length) await new Promise((resolve) => setTimeout(resolve, 20));
    return created;
  }

  /** Script calls Redis has run so far (EVALSHA, and EVAL the first time a script is sent). */
  async function scriptCalls(): Promise<number> {
    const stats = await admin.info("commandstats");
    return [...stats.matchAll(/^cmdstat_eval(?:sha)?:calls=(\d+)/gm)].reduce((sum, match) => sum + Number(match[1]), 0);
  }

  it("answers a burst from several projects exactly and in order, in a few script calls", async () => {
    const checker = await limiter("replica-burst");
    const before = await scriptCalls();
    const projects = ["alpha", "beta", "gamma"];
    const decisions = await Promise.all(Array.from({ length: 60 }, (_, index) => checker.check(projects[index % 3]!, 7, `burst-${index}`)));
    for (const [which, project] of projects.entries()) {
      const own = decisions.filter((_, index) => index % 3 === which);
      // The first 7 of each project's 20 are admitted, in the order they were asked.
      expect(own.map((decision) => decision.allowed)).toEqual([...Array(7).fill(true), ...Array(13).fill(false)]);
      expect(own.map((decision) => decision.remaining)).toEqual([6, 5, 4, 3, 2, 1, 0, ...Array(13).fill(0)]);
      expect(own.every((decision) => decision.limit === 7 && decision.resetSeconds >= 59 && decision.resetSeconds <= 60)).toBe(true);
      expect(await admin.zcard(`gateway:ratelimit:${project}`)).toBe(7);
    }
    expect(checker.fallbackChecks).toBe(0);
    // The first check goes alone; the 59 that arrived meanwhile share the next call.
    expect((await scriptCalls()) - before).toBeLessThanOrEqual(3);
  });

  it("answers from the local fallback within the timeout while Redis does not answer, and from Redis again after", async () => {
    const checker = await limiter("replica-pause");
    redis.pause();
    try {
      const timed = async (requestId: string) => {
        const started = performance.now();
        const decision = await checker.check("paused", 100, requestId);
        return { decision, waitedMs: performance.now() - started };
      };
      const first = timed("paused-1");
      // Asked while the first one's call hangs: it queues behind it, and still gives up on its own time.
      await new Promise((resolve) => setTimeout(resolve, 150));
      const second = await timed("paused-2");
      for (const { decision, waitedMs } of [await first, second]) {
        expect(decision.allowed).toBe(true);
        expect(waitedMs).toBeGreaterThanOrEqual(240);
        expect(waitedMs).toBeLessThan(1_000); // not the hung call's 2 s
      }
      expect(checker.fallbackChecks).toBe(2);
      expect(checker.mode).toMatch(/^local fallback/);
    } finally {
      redis.resume();
    }
    await expect.poll(async () => (await checker.check("paused", 100, `paused-${performance.now()}`)) && checker.mode, { timeout: 5_000 }).toBe("redis");
  });

  it("does not take this process's own stall for a Redis timeout, for a check in flight or one queued behind it", async () => {
    const checker = await limiter("replica-stall");
    await checker.check("stalled", 100, "stalled-warm-up"); // the script is in Redis's cache: one round trip per call
    const inFlight = checker.check("stalled", 100, "stalled-1");
    const queued = checker.check("stalled", 100, "stalled-2"); // waits for the first call to come back
    // Busy for longer than the timeout right after sending: Redis's answer waits on the socket.
    const until = performance.now() + 600;
    while (performance.now() < until);
    expect((await inFlight).allowed).toBe(true);
    expect((await queued).allowed).toBe(true);
    expect(checker.fallbackChecks).toBe(0);
    expect(await admin.zcard("gateway:ratelimit:stalled")).toBe(3);
  });

  it("does not send the checks whose callers gave up while Redis did not answer", async () => {
    const checker = await limiter("replica-abandon");
    await checker.check("abandoned", 100, "abandoned-warm-up");
    redis.pause();
    try {
      const decisions = await Promise.all([0, 1, 2].map((index) => checker.check("abandoned", 100, `abandoned-${index}`)));
      expect(decisions.every((decision) => decision.allowed)).toBe(true);
      expect(checker.fallbackChecks).toBe(3);
    } finally {
      redis.resume();
    }
    // The first one's call was already sent and lands once Redis answers; the two queued behind it were never sent.
    await expect.poll(async () => (await checker.check("abandoned", 100, `abandoned-after-${performance.now()}`)) && checker.mode, { timeout: 5_000 }).toBe("redis");
    const members = await admin.zrange("gateway:ratelimit:abandoned", "0", "-1");
    expect(members).toContain("abandoned-0");
    expect(members).not.toContain("abandoned-1");
    expect(members).not.toContain("abandoned-2");
  });
});
