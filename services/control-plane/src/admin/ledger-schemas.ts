// JSON schemas of the admin API's money answers: a project's balance, a top-up, ledger entries, holds
// and usage. Registered with the others by addAdminSchemas (admin-schemas.ts).
import { costByComponent, day, money, nullable, nullableMoney, timestamp } from "./schema-parts";

export const balanceSchema = {
  $id: "Balance",
  type: "object",
  required: ["project_id", "balance", "held", "available", "daily_cap", "spent_today"],
  additionalProperties: false,
  properties: {
    project_id: { type: "string" },
    balance: money,
    held: { ...money, description: "held by requests in flight (holds and budget leases)" },
    available: money,
    daily_cap: nullableMoney,
    spent_today: money,
  },
} as const;

export const topUpSchema = {
  $id: "TopUp",
  type: "object",
  required: ["entry_id", "amount", "replayed", "balance"],
  additionalProperties: false,
  properties: {
    entry_id: { type: "string" },
    amount: { type: "object", required: ["nano"], additionalProperties: false, properties: { nano: { type: "string" } } },
    replayed: { type: "boolean", description: "true: this idempotency key had already credited the project (200, nothing new)" },
    balance: { $ref: "Balance#" },
  },
} as const;

export const ledgerEntrySchema = {
  $id: "LedgerEntry",
  type: "object",
  required: [
    "id",
    "kind",
    "amount",
    "request_id",
    "idempotency_key",
    "day",
    "model",
    "access_path",
    "input_tokens",
    "output_tokens",
    "cost_by_component",
    "key_id",
    "created_at",
  ],
  additionalProperties: false,
  properties: {
    id: { type: "string" },
    kind: { type: "string" },
    amount: money,
    request_id: nullable("string"),
    idempotency_key: nullable("string"),
    day,
    model: nullable("string"),
    access_path: nullable("string"),
    input_tokens: nullable("integer"),
    output_tokens: nullable("integer"),
    cost_by_component: { ...costByComponent, type: ["object", "null"] },
    key_id: { ...nullable("string"), description: "debits: the API key of the request" },
    created_at: timestamp,
  },
} as const;

export const HOLD_STATUSES = ["active", "settled", "released", "expired", "refused"] as const;

export const holdSchema = {
  $id: "Hold",
  type: "object",
  required: [
    "request_id",
    "status",
    "amount",
    "day",
    "model",
    "access_path",
    "created_at",
    "expires_at",
    "closed_at",
    "debited",
    "unbilled",
    "refusal",
    "lease",
  ],
  additionalProperties: false,
  properties: {
    request_id: { type: "string" },
    status: { type: "string", enum: HOLD_STATUSES },
    amount: money,
    day,
    model: nullable("string"),
    access_path: nullable("string"),
    created_at: timestamp,
    expires_at: timestamp,
    closed_at: { ...nullable("string"), format: "date-time" },
    debited: nullableMoney,
    unbilled: nullableMoney,
    refusal: nullable("string"),
    lease: { type: "boolean", description: "a budget lease: many requests' debits drawn from one hold" },
  },
} as const;

/** A usage row's tokens by type: each token in one of them, so they add up to input_tokens + output_tokens. */
const tokensByTypeSchema = {
  type: "object",
  required: ["input", "cached_input", "cache_write", "output", "reasoning"],
  additionalProperties: false,
  properties: {
    input: { type: "integer", description: "prompt tokens other than cache reads and writes" },
    cached_input: { type: "integer", description: "prompt tokens read from the provider's cache" },
    cache_write: { type: "integer", description: "prompt tokens written to the provider's cache (5-minute and 1-hour)" },
    output: { type: "integer", description: "produced tokens other than reasoning" },
    reasoning: { type: "integer", description: "reasoning (thinking) tokens" },
  },
} as const;

/** Requests, tokens and cost: of a usage row, a model over the range, the whole range. */
const usageFigures = {
  requests: { type: "integer" },
  input_tokens: { type: "integer", description: "every prompt token, cache reads and writes included" },
  output_tokens: { type: "integer", description: "every produced token, reasoning included" },
  tokens: tokensByTypeSchema,
  cached_share: {
    type: "number",
    description:
      "the share of input tokens read from the provider's cache (tokens.cached_input / input_tokens, 4 decimals; 0 without input)",
  },
  cost: money,
} as const;
const usageFiguresRequired = ["requests", "input_tokens", "output_tokens", "tokens", "cached_share", "cost"] as const;

export const usageSchema = {
  $id: "Usage",
  type: "object",
  required: ["from", "to", "data", "by_day", "by_model", "total"],
  additionalProperties: false,
  properties: {
    from: day,
    to: day,
    data: {
      type: "array",
      items: {
        type: "object",
        required: ["day", "model", ...usageFiguresRequired, "cost_by_component"],
        additionalProperties: false,
        properties: { day, model: { type: "string" }, ...usageFigures, cost_by_component: costByComponent },
      },
    },
    by_day: {
      type: "array",
      description: "each UTC day's totals, for the days with requests, in order",
      items: {
        type: "object",
        required: ["day", ...usageFiguresRequired],
        additionalProperties: false,
        properties: { day, ...usageFigures },
      },
    },
    by_model: {
      type: "array",
      description: "each model's totals over the range, the most spent first",
      items: {
        type: "object",
        required: ["model", ...usageFiguresRequired],
        additionalProperties: false,
        properties: { model: { type: "string" }, ...usageFigures },
      },
    },
    total: {
      type: "object",
      description: "the range's totals: the sum of the rows",
      required: [...usageFiguresRequired],
      additionalProperties: false,
      properties: usageFigures,
    },
  },
} as const;
