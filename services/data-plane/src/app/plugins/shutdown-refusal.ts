// Once the replica begins to close, a request still arriving on a kept-alive connection is refused
// with 503 shutting_down in its route's dialect (retryable: another replica takes it). fastify's own
// answer (`return503OnClosing`) has a body outside the error table. /health keeps saying "draining".
import { shuttingDown } from "@gateway/proto";
import { globalPlugin } from "./global-plugin";

export const shutdownRefusal = globalPlugin(async (app) => {
  let closing = false;
  app.addHook("preClose", async () => {
    closing = true;
  });
  app.addHook("onRequest", (request, _reply, done) => {
    if (closing && request.routeOptions.url !== "/health") return done(shuttingDown());
    done();
  });
});
