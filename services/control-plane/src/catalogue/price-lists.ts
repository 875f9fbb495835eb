// The public price lists the inventory generator and `gatewayctl prices check` read (OpenRouter's
// model list, models.dev, litellm), and what each says a model costs: its input and output price
// and its other price components, in the catalogue's terms and units. See docs/inventory.md.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import type { TokenRate } from "./catalogue-file";
import { type LongContextTier, type PriceSheet, putLongContext } from "./price-sheet";

// ---------------------------------------------------------------- input shapes

/** The fields of an OpenRouter `GET /api/v1/models` entry the generator reads. */
export interface OpenRouterModel {
  id: string;
  name?: string;
  canonical_slug?: string;
  created?: number;
  context_length?: number | null;
  architecture?: { input_modalities?: string[]; output_modalities?: string[] };
  /** Per-token decimal strings (`request`, `web_search`: USD each); `overrides`: long-context tiers. */
  pricing?: Record<string, unknown>;
  top_provider?: { context_length?: number | null; max_completion_tokens?: number | null };
  supported_parameters?: string[];
}

/** models.dev's per-1M costs of a model (`tiers`: long-context prices, `context_over_200k` their older form). */
export interface ModelsDevCost {
  input?: number;
  output?: number;
  cache_read?: number;
  cache_write?: number;
  reasoning?: number;
  input_audio?: number;
  output_audio?: number;
  tiers?: ({ tier?: { type?: string; size?: number } } & Record<string, unknown>)[];
  context_over_200k?: Record<string, unknown>;
}

/** A models.dev `api.json` provider-model entry (costs already USD per 1M tokens). */
export interface ModelsDevModel {
  id: string;
  name?: string;
  status?: string;
  cost?: ModelsDevCost;
  limit?: { context?: number; output?: number };
}

/** A litellm `model_prices_and_context_window.json` entry (costs USD per token; many more `*_cost*` keys). */
export interface LitellmEntry {
  litellm_provider?: string;
  mode?: string;
  input_cost_per_token?: number;
  output_cost_per_token?: number;
  max_input_tokens?: number;
  max_output_tokens?: number;
  [key: string]: unknown;
}

export interface OpenRouterList {
  /** Capture date, used in `source` texts. */
  date: string;
  models: OpenRouterModel[];
}

/** The three publishers' lists, as read from a folder laid out like ../shared/data/catalogue. */
export interface PriceLists {
  /** Newest first: an id takes its figures from the first list that has it. */
  openrouter: OpenRouterList[];
  modelsDev: Record<string, { models: Record<string, ModelsDevModel> }>;
  litellm: Record<string, LitellmEntry>;
}

// ---------------------------------------------------------------- prices

/** Input and output price in integer nano-USD per million tokens. */
export interface TokenPrice {
  input: bigint;
  output: bigint;
}

export type Publisher = "openrouter" | "models.dev" | "litellm";

/** One publisher's statement of a price, with where exactly it was read. */
export interface Figure {
  publisher: Publisher;
  label: string;
  price: TokenPrice;
  /** Every other component it states (cache, reasoning, media, unit prices, long context, service tiers). */
  components: PriceSheet;
}

const DECIMAL = /^(-?)(\d*)(?:\.(\d*))?(?:e([+-]?\d+))?$/i;

/**
 * Exact conversion of a price as the sources write it (OpenRouter: per-token
 * decimal strings; litellm: per-token JSON numbers; models.dev: per-1M numbers)
 * to nano-USD per million tokens. Decimal arithmetic on the text, not floats,
 * because 1.5e-7 * 1e6 is 0.15000000000000002 in binary. Rounds to the nearest
 * nano-USD (the catalogue's resolution). Missing, non-numeric and negative values
 * (OpenRouter's "-1" = variable pricing) give undefined. A price per unit (per
 * request, per search) converts with "per-million": a plain USD -> nano-USD.
 */
export function toNanoPerM(value: unknown, unit: "per-token" | "per-million"): bigint | undefined {
  let text: string;
  if (typeof value === "number") {
    if (!Number.isFinite(value)) return undefined;
    text = String(value);
  } else if (typeof value === "string") {
    text = value.trim();
  } else {
    return undefined;
  }
  const match = DECIMAL.exec(text);
  if (!match) return undefined;
  const [, sign, whole = "", fraction = "", exponent = "0"] = match;
  if (whole === "" && fraction === "") return undefined;
  const digits = BigInt(`${whole}${fraction}` || "0");
  if (sign === "-" && digits !== 0n) return undefined;
  const scale = Number(exponent) - fraction.length + 9 + (unit === "per-token" ? 6 : 0);
  if (scale >= 0) return digits * 10n ** BigInt(scale);
  const divisor = 10n ** BigInt(-scale);
  return (digits + divisor / 2n) / divisor;
}

/** Both parts of a price, or undefined when either is missing or unusable. */
export function tokenPrice(input: unknown, output: unknown, unit: "per-token" | "per-million"): TokenPrice | undefined {
  const inputNano = toNanoPerM(input, unit);
  const outputNano = toNanoPerM(output, unit);
  return inputNano === undefined || outputNano === undefined ? undefined : { input: inputNano, output: outputNano };
}

// ---------------------------------------------------------------- components

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

// ---------------------------------------------------------------- figures

/**
 * OpenRouter's own price for a model, or undefined when missing, variable or
 * negative. Its output price is the text one (`completion`): image and audio
 * output tokens have their own rates (`image_output`, `audio_output`), which are
 * components of the path, and OpenRouter reports those tokens apart
 * (`completion_tokens_details.image_tokens` / `audio_tokens`), so each kind is
 * billed at its own rate.
 */
export function openrouterFigure(model: OpenRouterModel, date: string): Figure | undefined {
  const price = tokenPrice(model.pricing?.prompt, model.pricing?.completion, "per-token");
  if (!price) return undefined;
  return { publisher: "openrouter", label: `OpenRouter ${date}`, price, components: openrouterComponents(model.pricing) };
}

/** models.dev's figure for a provider's model, when it gives input and output. */
export function modelsDevFigure(provider: string, id: string, model: ModelsDevModel): Figure | undefined {
  const price = tokenPrice(model.cost?.input, model.cost?.output, "per-million");
  return price && { publisher: "models.dev", label: `models.dev ${provider}/${id}`, price, components: modelsDevComponents(model.cost) };
}

/** litellm's figure for one of its keys, when it gives input and output. */
export function litellmFigure(key: string, entry: LitellmEntry): Figure | undefined {
  const price = tokenPrice(entry.input_cost_per_token, entry.output_cost_per_token, "per-token");
  return price && { publisher: "litellm", label: `litellm ${key}`, price, components: litellmComponents(entry) };
}

// ---------------------------------------------------------------- vendors

/** Where a vendor's own prices live in models.dev and litellm, and its direct adapter if the data plane has one. */
export interface VendorSources {
  modelsDev?: string;
  litellmPrefix?: string;
  litellmProvider?: string;
  direct?: { provider: string; credentials: string };
}

// Direct paths only for the three providers the data plane has adapters for; the
// other vendors' native prices still serve as a second opinion on OpenRouter's.
export const VENDORS: Record<string, VendorSources> = {
  openai: {
    modelsDev: "openai",
    litellmPrefix: "",
    litellmProvider: "openai",
    direct: { provider: "openai", credentials: "OPENAI_API_KEY" },
  },
  anthropic: {
    modelsDev: "anthropic",
    litellmPrefix: "",
    litellmProvider: "anthropic",
    direct: { provider: "anthropic", credentials: "ANTHROPIC_API_KEY" },
  },
  google: {
    modelsDev: "google",
    litellmPrefix: "gemini/",
    litellmProvider: "gemini",
    direct: { provider: "google", credentials: "GOOGLE_API_KEY" }, // the name the rest of the project uses
  },
  deepseek: { modelsDev: "deepseek", litellmPrefix: "deepseek/", litellmProvider: "deepseek" },
  mistralai: { modelsDev: "mistral", litellmPrefix: "mistral/", litellmProvider: "mistral" },
  "x-ai": { modelsDev: "xai", litellmPrefix: "xai/", litellmProvider: "xai" },
  moonshotai: { modelsDev: "moonshotai", litellmPrefix: "moonshot/", litellmProvider: "moonshot" },
  minimax: { modelsDev: "minimax", litellmPrefix: "minimax/", litellmProvider: "minimax" },
  "z-ai": { modelsDev: "zai", litellmPrefix: "zai/", litellmProvider: "zai" },
  perplexity: { modelsDev: "perplexity", litellmPrefix: "perplexity/", litellmProvider: "perplexity" },
  qwen: { modelsDev: "alibaba", litellmPrefix: "dashscope/", litellmProvider: "dashscope" },
  cohere: { modelsDev: "cohere" },
  xiaomi: { modelsDev: "xiaomi" },
  inception: { modelsDev: "inception" },
  upstage: { modelsDev: "upstage" },
  poolside: { modelsDev: "poolside" },
  sakana: { modelsDev: "sakana" },
  morph: { modelsDev: "morph" },
  stepfun: { modelsDev: "stepfun" },
};

/** The vendor whose direct path is this catalogue provider (`google` -> the Gemini API's lists). */
export const directVendor = (provider: string): VendorSources | undefined =>
  Object.values(VENDORS).find((vendor) => vendor.direct?.provider === provider);

/** The vendor's own figures for a native id, by exact id: its models.dev entry, then its litellm entry. */
export function nativeFiguresById(vendor: VendorSources, nativeId: string, lists: PriceLists): Figure[] {
  const figures: Figure[] = [];
  const native = vendor.modelsDev ? lists.modelsDev[vendor.modelsDev]?.models[nativeId] : undefined;
  const fromModelsDev = native && modelsDevFigure(vendor.modelsDev!, nativeId, native);
  if (fromModelsDev) figures.push(fromModelsDev);
  const key = `${vendor.litellmPrefix ?? ""}${nativeId}`;
  const entry = vendor.litellmPrefix === undefined ? undefined : lists.litellm[key];
  const fromLitellm = entry?.litellm_provider === vendor.litellmProvider ? litellmFigure(key, entry!) : undefined;
  if (fromLitellm) figures.push(fromLitellm);
  return figures;
}

// ---------------------------------------------------------------- files

const readJson = <T>(file: string): T => JSON.parse(readFileSync(file, "utf8")) as T;

/** OpenRouter captures are `openrouter/<anything>.<YYYY-MM-DD>.json`; the date names them in `source` texts. */
const OPENROUTER_CAPTURE = /\.(\d{4}-\d{2}-\d{2})\.json$/;

/** Reads the three lists from a folder laid out like ../shared/data/catalogue (litellm/, models.dev/, openrouter/). */
export function readPriceLists(dataDir: string): PriceLists {
  const litellm = readJson<Record<string, LitellmEntry>>(path.join(dataDir, "litellm/model_prices_and_context_window.json"));
  delete litellm.sample_spec; // documentation, not a model
  const captures = readdirSync(path.join(dataDir, "openrouter"))
    .map((file) => ({ file, date: OPENROUTER_CAPTURE.exec(file)?.[1] }))
    .filter((capture): capture is { file: string; date: string } => capture.date !== undefined)
    .sort((a, b) => (a.date < b.date ? 1 : a.date > b.date ? -1 : 0)); // newest first: it decides the figures of ids in both
  return {
    openrouter: captures.map(({ file, date }) => ({
      date,
      models: readJson<{ data: OpenRouterModel[] }>(path.join(dataDir, "openrouter", file)).data,
    })),
    modelsDev: readJson<PriceLists["modelsDev"]>(path.join(dataDir, "models.dev/api.json")),
    litellm,
  };
}

/** OpenRouter's figure for an id from the newest list that has it. */
export function openrouterFigureById(id: string, lists: PriceLists): Figure | undefined {
  for (const list of lists.openrouter) {
    const model = list.models.find((candidate) => candidate.id === id);
    if (model) return openrouterFigure(model, list.date);
  }
  return undefined;
}
