// Requests per minute per project, and per key for keys with a limit of their own (a
// key id, key_..., never looks like a project id). A limiter answers one check per
// subject and request; the sliding window is one minute; a limit of 0 means no limit.
export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the oldest counted request leaves the window. */
  resetSeconds: number;
  /** Whose window decided: the project's (absent) or the key's own (docs/keys.md). */
  scope?: "key";
}

/** A decision at once when it is in memory (an admission block, the local window), else its promise. */
export type RateAnswer = RateDecision | Promise<RateDecision>;

/** `f` of the answer: at once when the answer is, else once it comes. */
export function afterAnswer<T>(answer: RateAnswer, f: (decision: RateDecision) => T | Promise<T>): T | Promise<T> {
  return answer instanceof Promise ? answer.then(f) : f(answer);
}

export interface RateLimiter {
  check(projectId: string, limit: number, requestId: string): RateAnswer;
  /** A line for /health detail: "redis", or "local" (no Redis, or Redis unreachable). */
  readonly mode: string;
  /**
   * Cumulative: checks answered by the local fallback while Redis was unreachable, requests admitted
   * from admission blocks, and blocks' admissions given back unused.
   */
  readonly stats: { fallbackChecks: number; blockAdmissions: number; blockReturns: number };
  close(): Promise<void>;
}

/** Header values of a decision (x-ratelimit-*, OpenAI's names; reset as a duration). */
export function rateLimitHeaders(decision: RateDecision): Record<string, string> {
  return {
    "x-ratelimit-limit-requests": String(decision.limit),
    "x-ratelimit-remaining-requests": String(decision.remaining),
    "x-ratelimit-reset-requests": `${decision.resetSeconds}s`,
  };
}
