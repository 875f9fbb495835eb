// The admin HTTP API: operators manage projects, keys, balances, limits and
// the catalogue. Every /admin route needs `Authorization: Bearer <admin token>`;
// /health needs none. Builds the app, never listens.
import Fastify, { LogController, type FastifyInstance } from "fastify";
import type { Registry } from "prom-client";
import { timingSafeEqual } from "node:crypto";
import type { ControlPlaneServices } from "../control-plane-services";
import { ControlPlaneError } from "../errors";
import { registerCatalogueRoutes } from "./catalogue-routes";
import { registerProjectRoutes } from "./project-routes";

const errorBody = (code: string, message: string) => ({ error: { code, message } });

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
  metrics: Registry;
}): FastifyInstance {
  const app = Fastify({
    // Credentials and bodies are never logged, whatever a log call passes (the admin token, issued keys).
    logger: {
      level: options.logLevel,
      redact: { paths: ["req.headers.authorization", "headers.authorization", "body", "key"], censor: "[redacted]" },
    },
    logController: new LogController({ disableRequestLogging: true }),
  });

  // One line per admin call (not /health, /metrics): who changed what is in the ledger and change feed; this is for operations.
  app.addHook("onResponse", async (request, reply) => {
    const route = request.routeOptions.url ?? "unmatched";
    if (route === "/health" || route === "/metrics") return;
    request.log.info(
      { method: request.method, route, status: reply.statusCode, ms: Math.round(reply.elapsedTime) },
      "admin request completed",
    );
  });

  app.get("/health", async (_request, reply) =>
    options.isReady() ? { status: "ok" } : reply.code(503).send({ status: "unavailable", reason: "draining" }),
  );

  app.get("/metrics", async (_request, reply) => reply.type(options.metrics.contentType).send(await options.metrics.metrics()));

  app.setErrorHandler((error, _request, reply) => {
    if (error instanceof ControlPlaneError) return reply.code(error.status).send(errorBody(error.code, error.message));
    const failure = error as { validation?: unknown; statusCode?: number; message?: string };
    if (failure.validation || failure.statusCode === 400 || failure.statusCode === 415) {
      return reply.code(400).send(errorBody("invalid_request", failure.message ?? "invalid request"));
    }
    if (failure.statusCode === 413) return reply.code(413).send(errorBody("body_too_large", "request body too large"));
    app.log.error(error);
    return reply.code(500).send(errorBody("internal_error", "the control plane could not complete the request"));
  });

  app.setNotFoundHandler((_request, reply) => reply.code(404).send(errorBody("not_found", "no such route")));

  // The token check belongs to the admin routes themselves (an encapsulated
  // scope), not to the URL's spelling: an absolute-form request target such as
  // `http://host/admin/...` reaches the same routes and the same check.
  void app.register(async (admin) => {
    admin.addHook("onRequest", async (request, reply) => {
      if (!tokenMatches(request.headers.authorization, options.adminToken)) {
        return reply.code(401).send(errorBody("unauthorized", "a valid admin token is required"));
      }
    });
    registerProjectRoutes(admin, options.services);
    registerCatalogueRoutes(admin, options.services);
  });
  return app;
}
