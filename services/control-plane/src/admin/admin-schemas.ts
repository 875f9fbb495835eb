// JSON schemas of the admin API's answers. They are the OpenAPI document's source (docs/admin-api.md)
// and fastify's serializers both: a property missing here is dropped from the answer, so each one
// mirrors its presenter (presenters.ts) field for field.
import type { FastifyInstance } from "fastify";
import { CHANGE_KINDS } from "../changes/audit-log";
import { DATA_PLANE_STATUSES } from "../health/data-plane-status";

const nullable = (type: string) => ({ type: [type, "null"] }) as const;

/** A reference to a registered schema. */
export const ref = (id: string) => ({ $ref: `${id}#` }) as const;

/** An amount as the admin API shows it: exact nano-USD next to a readable USD decimal. */
export const money = {
  type: "object",
  required: ["nano", "usd"],
  additionalProperties: false,
  properties: {
    nano: { type: "string", description: "nano-USD (1e-9 USD), exact" },
    usd: { type: "string", description: "USD decimal" },
  },
} as const;

const nullableMoney = { ...money, type: ["object", "null"] } as const;

/** {component: {units, cost}}: what each price component (input, cached_input, output, image...) cost. */
const costByComponent = {
  type: "object",
  additionalProperties: {
    type: "object",
    required: ["units", "cost"],
    additionalProperties: false,
    properties: { units: { type: "number" }, cost: money },
  },
} as const;

const day = { type: "string", format: "date" } as const;
const timestamp = { type: "string", format: "date-time" } as const;

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
  cost: money,
} as const;
const usageFiguresRequired = ["requests", "input_tokens", "output_tokens", "tokens", "cost"] as const;

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

/** This control-plane replica, as it sees itself. */
export const controlPlaneHealthSchema = {
  $id: "ControlPlaneHealth",
  type: "object",
  required: ["replica_id", "version", "started_at", "uptime_seconds", "database", "catalogue_revision", "subscribed_data_planes"],
  additionalProperties: false,
  properties: {
    replica_id: { type: "string", description: "the replica that answered (CONTROL_PLANE_REPLICA_ID)" },
    version: { type: "string" },
    started_at: timestamp,
    uptime_seconds: { type: "integer" },
    database: {
      type: "object",
      required: ["reachable", "round_trip_ms", "error"],
      additionalProperties: false,
      properties: {
        reachable: { type: "boolean" },
        round_trip_ms: { ...nullable("number"), description: "one small query's round trip; null when unreachable" },
        error: { ...nullable("string"), description: "why it is unreachable" },
      },
    },
    catalogue_revision: {
      ...nullable("string"),
      description: "the catalogue the data planes are sent; null when the database is unreachable",
    },
    subscribed_data_planes: {
      type: "array",
      description: "data planes whose subscription stream is open to this replica",
      items: {
        type: "object",
        required: ["replica_id", "since"],
        additionalProperties: false,
        properties: { replica_id: { type: "string" }, since: timestamp },
      },
    },
  },
} as const;

/** A data plane's latest state report, with a status in words. */
export const dataPlaneHealthSchema = {
  $id: "DataPlaneHealth",
  type: "object",
  required: [
    "replica_id",
    "status",
    "reasons",
    "version",
    "started_at",
    "control_plane_replica",
    "control_plane_link",
    "control_plane_calls",
    "rate_limit",
    "catalogue_revision",
    "circuits",
    "draining",
    "unavailable_reason",
    "report_interval_ms",
    "reported_at",
    "age_ms",
  ],
  additionalProperties: false,
  properties: {
    replica_id: { type: "string", description: "DATA_PLANE_REPLICA_ID" },
    status: {
      type: "string",
      enum: DATA_PLANE_STATUSES,
      description:
        "silent: no report for 3 intervals; draining: shutting down; unavailable: its /health answers 503; degraded: serving, with reasons",
    },
    reasons: { type: "array", items: { type: "string" }, description: "why the status is not ok, in words" },
    version: { type: "string" },
    started_at: timestamp,
    control_plane_replica: { type: "string", description: "the control-plane replica its latest report reached" },
    control_plane_link: { type: "string", enum: ["connected", "reconnecting"], description: "its subscription stream" },
    control_plane_calls: { type: "string", enum: ["in_time", "stalled"], description: "stalled: calls ran out their deadline" },
    rate_limit: { type: "string", description: "redis, local (no Redis configured), or local fallback while Redis is unreachable" },
    catalogue_revision: { ...nullable("string"), description: "the catalogue it serves; null: none received yet" },
    circuits: {
      type: "array",
      description: "access paths whose circuit is not closed, for everyone (state) or for some projects (projects_open)",
      items: {
        type: "object",
        required: ["path", "state", "consecutive_failures", "opens", "projects_open"],
        additionalProperties: false,
        properties: {
          path: { type: "string" },
          state: { type: "string", enum: ["closed", "open", "half_open"] },
          consecutive_failures: { type: "integer" },
          opens: { type: "integer", description: "times it opened since the data plane started" },
          projects_open: { type: "integer" },
        },
      },
    },
    draining: { type: "boolean" },
    unavailable_reason: { ...nullable("string"), description: "why its /health answers 503; null while it serves" },
    report_interval_ms: { type: "integer" },
    reported_at: { ...timestamp, description: "the latest report, by the database's clock" },
    age_ms: { type: "integer", description: "milliseconds since reported_at" },
  },
} as const;

export const healthSchema = {
  $id: "Health",
  type: "object",
  required: ["control_plane", "data_planes"],
  additionalProperties: false,
  properties: {
    control_plane: ref("ControlPlaneHealth"),
    data_planes: {
      type: ["array", "null"],
      items: ref("DataPlaneHealth"),
      description: "every data plane's latest report, whichever replica it reached, by replica id; null: the database is unreachable",
    },
  },
} as const;

/** One admin action, from the change events recorded with it. */
export const auditEventSchema = {
  $id: "AuditEvent",
  type: "object",
  required: ["id", "at", "kind", "actor", "subject"],
  additionalProperties: false,
  properties: {
    id: { type: "string", description: "pages back: pass the oldest one shown as `before`" },
    at: timestamp,
    kind: {
      type: "string",
      enum: CHANGE_KINDS,
      description:
        "project_created; project_changed: limits; topup: a credit (not its replays); key_issued: issued, or a rotation's successor; key_changed: limits, expiry or rotation; key_revoked; catalogue: loaded",
    },
    actor: {
      ...nullable("string"),
      description:
        "who acted: `admin token` (the admin API's one credential today; an operator account's name once accounts exist) or `control plane` (an expired key's revocation, the default catalogue at first start); null for events recorded before actors were",
    },
    subject: {
      type: "object",
      required: ["project_id", "key_id", "replaces_key_id", "catalogue_revision", "amount"],
      additionalProperties: false,
      properties: {
        project_id: nullable("string"),
        key_id: nullable("string"),
        replaces_key_id: { ...nullable("string"), description: "key_issued by a rotation: the key it replaces" },
        catalogue_revision: nullable("string"),
        amount: { ...nullableMoney, description: "topup: the amount credited" },
      },
    },
  },
} as const;

/** `{"data": [...]}` of one component. */
export const listOf = (id: string) =>
  ({
    type: "object",
    required: ["data"],
    additionalProperties: false,
    properties: { data: { type: "array", items: { $ref: `${id}#` } } },
  }) as const;

/** Any admin route may answer an error from the table: a bad request, the token, an unknown id, the database away. */
export const errorResponses = { "4xx": ref("Error"), "5xx": ref("Error") } as const;

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
