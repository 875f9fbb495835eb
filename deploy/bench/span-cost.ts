// What one traced request's spans cost in the data plane's process, without the request: a server span
// and the children a plain call makes (auth, limit, reserve, attempt, settle), their attributes and
// traceparents, exported over OTLP/HTTP to a sink in this process (trace-sink.ts). The queue is made
// large enough that no span is dropped, so the export is counted whole. docs/tracing.md, "Cost".
//
//   tsx deploy/bench/span-cost.ts [--requests 20000] [--protocol http/protobuf|http/json]
//   OTEL_TRACES_SAMPLER=parentbased_traceidratio OTEL_TRACES_SAMPLER_ARG=0.01 tsx deploy/bench/span-cost.ts
import { parseArgs } from "node:util";
import { parseTracingConfig, startTracing } from "../../proto/src/tracing";
import { startTraceSink } from "./trace-sink";

const { values: args } = parseArgs({
  options: { requests: { type: "string", default: "20000" }, protocol: { type: "string", default: "http/protobuf" } },
});
const requests = Number(args.requests);
const sink = await startTraceSink();
// The exporter reads OTEL_EXPORTER_OTLP_ENDPOINT itself; every batch waits for shutdown, at most 20 exports.
const env = {
  ...process.env,
  ...sink.env,
  OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: args.protocol,
  OTEL_BSP_MAX_QUEUE_SIZE: String(requests * 8),
  OTEL_BSP_MAX_EXPORT_BATCH_SIZE: String(Math.ceil((requests * 6) / 20)),
  OTEL_BSP_SCHEDULE_DELAY: "600000",
};
Object.assign(process.env, env);
const tracing = await startTracing(parseTracingConfig(env, "span-cost"));

/** One request's spans, as a non-streamed chat call with one attempt makes them. */
function request(): void {
  const server = tracing.server("POST /v1/chat/completions", () => undefined, {
    "http.request.method": "POST",
    "http.route": "/v1/chat/completions",
    "gateway.request_id": "0b7f1c0e-3f43-4b1e-9d43-3c1a4c0f9a11",
  });
  const auth = server.child("auth");
  auth.set("gateway.key_cache", "hit");
  auth.end();
  const limit = server.child("limit", { "gateway.rate_limit.rpm": 600 });
  limit.set("gateway.rate_limit.allowed", true);
  limit.end();
  const reserve = server.child("reserve", undefined, "client");
  reserve.headers();
  reserve.set("gateway.money.outcome", "RESERVED");
  reserve.end();
  const attempt = server.child(
    "attempt",
    {
      "gen_ai.operation.name": "chat",
      "gen_ai.provider.name": "openai",
      "gen_ai.request.model": "openai/gpt-4.1-mini",
      "gateway.upstream_model": "gpt-4.1-mini",
      "gateway.attempt.number": 1,
      "gateway.attempt.retry": false,
    },
    "client",
  );
  attempt.headers();
  attempt.set("http.response.status_code", 200);
  attempt.set("gateway.attempt.outcome", "ok");
  attempt.end();
  const settle = server.child("settle", undefined, "client");
  settle.headers();
  settle.set("gateway.money.outcome", "SETTLED");
  settle.end();
  server.set("http.response.status_code", 200);
  server.end();
}

for (let index = 0; index < 2000; index++) request(); // warm-up, exported with the rest
const before = process.cpuUsage();
for (let index = 0; index < requests; index++) request();
const made = process.cpuUsage(before);
await tracing.shutdown();
const all = process.cpuUsage(before);
const micros = (usage: NodeJS.CpuUsage) => ((usage.user + usage.system) / requests).toFixed(1);
console.log(
  `${args.protocol}: ${micros(made)} µs of CPU per request to make its 6 spans, ${micros(all)} µs with their export ` +
    `(${sink.stats().exports} exports, ${(sink.stats().bytes / requests).toFixed(0)} bytes per request)`,
);
await sink.close();
