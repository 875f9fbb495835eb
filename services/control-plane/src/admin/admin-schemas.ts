// JSON schemas of the admin API's answers. They are the OpenAPI document's source (docs/admin-api.md)
// and fastify's serializers both: a property missing here is dropped from the answer, so each one
// mirrors its presenter (presenters.ts) field for field. The error, project and key answers are here;
// the money answers in ledger-schemas.ts, health and the audit log in operations-schemas.ts.
import type { FastifyInstance } from "fastify";
import { auditEventSchema, controlPlaneHealthSchema, dataPlaneHealthSchema, healthSchema } from "./operations-schemas";
import { balanceSchema, holdSchema, ledgerEntrySchema, topUpSchema, usageSchema } from "./ledger-schemas";
import { money, nullable, nullableMoney, ref, timestamp } from "./schema-parts";

// The routes build their schemas from these: one module to import them from.
export { HOLD_STATUSES } from "./ledger-schemas";
export { errorResponses, listOf, money, ref } from "./schema-parts";

/** The one error shape of both planes (docs/errors.md). */
export const errorSchema = {
  $id: "Error",
  type: "object",
  required: ["error"],
  additionalProperties: false,
  properties: {
    error: {
      type: "object",
      required: ["type", "code", "message", "param"],
      additionalProperties: false,
      properties: {
        type: { type: "string", description: "OpenAI-style error type, e.g. invalid_request_error" },
        code: { type: "string", description: "the error table's code (docs/errors.md), e.g. not_found" },
        message: { type: "string" },
        param: { type: ["string", "null"], description: "the request field at fault, as OpenAI's errors name it; null when none applies" },
        problems: {
          type: "array",
          description: "a refused catalogue file: every problem found, against its entry (docs/errors.md)",
          items: {
            type: "object",
            required: ["pointer", "model", "message"],
            additionalProperties: false,
            properties: {
              pointer: { type: "string", description: "JSON pointer into the file as sent, e.g. /models/3/paths/0/price/input_per_m" },
              model: { type: ["string", "null"], description: "the id of the model entry it is in; null: outside an entry" },
              message: { type: "string" },
            },
          },
        },
      },
    },
  },
} as const;

export const projectSchema = {
  $id: "Project",
  type: "object",
  required: ["id", "name", "created_at", "rpm_limit", "daily_cap"],
  additionalProperties: false,
  properties: {
    id: { type: "string" },
    name: { type: "string" },
    created_at: timestamp,
    rpm_limit: { ...nullable("integer"), description: "requests per minute; null: no limit" },
    daily_cap: { ...nullableMoney, description: "spend per UTC day; null: no cap" },
  },
} as const;

const keyProperties = {
  id: { type: "string" },
  project_id: { type: "string" },
  hint: { type: "string", description: "the key's last characters, after an ellipsis" },
  name: nullable("string"),
  created_at: timestamp,
  revoked_at: { ...nullable("string"), format: "date-time" },
  status: {
    type: "string",
    enum: ["active", "expired", "revoked"],
    description: "expired: past expires_at, not yet revoked by the sweeper",
  },
  expires_at: { ...nullable("string"), format: "date-time", description: "the key stops working then (a rotation's grace ends then)" },
  replaced_by: { ...nullable("string"), description: "rotated: the successor's id; its limits and counters apply to this key too" },
  rpm_limit: { ...nullable("integer"), description: "the key's own requests per minute, within the project's; null: none" },
  daily_cap: { ...nullableMoney, description: "the key's own spend per UTC day, within the project's; null: none" },
  budget: { ...nullableMoney, description: "the key's total budget; null: none" },
  budget_left: { ...nullableMoney, description: "budget minus spent and held (with a budget only)" },
  spend: {
    type: "object",
    required: ["total", "today", "requests"],
    additionalProperties: false,
    description: "this key's debits in the ledger",
    properties: { total: money, today: money, requests: { type: "integer" } },
  },
  last_used_at: {
    ...nullable("string"),
    format: "date-time",
    description: "the key's latest billed request (one refused before the upstream is not recorded); null: none yet",
  },
} as const;
const keyRequired = [
  "id",
  "project_id",
  "hint",
  "name",
  "created_at",
  "revoked_at",
  "status",
  "expires_at",
  "replaced_by",
  "rpm_limit",
  "daily_cap",
  "budget",
  "budget_left",
  "spend",
  "last_used_at",
] as const;

export const keySchema = {
  $id: "Key",
  type: "object",
  required: keyRequired,
  additionalProperties: false,
  properties: keyProperties,
} as const;

/** A key as issued: the only answer that holds the secret. */
export const issuedKeySchema = {
  $id: "IssuedKey",
  type: "object",
  required: [...keyRequired, "key"],
  additionalProperties: false,
  properties: { ...keyProperties, key: { type: "string", description: "the API key, shown once" } },
} as const;

/** A rotation: the successor (shown once) and the key it replaces, valid until its expires_at. */
export const rotatedKeySchema = {
  $id: "RotatedKey",
  type: "object",
  required: ["key", "previous"],
  additionalProperties: false,
  properties: { key: ref("IssuedKey"), previous: ref("Key") },
} as const;

/** Registers the shared schemas; the OpenAPI document lists them as components. */
export function addAdminSchemas(app: FastifyInstance): void {
  for (const schema of [
    errorSchema,
    projectSchema,
    keySchema,
    issuedKeySchema,
    rotatedKeySchema,
    balanceSchema,
    topUpSchema,
    ledgerEntrySchema,
    holdSchema,
    usageSchema,
    controlPlaneHealthSchema,
    dataPlaneHealthSchema,
    healthSchema,
    auditEventSchema,
  ])
    app.addSchema(schema);
}
