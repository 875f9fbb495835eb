// An in-process sliding-window limiter: the embedded default (no Redis), and
// the fallback of the Redis limiter while Redis is unreachable. The Redis
// limiter records here what Redis admitted for this replica (`record`), so the
// fallback starts from this replica's admissions of the window, not from empty.
import type { RateDecision, RateLimiter } from "./rate-limiter";

/** A project's admission times, oldest first, from `head` on (what is before it has left the window). */
interface Window {
  times: number[];
  head: number;
}

export class LocalRateLimiter implements RateLimiter {
  readonly mode = "local";
  readonly stats = { fallbackChecks: 0, blockAdmissions: 0, blockReturns: 0 };
  private readonly windows = new Map<string, Window>();

  constructor(
    private readonly windowMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  check(projectId: string, limit: number): RateDecision {
    return this.checkNow(projectId, limit);
  }

  checkNow(projectId: string, limit: number): RateDecision {
    const now = this.now();
    const window = this.current(projectId, now);
    const { times } = window;
    const counted = times.length - window.head;
    const allowed = counted < limit;
    if (allowed) times.push(now);
    const oldest = times[window.head] ?? now;
    return {
      allowed,
      limit,
      remaining: Math.max(0, limit - counted - (allowed ? 1 : 0)),
      resetSeconds: Math.max(1, Math.ceil((oldest + this.windowMs - now) / 1000)),
    };
  }

  /** Counts an admission made elsewhere (by Redis, for this replica) in the project's window. */
  record(projectId: string): void {
    const now = this.now();
    this.current(projectId, now).times.push(now);
  }

  /** Per project, the admission times from `from` on that are still in the window. */
  admittedSince(from: number): Map<string, number[]> {
    const now = this.now();
    const admitted = new Map<string, number[]>();
    for (const projectId of this.windows.keys()) {
      const { times, head } = this.current(projectId, now);
      let first = times.length;
      while (first > head && times[first - 1]! >= from) first--;
      if (first < times.length) admitted.set(projectId, times.slice(first));
    }
    return admitted;
  }

  /** The project's window, without what has left it by `now`. */
  private current(projectId: string, now: number): Window {
    let window = this.windows.get(projectId);
    if (!window) {
      window = { times: [], head: 0 };
      this.windows.set(projectId, window);
    }
    const { times } = window;
    while (window.head < times.length && times[window.head]! <= now - this.windowMs) window.head++;
    // Expired times are dropped in bulk, not one by one from the front (an O(window) move per
    // request once a busy project's window is full: tens of thousands of times at a high limit).
    if (window.head > 1024 && window.head * 2 > times.length) {
      times.splice(0, window.head);
      window.head = 0;
    }
    return window;
  }

  async close(): Promise<void> {
    this.windows.clear();
  }
}
