// Builds the data plane's HTTP app from one plugin per concern (never
// listens; data-plane.ts does). Every failure leaves through the one error
// handler, in the dialect of its route.
import { answerClientError, routingFailure, TIMEOUT_CHECK_INTERVAL_MS } from "@gateway/proto";
import type { Tracing } from "@gateway/proto/tracing";
import { randomUUID } from "node:crypto";
import Fastify, { type FastifyInstance, type FastifyReply, LogController } from "fastify";
import type { CatalogueSnapshot } from "../catalogue/catalogue-snapshot";
import type { Engine } from "../engine/engine";
import { logDestination } from "../log-destination";
import type { DataPlaneMetrics } from "../metrics";
import type { HealthSources } from "../health/health-state";
import { registerHealthRoute } from "../routes/health";
import { registerCountTokensRoute } from "../routes/count-tokens";
import { registerModelCallRoutes } from "../routes/model-calls";
import { registerStoredResponseRoutes } from "../routes/stored-responses";
import { registerModelsRoute } from "../routes/models";
import { auth, type KeyValidation } from "./plugins/auth";
import { bodyParser, bodyUnread } from "./plugins/body-parser";
import { errorHandler } from "./plugins/error-handler";
import { inFlightLimit } from "./plugins/in-flight-limit";
import { rateLimit, type RateLimitOptions } from "./plugins/rate-limit";
import { requestRecord } from "./plugins/request-record";
import { requestSpan } from "./plugins/request-span";
import { shutdownRefusal } from "./plugins/shutdown-refusal";

/** Never logged, whatever a log call passes: credentials in headers (the caller's key, provider keys, the internal token) and message contents. */
export const LOG_REDACT_PATHS = [
  "req.headers.authorization",
  'req.headers["x-api-key"]',
  'req.headers["x-goog-api-key"]',
  "req.headers.cookie",
  "headers.authorization",
  'headers["x-api-key"]',
  'headers["x-goog-api-key"]',
  "body.messages",
  "body.input",
  "body.prompt",
];

export interface AppDependencies {
  logLevel: string;
  bodyLimitBytes: number;
  /** DATA_PLANE_HEADERS_TIMEOUT_MS and DATA_PLANE_REQUEST_TIMEOUT_MS. */
  requestTimeouts: { headersMs: number; requestMs: number };
  /** TRUSTED_PROXIES: whose X-Forwarded-For gives the client's address (request.ip); none: the socket's peer. */
  trustedProxies: string[];
  /** DATA_PLANE_MAX_IN_FLIGHT (0: no limit). */
  maxInFlight: number;
  metrics: DataPlaneMetrics;
  keys: KeyValidation;
  limits: Pick<RateLimitOptions, "limiter" | "defaultRpmLimit">;
  health: HealthSources;
  catalogue: () => CatalogueSnapshot | undefined;
  engine: Engine;
  tracing: Tracing;
}

export function buildDataPlaneApp(deps: AppDependencies): FastifyInstance {
  const app = Fastify({
    logger: { level: deps.logLevel, redact: { paths: LOG_REDACT_PATHS, censor: "[redacted]" }, stream: logDestination() },
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: deps.bodyLimitBytes,
    // A client that trickles its headers or body is answered 408 request_timeout (clientErrorHandler below) and
    // cut. They cover receiving the request only: Node stops watching a connection once its request is in, so
    // answers and streams of any length are not cut. Checked every second (Node's default: every 30 s).
    requestTimeout: deps.requestTimeouts.requestMs,
    http: {
      requestTimeout: deps.requestTimeouts.requestMs,
      headersTimeout: deps.requestTimeouts.headersMs,
      connectionsCheckingInterval: TIMEOUT_CHECK_INTERVAL_MS,
    },
    // request.ip: the address whose failed key validations are limited (app/plugins/auth.ts).
    trustProxy: deps.trustedProxies.length > 0 ? deps.trustedProxies : false,
    // One id per request, unique across replicas: the hold's id, the rate-limit entry, x-request-id.
    genReqId: () => randomUUID(),
    // A path fastify cannot decode or a path parameter over its limit never reaches a route or the error handler.
    frameworkErrors: (error, _request, reply) => {
      const failure = routingFailure(error);
      void (reply as FastifyReply).code(failure.status).headers(failure.replyHeaders).send(failure.toBody());
    },
    // A request Node's parser refuses (malformed, headers over 16 KiB, too slow): the table's shape, not fastify's.
    clientErrorHandler: answerClientError,
    // Refused in the table's shape by shutdownRefusal instead.
    return503OnClosing: false,
  });
  void app.register(requestRecord, { metrics: deps.metrics });
  // Outside the model calls a body is never parsed (an unknown route, /health): plugins/body-parser.ts.
  void app.register(bodyUnread);
  void app.register(errorHandler, { bodyLimitBytes: deps.bodyLimitBytes });
  void app.register(shutdownRefusal);
  void app.register(async (root) => registerHealthRoute(root, deps.health));
  // Auth and the per-minute limit belong to the /v1 routes themselves (an encapsulated scope), not to
  // the URL's spelling: an absolute-form target such as `http://host/v1/models` meets the same checks.
  void app.register(async (v1) => {
    // Off: no hook at all, so the request path does not pay for tracing.
    if (deps.tracing.enabled) await v1.register(requestSpan, { tracing: deps.tracing });
    // Route hooks, after auth's: an overloaded replica refuses before the limit's check and the body's read.
    await v1.register(inFlightLimit, { maxInFlight: deps.maxInFlight, refusals: deps.metrics.overloadRefusals });
    await v1.register(auth, { keys: deps.keys });
    await v1.register(rateLimit, { ...deps.limits, rejections: deps.metrics.rateLimitRejections });
    registerModelsRoute(v1, deps.catalogue);
    registerStoredResponseRoutes(v1);
    // The routes that take a body parse it in their own scope, so after the hooks above (auth first).
    await v1.register(async (calls) => {
      await calls.register(bodyParser);
      registerModelCallRoutes(calls, deps.engine);
      registerCountTokensRoute(calls, deps.engine);
    });
  });
  return app;
}
