// Anthropic `usage` -> OpenAI `usage`.
//
// Anthropic splits the prompt three ways: `input_tokens` counts only the
// tokens after the last cache breakpoint, beside `cache_creation_input_tokens`
// (written to the cache) and `cache_read_input_tokens` (read from it).
// OpenAI's `prompt_tokens` is the whole prompt, so it is the sum of the three,
// with the cached part repeated in `prompt_tokens_details.cached_tokens`
// (OpenAI's meaning) and the cache writes in `cache_write_tokens` (OpenRouter's
// name for them). `output_tokens` already includes thinking, as OpenAI's
// `completion_tokens` includes reasoning; the thinking share, when reported,
// becomes `completion_tokens_details.reasoning_tokens`.
import { isRecord, tokenCount } from "./json-values";

export interface OpenAiUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details: { cached_tokens: number; cache_write_tokens?: number };
  completion_tokens_details?: { reasoning_tokens: number };
}

/** Undefined when the usage reports no input count (nothing to bill from). */
export function convertAnthropicUsage(usage: unknown): OpenAiUsage | undefined {
  if (!isRecord(usage)) return undefined;
  const input = tokenCount(usage.input_tokens);
  if (input === undefined) return undefined;
  const cacheWrite = tokenCount(usage.cache_creation_input_tokens) ?? 0;
  const cacheRead = tokenCount(usage.cache_read_input_tokens) ?? 0;
  const output = tokenCount(usage.output_tokens) ?? 0;
  const prompt = input + cacheWrite + cacheRead;
  const converted: OpenAiUsage = {
    prompt_tokens: prompt,
    completion_tokens: output,
    total_tokens: prompt + output,
    prompt_tokens_details: cacheWrite > 0 ? { cached_tokens: cacheRead, cache_write_tokens: cacheWrite } : { cached_tokens: cacheRead },
  };
  const thinking = isRecord(usage.output_tokens_details) ? tokenCount(usage.output_tokens_details.thinking_tokens) : undefined;
  if (thinking !== undefined) converted.completion_tokens_details = { reasoning_tokens: thinking };
  return converted;
}
