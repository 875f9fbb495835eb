// Usage numbers: as recorded unless a script overrides them. Overrides replace
// the three counters and keep any *_tokens_details object as recorded, because
// gateways read those for cached/reasoning token accounting; scripted details
// (cache reads and writes, reasoning, web searches, the service tier) go into
// the vendor's own fields, where it puts them.
import { insertAfter, isRecord } from "./json";
import type { Json } from "./json";
import type { UsageScript } from "./types";

export interface TokenCounts {
  prompt_tokens: number;
  completion_tokens: number;
  /** Cache reads: OpenAI `cached_tokens`, Anthropic `cache_read_input_tokens`, Gemini `cachedContentTokenCount`. */
  cached_tokens?: number;
  /** 5-minute cache writes: Anthropic `cache_creation.ephemeral_5m_input_tokens`; with the 1-hour ones, Responses and OpenRouter `cache_write_tokens`. */
  cache_creation_tokens?: number;
  /** 1-hour cache writes: Anthropic `cache_creation.ephemeral_1h_input_tokens`. */
  cache_creation_1h_tokens?: number;
  /** OpenAI `reasoning_tokens` (inside completion), Gemini `thoughtsTokenCount` (beside candidates). */
  reasoning_tokens?: number;
  /** Anthropic `server_tool_use.web_search_requests`. */
  web_search_requests?: number;
  /** OpenAI's answer `service_tier`, Responses' `response.service_tier`, Anthropic's `usage.service_tier`. */
  service_tier?: string;
}

/** Every cache write, both lifetimes (Anthropic's `cache_creation_input_tokens`); undefined when none was scripted. */
export function cacheWrites(counts: TokenCounts): number | undefined {
  const { cache_creation_tokens: fiveMinutes, cache_creation_1h_tokens: hour } = counts;
  return fiveMinutes === undefined && hour === undefined ? undefined : (fiveMinutes ?? 0) + (hour ?? 0);
}

function randomInt(min: number, max: number): number {
  return min + Math.floor(Math.random() * (max - min + 1));
}

/** Resolve a script's usage once per request, so a stream's usage chunk and the log agree. */
export function resolveUsage(script: UsageScript | undefined): TokenCounts | undefined {
  if (script === undefined) return undefined;
  if (script === "random") return { prompt_tokens: randomInt(1, 200), completion_tokens: randomInt(1, 400) };
  const { completion_tokens, ...details } = script;
  return { ...details, completion_tokens: completion_tokens ?? 0 };
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

/**
 * `completion_tokens_details.reasoning_tokens` = the scripted count (every recording has the object; one
 * without gets the full shape of openai.chat.cached.response.json's, at the end).
 */
function withReasoningTokens(usage: Json, reasoning: number): Json {
  const details = isRecord(usage.completion_tokens_details)
    ? { ...usage.completion_tokens_details, reasoning_tokens: reasoning }
    : { reasoning_tokens: reasoning, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 };
  return { ...usage, completion_tokens_details: details };
}

/** Recorded Chat Completions usage with the counters replaced; key order of the recording is kept. */
export function applyUsage(recorded: unknown, counts: TokenCounts | undefined): unknown {
  if (!counts) return recorded;
  const base = isRecord(recorded) ? recorded : {};
  let usage: Json = {
    ...base,
    prompt_tokens: counts.prompt_tokens,
    completion_tokens: counts.completion_tokens,
    total_tokens: counts.prompt_tokens + counts.completion_tokens,
  };
  if (counts.cached_tokens !== undefined) usage = withCachedTokens(usage, counts.cached_tokens);
  if (counts.reasoning_tokens !== undefined) usage = withReasoningTokens(usage, counts.reasoning_tokens);
  return usage;
}

/**
 * A completion (or chunk) with the scripted `service_tier`: where the recording has it, else where
 * OpenAI writes it: after `usage` in a completion (openai.chat.response.json), after `model` in a
 * chunk (the live API's chunks; the recorded streams predate the field).
 */
export function withServiceTier(answer: Json, counts: TokenCounts | undefined, after: "usage" | "model"): Json {
  return counts?.service_tier === undefined ? answer : insertAfter(answer, after, { service_tier: counts.service_tier });
}
