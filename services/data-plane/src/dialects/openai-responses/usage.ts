// `usage` in the Responses shape, with `cost`: the USD the ledger debited.
import { usdNumber } from "../../billing/pricing";
import type { AnswerContext } from "../client-dialect";

/**
 * The billed usage record (reported, else estimated) as Responses usage: cached input and
 * reasoning output in their details (0 when not reported: OpenAI always writes both).
 */
export function responsesUsage(context: Pick<AnswerContext, "tokens" | "debitedNano">): Record<string, unknown> {
  const { tokens } = context;
  return {
    input_tokens: tokens.inputTokens,
    input_tokens_details: { cached_tokens: tokens.cachedInputTokens ?? 0 },
    output_tokens: tokens.outputTokens,
    output_tokens_details: { reasoning_tokens: tokens.reasoningTokens ?? 0 },
    total_tokens: tokens.inputTokens + tokens.outputTokens,
    cost: usdNumber(context.debitedNano),
  };
}

/** A native upstream's own usage object with `cost` added in place (its keys keep their order); a minimal one when it sent none. */
export function nativeUsageWithCost(usage: unknown, context: Pick<AnswerContext, "tokens" | "debitedNano">): Record<string, unknown> {
  if (typeof usage !== "object" || usage === null) return responsesUsage(context);
  return { ...(usage as Record<string, unknown>), cost: usdNumber(context.debitedNano) };
}
