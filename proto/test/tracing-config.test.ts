// When tracing is on, and what it is then configured with (docs/tracing.md, "Turning it on").
import { describe, expect, it } from "vitest";
import { NO_SPAN, parseTracingConfig, startTracing, traceIdOf } from "../src/tracing";

const parse = (env: Record<string, string>) => parseTracingConfig(env, "gateway-test");

describe("the tracing switch", () => {
  it("is off by default, and with the SDK disabled or the exporter none", () => {
    expect(parse({}).enabled).toBe(false);
    expect(parse({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318", OTEL_SDK_DISABLED: "true" }).enabled).toBe(false);
    expect(parse({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318", OTEL_TRACES_EXPORTER: "none" }).enabled).toBe(false);
  });

  it("is on with the otlp exporter named, or with an endpoint and no exporter named", () => {
    expect(parse({ OTEL_TRACES_EXPORTER: "otlp" }).enabled).toBe(true);
    expect(parse({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318" }).enabled).toBe(true);
    expect(parse({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://collector:4318/v1/traces" }).enabled).toBe(true);
  });

  it("refuses what it cannot do instead of silently tracing nowhere", () => {
    expect(() => parse({ OTEL_TRACES_EXPORTER: "zipkin" })).toThrow(/only "otlp" or "none"/);
    expect(() => parse({ OTEL_TRACES_EXPORTER: "otlp", OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" })).toThrow(/http\/protobuf or http\/json/);
    expect(() =>
      parse({ OTEL_TRACES_EXPORTER: "otlp", OTEL_TRACES_SAMPLER: "parentbased_traceidratio", OTEL_TRACES_SAMPLER_ARG: "2" }),
    ).toThrow(/from 0 to 1/);
  });

  it("reads the service name, sampler, protocol and batch settings", () => {
    const config = parse({
      OTEL_TRACES_EXPORTER: "otlp",
      OTEL_SERVICE_NAME: "edge",
      OTEL_TRACES_SAMPLER: "parentbased_traceidratio",
      OTEL_TRACES_SAMPLER_ARG: "0.25",
      OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "http/json",
      OTEL_BSP_SCHEDULE_DELAY: "100",
      OTEL_BSP_MAX_QUEUE_SIZE: "64",
    });
    expect(config).toMatchObject({
      serviceName: "edge",
      protocol: "http/json",
      sampler: { kind: "parentbased_traceidratio", ratio: 0.25 },
      batch: { scheduledDelayMillis: 100, maxQueueSize: 64, maxExportBatchSize: 64 },
    });
    expect(parse({ OTEL_TRACES_EXPORTER: "otlp" })).toMatchObject({
      serviceName: "gateway-test",
      protocol: "http/protobuf",
      sampler: { kind: "parentbased_always_on" },
    });
  });

  it("gives the no-op tracing when off: every span is NO_SPAN, nothing to send", async () => {
    const tracing = await startTracing(parse({}));
    expect(tracing.enabled).toBe(false);
    const span = tracing.server("POST /v1/chat/completions", () => "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01");
    expect(span).toBe(NO_SPAN);
    expect(span.child("auth").headers()).toBeUndefined();
  });
});

describe("a client's trace id", () => {
  it("is read from a valid traceparent only", () => {
    expect(traceIdOf("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01")).toBe("0af7651916cd43dd8448eb211c80319c");
    expect(traceIdOf("00-00000000000000000000000000000000-b7ad6b7169203331-01")).toBeUndefined();
    expect(traceIdOf("00-0af7651916cd43dd8448eb211c80319c-0000000000000000-01")).toBeUndefined();
    expect(traceIdOf("ff-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01")).toBeUndefined();
    expect(traceIdOf("00-0AF7651916CD43DD8448EB211C80319C-b7ad6b7169203331-01")).toBeUndefined();
    expect(traceIdOf(undefined)).toBeUndefined();
    expect(traceIdOf(["00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"])).toBeUndefined();
  });
});
