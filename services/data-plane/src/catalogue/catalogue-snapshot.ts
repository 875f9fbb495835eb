// The catalogue as the data plane uses it: received from the control plane,
// indexed once per revision, kept as the last good snapshot while the control
// plane is away.
import { type Catalogue__Output, type Price__Output, protoField } from "@gateway/proto";

/** Token prices by kind of token, nano-USD per million tokens (docs/catalogue.md, "Price components"). */
export const TOKEN_RATES = [
  "input",
  "output",
  "cachedInput",
  "cacheWrite5m",
  "cacheWrite1h",
  "reasoning",
  "audioInput",
  "audioOutput",
  "imageInput",
  "imageOutput",
] as const;
export type TokenRate = (typeof TOKEN_RATES)[number];
/** Each rate's component name in the catalogue file, `service.pricing` and the cost split. */
export const RATE_COMPONENT: Record<TokenRate, string> = {
  input: "input",
  output: "output",
  cachedInput: "cached_input",
  cacheWrite5m: "cache_write_5m",
  cacheWrite1h: "cache_write_1h",
  reasoning: "reasoning",
  audioInput: "audio_input",
  audioOutput: "audio_output",
  imageInput: "image_input",
  imageOutput: "image_output",
};
/** A rate not given is absent (the base rate applies: billing/pricing.ts). */
export type TokenRates = { [K in TokenRate]?: bigint };

export interface Price {
  inputNanoPerM: bigint | null;
  outputNanoPerM: bigint | null;
  /** Per output image. */
  imageNano: bigint | null;
  requestNano: bigint | null;
  verified: boolean;
  source: string;
  /** The token rates beyond input and output (cache reads and writes, reasoning, audio, image tokens). */
  rates?: TokenRates;
  /** Per input image; per web search (a tool billed per call). */
  inputImageNano?: bigint | null;
  webSearchNano?: bigint | null;
  /** Above `aboveInputTokens` input tokens (the whole prompt), these rates replace the base ones. */
  longContext?: { aboveInputTokens: number; rates: TokenRates } | null;
  /** The rates of an answer served at a service tier (OpenAI's `service_tier`: priority, flex). */
  serviceTiers?: ReadonlyMap<string, TokenRates>;
  /** The components checked against the provider's own page (catalogue names: input, cached_input...). */
  verifiedComponents?: readonly string[];
}

export interface AccessPath {
  provider: string;
  upstreamModel: string;
  credentialsRef: string;
  price: Price;
}

export interface ModelEntry {
  id: string;
  curated: boolean;
  tiers: string[];
  purposes: string[];
  ownedBy: string;
  created: number;
  contextLength: number;
  maxOutputTokens: number;
  inputModalities: string[];
  outputModalities: string[];
  tools: boolean;
  jsonSchema: boolean;
  embeddings: boolean;
  paths: AccessPath[];
}

export interface CatalogueSnapshot {
  revision: string;
  /** Curated first, in catalogue order, then the inventory. */
  models: ModelEntry[];
  byId: Map<string, ModelEntry>;
  /** Lower-cased part after the last "/" of every id -> the models carrying it. */
  byBareName: Map<string, ModelEntry[]>;
  /** Tier -> its curated models, in catalogue order. */
  byTier: Map<string, ModelEntry[]>;
  defaults: { embeddings: string };
}

const optionalBigInt = (value: string | undefined): bigint | null => (value === undefined ? null : BigInt(value));

function toRates(source: object, only: readonly TokenRate[]): TokenRates {
  const rates: TokenRates = {};
  for (const rate of only) {
    const value = (source as Record<string, string | undefined>)[protoField(`${RATE_COMPONENT[rate]}_nano_per_m`)];
    if (value !== undefined) rates[rate] = BigInt(value);
  }
  return rates;
}

const OTHER_RATES = TOKEN_RATES.filter((rate) => rate !== "input" && rate !== "output");

function toPrice(price: Price__Output | null): Price {
  const longContext = price?.longContext;
  return {
    inputNanoPerM: optionalBigInt(price?.inputNanoPerM),
    outputNanoPerM: optionalBigInt(price?.outputNanoPerM),
    imageNano: optionalBigInt(price?.imageNano),
    requestNano: optionalBigInt(price?.requestNano),
    verified: price?.verified ?? false,
    source: price?.source ?? "",
    rates: price ? toRates(price, OTHER_RATES) : {},
    inputImageNano: optionalBigInt(price?.inputImageNano),
    webSearchNano: optionalBigInt(price?.webSearchNano),
    longContext: longContext?.rates
      ? { aboveInputTokens: longContext.aboveInputTokens, rates: toRates(longContext.rates, TOKEN_RATES) }
      : null,
    serviceTiers: new Map(Object.entries(price?.serviceTiers ?? {}).map(([tier, rates]) => [tier, toRates(rates, TOKEN_RATES)])),
    verifiedComponents: price?.verifiedComponents ?? [],
  };
}

export function bareName(id: string): string {
  return id.slice(id.lastIndexOf("/") + 1).toLowerCase();
}

export function buildSnapshot(catalogue: Catalogue__Output): CatalogueSnapshot {
  const models: ModelEntry[] = catalogue.models.map((model) => ({
    id: model.id,
    curated: model.curated,
    tiers: model.tiers,
    purposes: model.purposes,
    ownedBy: model.ownedBy,
    created: Number(model.created),
    contextLength: model.contextLength,
    maxOutputTokens: model.maxOutputTokens,
    inputModalities: model.inputModalities,
    outputModalities: model.outputModalities,
    tools: model.tools,
    jsonSchema: model.jsonSchema,
    embeddings: model.embeddings,
    paths: model.paths.map((path) => ({
      provider: path.provider,
      upstreamModel: path.upstreamModel,
      credentialsRef: path.credentialsRef,
      price: toPrice(path.price),
    })),
  }));
  const byId = new Map(models.map((model) => [model.id, model]));
  const byBareName = new Map<string, ModelEntry[]>();
  for (const model of models) {
    const name = bareName(model.id);
    byBareName.set(name, [...(byBareName.get(name) ?? []), model]);
  }
  const byTier = new Map<string, ModelEntry[]>();
  for (const model of models) {
    if (!model.curated) continue;
    for (const tier of model.tiers) byTier.set(tier, [...(byTier.get(tier) ?? []), model]);
  }
  return {
    revision: catalogue.revision,
    models,
    byId,
    byBareName,
    byTier,
    defaults: { embeddings: catalogue.defaults?.embeddings ?? "" },
  };
}
