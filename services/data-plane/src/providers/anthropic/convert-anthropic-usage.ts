// Anthropic `usage` -> the one usage record (chat-usage.ts), and from it the
// OpenAI usage of a translated answer.
//
// Anthropic splits the prompt three ways: `input_tokens` counts only the
// tokens after the last cache breakpoint, beside `cache_creation_input_tokens`
// (written to the cache) and `cache_read_input_tokens` (read from it). The
// record's inputTokens, like OpenAI's `prompt_tokens`, is the whole prompt: the
// sum of the three. Writes are split by lifetime in `cache_creation`
// (`ephemeral_5m_input_tokens`, `ephemeral_1h_input_tokens`); the writes it does
// not place in the hour (all of them when the split is absent, and what a later
// cumulative count added beyond it) are 5-minute writes, the default lifetime.
// `output_tokens` already includes thinking, as OpenAI's `completion_tokens`
// includes reasoning; `output_tokens_details.thinking_tokens`, when reported,
// is the reasoning share. `server_tool_use.web_search_requests` are billed per
// search, and `service_tier` is the tier the answer was served at.
// In the OpenAI usage, reads are `prompt_tokens_details.cached_tokens` and
// writes OpenRouter's `cache_write_tokens` (both lifetimes): the split, the
// searches and the tier have no OpenAI field and stay in the record.
import type { UsageRecord } from "../../billing/pricing";
import { chatUsage, serviceTierOf, usageRecord } from "../chat-usage";
import { isRecord, type JsonObject, tokenCount } from "./json-values";

/** Undefined when the usage reports no input count (nothing to bill from). */
export function readAnthropicUsage(usage: unknown): UsageRecord | undefined {
  if (!isRecord(usage)) return undefined;
  const input = tokenCount(usage.input_tokens);
  if (input === undefined) return undefined;
  const writes = tokenCount(usage.cache_creation_input_tokens) ?? 0;
  const reads = tokenCount(usage.cache_read_input_tokens) ?? 0;
  const split = isRecord(usage.cache_creation) ? usage.cache_creation : {};
  const hourWrites = Math.min(writes, tokenCount(split.ephemeral_1h_input_tokens) ?? 0);
  const outputDetails = isRecord(usage.output_tokens_details) ? usage.output_tokens_details : {};
  const serverTools = isRecord(usage.server_tool_use) ? usage.server_tool_use : {};
  return usageRecord({
    inputTokens: input + writes + reads,
    cachedInputTokens: reads,
    cacheWrite5mTokens: writes - hourWrites,
    cacheWrite1hTokens: hourWrites,
    outputTokens: tokenCount(usage.output_tokens) ?? 0,
    reasoningTokens: tokenCount(outputDetails.thinking_tokens),
    webSearches: tokenCount(serverTools.web_search_requests),
    serviceTier: serviceTierOf(usage.service_tier),
  });
}

/** A whole Message's usage (its `usage` field). */
export const readMessageUsage = (message: unknown): UsageRecord | undefined =>
  readAnthropicUsage(isRecord(message) ? message.usage : undefined);

/** Anthropic usage as OpenAI usage (chat-usage.ts's chatUsage of its record); undefined without an input count. */
export function convertAnthropicUsage(usage: unknown): JsonObject | undefined {
  const record = readAnthropicUsage(usage);
  return record && chatUsage(record);
}
