// An in-process sliding-window limiter: the embedded default (no Redis), and
// the fallback of the Redis limiter while Redis is unreachable.
import type { RateDecision, RateLimiter } from "./rate-limiter";

export class LocalRateLimiter implements RateLimiter {
  readonly mode = "local";
  /** Admission times per project, oldest first. */
  private readonly windows = new Map<string, number[]>();

  constructor(
    private readonly windowMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  async check(projectId: string, limit: number): Promise<RateDecision> {
    return this.checkNow(projectId, limit);
  }

  checkNow(projectId: string, limit: number): RateDecision {
    const now = this.now();
    let times = this.windows.get(projectId);
    if (!times) this.windows.set(projectId, (times = []));
    let expired = 0;
    while (expired < times.length && times[expired]! <= now - this.windowMs) expired++;
    if (expired > 0) times.splice(0, expired);
    const allowed = times.length < limit;
    if (allowed) times.push(now);
    const oldest = times[0] ?? now;
    return {
      allowed,
      limit,
      remaining: Math.max(0, limit - times.length),
      resetSeconds: Math.max(1, Math.ceil((oldest + this.windowMs - now) / 1000)),
    };
  }

  async close(): Promise<void> {
    this.windows.clear();
  }
}
