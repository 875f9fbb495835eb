// What a replica admitted on its local window, written into Redis's windows
// when it goes back to Redis: a Redis that hung or restarted empty does not
// know of those admissions, and without them the minute around its return
// would admit the limit again (docs/limits.md, "Back on Redis").
import { randomUUID } from "node:crypto";
import type { Redis } from "ioredis";
import { BLOCK_MS } from "./admission-blocks";

/** Admissions per script call at most (one command, its arguments spread in one JavaScript call). */
const MAX_PER_CALL = 10_000;
/** Members per ZADD inside the script (Lua's unpack has a stack limit of a few thousand values). */
const ZADD_CHUNK = 2_000;

// KEYS[1] a project's window; ARGV: window ms, member prefix, then each admission's age in ms. Each is
// scored at Redis's now minus its age, so it leaves the window when it would have locally.
const WRITE_BACK_SCRIPT = `
local window = tonumber(ARGV[1])
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
local members = {}
for i = 3, #ARGV do
  members[#members + 1] = now - tonumber(ARGV[i])
  members[#members + 1] = ARGV[2] .. (i - 2)
  if #members >= ${2 * ZADD_CHUNK} or i == #ARGV then
    redis.call('ZADD', KEYS[1], unpack(members))
    members = {}
  end
end
redis.call('PEXPIRE', KEYS[1], window + ${BLOCK_MS})
return #ARGV - 2
`;

type WriteBackScript = (keyCount: number, key: string, windowMs: number, prefix: string, ...ages: number[]) => Promise<number>;

export class WriteBack {
  /** Unique per process and write-back: members never collide with earlier ones (a ZADD of an existing member adds nothing). */
  private readonly instance = randomUUID();
  private sequence = 0;

  constructor(
    private readonly redis: Redis,
    private readonly windowMs: number,
    private readonly replicaId: string,
  ) {
    this.redis.defineCommand("gatewayRateWriteBack", { lua: WRITE_BACK_SCRIPT });
  }

  /**
   * Adds each project's local admissions (Date.now() times) to its Redis window, a script call per
   * project (and per MAX_PER_CALL admissions), all sent before any check that follows them on the
   * connection. Best effort: one that fails is left out (docs/limits.md says what that costs).
   */
  async write(admissions: Map<string, number[]>): Promise<void> {
    const script = (this.redis as unknown as { gatewayRateWriteBack: WriteBackScript }).gatewayRateWriteBack.bind(this.redis);
    const prefix = `local:${this.replicaId}:${this.instance}:${++this.sequence}:`;
    const now = Date.now();
    const calls: Promise<unknown>[] = [];
    for (const [projectId, times] of admissions)
      for (let start = 0; start < times.length; start += MAX_PER_CALL) {
        const ages = times.slice(start, start + MAX_PER_CALL).map((time) => now - time);
        calls.push(script(1, `gateway:ratelimit:${projectId}`, this.windowMs, `${prefix}${start}:`, ...ages).catch(() => {}));
      }
    await Promise.all(calls);
  }
}
