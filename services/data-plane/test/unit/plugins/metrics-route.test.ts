// The metrics route plugin: GET /metrics serves the registry's text.
import Fastify from "fastify";
import { Counter, Registry } from "prom-client";
import { describe, expect, it } from "vitest";
import { metricsRoute } from "../../../src/app/plugins/metrics-route";

describe("metricsRoute", () => {
  it("serves the registry in the Prometheus text format", async () => {
    const registry = new Registry();
    new Counter({ name: "things_total", help: "things", registers: [registry] }).inc(3);
    const instance = Fastify();
    await instance.register(metricsRoute, { registry });
    const response = await instance.inject({ url: "/metrics" });
    expect(response.statusCode).toBe(200);
    expect(response.headers["content-type"]).toBe(registry.contentType);
    expect(response.body).toMatch(/^things_total 3$/m);
  });
});
