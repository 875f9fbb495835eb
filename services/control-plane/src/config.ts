// Control-plane configuration, parsed and validated once at start-up.
// Nothing else in the control plane reads process.env.
import { weakTokenProblem } from "@gateway/proto/token-strength";
import { parseTracingConfig, type TracingConfig, TracingConfigError } from "@gateway/proto/tracing";
import os from "node:os";
import path from "node:path";

export interface ControlPlaneConfig {
  /** PostgreSQL connection string; when absent the embedded PGlite in dataDir is used. */
  databaseUrl: string | undefined;
  dataDir: string;
  host: string;
  grpcPort: number;
  adminPort: number;
  /** The Prometheus scrape listener's own port (GET /metrics), on `host`; 0 = any free port. */
  metricsPort: number;
  /** Shared secret the data planes present on every gRPC call. */
  internalToken: string;
  /** Bearer token of the admin HTTP API. */
  adminToken: string;
  holdTtlSeconds: number;
  holdSweepIntervalMs: number;
  /** Redis holding the data planes' draw journal (docs/money.md, "A killed data plane"); unset = not read. */
  redisUrl: string | undefined;
  /** Subscribe streams (one per data plane) this replica holds at once at most; beyond, a new one is refused as overloaded. */
  maxSubscribers: number;
  /** On SIGTERM: how long gRPC calls in flight may finish before they are cut. */
  drainTimeoutMs: number;
  keyCacheTtlSeconds: number;
  changePollIntervalMs: number;
  /** Catalogue loaded at start when the database has none yet. */
  defaultCatalogueFile: string;
  /** The console's build served at /console (GATEWAY_CONSOLE_DIR); unset = services/console/dist, where `pnpm build:console` writes. */
  consoleDir: string | undefined;
  logLevel: string;
  /** Names this replica in GET /admin/health and on the reports it receives (CONTROL_PLANE_REPLICA_ID; host name and pid unset). */
  replicaId: string;
  /** This build's version (GATEWAY_VERSION; "dev" unset). */
  version: string;
  /** Data planes' state reports not renewed for this long are deleted (a replica gone for good). */
  reportRetentionMs: number;
  /** Test-only: shifts the control plane's clock (money days, hold expiry). */
  clockOffsetMs: number;
  /** OpenTelemetry tracing from the standard OTEL_* variables; off unless asked for (docs/tracing.md). */
  tracing: TracingConfig;
  /** The admin API: how long a request's headers, and the whole request, may take to arrive; then 408. */
  adminHeadersTimeoutMs: number;
  adminRequestTimeoutMs: number;
  /** gRPC over TLS when set: the server's certificate and key, and with `clientCaFile` mutual TLS (data planes present a certificate). */
  grpcTls: { certificateFile: string; privateKeyFile: string; clientCaFile: string | undefined } | undefined;
  /** The admin API over HTTPS when set. */
  adminTls: { certificateFile: string; privateKeyFile: string } | undefined;
  /** How often the TLS files are read again (a rotated certificate is taken without a restart). */
  tlsReloadIntervalMs: number;
}

export class ConfigError extends Error {}

/** Relative paths in the configuration are resolved against the repository root. */
export const repositoryRoot = path.resolve(import.meta.dirname, "../../..");

function integer(env: NodeJS.ProcessEnv, name: string, fallback: number, min = 0): number {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min) throw new ConfigError(`${name} must be an integer >= ${min}, got "${raw}"`);
  return value;
}

function required(env: NodeJS.ProcessEnv, name: string): string {
  const value = env[name];
  if (!value) throw new ConfigError(`${name} is required`);
  return value;
}

/** "true" or "false" (any case); unset or empty keeps the fallback. */
function flag(env: NodeJS.ProcessEnv, name: string, fallback: boolean): boolean {
  const value = env[name]?.trim().toLowerCase();
  if (!value) return fallback;
  if (value === "true") return true;
  if (value === "false") return false;
  throw new ConfigError(`${name} must be true or false, got "${env[name]}"`);
}

/** A required shared secret that cannot be guessed (token-strength.ts); short ones only with GATEWAY_ALLOW_WEAK_TOKENS=true. */
function secret(env: NodeJS.ProcessEnv, name: string): string {
  const value = required(env, name);
  const problem = weakTokenProblem(name, value, flag(env, "GATEWAY_ALLOW_WEAK_TOKENS", false));
  if (problem) throw new ConfigError(problem);
  return value;
}

/** A certificate and its key from two variables: both or neither. */
function certificatePair(env: NodeJS.ProcessEnv, prefix: string): { certificateFile: string; privateKeyFile: string } | undefined {
  const certificate = env[`${prefix}_CERT_FILE`];
  const key = env[`${prefix}_KEY_FILE`];
  if (!certificate && !key) return undefined;
  if (!certificate || !key) throw new ConfigError(`${prefix}_CERT_FILE and ${prefix}_KEY_FILE go together: set both or neither`);
  return { certificateFile: path.resolve(certificate), privateKeyFile: path.resolve(key) };
}

function grpcTls(env: NodeJS.ProcessEnv): ControlPlaneConfig["grpcTls"] {
  const pair = certificatePair(env, "CONTROL_PLANE_GRPC_TLS");
  const clientCa = env.CONTROL_PLANE_GRPC_TLS_CLIENT_CA_FILE;
  if (clientCa && !pair)
    throw new ConfigError("CONTROL_PLANE_GRPC_TLS_CLIENT_CA_FILE needs CONTROL_PLANE_GRPC_TLS_CERT_FILE and _KEY_FILE");
  return pair && { ...pair, clientCaFile: clientCa ? path.resolve(clientCa) : undefined };
}

/** The headers' timeout within the request's (Node refuses a longer one). */
function timeouts(env: NodeJS.ProcessEnv): { headers: number; request: number } {
  const headers = integer(env, "ADMIN_HEADERS_TIMEOUT_MS", 10_000, 1);
  const request = integer(env, "ADMIN_REQUEST_TIMEOUT_MS", 60_000, 1);
  if (headers > request)
    throw new ConfigError(`ADMIN_HEADERS_TIMEOUT_MS (${headers}) must not exceed ADMIN_REQUEST_TIMEOUT_MS (${request})`);
  return { headers, request };
}

function parseTracing(env: NodeJS.ProcessEnv): TracingConfig {
  try {
    return parseTracingConfig(env, "gateway-control-plane");
  } catch (error) {
    throw error instanceof TracingConfigError ? new ConfigError(error.message) : error;
  }
}

export function parseControlPlaneConfig(env: NodeJS.ProcessEnv = process.env): ControlPlaneConfig {
  const adminTimeouts = timeouts(env);
  return {
    databaseUrl: env.DATABASE_URL || undefined,
    dataDir: path.resolve(repositoryRoot, env.GATEWAY_DATA_DIR || ".data/pglite"),
    host: env.CONTROL_PLANE_HOST || "127.0.0.1",
    grpcPort: integer(env, "CONTROL_PLANE_GRPC_PORT", 50051),
    adminPort: integer(env, "CONTROL_PLANE_ADMIN_PORT", 8081),
    metricsPort: integer(env, "METRICS_PORT", 9465),
    internalToken: secret(env, "GATEWAY_INTERNAL_TOKEN"),
    adminToken: secret(env, "GATEWAY_ADMIN_TOKEN"),
    holdTtlSeconds: integer(env, "HOLD_TTL_SECONDS", 900, 1),
    holdSweepIntervalMs: integer(env, "HOLD_SWEEP_INTERVAL_MS", 5000, 10),
    redisUrl: env.REDIS_URL || undefined,
    maxSubscribers: integer(env, "CONTROL_PLANE_MAX_SUBSCRIBERS", 1000, 1),
    drainTimeoutMs: integer(env, "DRAIN_TIMEOUT_MS", 30_000, 0),
    keyCacheTtlSeconds: Math.min(integer(env, "KEY_CACHE_TTL_SECONDS", 30, 1), 30),
    changePollIntervalMs: integer(env, "CHANGE_POLL_INTERVAL_MS", 200, 10),
    defaultCatalogueFile: path.resolve(env.GATEWAY_DEFAULT_CATALOGUE || path.join(import.meta.dirname, "catalogue/default-catalogue.json")),
    consoleDir: env.GATEWAY_CONSOLE_DIR ? path.resolve(env.GATEWAY_CONSOLE_DIR) : undefined,
    logLevel: env.LOG_LEVEL || "info",
    replicaId: env.CONTROL_PLANE_REPLICA_ID || `control-plane-${os.hostname()}-${process.pid}`,
    version: env.GATEWAY_VERSION || "dev",
    reportRetentionMs: integer(env, "DATA_PLANE_REPORT_RETENTION_MS", 86_400_000, 1000),
    clockOffsetMs: integer(env, "GATEWAY_CLOCK_OFFSET_MS", 0, Number.MIN_SAFE_INTEGER),
    tracing: parseTracing(env),
    adminHeadersTimeoutMs: adminTimeouts.headers,
    adminRequestTimeoutMs: adminTimeouts.request,
    grpcTls: grpcTls(env),
    adminTls: certificatePair(env, "CONTROL_PLANE_ADMIN_TLS"),
    tlsReloadIntervalMs: integer(env, "TLS_RELOAD_INTERVAL_MS", 60_000, 100),
  };
}
