// Responses API usage in the shared (chat) usage shape the meter bills from.
const count = (value: unknown): number => (typeof value === "number" && Number.isFinite(value) ? value : 0);

interface ResponsesUsage {
  input_tokens?: unknown;
  input_tokens_details?: { cached_tokens?: unknown } | null;
  output_tokens?: unknown;
  output_tokens_details?: { reasoning_tokens?: unknown } | null;
  total_tokens?: unknown;
}

/** `input_tokens` (cached included) -> prompt_tokens, `output_tokens` (reasoning included) -> completion_tokens; undefined without usage. */
export function responsesUsageAsChat(usage: unknown): Record<string, unknown> | undefined {
  if (typeof usage !== "object" || usage === null || typeof (usage as ResponsesUsage).input_tokens !== "number") return undefined;
  const fields = usage as ResponsesUsage;
  const input = count(fields.input_tokens);
  const output = count(fields.output_tokens);
  return {
    prompt_tokens: input,
    completion_tokens: output,
    total_tokens: typeof fields.total_tokens === "number" ? fields.total_tokens : input + output,
    prompt_tokens_details: { cached_tokens: count(fields.input_tokens_details?.cached_tokens) },
    completion_tokens_details: { reasoning_tokens: count(fields.output_tokens_details?.reasoning_tokens) },
  };
}
