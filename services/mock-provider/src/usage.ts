// Usage numbers: as recorded unless a script overrides them. Overrides replace
// the three counters and keep any *_tokens_details object as recorded, because
// gateways read those for cached/reasoning token accounting.
import type { UsageScript } from "./types";

export interface TokenCounts {
  prompt_tokens: number;
  completion_tokens: number;
}

function randomInt(min: number, max: number): number {
  return min + Math.floor(Math.random() * (max - min + 1));
}

/** Resolve a script's usage once per request, so a stream's usage chunk and the log agree. */
export function resolveUsage(script: UsageScript | undefined): TokenCounts | undefined {
  if (script === undefined) return undefined;
  if (script === "random") return { prompt_tokens: randomInt(1, 200), completion_tokens: randomInt(1, 400) };
  return { prompt_tokens: script.prompt_tokens, completion_tokens: script.completion_tokens ?? 0 };
}

/** Recorded usage object with the counters replaced; key order of the recording is kept. */
export function applyUsage(recorded: unknown, counts: TokenCounts | undefined): unknown {
  if (!counts) return recorded;
  const base = recorded && typeof recorded === "object" ? (recorded as Record<string, unknown>) : {};
  return {
    ...base,
    prompt_tokens: counts.prompt_tokens,
    completion_tokens: counts.completion_tokens,
    total_tokens: counts.prompt_tokens + counts.completion_tokens,
  };
}
