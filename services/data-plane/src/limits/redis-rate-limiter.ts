// The limit shared by every data-plane replica (docs/limits.md): a Lua script
// keeps each project's admissions of the last minute in a sorted set scored by
// Redis's own clock. Checks that arrive while one script call is in flight go
// together in the next call (CallCoalescer), each still answered exactly, in
// order. One Redis, not a cluster: a call's keys may belong to different
// projects. Busy projects take admission blocks (admission-blocks.ts). Once
// Redis fails a check (an error, or no answer in time) the replica answers from
// an in-process window, holding its own admissions of the minute, with the limit
// divided by the replicas last seen, and says so (`mode`, /health detail); it
// sends no more checks until a background probe sees Redis answer in time,
// and writes what it admitted meanwhile into Redis before using it again.
import { Redis } from "ioredis";
import { CallCoalescer } from "../call-coalescer";
import { AdmissionBlocks, BLOCK_MS } from "./admission-blocks";
import { LocalRateLimiter } from "./local-rate-limiter";
import type { RateDecision, RateLimiter } from "./rate-limiter";
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
/** A check not answered within this long is answered by the local fallback. */
const CHECK_TIMEOUT_MS = 250;
/** On the local window, Redis is probed this long after the last probe ended; it must answer within CHECK_TIMEOUT_MS. */
const PROBE_INTERVAL_MS = 250;
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
  /** On the local window: no checks go to Redis, a probe does (docs/limits.md, "When Redis is away"). */
  private degraded = false;
  /** When it went on the local window (Date.now(), the local window's clock). */
  private degradedAt = 0;
  /** Redis's run_id when this replica last used its windows: another one has lost them (a restart, a failover). */
  private runId: string | undefined;
  private probe: NodeJS.Timeout | undefined;
  private closed = false;
  /** Probes sent (a test's view of what a replica on the local window still asks Redis). */
  probes = 0;
  /** When the script call in flight was sent, if one is. */
  private callSentAt: number | undefined;
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
      // Ends a call Redis does not answer (a script call, a probe), so the next can be sent; each
      // check gives up sooner (CHECK_TIMEOUT_MS), and checks given up on are not sent.
      commandTimeout: 2_000,
      connectTimeout: 1_000,
      retryStrategy: (attempt) => Math.min(attempt * 200, 2_000),
      lazyConnect: false,
    });
    this.redis.on("error", () => this.setDegraded(true));
    this.redis.on("ready", () => {
      void this.announce();
      // A Redis restarted while no check failed (on the local window, the probe does this).
      if (!this.degraded) void this.resync(Number.POSITIVE_INFINITY);
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

  get mode(): string {
    return this.degraded ? `local fallback (Redis unreachable; limit / ${this.knownReplicas} replicas)` : "redis";
  }

  async check(projectId: string, limit: number, requestId: string): Promise<RateDecision> {
    if (this.degraded) return this.checkLocally(projectId, limit);
    const fromBlock = this.blocks.take(projectId, limit);
    if (fromBlock) {
      this.fallback.record(projectId);
      return fromBlock;
    }
    const check: Check = { projectId, limit, requestId };
    let answer: Answer;
    try {
      answer = await this.answerInTime(check);
    } catch {
      check.abandoned = true;
      this.setDegraded(true);
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
   * The check's answer, or an error once Redis has had CHECK_TIMEOUT_MS to give it: counted from when
   * the call carrying it was sent or, while it waits for its turn, from when the call ahead of it was.
   */
  private answerInTime(check: Check): Promise<Answer> {
    const askedAt = performance.now();
    return inTime(this.checks.submit(check), () => (check.sentAt ?? this.callSentAt ?? askedAt) + CHECK_TIMEOUT_MS);
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

  private setDegraded(degraded: boolean): void {
    if (degraded === this.degraded) return;
    this.degraded = degraded;
    if (degraded) {
      this.degradedAt = Date.now();
      this.scheduleProbe();
    }
    this.onDegradedChange(degraded);
  }

  private scheduleProbe(): void {
    if (this.closed) return;
    this.probe = setTimeout(() => void this.runProbe(), PROBE_INTERVAL_MS);
    this.probe.unref();
  }

  /**
   * One PING; Redis is back once one is answered within CHECK_TIMEOUT_MS. A slower answer (a Redis
   * just thawed, still working through what waited) keeps the replica local until the next probe,
   * sent once this one has ended (at the latest at the command timeout): one probe at a time.
   */
  private async runProbe(): Promise<void> {
    this.probes++;
    const sentAt = performance.now();
    const ping = this.redis.ping();
    const answered = await inTime(ping, () => sentAt + CHECK_TIMEOUT_MS).then(
      () => true,
      () => false,
    );
    if (!answered) await ping.catch(() => {});
    if (this.closed) return;
    if (!answered) return this.scheduleProbe();
    // What was admitted locally goes into Redis's windows first; checks stay on the local window meanwhile.
    await this.resync(this.degradedAt);
    if (!this.closed) this.setDegraded(false);
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
    this.closed = true;
    clearTimeout(this.probe);
    clearInterval(this.heartbeat);
    await this.blocks.close();
    await this.redis.zrem(REPLICAS_KEY, this.replicaId).catch(() => {});
    this.redis.disconnect();
  }
}

/**
 * What `call` gives, or an error once CHECK_TIMEOUT_MS have passed and the time is past `deadline()`
 * (performance.now(); read again each time, as it can move). The time is looked at only after the
 * event loop has read its sockets once more (setImmediate runs after that; timers before it), so
 * this process's own stall is not mistaken for Redis's. Checks and probes alike.
 */
function inTime<T>(call: Promise<T>, deadline: () => number): Promise<T> {
  return new Promise((resolve, reject) => {
    let settled = false;
    const expire = () =>
      setImmediate(() => {
        if (settled) return;
        const left = deadline() - performance.now();
        if (left > 0) timer = setTimeout(expire, left);
        else {
          settled = true;
          reject(new Error(`Redis did not answer within ${CHECK_TIMEOUT_MS} ms`));
        }
      });
    let timer = setTimeout(expire, CHECK_TIMEOUT_MS);
    call.then(
      (answer) => {
        settled = true;
        clearTimeout(timer);
        resolve(answer);
      },
      (error: unknown) => {
        settled = true;
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}
