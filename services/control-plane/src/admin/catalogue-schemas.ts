// JSON schemas of the catalogue's admin answers, field for field with catalogue-presenters.ts (a
// property missing here is dropped from the answer, as in admin-schemas.ts).
import type { FastifyInstance } from "fastify";
import { PRICE_COMPONENTS, SERVICE_TIERS } from "../catalogue/catalogue-file";
import { money, ref } from "./admin-schemas";

const strings = { type: "array", items: { type: "string" } } as const;

/** One price component of a path: USD per million tokens (token rates) or USD each (unit prices). */
const rates = {
  type: "array",
  items: {
    type: "object",
    required: ["component", "unit", "amount"],
    additionalProperties: false,
    properties: {
      component: {
        type: "string",
        enum: PRICE_COMPONENTS.filter((component) => component !== "long_context" && component !== "service_tiers"),
      },
      unit: { type: "string", enum: ["per_million_tokens", "each"] },
      amount: money,
    },
  },
} as const;

const priceSchema = {
  type: "object",
  required: ["rates", "long_context", "service_tiers", "verified", "verified_components", "source"],
  additionalProperties: false,
  properties: {
    rates,
    long_context: {
      type: ["object", "null"],
      required: ["above_input_tokens", "rates"],
      additionalProperties: false,
      description: "other rates for the whole call when the prompt is above above_input_tokens; null: none",
      properties: { above_input_tokens: { type: "integer" }, rates },
    },
    service_tiers: {
      type: "array",
      description: "other rates of an answer served at a service tier",
      items: {
        type: "object",
        required: ["tier", "rates"],
        additionalProperties: false,
        properties: { tier: { type: "string", enum: [...SERVICE_TIERS] }, rates },
      },
    },
    verified: { type: "boolean", description: "input and output were checked against the provider's own price list" },
    verified_components: { ...strings, description: "the components checked against the provider's own price list" },
    source: { type: ["string", "null"], description: "where the figures come from, in words" },
  },
} as const;

export const catalogueModelSchema = {
  $id: "CatalogueModel",
  type: "object",
  required: [
    "id",
    "curated",
    "tiers",
    "purposes",
    "owned_by",
    "context_length",
    "max_output_tokens",
    "input_modalities",
    "output_modalities",
    "capabilities",
    "paths",
  ],
  additionalProperties: false,
  properties: {
    id: { type: "string" },
    curated: { type: "boolean", description: "false: in the inventory (addressable, listed by /v1/models only with ?all=1)" },
    tiers: strings,
    purposes: strings,
    owned_by: { type: "string" },
    context_length: { type: "integer" },
    max_output_tokens: { type: "integer" },
    input_modalities: strings,
    output_modalities: strings,
    capabilities: {
      type: "object",
      required: ["tools", "json_schema", "embeddings"],
      additionalProperties: false,
      properties: { tools: { type: "boolean" }, json_schema: { type: "boolean" }, embeddings: { type: "boolean" } },
    },
    paths: {
      type: "array",
      description: "access paths in preference order",
      items: {
        type: "object",
        required: ["provider", "upstream_model", "credentials", "price"],
        additionalProperties: false,
        properties: {
          provider: { type: "string" },
          upstream_model: { type: "string" },
          credentials: { type: ["string", "null"], description: "the data plane's variable holding the key" },
          price: priceSchema,
        },
      },
    },
  },
} as const;

export const catalogueRevisionSchema = {
  $id: "CatalogueRevision",
  type: "object",
  required: ["id", "source", "loaded_at"],
  additionalProperties: false,
  properties: {
    id: { type: "string" },
    source: { type: "string", description: "the file or `admin api` (PUT's ?source=)" },
    loaded_at: { type: "string", format: "date-time" },
  },
} as const;

export const catalogueModelsSchema = {
  type: "object",
  required: ["revision", "total", "limit", "offset", "data"],
  additionalProperties: false,
  properties: {
    revision: { anyOf: [ref("CatalogueRevision"), { type: "null" }], description: "the loaded catalogue's; null: none loaded" },
    total: { type: "integer", description: "models matching the query, all pages" },
    limit: { type: "integer" },
    offset: { type: "integer" },
    data: { type: "array", items: ref("CatalogueModel") },
  },
} as const;

/** Registers the catalogue's shared schemas at the root, next to addAdminSchemas' (components of the OpenAPI document). */
export function addCatalogueSchemas(app: FastifyInstance): void {
  app.addSchema(catalogueModelSchema);
  app.addSchema(catalogueRevisionSchema);
}
