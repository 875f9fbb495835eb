// The request-record plugin: one metric sample and one log line per request,
// none for /health; the body-read time is kept for the engine.
// On a real socket (port 0): the record tells a finished answer (its status)
// from one the client left (499) by the socket's state, which inject() lacks.
import Fastify, { LogController } from "fastify";
import { Registry } from "prom-client";
import { afterEach, describe, expect, it } from "vitest";
import { requestRecord, requestRecordHooks } from "../../../src/app/plugins/request-record";
import { CounterFamily, HistogramFamily } from "../../../src/metric-families";
import type { Call } from "../../../src/engine/call";
import "../../../src/request-context";

async function app() {
  const registry = new Registry();
  const metrics = {
    requests: new CounterFamily(registry, "requests_total", "requests", ["route", "status", "model", "access_path"]),
    requestDuration: new HistogramFamily(registry, "duration_seconds", "duration", ["route", "stream"], [1]),
    upstreamCostRatio: new HistogramFamily(registry, "cost_ratio", "ratio", ["model"], [0.99, 1.01]),
    genAi: { completed: () => {} },
  };
  const logged: Record<string, unknown>[] = [];
  const instance = Fastify({
    logger: { level: "info", stream: { write: (line: string) => logged.push(JSON.parse(line)) } },
    logController: new LogController({ disableRequestLogging: true }),
  });
  await instance.register(requestRecord, { hooks: requestRecordHooks(metrics) });
  instance.get("/v1/models", async (request) => ({ read: request.readAt >= request.receivedAt && request.receivedAt > 0 }));
  instance.get("/health", async () => ({ status: "ok" }));
  // A call answered through an aggregator that reported its own cost ($0.0012); the ledger debited ?debited nano-USD.
  instance.get("/v1/called", async (request) => {
    request.call = {
      target: { model: { id: "openai/gpt-4.1-mini" }, path: { provider: "openrouter" } },
      plan: { request: { stream: false }, trace: { attempts: [{ outcome: "ok" }] } },
      upstreamCostUsd: 0.0012,
      debitedNano: BigInt((request.query as { debited: string }).debited),
    } as unknown as Call;
    return {};
  });
  const url = await instance.listen({ host: "127.0.0.1", port: 0 });
  after.push(() => instance.close());
  /** GET `path`, and the record written once the socket closed. */
  const get = async (path: string) => {
    const response = await fetch(`${url}${path}`);
    const body = await response.text();
    await new Promise((resolve) => setTimeout(resolve, 20));
    return { status: response.status, body };
  };
  return { get, registry, logged };
}

const after: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of after.splice(0)) await close();
});

describe("requestRecord", () => {
  it("counts each answer by route and status and logs one line", async () => {
    const { get, registry, logged } = await app();
    expect(JSON.parse((await get("/v1/models")).body)).toEqual({ read: true });
    const text = await registry.metrics();
    expect(text).toMatch(/^requests_total\{route="\/v1\/models",status="200",model="",access_path=""\} 1$/m);
    expect(text).toMatch(/^duration_seconds_count\{route="\/v1\/models",stream="false"\} 1$/m);
    expect(logged.filter((line) => line.msg === "request completed")).toMatchObject([{ route: "/v1/models", status: 200 }]);
  });

  it("logs the model, path and attempts of a call, and the aggregator's own cost (kept out of the answer)", async () => {
    const { get, logged } = await app();
    await get("/v1/called?debited=1200000");
    expect(logged.filter((line) => line.msg === "request completed")).toMatchObject([
      { route: "/v1/called", model: "openai/gpt-4.1-mini", path: "openrouter", attempts: ["ok"], upstream_cost_usd: 0.0012 },
    ]);
  });

  it("compares the charge with the aggregator's cost: a ratio per model, and a warning beyond 1%", async () => {
    const { get, registry, logged } = await app();
    await get("/v1/called?debited=1205000"); // 0.4% above: agrees
    expect(logged.filter((line) => line.level === 40)).toEqual([]);
    await get("/v1/called?debited=1500000"); // 25% above: a stale price
    expect(logged.filter((line) => line.level === 40)).toMatchObject([
      { model: "openai/gpt-4.1-mini", path: "openrouter", cost_usd: 0.0015, upstream_cost_usd: 0.0012 },
    ]);
    const ratios = (await registry.getSingleMetric("cost_ratio")!.get()).values as {
      metricName?: string;
      labels: { le?: number };
      value: number;
    }[];
    const bucket = (le: number) => ratios.find((value) => value.metricName === "cost_ratio_bucket" && value.labels.le === le)?.value;
    expect([bucket(0.99), bucket(1.01)]).toEqual([0, 1]);
    expect(ratios.find((value) => value.metricName === "cost_ratio_count")?.value).toBe(2);
  });

  it("does not record probes", async () => {
    const { get, registry, logged } = await app();
    await get("/health");
    expect(await registry.metrics()).not.toMatch(/^requests_total\{/m);
    expect(logged.filter((line) => line.msg === "request completed")).toEqual([]);
  });

  it("records an unmatched route as such", async () => {
    const { get, registry } = await app();
    await get("/nowhere");
    expect(await registry.metrics()).toMatch(/^requests_total\{route="unmatched",status="404",model="",access_path=""\} 1$/m);
  });
});
