// The shared representation's usage (OpenAI chat's, with OpenRouter's
// `cache_write_tokens` and `image_tokens`) against the one usage record the
// meter bills from (billing/pricing.ts's UsageRecord; docs/money.md, "Usage
// record"). Every codec reads its upstream's own usage into the record; a
// translated answer's OpenAI usage is written from that record here, so what a
// client reads and what is billed cannot disagree. What the OpenAI shape has no
// field for (Anthropic's 5-minute / 1-hour split, web searches, a tier that is
// not on an OpenAI answer) stays in the record and never becomes an invented field.
import type { UsageRecord } from "../billing/pricing";

export type JsonObject = Record<string, unknown>;

export const isRecord = (value: unknown): value is JsonObject => typeof value === "object" && value !== null && !Array.isArray(value);

/** The tier an upstream says it served at; an empty string names none. */
export const serviceTierOf = (value: unknown): string | undefined => (typeof value === "string" && value !== "" ? value : undefined);

/**
 * Cache writes reported without their lifetime (OpenRouter, the Responses API): 5-minute writes (the
 * default lifetime), marked so that the settle bills them as 1-hour ones when the request asked for those
 * (engine/call-money.ts).
 */
export function writesWithoutLifetime(count: unknown): Pick<UsageRecord, "cacheWrite5mTokens" | "cacheWriteLifetimeUnknown"> {
  const writes = tokenCount(count);
  return { cacheWrite5mTokens: writes, cacheWriteLifetimeUnknown: (writes ?? 0) > 0 ? true : undefined };
}

/** A token count: a finite number >= 0, rounded; anything else is not reported. */
export const tokenCount = (value: unknown): number | undefined =>
  typeof value === "number" && Number.isFinite(value) && value >= 0 ? Math.round(value) : undefined;

/** The record without the counts left unreported (a count reported as 0 stays: it was reported). */
export function usageRecord(fields: UsageRecord): UsageRecord {
  const record: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(fields)) if (value !== undefined) record[key] = value;
  return record as unknown as UsageRecord;
}

/**
 * An OpenAI chat answer's or chunk's usage, undefined without a prompt count. The tier is the
 * answer's `service_tier` (OpenAI puts it beside `usage`, not in it). OpenRouter reports cache
 * writes without their lifetime.
 */
export function readChatUsage(answer: { usage?: unknown; service_tier?: unknown }): UsageRecord | undefined {
  const usage = answer.usage;
  if (!isRecord(usage)) return undefined;
  const inputTokens = tokenCount(usage.prompt_tokens);
  if (inputTokens === undefined) return undefined;
  const prompt = isRecord(usage.prompt_tokens_details) ? usage.prompt_tokens_details : {};
  const completion = isRecord(usage.completion_tokens_details) ? usage.completion_tokens_details : {};
  return usageRecord({
    inputTokens,
    cachedInputTokens: tokenCount(prompt.cached_tokens),
    ...writesWithoutLifetime(prompt.cache_write_tokens),
    audioInputTokens: tokenCount(prompt.audio_tokens),
    imageInputTokens: tokenCount(prompt.image_tokens),
    outputTokens: tokenCount(usage.completion_tokens) ?? 0,
    reasoningTokens: tokenCount(completion.reasoning_tokens),
    audioOutputTokens: tokenCount(completion.audio_tokens),
    imageOutputTokens: tokenCount(completion.image_tokens),
    serviceTier: serviceTierOf(answer.service_tier),
  });
}

/**
 * The record as OpenAI chat usage, for a translated answer (and an estimate): the totals, and each
 * detail the record has in OpenAI's field for it; cache writes (both lifetimes) in OpenRouter's
 * `cache_write_tokens`, only when there were some. Input image tokens, web searches and the tier
 * have no field here.
 */
export function chatUsage(record: UsageRecord): JsonObject {
  const usage: JsonObject = {
    prompt_tokens: record.inputTokens,
    completion_tokens: record.outputTokens,
    total_tokens: record.inputTokens + record.outputTokens,
  };
  const writes = (record.cacheWrite5mTokens ?? 0) + (record.cacheWrite1hTokens ?? 0);
  if (record.cachedInputTokens !== undefined || writes > 0 || record.audioInputTokens !== undefined) {
    const prompt: JsonObject = { cached_tokens: record.cachedInputTokens ?? 0 };
    if (writes > 0) prompt.cache_write_tokens = writes;
    if (record.audioInputTokens !== undefined) prompt.audio_tokens = record.audioInputTokens;
    usage.prompt_tokens_details = prompt;
  }
  const completion: JsonObject = {};
  if (record.reasoningTokens !== undefined) completion.reasoning_tokens = record.reasoningTokens;
  if (record.audioOutputTokens !== undefined) completion.audio_tokens = record.audioOutputTokens;
  if (record.imageOutputTokens !== undefined) completion.image_tokens = record.imageOutputTokens;
  if (Object.keys(completion).length > 0) usage.completion_tokens_details = completion;
  return usage;
}
