// The per-minute limit while Redis is away, each case against a Redis of its
// own: a Redis that hangs costs one check its timeout, after which checks are
// answered locally, without waiting, until a background probe sees Redis
// answer; a Redis that dies leaves each replica's local window holding what
// that replica admitted in the minute, so the limit is not counted afresh; and
// what was admitted locally is written into Redis before it is used again.
import { Redis } from "ioredis";
import { afterEach, describe, expect, it } from "vitest";
import { RedisRateLimiter } from "../../src/limits/redis-rate-limiter";
import { startOwnRedis, type OwnRedis } from "../harness/redis-server";

describe("RedisRateLimiter while Redis is away", () => {
  let redis: OwnRedis | undefined;
  let admin: Redis | undefined;
  let limiters: RedisRateLimiter[] = [];

  afterEach(async () => {
    redis?.resume();
    for (const limiter of limiters) await limiter.close();
    limiters = [];
    admin?.disconnect();
    await redis?.stop();
  });

  async function start(replicas: number): Promise<{ redis: OwnRedis; admin: Redis; limiters: RedisRateLimiter[] }> {
    redis = await startOwnRedis();
    admin = new Redis(redis.url);
    limiters = Array.from({ length: replicas }, (_, index) => new RedisRateLimiter(redis!.url, `replica-${index}`, 60_000));
    // All are connected, and each has seen all of them in Redis (on connecting, or at its next heartbeat, 5 s later).
    await expect.poll(() => admin!.zcard("gateway:ratelimit:replicas"), { timeout: 15_000 }).toBe(replicas);
    await expect.poll(() => limiters.every((limiter) => limiter.replicasSeen === replicas), { timeout: 15_000 }).toBe(true);
    return { redis, admin, limiters };
  }

  /** Script calls Redis has run so far (EVALSHA, and EVAL the first time a script is sent). */
  async function scriptCalls(client: Redis): Promise<number> {
    const stats = await client.info("commandstats");
    return [...stats.matchAll(/^cmdstat_eval(?:sha)?:calls=(\d+)/gm)].reduce((sum, match) => sum + Number(match[1]), 0);
  }

  /** Whether the check is answered before the event loop turns once more: it waited on nothing (no timer, no socket). */
  async function answeredAtOnce(check: unknown): Promise<boolean> {
    const turned = new Promise<"turned">((resolve) => setImmediate(() => resolve("turned")));
    return (await Promise.race([Promise.resolve(check).then(() => "answered" as const), turned])) === "answered";
  }

  it("after the first timeout of a hung Redis, answers at once from the local window and sends only probes, until one is answered", async () => {
    const { redis, admin, limiters } = await start(1);
    const checker = limiters[0]!;
    await checker.check("hung", 1_000, "hung-warm-up");
    const before = await scriptCalls(admin);
    redis.pause();
    const first = await checker.check("hung", 1_000, "hung-first"); // waits its timeout, then falls back
    expect(first.allowed).toBe(true);
    expect(checker.mode).toMatch(/^local fallback/);
    // Past the hung call's command timeout (2 s), when the next call could go out: none does.
    const waited: number[] = [];
    const until = performance.now() + 2_600;
    for (let index = 0; performance.now() < until; index++) {
      if (!(await answeredAtOnce(checker.check("hung", 1_000, `hung-${index}`)))) waited.push(index);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(waited).toEqual([]);
    expect(checker.probes).toBeGreaterThan(0);
    redis.resume();
    // Back on Redis with no check asked: the probe saw it answer.
    await expect.poll(() => checker.mode, { timeout: 10_000 }).toBe("redis");
    // Redis ran the one hung call and nothing else the checks asked meanwhile; then the write-back of
    // what they admitted (one project: one call).
    expect((await scriptCalls(admin)) - before).toBe(2);
    expect((await checker.check("hung", 1_000, "hung-after")).allowed).toBe(true);
    // In the window: the checks Redis answered or ran, and what was admitted locally meanwhile (written back).
    const members = await admin.zrange("gateway:ratelimit:hung", "0", "-1");
    expect(members.filter((member) => !member.startsWith("local:")).sort()).toEqual(["hung-after", "hung-first", "hung-warm-up"]);
    expect(members.filter((member) => member.startsWith("local:"))).toHaveLength(checker.fallbackChecks);
  });

  it("seeds each replica's local window with what it admitted through Redis: two replicas that used the limit admit no more once Redis dies", async () => {
    const { redis, limiters } = await start(2);
    const [left, right] = limiters as [RedisRateLimiter, RedisRateLimiter];
    const admitted = async (checker: RedisRateLimiter, project: string, count: number, ids: string) => {
      let allowed = 0;
      for (let index = 0; index < count; index++) if ((await checker.check(project, 60, `${ids}-${index}`)).allowed) allowed++;
      return allowed;
    };
    // Spread evenly: 30 each of a limit of 60, all through Redis.
    expect(await admitted(left, "even", 30, "even-left")).toBe(30);
    expect(await admitted(right, "even", 30, "even-right")).toBe(30);
    // Unevenly: 45 on one replica, 15 on the other.
    expect(await admitted(left, "uneven", 45, "uneven-left")).toBe(45);
    expect(await admitted(right, "uneven", 15, "uneven-right")).toBe(15);
    await redis.stop();
    expect(await admitted(left, "even", 40, "even-left-after")).toBe(0);
    expect(await admitted(right, "even", 40, "even-right-after")).toBe(0);
    expect(left.mode).toBe("local fallback (Redis unreachable; limit / 2 replicas)");
    // Each replica may reach its share (30) with its own admissions; the minute admits 45 + 30, the
    // bound docs/limits.md gives (the sum over replicas of the larger of its share and its own).
    expect(await admitted(left, "uneven", 40, "uneven-left-after")).toBe(0);
    expect(await admitted(right, "uneven", 40, "uneven-right-after")).toBe(15);
  });

  /** Checks of one project one after another; how many were admitted. */
  async function admitted(checker: RedisRateLimiter, project: string, limit: number, count: number, ids: string): Promise<number> {
    let allowed = 0;
    for (let index = 0; index < count; index++) if ((await checker.check(project, limit, `${ids}-${index}`)).allowed) allowed++;
    return allowed;
  }

  it("writes what it admitted locally into Redis's window when a hung Redis answers again", async () => {
    const { redis, admin, limiters } = await start(1);
    const checker = limiters[0]!;
    expect(await admitted(checker, "thawed", 10, 4, "thawed-before")).toBe(4);
    redis.pause();
    expect(await admitted(checker, "thawed", 10, 8, "thawed-during")).toBe(6); // the first waits its timeout
    redis.resume();
    await expect.poll(() => checker.mode, { timeout: 10_000 }).toBe("redis");
    // Without them Redis would count 4 (and the one hung check it ran late) and admit 5 more this minute.
    expect(await admitted(checker, "thawed", 10, 5, "thawed-after")).toBe(0);
    const members = await admin.zrange("gateway:ratelimit:thawed", "0", "-1");
    expect(members.filter((member) => member.startsWith("local:"))).toHaveLength(6);
  });

  it("writes all it admitted in the window into a Redis that restarted empty", async () => {
    const first = await start(1);
    const checker = first.limiters[0]!;
    expect(await admitted(checker, "restarted", 10, 4, "restarted-before")).toBe(4);
    await first.redis.stop();
    expect(await admitted(checker, "restarted", 10, 8, "restarted-during")).toBe(6);
    redis = await startOwnRedis(first.redis.port); // the same address, nothing in it
    await expect.poll(() => checker.mode, { timeout: 10_000 }).toBe("redis");
    // The 4 admitted through the old Redis and the 6 admitted locally.
    expect(await first.admin.zcard("gateway:ratelimit:restarted")).toBe(10);
    expect(await admitted(checker, "restarted", 10, 5, "restarted-after")).toBe(0);
  });
});
