// Reading token usage from OpenAI-format bodies and writing `usage.cost` back.
import { usdNumber } from "../billing/pricing";

export interface OpenAiUsage {
  prompt_tokens?: unknown;
  completion_tokens?: unknown;
  total_tokens?: unknown;
  [key: string]: unknown;
}

const count = (value: unknown): number | undefined =>
  typeof value === "number" && Number.isFinite(value) && value >= 0 ? Math.round(value) : undefined;

/**
 * Token counts reported by the upstream, when it reported them. `imageTokens`:
 * the part of the output that was images (completion_tokens_details.image_tokens),
 * for paths that price images per image instead.
 */
export function readUsage(usage: unknown): { inputTokens: number; outputTokens: number; imageTokens?: number } | undefined {
  if (typeof usage !== "object" || usage === null) return undefined;
  const input = count((usage as OpenAiUsage).prompt_tokens);
  if (input === undefined) return undefined;
  const details = (usage as { completion_tokens_details?: { image_tokens?: unknown } }).completion_tokens_details;
  const imageTokens = count(details?.image_tokens);
  return {
    inputTokens: input,
    outputTokens: count((usage as OpenAiUsage).completion_tokens) ?? 0,
    ...(imageTokens ? { imageTokens } : {}),
  };
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
  // An aggregator's own figure (OpenRouter's usage.cost, USD) stays visible as the upstream cost record;
  // `cost` is always the gateway's charge, the amount on the ledger.
  const upstreamCost = typeof base.cost === "number" ? { upstream_cost: base.cost } : {};
  return { ...base, ...upstreamCost, cost: usdNumber(debitedNano) };
}
