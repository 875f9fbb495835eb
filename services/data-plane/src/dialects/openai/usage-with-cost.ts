// `usage` in the OpenAI shapes, with `cost`: the USD the ledger debited.
import { usdNumber } from "../../billing/pricing";

export interface OpenAiUsage {
  prompt_tokens?: unknown;
  completion_tokens?: unknown;
  total_tokens?: unknown;
  [key: string]: unknown;
}

/** The upstream's usage object with `cost` added, or a minimal one when it sent none. */
export function usageWithCost(usage: unknown, tokens: { inputTokens: number; outputTokens: number }, debitedNano: bigint): OpenAiUsage {
  const base: OpenAiUsage =
    typeof usage === "object" && usage !== null
      ? (usage as OpenAiUsage)
      : {
          prompt_tokens: tokens.inputTokens,
          completion_tokens: tokens.outputTokens,
          total_tokens: tokens.inputTokens + tokens.outputTokens,
        };
  // `cost` is always the gateway's charge, the amount on the ledger: an aggregator's own figure
  // (OpenRouter's usage.cost) is replaced, not added as another field; it goes to the request's log line.
  return { ...base, cost: usdNumber(debitedNano) };
}
