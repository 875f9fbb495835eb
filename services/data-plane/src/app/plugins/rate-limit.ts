// The per-minute limit of the routes that call a model (those with a dialect):
// their own hooks, added as each such route is declared, so no other route
// pays for them. The check is sent as the request arrives, right after auth,
// and not awaited there: the body is read and parsed while Redis answers, and
// a data plane busy when the answer comes needs no wake-up of its own for it.
// The answer is awaited once the body is read, before anything goes upstream
// or holds money. An answer already in memory (an admission block, the local
// window) is taken as it is, with no promise (issue 36, item 3).
import type { TraceSpan } from "@gateway/proto/tracing";
import { rateLimitExceeded } from "../../errors";
import type { KeyIdentity } from "../../auth/key-cache";
import { afterAnswer, type RateAnswer, type RateDecision, type RateLimiter, rateLimitHeaders } from "../../limits/rate-limiter";
import type { Hook, HookDone, HookReply } from "../../request-context";
import { globalPlugin } from "./global-plugin";
import { failWith } from "./hook-failure";
import { onModelCallRoutes } from "./route-hooks";

export interface RateLimitOptions {
  limiter: Pick<RateLimiter, "check">;
  /** For projects without a limit of their own; 0 = none. */
  defaultRpmLimit: number;
  rejections: { inc(): void };
}

/** The headers of two admissions describe the one with fewer requests left. */
const tighter = (key: RateDecision, project: RateDecision): RateDecision => (key.remaining < project.remaining ? key : project);

export interface RateLimitHooks {
  /** On request: the check is sent. */
  ask: Hook;
  /** Before the handler: its answer awaited. */
  enforce: Hook;
}

export function rateLimitHooks({ limiter, defaultRpmLimit, rejections }: RateLimitOptions): RateLimitHooks {
  /** The request's answer: at once when the limiter's are (an admission block, the local window), else a promise. */
  const decide = (identity: KeyIdentity, projectLimit: number, keyLimit: number, requestId: string): RateAnswer | undefined => {
    const project = () => limiter.check(identity.projectId, projectLimit, requestId);
    if (keyLimit === 0) return projectLimit === 0 ? undefined : project();
    // The key's own window first (its successor's after a rotation): a request the key refuses takes
    // nothing from the project's minute, shared by its other keys.
    const key = afterAnswer(limiter.check(identity.key.limitsKeyId, keyLimit, requestId), (decision) => ({
      ...decision,
      scope: "key" as const,
    }));
    if (projectLimit === 0) return key;
    return afterAnswer(key, (decision) => (decision.allowed ? afterAnswer(project(), (other) => tighter(decision, other)) : decision));
  };
  const ask: Hook = (request, _reply, done) => {
    const identity = request.identity;
    if (identity) {
      const projectLimit = identity.rpmLimit ?? defaultRpmLimit;
      const keyLimit = identity.key.rpmLimit ?? 0;
      try {
        request.rateDecision = decide(identity, projectLimit, keyLimit, request.id);
      } catch (error) {
        request.rateDecision = Promise.reject(error);
      }
      // A request that fails before its preHandler (a bad body) never awaits it: not an unhandled rejection.
      if (request.rateDecision instanceof Promise) request.rateDecision.catch(() => {});
      if (request.span && request.rateDecision) traceDecision(request.span, request.rateDecision, projectLimit, keyLimit);
    }
    done();
  };
  const admit = (reply: HookReply, done: HookDone, decision: RateDecision) => {
    if (!decision.allowed) {
      rejections.inc();
      return done(rateLimitExceeded(decision.resetSeconds, decision.scope));
    }
    reply.headers(rateLimitHeaders(decision));
    done();
  };
  const enforce: Hook = (request, reply, done) => {
    const answer = request.rateDecision;
    if (!answer) return done();
    if (answer instanceof Promise) answer.then((decision) => admit(reply, done, decision), failWith(done));
    else admit(reply, done, answer);
  };
  return { ask, enforce };
}

export const rateLimit = globalPlugin<{ hooks: RateLimitHooks }>(async (app, { hooks }) => {
  app.decorateRequest("rateDecision", undefined);
  onModelCallRoutes(app, { onRequest: hooks.ask, preHandler: hooks.enforce });
});

/** The `limit` span: from the check's sending to its answer (the body is read meanwhile). */
function traceDecision(parent: TraceSpan, decision: RateAnswer, projectLimit: number, keyLimit: number): void {
  const span = parent.child("limit", { "gateway.rate_limit.rpm": projectLimit, "gateway.rate_limit.key_rpm": keyLimit || undefined });
  Promise.resolve(decision).then(
    (answer) => {
      span.set("gateway.rate_limit.allowed", answer.allowed);
      if (!answer.allowed) span.set("gateway.rate_limit.scope", answer.scope ?? "project");
      if (!answer.allowed) span.fail("rate_limit_exceeded");
      span.end();
    },
    () => {
      span.fail("limit_check_failed");
      span.end();
    },
  );
}
