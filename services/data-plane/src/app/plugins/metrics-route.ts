// GET /metrics: the Prometheus text of this replica's registry.
import type { Registry } from "prom-client";
import { globalPlugin } from "./global-plugin";

export const metricsRoute = globalPlugin<{ registry: Registry }>(async (app, { registry }) => {
  app.get("/metrics", async (_request, reply) => reply.type(registry.contentType).send(await registry.metrics()));
});
