// Integer pricing. Prices are nano-USD per million tokens (per image / per
// request for those parts). A request's cost is rounded up to the next
// nano-USD once, over all its parts.
import type { Price } from "../catalogue/catalogue-snapshot";

export interface TokenUsage {
  inputTokens: number;
  outputTokens: number;
  images?: number;
}

const MILLION = 1_000_000n;

export function costNano(price: Price, usage: TokenUsage): bigint {
  const tokenPart = BigInt(usage.inputTokens) * (price.inputNanoPerM ?? 0n) + BigInt(usage.outputTokens) * (price.outputNanoPerM ?? 0n);
  const tokens = (tokenPart + MILLION - 1n) / MILLION;
  return tokens + (price.requestNano ?? 0n) + BigInt(usage.images ?? 0) * (price.imageNano ?? 0n);
}

/**
 * The most output tokens a budget covers after `inputTokens` of prompt: the
 * largest n with costNano(price, { inputTokens, outputTokens: n }) <= budget.
 */
export function affordableOutputTokens(price: Price, inputTokens: number, budgetNano: bigint): number {
  const room = (budgetNano - (price.requestNano ?? 0n)) * MILLION - BigInt(inputTokens) * (price.inputNanoPerM ?? 0n);
  if (room < 0n) return 0;
  const perToken = price.outputNanoPerM ?? 0n;
  if (perToken === 0n) return Number.MAX_SAFE_INTEGER;
  const tokens = room / perToken;
  return tokens > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(tokens);
}

/** A path can be billed when its token prices are known. */
export function canPrice(price: Price, endpoint: "chat" | "embeddings"): boolean {
  return price.inputNanoPerM !== null && (endpoint === "embeddings" || price.outputNanoPerM !== null);
}

/**
 * usage.cost as the JSON number of USD. Round-trips exactly (Math.round(cost * 1e9) is the
 * nano amount) for amounts up to 10^15 nano-USD ($1,000,000): far above any single request.
 */
export const usdNumber = (nano: bigint): number => Number(nano) / 1e9;
