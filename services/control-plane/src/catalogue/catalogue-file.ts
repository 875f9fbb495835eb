// The catalogue file operators edit and load with `gatewayctl catalogue load`.
// Prices are USD per million tokens as decimal strings ("0.15"), converted
// exactly to integer nano-USD. See docs/catalogue.md for the format.
import { MAX_SOURCE_LENGTH, MAX_TEXT_LENGTH } from "../text-limits";

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
    source: { type: "string", maxLength: MAX_SOURCE_LENGTH },
  }),
  required: ["verified"],
} as const;

/** An id, name or word of the file: bounded as every stored text (text-limits.ts). */
const text = { type: "string", maxLength: MAX_TEXT_LENGTH } as const;
const stringArray = { type: "array", items: { ...text, minLength: 1 } } as const;

const modelSchema = {
  type: "object",
  additionalProperties: false,
  required: ["id", "context_length", "max_output_tokens", "paths"],
  properties: {
    id: { ...text, pattern: "^[A-Za-z0-9._~:-]+/[A-Za-z0-9._~:/-]+$" },
    tiers: { type: "array", items: { enum: [...TIERS] } },
    purposes: stringArray,
    owned_by: text,
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
          provider: { ...text, pattern: "^[a-z0-9][a-z0-9_-]*$" },
          upstream_model: { ...text, minLength: 1 },
          credentials: text,
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
      properties: { embeddings: text },
    },
    models: { type: "array", items: modelSchema },
    inventory: { type: "array", items: modelSchema },
  },
} as const;

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
