// `usage` in the OpenAI shapes, with `cost`: the USD the ledger debited.
import type { UsageRecord } from "../../billing/pricing";
import { usdNumber } from "../../billing/pricing";
import { chatUsage } from "../../providers/chat-usage";

export interface OpenAiUsage {
  prompt_tokens?: unknown;
  completion_tokens?: unknown;
  total_tokens?: unknown;
  [key: string]: unknown;
}

/**
 * The upstream's usage object with `cost` added: a pass-through's own, or a translated answer's,
 * which its codec wrote from the billed record (providers/chat-usage.ts). Without one, the billed
 * record (an estimate) in the same shape.
 */
export function usageWithCost(usage: unknown, tokens: UsageRecord, debitedNano: bigint): OpenAiUsage {
  const base: OpenAiUsage = typeof usage === "object" && usage !== null ? (usage as OpenAiUsage) : chatUsage(tokens);
  // `cost` is always the gateway's charge, the amount on the ledger: an aggregator's own figure
  // (OpenRouter's usage.cost) is replaced, not added as another field; it goes to the request's log line.
  return { ...base, cost: usdNumber(debitedNano) };
}
