// The catalogue file operators edit and load with `gatewayctl catalogue load`.
// Prices are USD per million tokens as decimal strings ("0.15"), converted
// exactly to integer nano-USD. See docs/catalogue.md for the format.
import { invalidRequest } from "../errors";
import { parseUsd } from "../billing/money";

export const TIERS = ["economy", "balanced", "quality"] as const;

/** Token prices, USD per million tokens: the base ones, and the ones a long-context tier or a service tier overrides. */
export const TOKEN_RATES = [
  "input",
  "output",
  "cached_input",
  "cache_write_5m",
  "cache_write_1h",
  "reasoning",
  "audio_input",
  "audio_output",
  "image_input",
  "image_output",
] as const;
export type TokenRate = (typeof TOKEN_RATES)[number];
/** Prices per unit, USD: an output image, an input image, a request, a web search or other per-call tool. */
export const UNIT_PRICES = ["image", "input_image", "request", "web_search"] as const;
export type UnitPrice = (typeof UNIT_PRICES)[number];
/** The service tiers a path may price (OpenAI's `service_tier`). */
export const SERVICE_TIERS = ["priority", "flex", "scale"] as const;
/** Every component name (`verified_components`, `service.pricing`, the cost split). */
export const PRICE_COMPONENTS = [...TOKEN_RATES, ...UNIT_PRICES, "long_context", "service_tiers"] as const;
export type PriceComponent = (typeof PRICE_COMPONENTS)[number];

/** A file key of a token rate (`cached_input` -> `cached_input_per_m`) and of a unit price (`image` -> `per_image`). */
export const rateKey = (rate: TokenRate) => `${rate}_per_m` as const;
export const unitKey = (unit: UnitPrice) => `per_${unit}` as const;

export type CatalogueTokenRates = { [K in TokenRate as `${K}_per_m`]?: string };

export interface CataloguePriceEntry extends CatalogueTokenRates {
  per_image?: string;
  per_input_image?: string;
  per_request?: string;
  per_web_search?: string;
  /** Above this many input tokens (the whole prompt, cached and cache writes included), the given rates replace the base ones. */
  long_context?: CatalogueTokenRates & { above_input_tokens: number };
  /** Rates of an answer served at that tier; a rate not given is the base one. */
  service_tiers?: { [tier in (typeof SERVICE_TIERS)[number]]?: CatalogueTokenRates };
  /** Input and output were checked against the provider's own page. */
  verified: boolean;
  /** Every component checked against the provider's own page (input and output at least, when verified). */
  verified_components?: PriceComponent[];
  source?: string;
}

export interface CatalogueModelEntry {
  id: string;
  tiers?: string[];
  purposes?: string[];
  owned_by?: string;
  created?: number;
  context_length: number;
  max_output_tokens: number;
  input_modalities?: string[];
  output_modalities?: string[];
  capabilities?: { tools?: boolean; json_schema?: boolean; embeddings?: boolean };
  paths: { provider: string; upstream_model: string; credentials?: string; price?: CataloguePriceEntry }[];
}

export interface CatalogueFile {
  version: 1;
  defaults: { embeddings: string };
  models: CatalogueModelEntry[];
  inventory?: CatalogueModelEntry[];
}

/**
 * An object of exactly these properties. `additionalProperties: false` alone is not enough behind
 * fastify: its validator (ajv with `removeAdditional`) deletes the properties it forbids instead of
 * refusing the body, so a price component the gateway does not bill would load silently ignored.
 * `propertyNames` is checked before that removal and refuses them (400).
 */
const onlyProperties = <P extends Record<string, unknown>>(properties: P) =>
  ({ type: "object", additionalProperties: false, propertyNames: { enum: Object.keys(properties) }, properties }) as const;

const tokenRateProperties = Object.fromEntries(TOKEN_RATES.map((rate) => [rateKey(rate), { type: "string" }]));
const tokenRatesSchema = onlyProperties(tokenRateProperties);

// Unknown components are refused: a price the gateway does not bill must not load.
const priceSchema = {
  ...onlyProperties({
    ...tokenRateProperties,
    ...Object.fromEntries(UNIT_PRICES.map((unit) => [unitKey(unit), { type: "string" }])),
    long_context: {
      ...onlyProperties({ above_input_tokens: { type: "integer", minimum: 1 }, ...tokenRateProperties }),
      required: ["above_input_tokens"],
    },
    service_tiers: onlyProperties(Object.fromEntries(SERVICE_TIERS.map((tier) => [tier, tokenRatesSchema]))),
    verified: { type: "boolean" },
    verified_components: { type: "array", uniqueItems: true, items: { enum: [...PRICE_COMPONENTS] } },
    source: { type: "string" },
  }),
  required: ["verified"],
} as const;

const stringArray = { type: "array", items: { type: "string", minLength: 1 } } as const;

const modelSchema = {
  type: "object",
  additionalProperties: false,
  required: ["id", "context_length", "max_output_tokens", "paths"],
  properties: {
    id: { type: "string", pattern: "^[A-Za-z0-9._~:-]+/[A-Za-z0-9._~:/-]+$" },
    tiers: { type: "array", items: { enum: [...TIERS] } },
    purposes: stringArray,
    owned_by: { type: "string" },
    created: { type: "integer", minimum: 0 },
    context_length: { type: "integer", minimum: 1 },
    max_output_tokens: { type: "integer", minimum: 0 },
    input_modalities: stringArray,
    output_modalities: stringArray,
    capabilities: {
      type: "object",
      additionalProperties: false,
      properties: { tools: { type: "boolean" }, json_schema: { type: "boolean" }, embeddings: { type: "boolean" } },
    },
    paths: {
      type: "array",
      minItems: 1,
      items: {
        type: "object",
        additionalProperties: false,
        required: ["provider", "upstream_model"],
        properties: {
          provider: { type: "string", pattern: "^[a-z0-9][a-z0-9_-]*$" },
          upstream_model: { type: "string", minLength: 1 },
          credentials: { type: "string" },
          price: priceSchema,
        },
      },
    },
  },
} as const;

/** JSON schema of the file (the admin API validates request bodies with it). */
export const catalogueFileSchema = {
  type: "object",
  additionalProperties: false,
  required: ["version", "defaults", "models"],
  properties: {
    version: { const: 1 },
    defaults: {
      type: "object",
      additionalProperties: false,
      required: ["embeddings"],
      properties: { embeddings: { type: "string" } },
    },
    models: { type: "array", items: modelSchema },
    inventory: { type: "array", items: modelSchema },
  },
} as const;

export interface NormalizedPath {
  provider: string;
  upstreamModel: string;
  credentialsRef: string | null;
  inputNanoPerM: bigint | null;
  outputNanoPerM: bigint | null;
  imageNano: bigint | null;
  requestNano: bigint | null;
  priceVerified: boolean;
  priceSource: string | null;
  /** Every other component, nano-USD as decimal strings (the `price_components` column). */
  priceComponents: PriceComponentsJson;
}

/** Token rates in nano-USD per million tokens, as decimal strings. */
export type NanoRates = { [K in TokenRate]?: string };

/** The components beyond input, output, per image and per request, as stored and sent to the data planes. */
export interface PriceComponentsJson extends Omit<NanoRates, "input" | "output"> {
  input_image?: string;
  web_search?: string;
  long_context?: NanoRates & { above_input_tokens: number };
  service_tiers?: { [tier: string]: NanoRates };
  verified_components: PriceComponent[];
}

export interface NormalizedModel {
  id: string;
  curated: boolean;
  position: number;
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
  paths: NormalizedPath[];
}

function price(text: string | undefined, where: string): bigint | null {
  if (text === undefined) return null;
  const nano = parseUsd(text);
  if (nano === undefined) throw invalidRequest(`${where}: "${text}" is not a USD amount`);
  return nano;
}

/** The rates given in a file's rate object, in nano-USD. */
function nanoRates(rates: CatalogueTokenRates, only: readonly TokenRate[], where: string): NanoRates {
  const converted: NanoRates = {};
  for (const rate of only) {
    const nano = price(rates[rateKey(rate)], `${where} ${rateKey(rate)}`);
    if (nano !== null) converted[rate] = nano.toString();
  }
  return converted;
}

const OTHER_RATES = TOKEN_RATES.filter((rate) => rate !== "input" && rate !== "output");

/** The path's components beyond the four columns, checked: overrides name at least one rate, verified ones are set. */
export function priceComponents(entry: CataloguePriceEntry | undefined, where: string): PriceComponentsJson {
  if (!entry) return { verified_components: [] };
  const components: PriceComponentsJson = { ...nanoRates(entry, OTHER_RATES, where), verified_components: [] };
  for (const unit of ["input_image", "web_search"] as const) {
    const nano = price(entry[unitKey(unit)], `${where} ${unitKey(unit)}`);
    if (nano !== null) components[unit] = nano.toString();
  }
  if (entry.long_context) {
    const rates = nanoRates(entry.long_context, TOKEN_RATES, `${where} long_context`);
    if (Object.keys(rates).length === 0) throw invalidRequest(`${where} long_context: gives no rate`);
    components.long_context = { above_input_tokens: entry.long_context.above_input_tokens, ...rates };
  }
  if (entry.service_tiers) {
    components.service_tiers = {};
    for (const [tier, tierRates] of Object.entries(entry.service_tiers)) {
      const rates = nanoRates(tierRates ?? {}, TOKEN_RATES, `${where} service_tiers.${tier}`);
      if (Object.keys(rates).length === 0) throw invalidRequest(`${where} service_tiers.${tier}: gives no rate`);
      components.service_tiers[tier] = rates;
    }
  }
  const given = (component: PriceComponent): boolean =>
    component === "long_context" || component === "service_tiers"
      ? entry[component] !== undefined
      : (TOKEN_RATES as readonly string[]).includes(component)
        ? entry[rateKey(component as TokenRate)] !== undefined
        : entry[unitKey(component as UnitPrice)] !== undefined;
  // `verified` speaks for the base token prices the path has (an embeddings path has no output price).
  const base = (["input", "output"] as const).filter(given);
  const verified = entry.verified_components ?? (entry.verified ? base : []);
  for (const component of verified) if (!given(component)) throw invalidRequest(`${where} verified_components: ${component} has no price`);
  if (entry.verified && !base.every((component) => verified.includes(component)))
    throw invalidRequest(`${where} verified_components: a verified price lists ${base.join(" and ")}`);
  components.verified_components = [...verified];
  return components;
}

/** Semantic checks the JSON schema cannot express, and conversion to database rows. */
export function normalizeCatalogue(file: CatalogueFile): NormalizedModel[] {
  const seen = new Set<string>(); // ids compared case-insensitively: bare names are matched that way
  const entries = [
    ...file.models.map((model) => ({ model, curated: true })),
    ...(file.inventory ?? []).map((model) => ({ model, curated: false })),
  ];
  const models = entries.map(({ model, curated }, position): NormalizedModel => {
    if (seen.has(model.id.toLowerCase())) throw invalidRequest(`model ${model.id} appears twice`);
    seen.add(model.id.toLowerCase());
    return {
      id: model.id,
      curated,
      position,
      tiers: curated ? (model.tiers ?? []) : [],
      purposes: curated ? (model.purposes ?? []) : [],
      ownedBy: model.owned_by ?? model.id.split("/")[0]!,
      created: model.created ?? 0,
      contextLength: model.context_length,
      maxOutputTokens: model.max_output_tokens,
      inputModalities: model.input_modalities ?? ["text"],
      outputModalities: model.output_modalities ?? [model.capabilities?.embeddings ? "embeddings" : "text"],
      tools: model.capabilities?.tools ?? false,
      jsonSchema: model.capabilities?.json_schema ?? false,
      embeddings: model.capabilities?.embeddings ?? false,
      paths: model.paths.map((path, index) => {
        const where = `${model.id} path ${index}`;
        return {
          provider: path.provider,
          upstreamModel: path.upstream_model,
          credentialsRef: path.credentials ?? null,
          inputNanoPerM: price(path.price?.input_per_m, where),
          outputNanoPerM: price(path.price?.output_per_m, where),
          imageNano: price(path.price?.per_image, where),
          requestNano: price(path.price?.per_request, where),
          priceVerified: path.price?.verified ?? false,
          priceSource: path.price?.source ?? null,
          priceComponents: priceComponents(path.price, where),
        };
      }),
    };
  });
  // auto:<tier> chooses among the tier's curated chat models with a priced path: each tier needs one.
  const servesTier = (model: NormalizedModel, tier: string) =>
    model.curated &&
    model.tiers.includes(tier) &&
    !model.embeddings &&
    model.paths.some((path) => path.inputNanoPerM !== null && path.outputNanoPerM !== null);
  for (const tier of TIERS) {
    if (!models.some((model) => servesTier(model, tier)))
      throw invalidRequest(`no curated chat model with input and output prices is in the ${tier} tier`);
  }
  const embeddings = models.find((model) => model.id === file.defaults.embeddings);
  if (!embeddings?.embeddings)
    throw invalidRequest(`defaults.embeddings names ${file.defaults.embeddings}, which is not an embeddings model of the file`);
  return models;
}
