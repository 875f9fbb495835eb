// The per-minute limit of the routes that call a model. The check is sent as
// the request arrives, right after auth, and not awaited there: the body is
// read and parsed while Redis answers, and a data plane busy when the answer
// comes needs no wake-up of its own for it. The answer is awaited once the
// body is read, before anything goes upstream or holds money.
import { rateLimitExceeded } from "../../errors";
import { type RateLimiter, rateLimitHeaders } from "../../limits/rate-limiter";
import { globalPlugin } from "./global-plugin";

export interface RateLimitOptions extends Record<string, unknown> {
  limiter: Pick<RateLimiter, "check">;
  /** For projects without a limit of their own; 0 = none. */
  defaultRpmLimit: number;
  rejections: { inc(): void };
}

export const rateLimit = globalPlugin<RateLimitOptions>(async (app, { limiter, defaultRpmLimit, rejections }) => {
  app.decorateRequest("rateDecision", undefined);
  app.addHook("onRequest", (request, _reply, done) => {
    const identity = request.identity;
    const limit = identity ? (identity.rpmLimit ?? defaultRpmLimit) : 0;
    if (identity && limit !== 0 && request.routeOptions.config?.dialect) {
      request.rateDecision = limiter.check(identity.projectId, limit, request.id);
      // A request that fails before its preHandler (a bad body) never awaits it: not an unhandled rejection.
      request.rateDecision.catch(() => {});
    }
    done();
  });
  app.addHook("preHandler", async (request, reply) => {
    if (!request.rateDecision) return;
    const decision = await request.rateDecision;
    if (!decision.allowed) {
      rejections.inc();
      throw rateLimitExceeded(decision.resetSeconds);
    }
    reply.headers(rateLimitHeaders(decision));
  });
});
