// Admissions taken from the shared per-minute window a block at a time, for a
// project this replica sees busy and far below its limit: its requests are then
// admitted in memory, with no Redis round trip each (that round trip was most
// of the data plane's own latency at concurrency 1; docs/benchmark.md). A
// block's admissions are in the window before they are used, so the limit
// holds; why, and what blocks can cost: docs/limits.md, "Admission blocks".
import { randomUUID } from "node:crypto";
import type { Redis } from "ioredis";
import { ProjectRates } from "../project-rates";
import type { RateDecision } from "./rate-limiter";

/** How far ahead a block's admissions are scored; it admits requests for a little less (BLOCK_USE_MS). */
export const BLOCK_MS = 1_000;
/**
 * Counted from before the script call was sent, so from before Redis scored the block: every request
 * a block admits is admitted before its admission's score, never after, however late the answer came.
 */
const BLOCK_USE_MS = BLOCK_MS - 50;
/** Blocks over are looked for this often (their unused admissions go back). */
const SWEEP_MS = 250;
/** A project is busy, and gets blocks, from this many requests within one second on this replica. */
const BLOCK_MIN_REQUESTS_PER_SECOND = 20;
/** Admissions per block at most. */
const MAX_BLOCK = 512;

// KEYS[1] the project's window; ARGV: window ms, limit, admissions wanted, member prefix.
// Answers (granted, remaining, reset ms); granted is 0 when the window plus the block would pass half the limit.
const BLOCK_SCRIPT = `
local window = tonumber(ARGV[1])
local limit = tonumber(ARGV[2])
local wanted = tonumber(ARGV[3])
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
local count = redis.call('ZCARD', KEYS[1])
local granted = 0
if (count + wanted) * 2 <= limit then
  local members = {}
  for i = 1, wanted do
    members[2 * i - 1] = now + ${BLOCK_MS}
    members[2 * i] = ARGV[4] .. i
  end
  redis.call('ZADD', KEYS[1], unpack(members))
  redis.call('PEXPIRE', KEYS[1], window + ${BLOCK_MS})
  count = count + wanted
  granted = wanted
end
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
local reset = window
if oldest[2] then reset = tonumber(oldest[2]) + window - now end
return {granted, limit - count, reset}
`;

interface Block {
  key: string;
  prefix: string;
  limit: number;
  granted: number;
  used: number;
  /** What the window had left right after the grant (the block counted as used). */
  remaining: number;
  resetSeconds: number;
  /** Until then (performance.now()) it admits requests. */
  until: number;
}

type BlockScript = (keyCount: number, key: string, windowMs: number, limit: number, wanted: number, prefix: string) => Promise<number[]>;

export class AdmissionBlocks {
  private readonly blocks = new Map<string, Block>(); // project → its current block
  private readonly asking = new Set<string>();
  private readonly rates = new ProjectRates();
  private readonly sweeper: NodeJS.Timeout;
  private sequence = 0;
  /** Unique per process: a restarted replica's members must not overwrite its predecessor's (a ZADD of an existing member adds nothing). */
  private readonly instance = randomUUID();
  private closed = false;
  /** Blocks granted, requests admitted from them, and granted admissions given back unused (metrics). */
  readonly stats = { granted: 0, admitted: 0, returned: 0 };

  constructor(
    private readonly redis: Redis,
    private readonly windowMs: number,
    private readonly replicaId: string,
  ) {
    this.redis.defineCommand("gatewayRateBlock", { lua: BLOCK_SCRIPT });
    this.sweeper = setInterval(() => this.sweep(), SWEEP_MS);
    this.sweeper.unref();
  }

  /** A request admitted from the project's block, or undefined: it is checked on its own. Asks for the next block when the project is busy. */
  take(projectId: string, limit: number): RateDecision | undefined {
    const now = performance.now();
    const rate = this.rates.count(projectId, now); // every request, those admitted from a block too
    const perSecond = Math.max(rate.thisSecond, rate.lastSecond);
    const block = this.blocks.get(projectId);
    if (block && (block.limit !== limit || now >= block.until || block.used >= block.granted)) void this.end(projectId, block);
    else if (block) {
      block.used++;
      this.stats.admitted++;
      return { allowed: true, limit, remaining: block.remaining + block.granted - block.used, resetSeconds: block.resetSeconds };
    }
    this.ask(projectId, limit, perSecond);
    return undefined;
  }

  private ask(projectId: string, limit: number, perSecond: number): void {
    if (this.closed || this.asking.has(projectId) || perSecond < BLOCK_MIN_REQUESTS_PER_SECOND) return;
    // This replica alone could bring the project near its limit within two blocks: no blocks.
    if (perSecond * ((2 * BLOCK_MS) / 1000) * 4 > limit) return;
    const wanted = Math.min(MAX_BLOCK, Math.ceil((perSecond * BLOCK_MS) / 1000));
    const key = `gateway:ratelimit:${projectId}`;
    const prefix = `block:${this.replicaId}:${this.instance}:${++this.sequence}:`;
    this.asking.add(projectId);
    const sentAt = performance.now();
    (this.redis as unknown as { gatewayRateBlock: BlockScript })
      .gatewayRateBlock(1, key, this.windowMs, limit, wanted, prefix)
      .then(
        ([granted, remaining, resetMs]) => {
          if (!granted) return;
          const block: Block = {
            key,
            prefix,
            limit,
            granted: granted!,
            used: 0,
            remaining: Math.max(0, remaining!),
            resetSeconds: Math.max(1, Math.ceil(resetMs! / 1000)),
            until: sentAt + BLOCK_USE_MS,
          };
          // Answered after its time (a slow Redis, a stalled process) or after shutdown began: straight back.
          if (this.closed || performance.now() >= block.until) return void this.end(projectId, block);
          this.stats.granted++;
          const previous = this.blocks.get(projectId);
          if (previous) void this.end(projectId, previous);
          this.blocks.set(projectId, block);
        },
        () => {
          // Unreachable, or the answer was lost: the block may have been granted all the same, so
          // its admissions are taken out (best effort). Requests are checked on their own meanwhile.
          void this.end(projectId, { key, prefix, limit, granted: wanted, used: 0, remaining: 0, resetSeconds: 0, until: 0 });
        },
      )
      .finally(() => this.asking.delete(projectId));
  }

  /** A block is over: its unused admissions leave the window (best effort: they would leave it a minute later anyway). */
  private end(projectId: string, block: Block): Promise<unknown> {
    if (this.blocks.get(projectId) === block) this.blocks.delete(projectId);
    if (block.used >= block.granted) return Promise.resolve();
    const unused: string[] = [];
    for (let index = block.used + 1; index <= block.granted; index++) unused.push(`${block.prefix}${index}`);
    // Counted only for blocks known granted (a lost answer's block, until 0, may never have been).
    if (block.until > 0) this.stats.returned += unused.length;
    return this.redis.zrem(block.key, ...unused).catch(() => {});
  }

  private sweep(): void {
    const now = performance.now();
    for (const [projectId, block] of this.blocks) if (now >= block.until) void this.end(projectId, block);
    this.rates.prune(now);
  }

  /** Shutdown: every block's unused admissions go back. */
  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.sweeper);
    await Promise.all([...this.blocks].map(([projectId, block]) => this.end(projectId, block)));
  }
}
