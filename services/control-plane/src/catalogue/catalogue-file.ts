// The catalogue file operators edit and load with `gatewayctl catalogue load`.
// Prices are USD per million tokens as decimal strings ("0.15"), converted
// exactly to integer nano-USD. See docs/catalogue.md for the format.
import { invalidRequest } from "../errors";
import { parseUsd } from "../billing/money";

export const TIERS = ["economy", "balanced", "quality"] as const;

export interface CataloguePriceEntry {
  input_per_m?: string;
  output_per_m?: string;
  per_image?: string;
  per_request?: string;
  verified: boolean;
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

const priceSchema = {
  type: "object",
  additionalProperties: false,
  required: ["verified"],
  properties: {
    input_per_m: { type: "string" },
    output_per_m: { type: "string" },
    per_image: { type: "string" },
    per_request: { type: "string" },
    verified: { type: "boolean" },
    source: { type: "string" },
  },
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
