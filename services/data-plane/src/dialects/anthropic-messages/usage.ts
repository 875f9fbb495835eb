// `usage` in the Anthropic shape, from the usage record the call was billed
// from (reported, else estimated). Anthropic counts uncached input apart from
// cache reads and writes, the record's inputTokens (OpenAI's prompt_tokens)
// includes them. So input_tokens = inputTokens - reads - writes,
// cache_read_input_tokens = reads, cache_creation_input_tokens = writes of both
// lifetimes, split in `cache_creation` as Anthropic writes it; thinking, when
// reported, in output_tokens_details.thinking_tokens (as message_delta carries
// it). `cost` is the ledger debit in USD.
import type { UsageRecord } from "../../billing/pricing";
import { usdNumber } from "../../billing/pricing";

export interface AnthropicUsage {
  input_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
  cache_creation: { ephemeral_5m_input_tokens: number; ephemeral_1h_input_tokens: number };
  output_tokens: number;
  output_tokens_details?: { thinking_tokens: number };
  cost: number;
  [key: string]: unknown;
}

/** The counts a native answer's usage may lack (message_delta's, in older streams) and gets from the record. */
export const CUMULATIVE_COUNTS = ["input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens", "output_tokens"] as const;

export function anthropicUsage(tokens: UsageRecord, debitedNano: bigint): AnthropicUsage {
  const reads = tokens.cachedInputTokens ?? 0;
  const fiveMinutes = tokens.cacheWrite5mTokens ?? 0;
  const hour = tokens.cacheWrite1hTokens ?? 0;
  const thinking = tokens.reasoningTokens === undefined ? {} : { output_tokens_details: { thinking_tokens: tokens.reasoningTokens } };
  return {
    input_tokens: Math.max(0, tokens.inputTokens - reads - fiveMinutes - hour),
    cache_creation_input_tokens: fiveMinutes + hour,
    cache_read_input_tokens: reads,
    cache_creation: { ephemeral_5m_input_tokens: fiveMinutes, ephemeral_1h_input_tokens: hour },
    output_tokens: tokens.outputTokens,
    ...thinking,
    cost: usdNumber(debitedNano),
  };
}
