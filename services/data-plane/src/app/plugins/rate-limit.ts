// The per-minute limit of the routes that call a model (those with a dialect):
// their own hooks, added as each such route is declared, so no other route
// pays for them. The check is sent as the request arrives, right after auth,
// and not awaited there: the body is read and parsed while Redis answers, and
// a data plane busy when the answer comes needs no wake-up of its own for it.
// The answer is awaited once the body is read, before anything goes upstream
// or holds money.
import type { TraceSpan } from "@gateway/proto/tracing";
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction, onRequestHookHandler, preHandlerHookHandler } from "fastify";
import { rateLimitExceeded } from "../../errors";
import { type RateDecision, type RateLimiter, rateLimitHeaders } from "../../limits/rate-limiter";
import { globalPlugin } from "./global-plugin";

export interface RateLimitOptions extends Record<string, unknown> {
  limiter: Pick<RateLimiter, "check">;
  /** For projects without a limit of their own; 0 = none. */
  defaultRpmLimit: number;
  rejections: { inc(): void };
}

/** A route's hooks of one kind, with `hook` last. */
const withHook = <Hook>(hooks: Hook | Hook[] | undefined, hook: Hook): Hook[] =>
  hooks === undefined ? [hook] : [...(Array.isArray(hooks) ? hooks : [hooks]), hook];

export const rateLimit = globalPlugin<RateLimitOptions>(async (app, { limiter, defaultRpmLimit, rejections }) => {
  app.decorateRequest("rateDecision", undefined);
  const ask = (request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction) => {
    const identity = request.identity;
    const limit = identity ? (identity.rpmLimit ?? defaultRpmLimit) : 0;
    if (identity && limit !== 0) {
      request.rateDecision = limiter.check(identity.projectId, limit, request.id);
      // A request that fails before its preHandler (a bad body) never awaits it: not an unhandled rejection.
      request.rateDecision.catch(() => {});
      if (request.span) traceDecision(request.span, request.rateDecision, limit);
    }
    done();
  };
  const enforce = async (request: FastifyRequest, reply: FastifyReply) => {
    if (!request.rateDecision) return;
    const decision = await request.rateDecision;
    if (!decision.allowed) {
      rejections.inc();
      throw rateLimitExceeded(decision.resetSeconds);
    }
    reply.headers(rateLimitHeaders(decision));
  };
  app.addHook("onRoute", (route) => {
    if (!route.config?.dialect) return;
    route.onRequest = withHook(route.onRequest, ask as onRequestHookHandler);
    route.preHandler = withHook(route.preHandler, enforce as preHandlerHookHandler);
  });
});

/** The `limit` span: from the check's sending to its answer (the body is read meanwhile). */
function traceDecision(parent: TraceSpan, decision: Promise<RateDecision>, limit: number): void {
  const span = parent.child("limit", { "gateway.rate_limit.rpm": limit });
  decision.then(
    (answer) => {
      span.set("gateway.rate_limit.allowed", answer.allowed);
      if (!answer.allowed) span.fail("rate_limit_exceeded");
      span.end();
    },
    () => {
      span.fail("limit_check_failed");
      span.end();
    },
  );
}
