// Hooks of the routes that call a model (those declared with a dialect), added as each such route is
// declared, so that no other route pays for them.
import type { FastifyInstance } from "fastify";
import type { Hook } from "../../request-context";

/** A route's hooks of one kind, with `hook` last. */
const withHook = <Hook>(hooks: Hook | Hook[] | undefined, hook: Hook): Hook[] =>
  hooks === undefined ? [hook] : [...(Array.isArray(hooks) ? hooks : [hooks]), hook];

/** Adds hooks to every model-call route declared after this in `app`'s scope. */
export function onModelCallRoutes(app: FastifyInstance, hooks: { onRequest?: Hook; preHandler?: Hook }): void {
  app.addHook("onRoute", (route) => {
    if (!route.config?.dialect) return;
    if (hooks.onRequest) route.onRequest = withHook(route.onRequest, hooks.onRequest as never);
    if (hooks.preHandler) route.preHandler = withHook(route.preHandler, hooks.preHandler as never);
  });
}
