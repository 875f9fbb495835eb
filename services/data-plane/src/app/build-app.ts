// Builds the data plane's HTTP app from one plugin per concern (never
// listens; data-plane.ts does). Every failure leaves through the one error
// handler, in the dialect of its route.
import { answerClientError, routingFailure, TIMEOUT_CHECK_INTERVAL_MS } from "@gateway/proto";
import type { Tracing } from "@gateway/proto/tracing";
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import proxyAddr from "@fastify/proxy-addr";
import Fastify, { type FastifyInstance, type FastifyReply, LogController } from "fastify";
import type { CatalogueSnapshot } from "../catalogue/catalogue-snapshot";
import type { Engine } from "../engine/engine";
import { logDestination } from "../log-destination";
import type { DataPlaneMetrics } from "../metrics";
import type { HealthSources } from "../health/health-state";
import { registerHealthRoute } from "../routes/health";
import { registerCountTokensRoute } from "../routes/count-tokens";
import { MODEL_CALLS, registerModelCallRoutes, serveModelCall } from "../routes/model-calls";
import { registerStoredResponseRoutes } from "../routes/stored-responses";
import { registerModelsRoute } from "../routes/models";
import { type DoorRoute, FrontDoor } from "./front-door";
import { auth, authHook, type KeyValidation } from "./plugins/auth";
import { bodyParser, bodyUnread } from "./plugins/body-parser";
import { answerError, errorHandler } from "./plugins/error-handler";
import { inFlightHook, inFlightLimit } from "./plugins/in-flight-limit";
import { rateLimit, rateLimitHooks, type RateLimitOptions } from "./plugins/rate-limit";
import { requestRecord, requestRecordHooks } from "./plugins/request-record";
import { requestSpan, requestSpanHook } from "./plugins/request-span";
import { shutdownRefusal, shutdownRefusalHooks } from "./plugins/shutdown-refusal";

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
  /** RAW_FRONT_DOOR: the model calls' exact paths served from Node's server before fastify (front-door.ts). */
  rawFrontDoor: boolean;
}

/** Node keeps an idle client connection this long: fastify's default, which it sets on the servers it makes. */
const KEEP_ALIVE_TIMEOUT_MS = 72_000;

export function buildDataPlaneApp(deps: AppDependencies): FastifyInstance {
  // Each hook is made once: fastify's routes and the front door run the same ones (the in-flight count and
  // the shutdown's refusal hold state they share).
  const hooks = {
    record: requestRecordHooks(deps.metrics),
    shutdown: shutdownRefusalHooks(),
    span: deps.tracing.enabled ? requestSpanHook(deps.tracing) : undefined,
    auth: authHook(deps.keys),
    inFlight: inFlightHook(deps.maxInFlight, deps.metrics.overloadRefusals),
    rate: rateLimitHooks({ ...deps.limits, rejections: deps.metrics.rateLimitRejections }),
  };
  let door: FrontDoor | undefined;
  const http = {
    requestTimeout: deps.requestTimeouts.requestMs,
    headersTimeout: deps.requestTimeouts.headersMs,
    connectionsCheckingInterval: TIMEOUT_CHECK_INTERVAL_MS,
  };
  const app = Fastify({
    // The server fastify would make, with the front door before fastify's own handler.
    ...(deps.rawFrontDoor && {
      serverFactory: (handler: (req: IncomingMessage, res: ServerResponse) => void) => {
        const server = createServer(http, (req, res) => {
          if (!door?.take(req, res)) handler(req, res);
        });
        server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
        return server;
      },
    }),
    logger: { level: deps.logLevel, redact: { paths: LOG_REDACT_PATHS, censor: "[redacted]" }, stream: logDestination() },
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: deps.bodyLimitBytes,
    // A client that trickles its headers or body is answered 408 request_timeout (clientErrorHandler below) and
    // cut. They cover receiving the request only: Node stops watching a connection once its request is in, so
    // answers and streams of any length are not cut. Checked every second (Node's default: every 30 s).
    requestTimeout: deps.requestTimeouts.requestMs,
    http,
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
  void app.register(requestRecord, { hooks: hooks.record });
  // Outside the model calls a body is never parsed (an unknown route, /health): plugins/body-parser.ts.
  void app.register(bodyUnread);
  void app.register(errorHandler, { bodyLimitBytes: deps.bodyLimitBytes });
  void app.register(shutdownRefusal, { hooks: hooks.shutdown });
  void app.register(async (root) => registerHealthRoute(root, deps.health));
  // Auth and the per-minute limit belong to the /v1 routes themselves (an encapsulated scope), not to
  // the URL's spelling: an absolute-form target such as `http://host/v1/models` meets the same checks.
  void app.register(async (v1) => {
    // Off: no hook at all, so the request path does not pay for tracing.
    if (hooks.span) await v1.register(requestSpan, { hook: hooks.span });
    // Route hooks, after auth's: an overloaded replica refuses before the limit's check and the body's read.
    await v1.register(inFlightLimit, { hook: hooks.inFlight });
    await v1.register(auth, { hook: hooks.auth });
    await v1.register(rateLimit, { hooks: hooks.rate });
    registerModelsRoute(v1, deps.catalogue);
    registerStoredResponseRoutes(v1);
    // The routes that take a body parse it in their own scope, so after the hooks above (auth first).
    await v1.register(async (calls) => {
      await calls.register(bodyParser);
      registerModelCallRoutes(calls, deps.engine);
      registerCountTokensRoute(calls, deps.engine);
    });
  });
  if (deps.rawFrontDoor) {
    const routes = new Map<string, DoorRoute>(
      MODEL_CALLS.map(([url, dialect]) => [
        url,
        { routeOptions: { url, config: { dialect } }, handle: (request, reply) => serveModelCall(deps.engine, dialect, request, reply) },
      ]),
    );
    const trusted = deps.trustedProxies.length > 0 ? proxyAddr.compile(deps.trustedProxies) : undefined;
    door = new FrontDoor({
      routes,
      // fastify's order on these routes: the root's hooks, the /v1 scope's, then the routes' own.
      onRequest: [hooks.record.onRequest, hooks.shutdown.onRequest, hooks.span, hooks.auth, hooks.inFlight, hooks.rate.ask].filter(
        (hook) => hook !== undefined,
      ),
      preHandler: [hooks.record.preHandler, hooks.rate.enforce],
      bodyLimitBytes: deps.bodyLimitBytes,
      answerError: (error, request, reply) => answerError(error, request, reply, deps.bodyLimitBytes),
      logger: app.log,
      // As fastify's request.ip: the socket's peer, or the last address the trusted proxies forwarded.
      ip: trusted ? (raw) => proxyAddr.all(raw, trusted).at(-1)! : (raw) => raw.socket.remoteAddress!,
    });
  }
  return app;
}
