// Integer pricing. Token prices are nano-USD per million tokens, other parts
// nano-USD per unit (image, request, web search). A request's cost is the sum of
// its tokens of each kind times that kind's rate, rounded up to the next nano-USD
// once, plus its unit parts (docs/money.md, "Cost by component").
import type { Price, TokenRate, TokenRates } from "../catalogue/catalogue-snapshot";
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
}

const MILLION = 1_000_000n;

/** Token kinds in the order a prompt or an answer is split into them; each falls back to the next rate when unpriced. */
const INPUT_KINDS = [
  { component: "cached_input", count: "cachedInputTokens", rates: ["cachedInput", "input"] },
  { component: "cache_write_5m", count: "cacheWrite5mTokens", rates: ["cacheWrite5m", "input"] },
  // An hour's write costs more than five minutes': unpriced, it is billed at least at the 5-minute rate.
  { component: "cache_write_1h", count: "cacheWrite1hTokens", rates: ["cacheWrite1h", "cacheWrite5m", "input"] },
  { component: "audio_input", count: "audioInputTokens", rates: ["audioInput", "input"] },
  { component: "image_input", count: "imageInputTokens", rates: ["imageInput", "input"] },
] as const;
const OUTPUT_KINDS = [
  { component: "reasoning", count: "reasoningTokens", rates: ["reasoning", "output"] },
  { component: "audio_output", count: "audioOutputTokens", rates: ["audioOutput", "output"] },
  { component: "image_output", count: "imageOutputTokens", rates: ["imageOutput", "output"] },
] as const;

/**
 * The token rates that apply to a call: the base ones; above the long-context threshold (the whole
 * prompt's tokens), the long-context ones; at a priced service tier, that tier's. A rate a tier does
 * not give stays what it was.
 */
export function ratesFor(price: Price, inputTokens: number, serviceTier?: string): TokenRates {
  let rates: TokenRates = { ...price.rates };
  if (price.inputNanoPerM !== null) rates.input = price.inputNanoPerM;
  if (price.outputNanoPerM !== null) rates.output = price.outputNanoPerM;
  if (price.longContext && inputTokens > price.longContext.aboveInputTokens) rates = { ...rates, ...price.longContext.rates };
  const tier = serviceTier === undefined ? undefined : price.serviceTiers?.get(serviceTier);
  if (tier) rates = { ...rates, ...tier };
  return rates;
}

const rateOf = (rates: TokenRates, chain: readonly TokenRate[]): bigint => {
  for (const rate of chain) if (rates[rate] !== undefined) return rates[rate]!;
  return 0n;
};

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
  const split = (total: number, base: { component: string; rate: TokenRate }, kinds: typeof INPUT_KINDS | typeof OUTPUT_KINDS) => {
    let left = Math.max(0, total);
    const detail: typeof tokenParts = [];
    for (const kind of kinds) {
      if (kind.component === "image_output" && billsPerImage(price, usage)) {
        left -= Math.min(left, usage.imageOutputTokens ?? 0); // billed per image instead
        continue;
      }
      const units = Math.min(left, Math.max(0, usage[kind.count] ?? 0));
      if (units === 0) continue;
      left -= units;
      detail.push({ component: kind.component, units, numerator: BigInt(units) * rateOf(rates, kind.rates) });
    }
    if (left > 0) tokenParts.push({ component: base.component, units: left, numerator: BigInt(left) * rateOf(rates, [base.rate]) });
    tokenParts.push(...detail);
  };
  split(usage.inputTokens, { component: "input", rate: "input" }, INPUT_KINDS);
  split(usage.outputTokens, { component: "output", rate: "output" }, OUTPUT_KINDS);
  const numerator = tokenParts.reduce((sum, part) => sum + part.numerator, 0n);
  const tokensNano = (numerator + MILLION - 1n) / MILLION;
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
