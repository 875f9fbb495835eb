// Data-plane configuration, parsed and validated once at start-up. Nothing
// else in the data plane reads process.env.

import { providerEnvPrefix } from "@gateway/proto/provider-env";
import { weakTokenProblem } from "@gateway/proto/token-strength";
import ipaddr from "ipaddr.js";
import path from "node:path";
import { parseTracingConfig, type TracingConfig, TracingConfigError } from "@gateway/proto/tracing";
import type { LeaseSettings } from "./billing/budget-leases";
import { drawJournalDir } from "./billing/journal-dir";
import type { ControlPlaneTlsFiles } from "./control-plane/control-plane-tls";
import { KeyPoolConfigError, type KeyPoolSettings, parseKeyPools } from "./providers/key-pool/key-pool-settings";
import type { ProviderConfig, ProviderProtocol } from "./providers/provider-config";
import { parseProviders } from "./config-providers";
import { ConfigError, flag, integer } from "./config-readers";

export type { ProviderConfig, ProviderProtocol };
export { ConfigError };

export interface DataPlaneConfig {
  host: string;
  port: number;
  /** The Prometheus scrape listener's own port (GET /metrics), on `host`; 0 = any free port. */
  metricsPort: number;
  /** Spend series also by project and key (unbounded: one series per project, key and model). */
  metricsProjectLabels: boolean;
  controlPlaneAddress: string;
  /** TLS to the control plane when set: the CA its certificate chains to and, for mutual TLS, this data plane's certificate and key. */
  controlPlaneTls: ControlPlaneTlsFiles | undefined;
  /** How often the TLS files are read again (a rotated certificate is taken without a restart). */
  tlsReloadIntervalMs: number;
  internalToken: string;
  bodyLimitBytes: number;
  /** RAW_FRONT_DOOR: the model calls' exact paths served from Node's server before fastify (app/front-door.ts). */
  rawFrontDoor: boolean;
  /**
   * How long a client may take to send a request: its headers, and all of it, body included (0: no
   * limit). Over it: 408 request_timeout. Receiving only: an answer, a stream's included, is never cut by them.
   */
  requestTimeouts: { headersMs: number; requestMs: number };
  /** Keys found not valid per client address and minute, also the burst allowed (0: no limit); past it, 429 unasked. */
  authFailuresPerMinute: number;
  /**
   * Proxies whose X-Forwarded-For names the client: addresses or CIDR ranges (or proxy-addr's `loopback`,
   * `linklocal`, `uniquelocal`); empty: the client is the socket's peer. Not a hop count: fastify trusts
   * none that way, since the peer itself would go unchecked.
   */
  trustedProxies: string[];
  /** How long a key validation may be cached without a push (at most 30 s). */
  keyCacheTtlSeconds: number;
  /** How long the data plane keeps serving from cached state once the control plane is unreachable. */
  controlPlaneGraceMs: number;
  controlPlaneDeadlineMs: number;
  providers: Map<string, ProviderConfig>;
  /**
   * Provider keys by the variable the catalogue's `credentials` field names (`OPENAI_API_KEY`): a pool
   * of one from `<NAME>_API_KEY`, or of several from `<NAME>_API_KEYS` or `<NAME>_API_KEYS_FILE`.
   */
  credentials: Map<string, KeyPoolSettings>;
  /** How long a pool's key rests after a 429 without Retry-After, and stays out after a 401 or 403. */
  keyPool: { cooldownMs: number; refusalMs: number };
  upstream: {
    connectTimeoutMs: number;
    headersTimeoutMs: number;
    /** A stream that yields nothing for this long is cut. */
    streamIdleTimeoutMs: number;
    /** Upstream calls one request may make across retries, access paths and fallback models. */
    maxAttempts: number;
    /** The longest a request waits in total before retries (an upstream Retry-After beyond it is not waited for). */
    retryWaitBudgetMs: number;
    /** The pause before retrying the same path when the upstream gave no Retry-After. */
    retryBackoffMs: number;
    /** The largest whole answer, or single stream event, buffered from an upstream; a larger one is 502. */
    maxBodyBytes: number;
    /** Connections per provider origin at most; 0: no cap (HTTP/1.1 carries one call at a time, so a cap queues the calls beyond it). */
    maxConnections: number;
    /** Same-dialect answers relayed as the upstream's bytes (engine/byte-event-decoder.ts, chat-byte-relay.ts); false: parsed and written again. */
    relayBytes: boolean;
  };
  pathHealth: {
    /** How fast a path's recent error rate is forgotten without calls (it halves in this time). */
    errorHalfLifeMs: number;
    /** Consecutive failures of an access path that open its circuit. */
    failureThreshold: number;
    /** How long an open circuit skips its path before one probe request is let through. */
    cooldownMs: number;
    /** Projects whose failures it takes to open a path's circuit for everyone (one project's open only its own). */
    minProjects: number;
  };
  /** Conversation affinity (docs/routing.md, "Affinity"): how long a pin lives after a turn (0: no affinity), and for a turn that asked for 1-hour cache writes. */
  affinity: { pinTtlMs: number; hourPinTtlMs: number };
  /** A streaming client receives an SSE comment whenever nothing else was written for this long. */
  sseKeepAliveMs: number;
  logLevel: string;
  replicaId: string;
  /** This build's version, reported to the control plane (GATEWAY_VERSION; "dev" unset). */
  version: string;
  /** How often the state /health computes is reported to the control plane (and at once when it changes). */
  reportIntervalMs: number;
  /** Redis for the per-minute limit shared by all replicas; unset = an in-process limiter. */
  redisUrl: string | undefined;
  /** The draw journal's local file while Redis is away: <DRAW_JOURNAL_DIR>/<replica id> (billing/journal-dir.ts); undefined: DRAW_JOURNAL_DIR=off. */
  drawJournalDir: string | undefined;
  /** Model calls held at once at most (0: no limit); beyond, 503 overloaded (app/plugins/in-flight-limit.ts). */
  maxInFlight: number;
  /** Requests per minute for projects without their own limit; 0 = none. */
  defaultRpmLimit: number;
  /** The limit's sliding window: one minute; shorter only in tests. */
  rateLimitWindowMs: number;
  /** After a client disconnects, how long the upstream is still read for its usage before it is aborted. */
  clientDisconnectDrainMs: number;
  /** On SIGTERM: how long in-flight requests may finish, then how long pending settles are retried. */
  drainTimeoutMs: number;
  /** Budget leases for busy projects (docs/money.md); minRequestsPerSecond 0 turns them off. */
  leases: LeaseSettings;
  /** On SIGTERM, first: how long /health answers 503 "draining" while requests are still served (load balancers stop sending). */
  shutdownDelayMs: number;
  /** OpenTelemetry tracing from the standard OTEL_* variables; off unless asked for (docs/tracing.md). */
  tracing: TracingConfig;
}

function parseTracing(env: NodeJS.ProcessEnv): TracingConfig {
  try {
    return parseTracingConfig(env, "gateway-data-plane");
  } catch (error) {
    throw error instanceof TracingConfigError ? new ConfigError(error.message) : error;
  }
}

function parseControlPlaneTls(env: NodeJS.ProcessEnv): DataPlaneConfig["controlPlaneTls"] {
  const ca = env.CONTROL_PLANE_TLS_CA_FILE;
  const certificate = env.CONTROL_PLANE_TLS_CERT_FILE;
  const key = env.CONTROL_PLANE_TLS_KEY_FILE;
  if (!certificate !== !key)
    throw new ConfigError("CONTROL_PLANE_TLS_CERT_FILE and CONTROL_PLANE_TLS_KEY_FILE go together: set both or neither");
  if (!ca) {
    if (certificate)
      throw new ConfigError("CONTROL_PLANE_TLS_CERT_FILE needs CONTROL_PLANE_TLS_CA_FILE (the CA of the control plane's certificate)");
    return undefined;
  }
  const resolved = (file: string | undefined) => (file ? path.resolve(file) : undefined);
  return { caFile: path.resolve(ca), certificateFile: resolved(certificate), privateKeyFile: resolved(key) };
}

/** Pools of keys; a cloud's static key (`AZURE_API_KEY`) is one key of its own, never a pool. */
function parseCredentials(env: NodeJS.ProcessEnv, providers: Map<string, ProviderConfig>): Map<string, KeyPoolSettings> {
  let pools: Map<string, KeyPoolSettings>;
  try {
    pools = parseKeyPools(env);
  } catch (error) {
    throw error instanceof KeyPoolConfigError ? new ConfigError(error.message) : error;
  }
  for (const provider of providers.values()) {
    const pool = pools.get(`${providerEnvPrefix(provider.name)}_API_KEY`);
    if (provider.cloud && pool && pool.source !== pool.variable)
      throw new ConfigError(
        `${pool.source}: ${provider.name} is a cloud provider and authenticates with one key (${pool.variable}), not a pool`,
      );
  }
  return pools;
}

/**
 * 30 s for the headers (an edge proxy's usual 10-60 s: HAProxy's `timeout http-request`, nginx's
 * `client_header_timeout`); 300 s for the whole request (Node's own default: a 10 MiB body over a
 * 300 kbit/s link). Node refuses a headers timeout above a request timeout that is on.
 */
function parseRequestTimeouts(env: NodeJS.ProcessEnv): DataPlaneConfig["requestTimeouts"] {
  const headersMs = integer(env, "DATA_PLANE_HEADERS_TIMEOUT_MS", 30_000, 1);
  const requestMs = integer(env, "DATA_PLANE_REQUEST_TIMEOUT_MS", 300_000, 0);
  if (requestMs > 0 && headersMs > requestMs)
    throw new ConfigError(
      `DATA_PLANE_HEADERS_TIMEOUT_MS (${headersMs}) must not exceed DATA_PLANE_REQUEST_TIMEOUT_MS (${requestMs}): the request includes its headers`,
    );
  return { headersMs, requestMs };
}

const PROXY_RANGE_NAMES = ["loopback", "linklocal", "uniquelocal"];

/** An IPv4 address in four parts (not ipaddr.js's lenient "1" for 0.0.0.1) or an IPv6 one, with or without a /prefix. */
function isAddressOrRange(entry: string): boolean {
  const [address = "", prefix] = entry.split("/");
  const valid = ipaddr.IPv4.isValidFourPartDecimal(address) || ipaddr.IPv6.isValid(address);
  return valid && (prefix === undefined || ipaddr.isValidCIDR(entry));
}

function parseTrustedProxies(env: NodeJS.ProcessEnv): string[] {
  const entries = (env.TRUSTED_PROXIES ?? "")
    .split(",")
    .map((entry) => entry.trim())
    .filter(Boolean);
  for (const entry of entries)
    if (!PROXY_RANGE_NAMES.includes(entry) && !isAddressOrRange(entry))
      throw new ConfigError(`TRUSTED_PROXIES: "${entry}" is not an address, a CIDR range or one of ${PROXY_RANGE_NAMES.join(", ")}`);
  return entries;
}

export function parseDataPlaneConfig(env: NodeJS.ProcessEnv = process.env): DataPlaneConfig {
  const internalToken = env.GATEWAY_INTERNAL_TOKEN;
  if (!internalToken) throw new ConfigError("GATEWAY_INTERNAL_TOKEN is required");
  // The same rule as the control plane's copy (token-strength.ts).
  const weak = weakTokenProblem("GATEWAY_INTERNAL_TOKEN", internalToken, flag(env, "GATEWAY_ALLOW_WEAK_TOKENS", false));
  if (weak) throw new ConfigError(weak);
  const providers = parseProviders(env);
  return {
    host: env.DATA_PLANE_HOST || "127.0.0.1",
    port: integer(env, "DATA_PLANE_PORT", 8080),
    metricsPort: integer(env, "METRICS_PORT", 9464),
    metricsProjectLabels: flag(env, "METRICS_PROJECT_LABELS", false),
    controlPlaneAddress: env.CONTROL_PLANE_ADDRESS || "127.0.0.1:50051",
    controlPlaneTls: parseControlPlaneTls(env),
    tlsReloadIntervalMs: integer(env, "TLS_RELOAD_INTERVAL_MS", 60_000, 100),
    internalToken,
    bodyLimitBytes: integer(env, "BODY_LIMIT_BYTES", 10 * 1024 * 1024, 1024),
    rawFrontDoor: flag(env, "RAW_FRONT_DOOR", true),
    requestTimeouts: parseRequestTimeouts(env),
    authFailuresPerMinute: integer(env, "AUTH_FAILURES_PER_MINUTE", 60, 0),
    trustedProxies: parseTrustedProxies(env),
    keyCacheTtlSeconds: Math.min(integer(env, "KEY_CACHE_TTL_SECONDS", 30, 1), 30),
    controlPlaneGraceMs: integer(env, "CONTROL_PLANE_GRACE_MS", 300_000, 0),
    controlPlaneDeadlineMs: integer(env, "CONTROL_PLANE_DEADLINE_MS", 5000, 10),
    providers,
    credentials: parseCredentials(env, providers),
    // A 429 without Retry-After rests a key long enough to take load off it, not to idle it; a refused
    // key (revoked, out of credit) costs one failed attempt per 10 minutes until it is replaced.
    keyPool: {
      cooldownMs: integer(env, "PROVIDER_KEY_COOLDOWN_MS", 10_000, 1),
      refusalMs: integer(env, "PROVIDER_KEY_REFUSAL_MS", 600_000, 1),
    },
    upstream: {
      connectTimeoutMs: integer(env, "UPSTREAM_CONNECT_TIMEOUT_MS", 10_000, 1),
      headersTimeoutMs: integer(env, "UPSTREAM_HEADERS_TIMEOUT_MS", 300_000, 1),
      streamIdleTimeoutMs: integer(env, "STREAM_IDLE_TIMEOUT_MS", 60_000, 1),
      maxAttempts: integer(env, "UPSTREAM_MAX_ATTEMPTS", 4, 1),
      retryWaitBudgetMs: integer(env, "UPSTREAM_RETRY_WAIT_BUDGET_MS", 5_000, 0),
      retryBackoffMs: integer(env, "UPSTREAM_RETRY_BACKOFF_MS", 250, 0),
      // Buffered whole, translated and written again, an answer takes several times its size in memory:
      // 16 MiB leaves room under the production heap (--max-old-space-size=256) for the requests beside it.
      maxBodyBytes: integer(env, "UPSTREAM_MAX_BODY_BYTES", 16 * 1024 * 1024, 1024),
      maxConnections: integer(env, "UPSTREAM_MAX_CONNECTIONS", 0, 0),
      relayBytes: flag(env, "RELAY_SAME_DIALECT_BYTES", true),
    },
    pathHealth: {
      errorHalfLifeMs: integer(env, "PATH_HEALTH_HALF_LIFE_MS", 30_000, 1),
      failureThreshold: integer(env, "CIRCUIT_FAILURE_THRESHOLD", 5, 1),
      cooldownMs: integer(env, "CIRCUIT_COOLDOWN_MS", 30_000, 1),
      minProjects: integer(env, "CIRCUIT_MIN_PROJECTS", 2, 1),
    },
    // A provider's prompt cache lives 5 minutes from its last use by default, an hour when asked for.
    affinity: {
      pinTtlMs: integer(env, "AFFINITY_PIN_TTL_MS", 300_000, 0),
      hourPinTtlMs: integer(env, "AFFINITY_HOUR_PIN_TTL_MS", 3_600_000, 0),
    },
    // A waiting client gets a comment at least every 15 s; timers fire late, never early, so the default leaves room.
    sseKeepAliveMs: integer(env, "SSE_KEEPALIVE_MS", 10_000, 10),
    logLevel: env.LOG_LEVEL || "info",
    replicaId: env.DATA_PLANE_REPLICA_ID || `data-plane-${process.pid}`,
    version: env.GATEWAY_VERSION || "dev",
    reportIntervalMs: integer(env, "DATA_PLANE_REPORT_INTERVAL_MS", 5000, 100),
    redisUrl: env.REDIS_URL || undefined,
    drawJournalDir: drawJournalDir(env),
    maxInFlight: integer(env, "DATA_PLANE_MAX_IN_FLIGHT", 2000, 0),
    defaultRpmLimit: integer(env, "DEFAULT_RPM_LIMIT", 600),
    rateLimitWindowMs: integer(env, "RATE_LIMIT_WINDOW_MS", 60_000, 100),
    drainTimeoutMs: integer(env, "DRAIN_TIMEOUT_MS", 30_000, 0),
    shutdownDelayMs: integer(env, "SHUTDOWN_DELAY_MS", 0, 0),
    clientDisconnectDrainMs: integer(env, "CLIENT_DISCONNECT_DRAIN_MS", 800, 0),
    leases: {
      minRequestsPerSecond: integer(env, "LEASE_MIN_REQUESTS_PER_SECOND", 20, 0),
      requestsPerLease: integer(env, "LEASE_REQUESTS", 256, 2),
      maxAgeMs: integer(env, "LEASE_MAX_AGE_MS", 10_000, 100),
      idleMs: integer(env, "LEASE_IDLE_MS", 2_000, 100),
      drawIntervalMs: integer(env, "DRAW_INTERVAL_MS", 50, 0),
    },
    tracing: parseTracing(env),
  };
}
