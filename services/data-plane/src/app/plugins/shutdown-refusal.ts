// Once the replica begins to close, a request still arriving on a kept-alive connection is refused
// with 503 shutting_down in its route's dialect (retryable: another replica takes it), and its
// connection closed after the answer. fastify's own answer (`return503OnClosing`) has a body outside
// the error table. /health keeps saying "draining".
import { shuttingDown } from "@gateway/proto";
import type { Hook } from "../../request-context";
import { globalPlugin } from "./global-plugin";

export interface ShutdownRefusalHooks {
  onRequest: Hook;
  /** From now on requests are refused. */
  close(): void;
}

export function shutdownRefusalHooks(): ShutdownRefusalHooks {
  let closing = false;
  return {
    onRequest: (request, reply, done) => {
      if (!closing || request.routeOptions.url === "/health") return done();
      reply.raw.setHeader("connection", "close");
      done(shuttingDown());
    },
    close: () => {
      closing = true;
    },
  };
}

export const shutdownRefusal = globalPlugin<{ hooks: ShutdownRefusalHooks }>(async (app, { hooks }) => {
  app.addHook("preClose", async () => hooks.close());
  app.addHook("onRequest", hooks.onRequest);
});
