// Responses API usage read into the one usage record (chat-usage.ts): input_tokens
// (cached included) with input_tokens_details.cached_tokens (and cache_write_tokens,
// which newer answers report), output_tokens (reasoning included) with
// output_tokens_details.reasoning_tokens, and the response's `service_tier`.
import type { UsageRecord } from "../../billing/pricing";
import { tokenCount, usageRecord } from "../chat-usage";

type JsonObject = Record<string, unknown>;
const isRecord = (value: unknown): value is JsonObject => typeof value === "object" && value !== null && !Array.isArray(value);

/** A response's usage, undefined without an input count (a failed response carries `usage: null`). */
export function readResponsesUsage(response: { usage?: unknown; service_tier?: unknown }): UsageRecord | undefined {
  const usage = response.usage;
  if (!isRecord(usage)) return undefined;
  const inputTokens = tokenCount(usage.input_tokens);
  if (inputTokens === undefined) return undefined;
  const input = isRecord(usage.input_tokens_details) ? usage.input_tokens_details : {};
  const output = isRecord(usage.output_tokens_details) ? usage.output_tokens_details : {};
  return usageRecord({
    inputTokens,
    // Both details are always in a Responses usage: 0 when absent, so the shared usage always has them too.
    cachedInputTokens: tokenCount(input.cached_tokens) ?? 0,
    cacheWrite5mTokens: tokenCount(input.cache_write_tokens),
    cacheWriteLifetimeUnknown: (tokenCount(input.cache_write_tokens) ?? 0) > 0 ? true : undefined,
    outputTokens: tokenCount(usage.output_tokens) ?? 0,
    reasoningTokens: tokenCount(output.reasoning_tokens) ?? 0,
    serviceTier: typeof response.service_tier === "string" && response.service_tier !== "" ? response.service_tier : undefined,
  });
}
