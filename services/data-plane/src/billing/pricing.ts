// Integer pricing. Token prices are nano-USD per million tokens, other parts
// nano-USD per unit (image, request, web search). A request's cost is the sum of
// its tokens of each kind times that kind's rate, rounded up to the next nano-USD
// once, plus its unit parts (docs/money.md, "Cost by component").
import { type Price, RATE_COMPONENT, TOKEN_RATES, type TokenRate, type TokenRates } from "../catalogue/catalogue-snapshot";
import type { CostPart } from "../control-plane/control-plane-client";

export type { CostPart };

/**
 * What a call used, read from the upstream's usage (engine/usage-meter.ts). The detail counts are
 * parts of the totals: cache reads and writes, audio and image tokens are inside `inputTokens`
 * (OpenAI's prompt_tokens), reasoning, audio and image tokens inside `outputTokens`.
 */
export interface UsageRecord {
  /** Every prompt token. */
  inputTokens: number;
  cachedInputTokens?: number;
  cacheWrite5mTokens?: number;
  cacheWrite1hTokens?: number;
  audioInputTokens?: number;
  imageInputTokens?: number;
  /** Every produced token. */
  outputTokens: number;
  reasoningTokens?: number;
  audioOutputTokens?: number;
  imageOutputTokens?: number;
  /** Output images delivered, for paths priced per image (their tokens are then not billed). */
  images?: number;
  /** Input images, for paths priced per input image. */
  inputImages?: number;
  /** Web searches (or other tool calls) the upstream ran and bills per call. */
  webSearches?: number;
  /** The tier the upstream says it served at (OpenAI's `service_tier`). */
  serviceTier?: string;
  /** The upstream reported cache writes without their lifetime (OpenRouter, the Responses API): counted as 5-minute ones. */
  cacheWriteLifetimeUnknown?: boolean;
}

/** Token rates are per million tokens. */
export const MILLION = 1_000_000n;

/** A sum of tokens x nano-USD-per-million rates in nano-USD: the one rounding, up. */
export const perMillionRoundedUp = (numerator: bigint): bigint => (numerator + MILLION - 1n) / MILLION;

/** Token kinds in the order a prompt or an answer is split into them (the rest is plain input or output). */
const INPUT_KINDS = [
  { count: "cachedInputTokens", rate: "cachedInput" },
  { count: "cacheWrite5mTokens", rate: "cacheWrite5m" },
  { count: "cacheWrite1hTokens", rate: "cacheWrite1h" },
  { count: "audioInputTokens", rate: "audioInput" },
  { count: "imageInputTokens", rate: "imageInput" },
] as const;
const OUTPUT_KINDS = [
  { count: "reasoningTokens", rate: "reasoning" },
  { count: "audioOutputTokens", rate: "audioOutput" },
  { count: "imageOutputTokens", rate: "imageOutput" },
] as const;

/** Where each kind of token falls back when the price does not give its rate (decision 0005). */
const FALLBACK: Record<TokenRate, readonly TokenRate[]> = {
  input: ["input"],
  output: ["output"],
  cachedInput: ["cachedInput", "input"],
  cacheWrite5m: ["cacheWrite5m", "input"],
  // An hour's write costs more than five minutes': unpriced, it is billed at least at the 5-minute rate.
  cacheWrite1h: ["cacheWrite1h", "cacheWrite5m", "input"],
  reasoning: ["reasoning", "output"],
  audioInput: ["audioInput", "input"],
  audioOutput: ["audioOutput", "output"],
  imageInput: ["imageInput", "input"],
  imageOutput: ["imageOutput", "output"],
};
const OUTPUT_SIDE: ReadonlySet<TokenRate> = new Set(["output", "reasoning", "audioOutput", "imageOutput"]);

const rateOf = (rates: TokenRates, chain: readonly TokenRate[]): bigint => {
  for (const rate of chain) if (rates[rate] !== undefined) return rates[rate]!;
  return 0n;
};

const ceilDiv = (a: bigint, b: bigint): bigint => (a + b - 1n) / b;

/** Every kind's rate, each unpriced one at its fallback. */
function resolve(rates: TokenRates): Required<TokenRates> {
  return Object.fromEntries(TOKEN_RATES.map((rate) => [rate, rateOf(rates, FALLBACK[rate])])) as Required<TokenRates>;
}

/**
 * The rates of a long-context or service tier over `base`: the ones it gives; a kind it does not give
 * scales with its side's base rate (a tier that doubles input doubles the 1-hour cache write too).
 */
function overlay(base: Required<TokenRates>, given: TokenRates): Required<TokenRates> {
  const side = (rate: TokenRate): TokenRate => (OUTPUT_SIDE.has(rate) ? "output" : "input");
  const rates = { ...base };
  for (const rate of TOKEN_RATES) {
    const sideRate = side(rate);
    if (given[rate] !== undefined) rates[rate] = given[rate]!;
    else if (given[sideRate] !== undefined && base[sideRate] > 0n) rates[rate] = ceilDiv(base[rate] * given[sideRate]!, base[sideRate]);
  }
  return rates;
}

/**
 * The token rates that apply to a call, every kind resolved: the base ones; above the long-context
 * threshold (the whole prompt's tokens), the long-context ones; at a priced service tier, that tier's.
 * Both at once (a priority answer to a long prompt): each kind's tier rate scaled as the long-context
 * tier scales it, long x tier / base (gpt-5.4 priority above 272k: $5 x $5 / $2.50 = $10 input).
 */
export function ratesFor(price: Price, inputTokens: number, serviceTier?: string): Required<TokenRates> {
  const long = price.longContext !== null && price.longContext !== undefined && inputTokens > price.longContext.aboveInputTokens;
  const tier = serviceTier !== undefined && price.serviceTiers?.has(serviceTier) === true ? serviceTier : undefined;
  // A price is fixed for its catalogue revision: its few rate sets are resolved once, not per call.
  let sets = RESOLVED.get(price);
  if (!sets) {
    sets = new Map();
    RESOLVED.set(price, sets);
  }
  const key = `${long ? "long" : ""}|${tier ?? ""}`;
  let rates = sets.get(key);
  if (!rates) {
    rates = Object.freeze(resolveRates(price, long, tier));
    sets.set(key, rates);
  }
  return rates;
}

const RESOLVED = new WeakMap<Price, Map<string, Required<TokenRates>>>();

function resolveRates(price: Price, aboveThreshold: boolean, serviceTier: string | undefined): Required<TokenRates> {
  const base = resolve({
    ...price.rates,
    ...(price.inputNanoPerM !== null ? { input: price.inputNanoPerM } : {}),
    ...(price.outputNanoPerM !== null ? { output: price.outputNanoPerM } : {}),
  });
  const long = aboveThreshold && price.longContext ? overlay(base, price.longContext.rates) : undefined;
  const tierRates = serviceTier === undefined ? undefined : price.serviceTiers?.get(serviceTier);
  const tier = tierRates ? overlay(base, tierRates) : undefined;
  if (!long || !tier) return long ?? tier ?? base;
  const both = { ...base };
  for (const rate of TOKEN_RATES)
    both[rate] = base[rate] > 0n ? ceilDiv(long[rate] * tier[rate], base[rate]) : long[rate] > tier[rate] ? long[rate] : tier[rate];
  return both;
}

/** Whether images in this answer are billed per image (and their tokens not at all). */
export const billsPerImage = (price: Price, usage: UsageRecord): boolean =>
  price.imageNano !== null && price.imageNano !== undefined && (usage.images ?? 0) > 0;

/**
 * The call's cost split by component, and its total: every token kind at its rate, summed, rounded
 * up once; then the per-unit parts. Detail counts beyond their total (a malformed usage) are cut to it.
 */
export function costParts(price: Price, usage: UsageRecord): { totalNano: bigint; parts: CostPart[] } {
  const rates = ratesFor(price, usage.inputTokens, usage.serviceTier);
  const tokenParts: { component: string; units: number; numerator: bigint }[] = [];
  const split = (total: number, base: "input" | "output", kinds: typeof INPUT_KINDS | typeof OUTPUT_KINDS) => {
    let left = Math.max(0, total);
    const detail: typeof tokenParts = [];
    for (const kind of kinds) {
      if (kind.rate === "imageOutput" && billsPerImage(price, usage)) {
        left -= Math.min(left, usage.imageOutputTokens ?? 0); // billed per image instead
        continue;
      }
      const units = Math.min(left, Math.max(0, usage[kind.count] ?? 0));
      if (units === 0) continue;
      left -= units;
      detail.push({ component: RATE_COMPONENT[kind.rate], units, numerator: BigInt(units) * rates[kind.rate] });
    }
    if (left > 0) tokenParts.push({ component: base, units: left, numerator: BigInt(left) * rates[base] });
    tokenParts.push(...detail);
  };
  split(usage.inputTokens, "input", INPUT_KINDS);
  split(usage.outputTokens, "output", OUTPUT_KINDS);
  const numerator = tokenParts.reduce((sum, part) => sum + part.numerator, 0n);
  const tokensNano = perMillionRoundedUp(numerator);
  const parts: CostPart[] = tokenParts.map(({ component, units, numerator: partNumerator }) => ({
    component,
    units,
    nano: partNumerator / MILLION,
  }));
  const rounding = tokensNano - parts.reduce((sum, part) => sum + part.nano, 0n);
  if (rounding > 0n) parts.push({ component: "rounding", units: 0, nano: rounding });
  const unit = (component: string, count: number | undefined, each: bigint | null | undefined) => {
    if (count && count > 0 && each) parts.push({ component, units: count, nano: BigInt(count) * each });
  };
  unit("image", billsPerImage(price, usage) ? usage.images : 0, price.imageNano);
  unit("input_image", usage.inputImages, price.inputImageNano);
  unit("web_search", usage.webSearches, price.webSearchNano);
  unit("request", 1, price.requestNano);
  return { totalNano: parts.reduce((sum, part) => sum + part.nano, 0n), parts };
}

/** The call's cost in nano-USD (costParts' total). */
export const costNano = (price: Price, usage: UsageRecord): bigint => costParts(price, usage).totalNano;

/** Service tiers a catalogue may price (OpenAI's `service_tier`); `auto` and `default` are the standard rates. */
export const PRICED_SERVICE_TIERS: ReadonlySet<string> = new Set(["priority", "flex", "scale"]);

/**
 * A path can be billed when its token prices are known, and, for a request asking for a priced
 * service tier (`priority`, `flex`, `scale`), when it prices that tier: an answer served at a tier
 * the catalogue does not price would be billed at the wrong rates.
 */
export function canPrice(price: Price, endpoint: "chat" | "embeddings", serviceTier?: unknown): boolean {
  if (price.inputNanoPerM === null || (endpoint === "chat" && price.outputNanoPerM === null)) return false;
  return typeof serviceTier !== "string" || !PRICED_SERVICE_TIERS.has(serviceTier) || price.serviceTiers?.has(serviceTier) === true;
}

/**
 * usage.cost as the JSON number of USD. Round-trips exactly (Math.round(cost * 1e9) is the
 * nano amount) for amounts up to 10^15 nano-USD ($1,000,000): far above any single request.
 */
export const usdNumber = (nano: bigint): number => Number(nano) / 1e9;
