// The limit shared by every data-plane replica (docs/limits.md): a Lua script
// keeps each project's admissions of the last minute in a sorted set scored by
// Redis's own clock. Checks that arrive while one script call is in flight go
// together in the next call (CallCoalescer), each still answered exactly, in
// order. One Redis, not a cluster: a call's keys may belong to different
// projects. Busy projects take admission blocks (admission-blocks.ts). Once
// Redis fails a check (an error, or no answer in time) the replica answers from
// an in-process window, holding its own admissions of the minute, with the limit
// divided by the replicas last seen, and says so (`mode`, /health detail); it
// sends no more checks until a background probe sees Redis answer in time
// (its RedisCircuit), and writes what it admitted meanwhile into Redis before
// using it again.
import type { Redis } from "ioredis";
import { CallCoalescer } from "../call-coalescer";
import { failFastRedis, inTime, REDIS_TIMEOUT_MS, RedisCircuit } from "../redis-circuit";
import { AdmissionBlocks, BLOCK_MS } from "./admission-blocks";
import { LocalRateLimiter } from "./local-rate-limiter";
import type { RateAnswer, RateDecision, RateLimiter } from "./rate-limiter";
import { WriteBack } from "./write-back";

// Checks in order, one per key: KEYS[i] is a project's window, ARGV[1] the window length,
// ARGV[2i] and ARGV[2i+1] that check's limit and member (the request id). One triple
// (allowed, remaining, reset ms) per check, flattened.
const CHECK_SCRIPT = `
local window = tonumber(ARGV[1])
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local answers = {}
for i, key in ipairs(KEYS) do
  local limit = tonumber(ARGV[2 * i])
  redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
  local count = redis.call('ZCARD', key)
  local allowed = 0
  if count < limit then
    redis.call('ZADD', key, now, ARGV[2 * i + 1])
    redis.call('PEXPIRE', key, window + ${BLOCK_MS})
    count = count + 1
    allowed = 1
  end
  local oldest = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
  local reset = window
  if oldest[2] then reset = tonumber(oldest[2]) + window - now end
  answers[3 * i - 2] = allowed
  answers[3 * i - 1] = limit - count
  answers[3 * i] = reset
end
return answers
`;

const REPLICAS_KEY = "gateway:ratelimit:replicas";
const HEARTBEAT_MS = 5_000;
/** Checks per script call at most (the script's run blocks Redis meanwhile). */
const MAX_CHECKS_PER_CALL = 128;

interface Check {
  projectId: string;
  limit: number;
  requestId: string;
  /** When the script call carrying it was sent (performance.now()). */
  sentAt?: number;
  /** Its caller gave up waiting and used the fallback: it is not sent any more. */
  abandoned?: boolean;
}

/** The answer of a check whose caller already gave up on it. */
const ABANDONED = new Error("the check was abandoned");

type Answer = Omit<RateDecision, "limit">;
type RateCheckScript = (keyCount: number, ...keysThenArgs: (string | number)[]) => Promise<number[]>;

export class RedisRateLimiter implements RateLimiter {
  private readonly redis: Redis;
  private readonly checks: CallCoalescer<Check, Answer>;
  private readonly fallback: LocalRateLimiter;
  readonly blocks: AdmissionBlocks;
  private readonly writeBack: WriteBack;
  private readonly heartbeat: NodeJS.Timeout;
  private knownReplicas = 1;
  /**
   * Open: on the local window, no checks go to Redis, a probe does (docs/limits.md, "When Redis is
   * away"); its openedAt is when it went there (Date.now(), the local window's clock).
   */
  private readonly circuit: RedisCircuit;
  /** Redis's run_id when this replica last used its windows: another one has lost them (a restart, a failover). */
  private runId: string | undefined;
  /** When the script call in flight was sent, if one is. */
  private callSentAt: number | undefined;
  /** How many checks were answered by the local fallback (a metric). */
  fallbackChecks = 0;

  constructor(
    url: string,
    private readonly replicaId: string,
    private readonly windowMs: number,
    onDegradedChange: (degraded: boolean) => void = () => {},
  ) {
    this.fallback = new LocalRateLimiter(windowMs);
    // Checks given up on (late) are not sent (call-coalescer.ts).
    this.redis = failFastRedis(url);
    // What was admitted locally goes into Redis's windows before checks go back to Redis.
    this.circuit = new RedisCircuit(() => this.redis.ping(), { beforeClose: (since) => this.resync(since), onChange: onDegradedChange });
    this.redis.on("error", () => this.circuit.trip());
    this.redis.on("ready", () => {
      void this.announce();
      // A Redis restarted while no check failed (on the local window, the probe does this).
      if (!this.circuit.open) void this.resync(Number.POSITIVE_INFINITY);
    });
    this.redis.defineCommand("gatewayRateCheck", { lua: CHECK_SCRIPT });
    this.checks = new CallCoalescer((batch) => this.run(batch), MAX_CHECKS_PER_CALL);
    this.blocks = new AdmissionBlocks(this.redis, windowMs, replicaId);
    this.writeBack = new WriteBack(this.redis, windowMs, replicaId);
    this.heartbeat = setInterval(() => void this.announce(), HEARTBEAT_MS);
    this.heartbeat.unref();
  }

  get stats(): { fallbackChecks: number; blockAdmissions: number; blockReturns: number } {
    return { fallbackChecks: this.fallbackChecks, blockAdmissions: this.blocks.stats.admitted, blockReturns: this.blocks.stats.returned };
  }

  /** Replicas last seen in Redis: the local window's limit is the project's divided by this. */
  get replicasSeen(): number {
    return this.knownReplicas;
  }

  /** Probes sent (a test's view of what a replica on the local window still asks Redis). */
  get probes(): number {
    return this.circuit.probes;
  }

  get mode(): string {
    return this.circuit.open ? `local fallback (Redis unreachable; limit / ${this.knownReplicas} replicas)` : "redis";
  }

  /** At once (no promise) when the local window or an admission block answers; else Redis's answer. */
  check(projectId: string, limit: number, requestId: string): RateAnswer {
    if (this.circuit.open) return this.checkLocally(projectId, limit);
    const fromBlock = this.blocks.take(projectId, limit);
    if (fromBlock) {
      this.fallback.record(projectId);
      return fromBlock;
    }
    return this.checkInRedis(projectId, limit, requestId);
  }

  private async checkInRedis(projectId: string, limit: number, requestId: string): Promise<RateDecision> {
    const check: Check = { projectId, limit, requestId };
    let answer: Answer;
    try {
      answer = await this.answerInTime(check);
    } catch {
      check.abandoned = true;
      this.circuit.trip();
      return this.checkLocally(projectId, limit);
    }
    // This replica's admissions seed the local window, should Redis fail within the minute.
    if (answer.allowed) this.fallback.record(projectId);
    return { ...answer, limit };
  }

  /** The local window's answer, with this replica's share of the limit. */
  private checkLocally(projectId: string, limit: number): RateDecision {
    this.fallbackChecks++;
    const share = Math.max(1, Math.floor(limit / this.knownReplicas));
    return { ...this.fallback.checkNow(projectId, share), limit };
  }

  /**
   * The check's answer, or an error once Redis has had REDIS_TIMEOUT_MS to give it: counted from when
   * the call carrying it was sent or, while it waits for its turn, from when the call ahead of it was.
   */
  private answerInTime(check: Check): Promise<Answer> {
    const askedAt = performance.now();
    return inTime(this.checks.submit(check), () => (check.sentAt ?? this.callSentAt ?? askedAt) + REDIS_TIMEOUT_MS);
  }

  /** One script call for a batch of checks (those whose callers still wait). */
  private async run(batch: Check[]): Promise<(Answer | Error)[]> {
    const live = batch.filter((check) => !check.abandoned);
    if (live.length === 0) return batch.map(() => ABANDONED);
    const sentAt = performance.now();
    this.callSentAt = sentAt;
    for (const check of live) check.sentAt = sentAt;
    try {
      const keys = live.map((check) => `gateway:ratelimit:${check.projectId}`);
      const args = live.flatMap((check) => [check.limit, check.requestId]);
      const flat = await (this.redis as unknown as { gatewayRateCheck: RateCheckScript }).gatewayRateCheck(
        live.length,
        ...keys,
        this.windowMs,
        ...args,
      );
      if (flat.length !== 3 * live.length)
        throw new Error(`the rate-limit script answered ${flat.length} values for ${live.length} checks`);
      // `live` is `batch` without the abandoned checks, in the same order.
      let next = 0;
      return batch.map((check) => {
        if (live[next] !== check) return ABANDONED;
        const at = 3 * next++;
        return {
          allowed: flat[at] === 1,
          remaining: Math.max(0, flat[at + 1]!),
          resetSeconds: Math.max(1, Math.ceil(flat[at + 2]! / 1000)),
        };
      });
    } finally {
      this.callSentAt = undefined;
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

  /**
   * Brings Redis's windows up to what this replica admitted: its admissions from `localSince` on (those
   * made on the local window) or, when Redis is not the one it last used (another run_id), all of its
   * admissions in the window. Best effort (docs/limits.md, "Back on Redis").
   */
  private async resync(localSince: number): Promise<void> {
    try {
      const runId = /^run_id:(\w+)/m.exec(await this.redis.info("server"))?.[1];
      const lost = this.runId !== undefined && runId !== this.runId;
      const since = lost ? 0 : localSince;
      if (since !== Number.POSITIVE_INFINITY) await this.writeBack.write(this.fallback.admittedSince(since));
      this.runId = runId;
    } catch {
      // Not written back: what was admitted locally stays out of Redis's windows.
    }
  }

  async close(): Promise<void> {
    this.circuit.stop();
    clearInterval(this.heartbeat);
    await this.blocks.close();
    await this.redis.zrem(REPLICAS_KEY, this.replicaId).catch(() => {});
    this.redis.disconnect();
  }
}
