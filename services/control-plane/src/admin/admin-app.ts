// The admin HTTP API: operators manage projects, keys, balances, limits and
// the catalogue. Every /admin route needs `Authorization: Bearer <admin token>`
// but the OpenAPI document and its reference page (openapi-routes.ts);
// /health and the console's static files (console-routes.ts) need none (/metrics is on METRICS_PORT). Builds the app, never listens.
import Fastify, { LogController, type FastifyInstance } from "fastify";
import { timingSafeEqual } from "node:crypto";
import type { ServerOptions } from "node:http";
import type { ControlPlaneServices } from "../control-plane-services";
import { answerClientError, discardBody, GatewayError, routingFailure, shuttingDown, TIMEOUT_CHECK_INTERVAL_MS } from "@gateway/proto";
import { unauthorized } from "../errors";
import { registerCatalogueRoutes } from "./catalogue-routes";
import { adminError, sendError } from "./error-reply";
import { addAdminSchemas } from "./admin-schemas";
import { addCatalogueSchemas } from "./catalogue-schemas";
import { PUBLIC_ROUTE, registerOpenApi, registerOpenApiRoutes } from "./openapi-routes";
import { refuseUnstorableCharacters } from "./unstorable-characters";
import { registerProjectRoutes } from "./project-routes";
import { registerKeyRoutes } from "./key-routes";
import { registerConsoleRoutes } from "./console-routes";
import { registerHealthRoutes } from "./health-routes";

function tokenMatches(header: string | undefined, token: string): boolean {
  const presented = Buffer.from(header ?? "");
  const expected = Buffer.from(`Bearer ${token}`);
  return presented.length === expected.length && timingSafeEqual(presented, expected);
}

export function buildAdminApp(options: {
  adminToken: string;
  services: ControlPlaneServices;
  isReady: () => boolean;
  logLevel: string;
  /** The console's build (services/console/dist unless given). */
  consoleDir?: string;
  /** How long a request's headers, and the whole request, may take to arrive (408 then); none unless given. */
  timeouts?: { headersMs: number; requestMs: number };
  /** HTTPS with this certificate and key (control-plane.ts replaces them on the server when the files change). */
  tls?: { cert: Buffer; key: Buffer };
}): FastifyInstance {
  // A slow client's request is cut and answered 408 (clientErrorHandler below); Node checks every connection
  // this often, so the check comes at most a second after the timeout.
  const server = options.timeouts && {
    headersTimeout: options.timeouts.headersMs,
    connectionsCheckingInterval: Math.min(TIMEOUT_CHECK_INTERVAL_MS, options.timeouts.headersMs),
  };
  // fastify types an HTTPS app apart (its own server type); its routes, hooks and replies are the same.
  const serverOptions = (options.tls ? { https: { ...options.tls, ...server } } : { http: server ?? null }) as {
    http: ServerOptions | null;
  };
  const app = Fastify({
    requestTimeout: options.timeouts?.requestMs ?? 0,
    ...serverOptions,
    // Credentials and bodies are never logged, whatever a log call passes (the admin token, issued keys).
    logger: {
      level: options.logLevel,
      redact: { paths: ["req.headers.authorization", "headers.authorization", "body", "key"], censor: "[redacted]" },
    },
    logController: new LogController({ disableRequestLogging: true }),
    // A path fastify cannot decode or a path parameter over its limit never reaches a route or the error handler.
    frameworkErrors: (error, _request, reply) => sendError(reply, routingFailure(error)),
    // A request Node's parser refuses (malformed, headers over 16 KiB, too slow): the table's shape, not fastify's.
    clientErrorHandler: answerClientError,
    // fastify's own 503 body is outside the table: a request arriving while the app closes is refused below.
    return503OnClosing: false,
  });

  let closing = false;
  app.addHook("preClose", async () => {
    closing = true;
  });
  app.addHook("onRequest", async (request) => {
    if (closing && request.routeOptions.url !== "/health") throw shuttingDown();
  });

  // One line per admin call (not /health): who changed what is in the ledger and change feed; this is for operations.
  app.addHook("onResponse", async (request, reply) => {
    const route = request.routeOptions.url ?? "unmatched";
    if (route === "/health") return;
    request.log.info(
      { method: request.method, route, status: reply.statusCode, ms: Math.round(reply.elapsedTime) },
      "admin request completed",
    );
  });

  // Before every route: it learns them as they are added. The shared schemas at the root, seen by every scope.
  registerOpenApi(app);
  addAdminSchemas(app);
  addCatalogueSchemas(app);

  const health = (status: string[], reason: boolean) =>
    ({
      type: "object",
      required: reason ? ["status", "reason"] : ["status"],
      additionalProperties: false,
      properties: { status: { type: "string", enum: status }, ...(reason ? { reason: { type: "string" } } : {}) },
    }) as const;
  void app.register(async (open) => {
    open.get(
      "/health",
      { schema: { ...PUBLIC_ROUTE, summary: "Readiness", response: { 200: health(["ok"], false), 503: health(["unavailable"], true) } } },
      async (_request, reply) =>
        options.isReady() ? { status: "ok" } : reply.code(503).send({ status: "unavailable", reason: "draining" }),
    );
  });

  app.setErrorHandler(async (error, request, reply) => {
    const failure = adminError(error, (unexpected) => app.log.error(unexpected));
    // A 413 sent while the client is still sending reaches it as a broken connection.
    if (failure.kind === "body_too_large")
      await discardBody(request.raw, request.routeOptions.bodyLimit ?? app.initialConfig.bodyLimit ?? 0);
    return sendError(reply, failure);
  });

  app.setNotFoundHandler((_request, reply) => sendError(reply, new GatewayError("not_found", "no such route")));

  // The token check belongs to the admin routes themselves (an encapsulated
  // scope), not to the URL's spelling: an absolute-form request target such as
  // `http://host/admin/...` reaches the same routes and the same check.
  void app.register(async (admin) => {
    admin.addHook("onRequest", async (request, reply) => {
      if (!tokenMatches(request.headers.authorization, options.adminToken)) {
        return sendError(reply, unauthorized("a valid admin token is required"));
      }
    });
    admin.addHook("preValidation", refuseUnstorableCharacters);
    registerProjectRoutes(admin, options.services);
    registerKeyRoutes(admin, options.services);
    registerCatalogueRoutes(admin, options.services);
    registerHealthRoutes(admin, options.services);
  });
  void app.register(async (open) => registerOpenApiRoutes(open));
  void app.register(async (open) => registerConsoleRoutes(open, options.consoleDir));
  return app;
}
