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
    while (created.mode !== "redis" || (await admin.zcard("gateway:ratelimit:replicas")) < limiters.length)
      await new Promise((resolve) => setTimeout(resolve, 20));
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
    await expect
      .poll(async () => (await checker.check("paused", 100, `paused-${performance.now()}`)) && checker.mode, { timeout: 5_000 })
      .toBe("redis");
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
    await expect
      .poll(async () => (await checker.check("abandoned", 100, `abandoned-after-${performance.now()}`)) && checker.mode, { timeout: 5_000 })
      .toBe("redis");
    const members = await admin.zrange("gateway:ratelimit:abandoned", "0", "-1");
    expect(members).toContain("abandoned-0");
    expect(members).not.toContain("abandoned-1");
    expect(members).not.toContain("abandoned-2");
  });

  /** Answers given at once (a decision, not a promise) by `sequential`'s checks. */
  let answeredAtOnce = 0;

  /** Checks of one project one after another (each awaited), as a client at concurrency 1 sends them. */
  async function sequential(checker: RedisRateLimiter, project: string, limit: number, count: number, ids = project) {
    const decisions = [];
    for (let index = 0; index < count; index++) {
      const answer = checker.check(project, limit, `${ids}-${index}`);
      if (!(answer instanceof Promise)) answeredAtOnce++;
      decisions.push(await answer);
    }
    return decisions;
  }

  it("admits a busy project far below its limit from blocks, and takes a block's unused admissions out of the window", async () => {
    const checker = await limiter("replica-blocks");
    answeredAtOnce = 0;
    const decisions = await sequential(checker, "busy", 100_000, 300);
    expect(decisions.every((decision) => decision.allowed)).toBe(true);
    expect(checker.blocks.stats.granted).toBeGreaterThan(0);
    expect(checker.blocks.stats.admitted).toBeGreaterThan(100); // most of them without a round trip each
    expect(answeredAtOnce).toBe(checker.blocks.stats.admitted); // and each of those without a promise
    // The remaining count never shows more than is left after this client's own admissions, blocks
    // included, give or take the one check that was on its way when a block was granted.
    expect(decisions.every((decision, index) => decision.remaining <= 100_000 - index)).toBe(true);
    expect(decisions.at(-1)!.remaining).toBeLessThanOrEqual(100_000 - 299);
    // Every admission is in the window; a block's are scored at its end, so none leaves the window early.
    const [seconds, micros] = await admin.time();
    const now = Number(seconds) * 1000 + Number(micros) / 1000;
    const scores = (await admin.zrange("gateway:ratelimit:busy", "0", "-1", "WITHSCORES"))
      .filter((_, index) => index % 2 === 1)
      .map(Number);
    expect(scores.length).toBeGreaterThanOrEqual(300);
    expect(scores.some((score) => score > now + 500)).toBe(true);
    // Once the block is over (BLOCK_MS, then the sweep), what it did not admit is out of the window.
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    expect(await admin.zcard("gateway:ratelimit:busy")).toBe(300);
  });

  it("gives no block to a project near its limit: its checks stay exact, one by one", async () => {
    const checker = await limiter("replica-near-limit");
    // Half of a 10,000 limit is used already (by other replicas): a block would pass half the limit.
    const now = Date.now();
    await admin.zadd("gateway:ratelimit:near", ...Array.from({ length: 4_990 }, (_, index) => [String(now), `earlier-${index}`]).flat());
    const granted = checker.blocks.stats.granted;
    const decisions = await sequential(checker, "near", 10_000, 100);
    expect(checker.blocks.stats.granted).toBe(granted);
    expect(decisions.every((decision) => decision.allowed)).toBe(true);
    expect(decisions.at(-1)!.remaining).toBe(10_000 - 4_990 - 100);
    // Nor to a replica whose own rate could bring the project near its limit: 150 a minute here.
    const few = await sequential(checker, "small", 150, 160);
    expect(checker.blocks.stats.granted).toBe(granted);
    expect(few.filter((decision) => decision.allowed)).toHaveLength(150);
  });

  it("ends a project's block when its limit changes: the unused admissions go back, and checks follow the new limit at once", async () => {
    const checker = await limiter("replica-limit-change");
    const granted = checker.blocks.stats.granted;
    await sequential(checker, "changed", 100_000, 200);
    expect(checker.blocks.stats.granted).toBeGreaterThan(granted); // a block is admitting now
    expect(await admin.zcard("gateway:ratelimit:changed")).toBeGreaterThan(200); // its unused admissions are in the window
    // The project's limit drops to 300 (a key or project change): 100 more, counted exactly.
    const after = await sequential(checker, "changed", 300, 150, "changed-after");
    expect(after.filter((decision) => decision.allowed)).toHaveLength(100);
    expect(after.slice(100).every((decision) => !decision.allowed && decision.remaining === 0)).toBe(true);
    expect(await admin.zcard("gateway:ratelimit:changed")).toBe(300);
  });

  it("takes a block whose answer was lost out of the window: Redis runs its script late, and the removal right after", async () => {
    const checker = await limiter("replica-lost-block");
    const limit = 10_000_000; // far enough that a replica admitting in memory at full speed still gets blocks
    await sequential(checker, "lost", limit, 300);
    expect(checker.blocks.stats.granted).toBeGreaterThan(0); // a block is admitting now
    const zremCalls = async () => Number(/^cmdstat_zrem:calls=(\d+)/m.exec(await admin.info("commandstats"))?.[1] ?? 0);
    const zremsBefore = await zremCalls();
    redis.pause();
    try {
      // Admitted in memory until the block runs out; then the next block is asked for (a script call
      // the paused Redis holds) and the check waits for the fallback.
      for (let index = 0; index < 10_000; index++) {
        const started = performance.now();
        await checker.check("lost", limit, `lost-paused-${index}`);
        if (performance.now() - started > 100) break;
      }
      await new Promise((resolve) => setTimeout(resolve, 2_300)); // the block call's command timeout: its answer is lost
    } finally {
      redis.resume();
    }
    await new Promise((resolve) => setTimeout(resolve, 300));
    // Redis ran the block's script when it resumed (its admissions scored a second ahead), then the removal.
    expect(await zremCalls()).toBeGreaterThan(zremsBefore);
    const [seconds, micros] = await admin.time();
    const now = Number(seconds) * 1000 + Number(micros) / 1000;
    const scores = (await admin.zrange("gateway:ratelimit:lost", "0", "-1", "WITHSCORES"))
      .filter((_, index) => index % 2 === 1)
      .map(Number);
    expect(scores.filter((score) => score > now + 200)).toEqual([]);
  });

  it("counts a restarted replica's block admissions beside its predecessor's (members never collide)", async () => {
    const first = await limiter("replica-restarted");
    await sequential(first, "restart", 100_000, 200);
    await first.close(); // its blocks' unused admissions go back
    expect(await admin.zcard("gateway:ratelimit:restart")).toBe(200);
    const second = new RedisRateLimiter(redis.url, "replica-restarted", 60_000); // the same replica id, restarted
    limiters.push(second);
    // Connected once it has announced itself (the first took its id out on close).
    while ((await admin.zscore("gateway:ratelimit:replicas", "replica-restarted")) === null)
      await new Promise((resolve) => setTimeout(resolve, 20));
    await sequential(second, "restart", 100_000, 200, "restart-again"); // request ids are unique
    // Both admitted from blocks (with the replica id alone in the members, the second's would have overwritten the first's).
    expect(first.blocks.stats.admitted).toBeGreaterThan(50);
    expect(second.blocks.stats.admitted).toBeGreaterThan(50);
    await second.close();
    expect(await admin.zcard("gateway:ratelimit:restart")).toBe(400);
  });
});
