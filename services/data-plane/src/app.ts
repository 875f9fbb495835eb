// Builds the data-plane HTTP app (never listens; server.ts does). One auth
// hook, one error handler: every failure leaves as {"error":{type,code,message}}.
import Fastify, { LogController, type FastifyInstance } from "fastify";
import { randomUUID } from "node:crypto";
import { bodyTooLarge, GatewayError, invalidApiKey, invalidRequest, rateLimitExceeded, routeNotFound } from "./errors";
import { rateLimitHeaders, type RateDecision } from "./limits/rate-limiter";
import type { Gateway } from "./gateway";
import { logDestination } from "./log-destination";
import type { KeyIdentity } from "./auth/key-cache";
import type { PreparedCall } from "./proxy/prepare-call";
import { recordCompletion } from "./request-completion";
import { registerChatRoute } from "./routes/chat-completions";
import { registerEmbeddingsRoute } from "./routes/embeddings";
import { registerHealthRoute } from "./routes/health";
import { registerModelsRoute } from "./routes/models";

declare module "fastify" {
  interface FastifyRequest {
    identity?: KeyIdentity;
    /** performance.now() when the request arrived (its duration counts from here). */
    receivedAt: number;
    /** performance.now() once its body was read: the gateway's own overhead counts from here, not the client's upload. */
    readAt: number;
    /** The prepared model call, once routing chose one (for the completion log line and metrics). */
    call?: PreparedCall;
    /** The per-minute limit's answer, asked for as the request arrives and awaited once its body is read. */
    rateDecision?: Promise<RateDecision>;
  }
}

/**
 * Never logged, whatever a log call passes: credentials in headers (the
 * caller's key, provider keys, the internal token) and message contents.
 */
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

const BEARER = /^Bearer\s+(\S+)\s*$/i;
/** Routes that call a model count against the per-minute limit. */
const LIMITED_ROUTES = new Set(["/v1/chat/completions", "/v1/embeddings"]);

export function buildDataPlaneApp(gateway: Gateway): FastifyInstance {
  const app = Fastify({
    logger: { level: gateway.config.logLevel, redact: { paths: LOG_REDACT_PATHS, censor: "[redacted]" }, stream: logDestination() },
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: gateway.config.bodyLimitBytes,
    // One id per request, unique across replicas: the hold's id, the rate-limit entry, x-request-id.
    genReqId: () => randomUUID(),
  });

  // Bodies are JSON whatever the declared type; a body that is not JSON is a 400 in the OpenAI shape.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("*", { parseAs: "string" }, (_request, body, done) => {
    if (body === "") return done(null, undefined);
    try {
      done(null, JSON.parse(body as string));
    } catch {
      done(invalidRequest("invalid_body", "The request body is not valid JSON."), undefined);
    }
  });

  app.decorateRequest("identity", undefined);
  app.decorateRequest("receivedAt", 0);
  app.decorateRequest("readAt", 0);
  // Hooks on every request take a callback rather than returning a promise: no promise per request and hook.
  app.addHook("preHandler", (request, _reply, done) => {
    request.readAt = performance.now();
    done();
  });
  app.decorateRequest("call", undefined);
  app.decorateRequest("rateDecision", undefined);

  // One completion record per request, streams included (their replies are hijacked, so no fastify
  // onResponse hook runs for them): the metrics, and one log line with the request id.
  app.addHook("onRequest", (request, reply, done) => {
    request.receivedAt = performance.now();
    reply.raw.once("close", () => recordCompletion(gateway, request, reply));
    done();
  });

  app.setErrorHandler((error, request, reply) => {
    let failure: GatewayError;
    if (error instanceof GatewayError) failure = error;
    else {
      const code = (error as { code?: string }).code;
      const status = (error as { statusCode?: number }).statusCode;
      if (code === "FST_ERR_CTP_BODY_TOO_LARGE" || status === 413) failure = bodyTooLarge(gateway.config.bodyLimitBytes);
      else if (status !== undefined && status >= 400 && status < 500)
        failure = invalidRequest("invalid_body", "The request body could not be read.");
      else {
        request.log.error({ err: error }, "unexpected error");
        failure = new GatewayError(500, "server_error", "internal_error", "The gateway failed to handle the request.");
      }
    }
    if (failure.status === 499) return reply.code(499).send(); // the client is gone; nothing to answer
    return reply.code(failure.status).headers(failure.headers).send(failure.toBody());
  });

  app.setNotFoundHandler((request, reply) => {
    const failure = routeNotFound(request.method, request.url.split("?")[0]!);
    return reply.code(404).send(failure.toBody());
  });

  registerHealthRoute(app, gateway);
  app.get("/metrics", async (_request, reply) =>
    reply.type(gateway.metrics.registry.contentType).send(await gateway.metrics.registry.metrics()),
  );
  // Auth and the per-minute limit belong to the /v1 routes themselves (an
  // encapsulated scope), not to the URL's spelling: an absolute-form request
  // target such as `http://host/v1/models` reaches the same routes and checks.
  void app.register(async (v1) => {
    v1.addHook("onRequest", async (request, reply) => {
      reply.header("x-request-id", request.id);
      const match = BEARER.exec(request.headers.authorization ?? "");
      if (!match) throw invalidApiKey();
      const identity = await gateway.keys.validate(match[1]!);
      if (!identity) throw invalidApiKey();
      request.identity = identity;

      const limit = identity.rpmLimit ?? gateway.config.defaultRpmLimit;
      if (limit === 0 || !LIMITED_ROUTES.has(request.routeOptions.url ?? "")) return;
      // Not awaited here: the body is read and parsed while Redis answers, and a data plane that
      // is busy when the answer comes needs no wake-up of its own for it (docs/benchmark.md).
      // The answer still comes before anything goes upstream or holds money.
      request.rateDecision = gateway.rateLimiter.check(identity.projectId, limit, request.id);
      // A request that fails before its preHandler (a bad body) never awaits it: not an unhandled rejection.
      request.rateDecision.catch(() => {});
    });
    v1.addHook("preHandler", async (request, reply) => {
      if (!request.rateDecision) return;
      const decision = await request.rateDecision;
      if (!decision.allowed) {
        gateway.metrics.rateLimitRejections.inc();
        throw rateLimitExceeded(decision.resetSeconds);
      }
      reply.headers(rateLimitHeaders(decision));
    });
    registerModelsRoute(v1, gateway);
    registerChatRoute(v1, gateway);
    registerEmbeddingsRoute(v1, gateway);
  });
  return app;
}
