// The OpenTelemetry SDK behind TraceSpan, loaded only when tracing is on
// (start-tracing.ts). Spans are passed explicitly down the request path; no
// context manager and no auto-instrumentation: nothing runs that our code did
// not ask for. Parents and links travel as W3C traceparent/tracestate.
import {
  type Attributes,
  type Context,
  defaultTextMapSetter,
  type Link,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  type Tracer,
  trace,
} from "@opentelemetry/api";
import { parseTraceParent, W3CTraceContextPropagator } from "@opentelemetry/core";
import { OTLPTraceExporter as JsonExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { OTLPTraceExporter as ProtobufExporter } from "@opentelemetry/exporter-trace-otlp-proto";
import { detectResources, resourceAttributesEnvDetector, resourceFromAttributes } from "@opentelemetry/resources";
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  ParentBasedSampler,
  type Sampler,
  TraceIdRatioBasedSampler,
  TracerProvider,
} from "@opentelemetry/sdk-trace";
import type { CarrierGetter, SpanAttributes, SpanKind as OurKind, TraceSpan, Tracing } from "./trace-span";
import type { TracingConfig, TracingSampler } from "./tracing-config";

const propagator = new W3CTraceContextPropagator();
const KINDS: Record<OurKind, SpanKind> = { internal: SpanKind.INTERNAL, server: SpanKind.SERVER, client: SpanKind.CLIENT };

/** Attributes without the undefined ones (OpenTelemetry drops them with a warning). */
function defined(attributes: SpanAttributes | undefined): Attributes | undefined {
  if (!attributes) return undefined;
  const kept: Attributes = {};
  for (const name in attributes) if (attributes[name] !== undefined) kept[name] = attributes[name];
  return kept;
}

class OtelSpan implements TraceSpan {
  private readonly context: Context;

  constructor(
    private readonly tracer: Tracer,
    private readonly span: Span,
  ) {
    this.context = trace.setSpan(ROOT_CONTEXT, span);
  }

  get recording(): boolean {
    return this.span.isRecording();
  }

  get traceId(): string {
    return this.span.spanContext().traceId;
  }

  get spanId(): string {
    return this.span.spanContext().spanId;
  }

  child(name: string, attributes?: SpanAttributes, kind: OurKind = "internal"): TraceSpan {
    return new OtelSpan(this.tracer, this.tracer.startSpan(name, { kind: KINDS[kind], attributes: defined(attributes) }, this.context));
  }

  set(name: string, value: string | number | boolean | undefined): void {
    if (value !== undefined) this.span.setAttribute(name, value);
  }

  event(name: string, attributes?: SpanAttributes): void {
    this.span.addEvent(name, defined(attributes));
  }

  rename(name: string): void {
    this.span.updateName(name);
  }

  fail(message: string): void {
    this.span.setStatus({ code: SpanStatusCode.ERROR, message });
  }

  end(): void {
    this.span.end();
  }

  headers(): Record<string, string> {
    const carrier: Record<string, string> = {};
    propagator.inject(this.context, carrier, defaultTextMapSetter);
    return carrier;
  }
}

function samplerFor(config: TracingSampler): Sampler {
  switch (config.kind) {
    case "always_on":
      return new AlwaysOnSampler();
    case "always_off":
      return new AlwaysOffSampler();
    case "traceidratio":
      return new TraceIdRatioBasedSampler(config.ratio);
    case "parentbased_always_on":
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
    case "parentbased_always_off":
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case "parentbased_traceidratio":
      return new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(config.ratio) });
  }
}

export function openTelemetryTracing(config: TracingConfig): Tracing {
  // The exporters read OTEL_EXPORTER_OTLP_* (endpoint, headers, timeout) themselves.
  const exporter = config.protocol === "http/json" ? new JsonExporter() : new ProtobufExporter();
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ "service.name": config.serviceName }).merge(
      detectResources({ detectors: [resourceAttributesEnvDetector] }),
    ),
    sampler: samplerFor(config.sampler),
    spanProcessors: [new BatchSpanProcessor({ exporter, ...config.batch })],
  });
  const tracer = provider.getTracer("model-gateway");
  return {
    enabled: true,
    server(name, carrier: CarrierGetter, attributes, links) {
      const parent = propagator.extract(ROOT_CONTEXT, carrier, {
        get: (getter: CarrierGetter, key: string) => getter(key as "traceparent" | "tracestate"),
        keys: () => ["traceparent", "tracestate"],
      });
      const linked: Link[] = [];
      for (const traceparent of links ?? []) {
        const spanContext = parseTraceParent(traceparent);
        if (spanContext) linked.push({ context: spanContext });
      }
      const span = tracer.startSpan(name, { kind: SpanKind.SERVER, attributes: defined(attributes), links: linked }, parent);
      return new OtelSpan(tracer, span);
    },
    // What cannot be exported now is lost; a stopping service does not fail for it.
    shutdown: () => provider.shutdown().catch(() => {}),
  };
}
