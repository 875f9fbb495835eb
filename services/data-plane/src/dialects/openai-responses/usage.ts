// `usage` in the Responses shape, with `cost`: the USD the ledger debited.
import { usdNumber } from "../../billing/pricing";
import type { AnswerContext } from "../client-dialect";

interface ChatUsage {
  prompt_tokens?: unknown;
  completion_tokens?: unknown;
  total_tokens?: unknown;
  prompt_tokens_details?: { cached_tokens?: unknown } | null;
  completion_tokens_details?: { reasoning_tokens?: unknown } | null;
}

const count = (value: unknown, fallback: number): number => (typeof value === "number" && Number.isFinite(value) ? value : fallback);

/** The shared (chat) usage the meter billed, as Responses usage: reported figures when there were some, else the billed estimate. */
export function responsesUsage(context: Pick<AnswerContext, "usage" | "tokens" | "debitedNano">): Record<string, unknown> {
  const usage = (typeof context.usage === "object" && context.usage !== null ? context.usage : {}) as ChatUsage;
  const input = count(usage.prompt_tokens, context.tokens.inputTokens);
  const output = count(usage.completion_tokens, context.tokens.outputTokens);
  return {
    input_tokens: input,
    input_tokens_details: { cached_tokens: count(usage.prompt_tokens_details?.cached_tokens, 0) },
    output_tokens: output,
    output_tokens_details: { reasoning_tokens: count(usage.completion_tokens_details?.reasoning_tokens, 0) },
    total_tokens: count(usage.total_tokens, input + output),
    cost: usdNumber(context.debitedNano),
  };
}

/** A native upstream's own usage object with `cost` added in place (its keys keep their order); a minimal one when it sent none. */
export function nativeUsageWithCost(usage: unknown, context: Pick<AnswerContext, "tokens" | "debitedNano">): Record<string, unknown> {
  if (typeof usage !== "object" || usage === null) return responsesUsage({ usage: undefined, ...context });
  return { ...(usage as Record<string, unknown>), cost: usdNumber(context.debitedNano) };
}
