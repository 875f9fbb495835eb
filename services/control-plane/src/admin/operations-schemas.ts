// JSON schemas of the admin API's operations answers: GET /admin/health (this control plane and every
// data plane's latest report) and GET /admin/audit-log. Registered by addAdminSchemas (admin-schemas.ts).
import { CHANGE_KINDS } from "../changes/audit-log";
import { DATA_PLANE_STATUSES } from "../health/data-plane-status";
import { nullable, nullableMoney, ref, timestamp } from "./schema-parts";

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
    "key_pools",
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
    key_pools: {
      type: "array",
      description:
        'its pools of provider keys (docs/providers.md, "Pools of keys"), a single key as a pool of one; each key by fingerprint, never the key',
      items: {
        type: "object",
        required: ["pool", "source", "keys"],
        additionalProperties: false,
        properties: {
          pool: { type: "string", description: "the variable catalogue paths name, e.g. OPENAI_API_KEY" },
          source: { type: "string", description: "the variable its keys came from: the same, <NAME>_API_KEYS or <NAME>_API_KEYS_FILE" },
          keys: {
            type: "array",
            items: {
              type: "object",
              required: ["fingerprint", "group", "weight", "rpm", "tpm", "state", "until", "requests_last_minute", "tokens_last_minute"],
              additionalProperties: false,
              properties: {
                fingerprint: { type: "string", description: "the first 8 hex characters of the key's sha256" },
                group: { type: "string", description: "the provider account it belongs to (its prompt cache)" },
                weight: { type: "integer" },
                rpm: { ...nullable("integer"), description: "requests per minute for the whole gateway; null: no limit" },
                tpm: { ...nullable("integer"), description: "tokens per minute for the whole gateway; null: no limit" },
                state: {
                  type: "string",
                  enum: ["active", "cooling", "refused"],
                  description: "cooling: resting after a 429; refused: out of the pool after a 401 or 403",
                },
                until: { ...nullable("string"), format: "date-time", description: "cooling: usable again at; refused: tried again at" },
                requests_last_minute: { type: "integer", description: "on this data plane" },
                tokens_last_minute: { type: "integer", description: "on this data plane: estimated input, then the usage reported" },
              },
            },
          },
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
