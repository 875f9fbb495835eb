// `usage` in the Anthropic shape, from the shared (OpenAI chat) usage the
// meter read: Anthropic counts uncached input apart from cache reads and
// writes, OpenAI's prompt_tokens includes them. So input_tokens =
// prompt_tokens - cached_tokens - cache_write_tokens, cache_read_input_tokens =
// cached_tokens, cache_creation_input_tokens = cache_write_tokens (OpenRouter
// and the Anthropic adapter report it; 0 when unknown). `cost` is the ledger debit in USD.
import { usdNumber } from "../../billing/pricing";

export interface AnthropicUsage {
  input_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
  output_tokens: number;
  cost: number;
  [key: string]: unknown;
}

const count = (value: unknown): number => (typeof value === "number" && Number.isFinite(value) && value > 0 ? Math.round(value) : 0);
const record = (value: unknown): Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};

/** From the upstream's usage (shared shape) when it reported one, else from the billed token counts. */
export function anthropicUsage(usage: unknown, tokens: { inputTokens: number; outputTokens: number }, debitedNano: bigint): AnthropicUsage {
  const shared = record(usage);
  if (shared.prompt_tokens === undefined) {
    return {
      input_tokens: tokens.inputTokens,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
      output_tokens: tokens.outputTokens,
      cost: usdNumber(debitedNano),
    };
  }
  const details = record(shared.prompt_tokens_details);
  const cacheRead = count(details.cached_tokens);
  const cacheWrite = count(details.cache_write_tokens);
  return {
    input_tokens: Math.max(0, count(shared.prompt_tokens) - cacheRead - cacheWrite),
    cache_creation_input_tokens: cacheWrite,
    cache_read_input_tokens: cacheRead,
    output_tokens: count(shared.completion_tokens),
    cost: usdNumber(debitedNano),
  };
}
