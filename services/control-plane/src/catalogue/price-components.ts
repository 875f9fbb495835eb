// What each public price list says beyond input and output: cache, reasoning, audio and image rates,
// unit prices, long-context and service tiers, in the catalogue's components (a PriceSheet).
import type { TokenRate } from "./catalogue-file";
import type { LitellmEntry, ModelsDevCost } from "./price-list-entries";
import { toNanoPerM } from "./price-conversion";
import { type LongContextTier, type PriceSheet, putLongContext } from "./price-sheet";

/**
 * A component price the source states. Zero is left out: in these lists a 0 beside a priced input
 * means "not charged separately" (litellm's DeepSeek cache writes, which DeepSeek bills as input;
 * Gemma's long-context rates), and leaving the component out gives exactly that (its fallback rate).
 */
function putNonZero(sheet: Map<string, bigint>, key: string, value: bigint | undefined): void {
  if (value !== undefined && value > 0n) sheet.set(key, value);
}

/** Token rates from a record of a source's own names (`cache_read` -> `cached_input`). */
function ratesFrom(
  record: Record<string, unknown>,
  names: Readonly<Record<string, TokenRate>>,
  unit: "per-token" | "per-million",
): Map<TokenRate, bigint> {
  const rates = new Map<TokenRate, bigint>();
  for (const [name, rate] of Object.entries(names)) {
    const value = toNanoPerM(record[name], unit);
    if (value !== undefined && value > 0n) rates.set(rate, value);
  }
  return rates;
}

const withoutBase = (rates: Map<TokenRate, bigint>): [TokenRate, bigint][] =>
  [...rates].filter(([rate]) => rate !== "input" && rate !== "output");

// litellm: `<base>[_above_<N>k_tokens][_priority|_flex]`, USD per token.
const LITELLM_RATES: Readonly<Record<string, TokenRate>> = {
  input_cost_per_token: "input",
  output_cost_per_token: "output",
  cache_read_input_token_cost: "cached_input",
  cache_creation_input_token_cost: "cache_write_5m",
  cache_creation_input_token_cost_above_1hr: "cache_write_1h",
  output_cost_per_reasoning_token: "reasoning",
  input_cost_per_audio_token: "audio_input",
  output_cost_per_audio_token: "audio_output",
  input_cost_per_image_token: "image_input",
  output_cost_per_image_token: "image_output",
};
// Longest base first: `cache_creation_input_token_cost_above_1hr` is a base, not a 1-hour threshold.
const LITELLM_KEY = new RegExp(
  `^(${Object.keys(LITELLM_RATES)
    .sort((a, b) => b.length - a.length)
    .join("|")})(?:_above_(\\d+)k_tokens)?(?:_(priority|flex))?$`,
);

/** The highest of litellm's web-search prices by search context size: a call is never billed below the upstream's charge. */
function litellmSearchPrice(value: unknown): bigint | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const prices = Object.values(value)
    .map((size) => toNanoPerM(size, "per-million"))
    .filter((price): price is bigint => price !== undefined);
  return prices.length ? prices.reduce((max, price) => (price > max ? price : max)) : undefined;
}

/**
 * litellm's components. Left out: `_batches` (a batch API the gateway does not use), a long-context
 * rate within a service tier (`_above_272k_tokens_priority`: the catalogue's tiers are flat),
 * per-second, per-character and per-pixel prices, and `input_cost_per_image`, which litellm uses
 * both per image (Gemini) and per image token (xAI).
 */
export function litellmComponents(entry: LitellmEntry): PriceSheet {
  const sheet = new Map<string, bigint>();
  const longContext = new Map<bigint, Map<TokenRate, bigint>>();
  for (const [key, raw] of Object.entries(entry)) {
    const match = LITELLM_KEY.exec(key);
    if (!match) continue;
    const [, base, thousands, tier] = match;
    const rate = LITELLM_RATES[base!]!;
    const value = toNanoPerM(raw, "per-token");
    if (value === undefined || value === 0n) continue;
    if (thousands !== undefined && tier !== undefined) continue;
    if (thousands !== undefined) {
      const above = BigInt(thousands) * 1000n;
      const rates = longContext.get(above) ?? new Map<TokenRate, bigint>();
      longContext.set(above, rates.set(rate, value));
    } else if (tier !== undefined) sheet.set(`service_tiers.${tier}.${rate}`, value);
    else if (rate !== "input" && rate !== "output") sheet.set(rate, value);
  }
  putNonZero(sheet, "image", toNanoPerM(entry.output_cost_per_image, "per-million"));
  putNonZero(sheet, "request", toNanoPerM(entry.input_cost_per_request, "per-million"));
  putNonZero(sheet, "web_search", litellmSearchPrice(entry.search_context_cost_per_query));
  putLongContext(
    sheet,
    [...longContext].map(([aboveInputTokens, rates]) => ({ aboveInputTokens, rates })),
  );
  return sheet;
}

// models.dev: `cost.<name>`, USD per million tokens.
const MODELS_DEV_RATES: Readonly<Record<string, TokenRate>> = {
  input: "input",
  output: "output",
  cache_read: "cached_input",
  cache_write: "cache_write_5m",
  reasoning: "reasoning",
  input_audio: "audio_input",
  output_audio: "audio_output",
};

/** models.dev's components: its rates, and `tiers` of type "context" (else the older `context_over_200k`) as long context. */
export function modelsDevComponents(cost: ModelsDevCost | undefined): PriceSheet {
  const sheet = new Map<string, bigint>();
  if (!cost) return sheet;
  for (const [rate, value] of withoutBase(ratesFrom(cost as Record<string, unknown>, MODELS_DEV_RATES, "per-million")))
    sheet.set(rate, value);
  const tiers: LongContextTier[] = (cost.tiers ?? [])
    .filter((tier) => tier.tier?.type === "context" && Number.isInteger(tier.tier.size) && tier.tier.size! > 0)
    .map((tier) => ({ aboveInputTokens: BigInt(tier.tier!.size!), rates: ratesFrom(tier, MODELS_DEV_RATES, "per-million") }));
  if (tiers.length === 0 && cost.context_over_200k)
    tiers.push({ aboveInputTokens: 200_000n, rates: ratesFrom(cost.context_over_200k, MODELS_DEV_RATES, "per-million") });
  putLongContext(sheet, tiers);
  return sheet;
}

// OpenRouter: `pricing.<name>`, USD per token. `image` is the image input token rate: every model
// listing it gives the same figure as `prompt` (Gemini bills image tokens as text), never a price
// per image. `input_audio_cache` (cached audio input) has no catalogue component.
const OPENROUTER_RATES: Readonly<Record<string, TokenRate>> = {
  prompt: "input",
  completion: "output",
  input_cache_read: "cached_input",
  input_cache_write: "cache_write_5m",
  input_cache_write_1h: "cache_write_1h",
  internal_reasoning: "reasoning",
  audio: "audio_input",
  audio_output: "audio_output",
  image: "image_input",
  image_output: "image_output",
};

/** An `overrides` entry that prices prompts from a size on; one with other conditions (`utc_start`...) is a promotion, not a tier. */
function openrouterTier(override: unknown): LongContextTier | undefined {
  if (typeof override !== "object" || override === null) return undefined;
  const record = override as Record<string, unknown>;
  const above = record.min_prompt_tokens;
  const conditions = Object.keys(record).filter((key) => !(key in OPENROUTER_RATES) && key !== "input_audio_cache");
  if (conditions.length !== 1 || typeof above !== "number" || !Number.isInteger(above) || above <= 0) return undefined;
  return { aboveInputTokens: BigInt(above), rates: ratesFrom(record, OPENROUTER_RATES, "per-token") };
}

/** OpenRouter's components: the rates it bills beyond prompt and completion, per request and per search, and its long-context overrides. */
export function openrouterComponents(pricing: Record<string, unknown> | undefined): PriceSheet {
  const sheet = new Map<string, bigint>();
  if (!pricing) return sheet;
  for (const [rate, value] of withoutBase(ratesFrom(pricing, OPENROUTER_RATES, "per-token"))) sheet.set(rate, value);
  putNonZero(sheet, "request", toNanoPerM(pricing.request, "per-million"));
  putNonZero(sheet, "web_search", toNanoPerM(pricing.web_search, "per-million"));
  const overrides = Array.isArray(pricing.overrides) ? pricing.overrides : [];
  putLongContext(
    sheet,
    overrides.map(openrouterTier).filter((tier): tier is LongContextTier => tier !== undefined),
  );
  return sheet;
}
