// Responses API usage read into the one usage record (chat-usage.ts): input_tokens
// (cached included) with input_tokens_details.cached_tokens (and cache_write_tokens,
// which newer answers report), output_tokens (reasoning included) with
// output_tokens_details.reasoning_tokens, and the response's `service_tier`.
import type { UsageRecord } from "../../billing/pricing";
import { isRecord, serviceTierOf, tokenCount, usageRecord, writesWithoutLifetime } from "../chat-usage";

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
    ...writesWithoutLifetime(input.cache_write_tokens),
    outputTokens: tokenCount(usage.output_tokens) ?? 0,
    reasoningTokens: tokenCount(output.reasoning_tokens) ?? 0,
    serviceTier: serviceTierOf(response.service_tier),
  });
}
