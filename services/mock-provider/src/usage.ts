// Usage numbers: as recorded unless a script overrides them. Overrides replace
// the three counters and keep any *_tokens_details object as recorded, because
// gateways read those for cached/reasoning token accounting; scripted cache
// figures go into the vendor's own cache fields.
import { isRecord } from "./json";
import type { Json } from "./json";
import type { UsageScript } from "./types";

export interface TokenCounts {
  prompt_tokens: number;
  completion_tokens: number;
  /** Cache reads: OpenAI `cached_tokens`, Anthropic `cache_read_input_tokens`. */
  cached_tokens?: number;
  /** Cache writes: Responses `cache_write_tokens`, Anthropic `cache_creation_input_tokens`. */
  cache_creation_tokens?: number;
}

function randomInt(min: number, max: number): number {
  return min + Math.floor(Math.random() * (max - min + 1));
}

/** Resolve a script's usage once per request, so a stream's usage chunk and the log agree. */
export function resolveUsage(script: UsageScript | undefined): TokenCounts | undefined {
  if (script === undefined) return undefined;
  if (script === "random") return { prompt_tokens: randomInt(1, 200), completion_tokens: randomInt(1, 400) };
  const counts: TokenCounts = { prompt_tokens: script.prompt_tokens, completion_tokens: script.completion_tokens ?? 0 };
  if (script.cached_tokens !== undefined) counts.cached_tokens = script.cached_tokens;
  if (script.cache_creation_tokens !== undefined) counts.cache_creation_tokens = script.cache_creation_tokens;
  return counts;
}

/**
 * `prompt_tokens_details` with the scripted `cached_tokens`. A recording without
 * the object gets it in the shape of openai.chat.cached.response.json
 * (`{cached_tokens, audio_tokens: 0}`), before `completion_tokens_details` as there.
 */
function withCachedTokens(usage: Json, cached: number): Json {
  if (isRecord(usage.prompt_tokens_details)) {
    return { ...usage, prompt_tokens_details: { ...usage.prompt_tokens_details, cached_tokens: cached } };
  }
  const { completion_tokens_details, ...rest } = usage;
  const out: Json = { ...rest, prompt_tokens_details: { cached_tokens: cached, audio_tokens: 0 } };
  if (completion_tokens_details !== undefined) out.completion_tokens_details = completion_tokens_details;
  return out;
}

/** Recorded Chat Completions usage with the counters replaced; key order of the recording is kept. */
export function applyUsage(recorded: unknown, counts: TokenCounts | undefined): unknown {
  if (!counts) return recorded;
  const base = isRecord(recorded) ? recorded : {};
  const usage: Json = {
    ...base,
    prompt_tokens: counts.prompt_tokens,
    completion_tokens: counts.completion_tokens,
    total_tokens: counts.prompt_tokens + counts.completion_tokens,
  };
  return counts.cached_tokens === undefined ? usage : withCachedTokens(usage, counts.cached_tokens);
}
