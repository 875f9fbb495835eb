// The server span of each /v1 request (docs/tracing.md): its parent is the
// client's traceparent, and the spans of the request's auth, limit, money and
// upstream attempts are its children. Registered only when tracing is on, so
// with it off no hook runs and `request.span` stays undefined.
import type { Tracing } from "@gateway/proto/tracing";
import { onResponseClose } from "../../response-close";
import type { Hook, HookRequest } from "../../request-context";
import { globalPlugin } from "./global-plugin";

export function requestSpanHook(tracing: Tracing): Hook {
  return (request, reply, done) => {
    const route = request.routeOptions.url ?? "unmatched";
    const span = tracing.server(`${request.method} ${route}`, (name) => header(request, name), {
      "http.request.method": request.method,
      "http.route": route,
      "gateway.request_id": request.id,
    });
    request.span = span;
    onResponseClose(reply.raw, () => {
      const status = reply.raw.writableFinished ? reply.raw.statusCode : 499;
      span.set("http.response.status_code", status);
      span.set("gateway.client_request_id", request.clientRequestId);
      span.set("gateway.project_id", request.identity?.projectId);
      span.set("gateway.key_id", request.identity?.keyId);
      span.set("gateway.model", request.call?.target.model.id);
      span.set("gateway.attempts", request.call?.plan.trace.attempts.length);
      if (request.errorCode) span.set("error.type", request.errorCode);
      if (status >= 500 || status === 499) span.fail(request.errorCode ?? String(status));
      span.end();
    });
    done();
  };
}

export const requestSpan = globalPlugin<{ hook: Hook }>(async (app, { hook }) => {
  app.addHook("onRequest", hook);
});

function header(request: HookRequest, name: string): string | undefined {
  const value = request.headers[name];
  return typeof value === "string" ? value : undefined;
}
