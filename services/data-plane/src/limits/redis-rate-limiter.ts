// The limit shared by every data-plane replica: one Lua script per check on
// Redis, which keeps each project's admissions of the last minute in a sorted
// set scored by Redis's own clock (TIME), so replicas' clocks do not matter.
//
// When Redis cannot be reached the check falls back at once to an in-process
// limiter with the limit divided by the number of replicas last seen (each
// replica announces itself in Redis every few seconds), and the limiter
// reports it (`mode`, /health detail). Money never depends on Redis.
import { Redis } from "ioredis";
import { LocalRateLimiter } from "./local-rate-limiter";
import type { RateDecision, RateLimiter } from "./rate-limiter";

const CHECK_SCRIPT = `
local key = KEYS[1]
local limit = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
local count = redis.call('ZCARD', key)
local allowed = 0
if count < limit then
  redis.call('ZADD', key, now, ARGV[3])
  redis.call('PEXPIRE', key, window)
  count = count + 1
  allowed = 1
end
local oldest = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
local reset = window
if oldest[2] then reset = tonumber(oldest[2]) + window - now end
return {allowed, limit - count, reset}
`;

const REPLICAS_KEY = "gateway:ratelimit:replicas";
const HEARTBEAT_MS = 5_000;

export class RedisRateLimiter implements RateLimiter {
  private readonly redis: Redis;
  private readonly fallback: LocalRateLimiter;
  private readonly heartbeat: NodeJS.Timeout;
  private knownReplicas = 1;
  private degraded = false;
  /** How many checks were answered by the local fallback (a metric). */
  fallbackChecks = 0;

  constructor(
    url: string,
    private readonly replicaId: string,
    private readonly windowMs: number,
    private readonly onDegradedChange: (degraded: boolean) => void = () => {},
  ) {
    this.fallback = new LocalRateLimiter(windowMs);
    this.redis = new Redis(url, {
      // Fail fast instead of queueing: a check must never wait for Redis to come back.
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      commandTimeout: 250,
      connectTimeout: 1_000,
      retryStrategy: (attempt) => Math.min(attempt * 200, 2_000),
      lazyConnect: false,
    });
    this.redis.on("error", () => this.setDegraded(true));
    this.redis.on("ready", () => {
      this.setDegraded(false);
      void this.announce();
    });
    this.redis.defineCommand("gatewayRateCheck", { numberOfKeys: 1, lua: CHECK_SCRIPT });
    this.heartbeat = setInterval(() => void this.announce(), HEARTBEAT_MS);
    this.heartbeat.unref();
  }

  get mode(): string {
    return this.degraded ? `local fallback (Redis unreachable; limit / ${this.knownReplicas} replicas)` : "redis";
  }

  async check(projectId: string, limit: number, requestId: string): Promise<RateDecision> {
    try {
      const [allowed, remaining, resetMs] = (await (this.redis as unknown as { gatewayRateCheck: (...args: unknown[]) => Promise<number[]> }).gatewayRateCheck(
        `gateway:ratelimit:${projectId}`,
        limit,
        this.windowMs,
        requestId,
      )) as [number, number, number];
      this.setDegraded(false);
      return { allowed: allowed === 1, limit, remaining: Math.max(0, remaining), resetSeconds: Math.max(1, Math.ceil(resetMs / 1000)) };
    } catch {
      this.setDegraded(true);
      this.fallbackChecks++;
      const share = Math.max(1, Math.floor(limit / this.knownReplicas));
      return { ...this.fallback.checkNow(projectId, share), limit };
    }
  }

  /** Records this replica and reads how many are alive, for the fallback's share. */
  private async announce(): Promise<void> {
    try {
      const now = Date.now();
      const [, , count] = (await this.redis
        .multi()
        .zadd(REPLICAS_KEY, now, this.replicaId)
        .zremrangebyscore(REPLICAS_KEY, "-inf", now - 3 * HEARTBEAT_MS)
        .zcard(REPLICAS_KEY)
        .exec()) as [unknown, unknown, [Error | null, number]];
      if (!count[0]) this.knownReplicas = Math.max(1, count[1]);
    } catch {
      // Keep the last known count.
    }
  }

  private setDegraded(degraded: boolean): void {
    if (degraded === this.degraded) return;
    this.degraded = degraded;
    this.onDegradedChange(degraded);
  }

  async close(): Promise<void> {
    clearInterval(this.heartbeat);
    await this.redis.zrem(REPLICAS_KEY, this.replicaId).catch(() => {});
    this.redis.disconnect();
  }
}
