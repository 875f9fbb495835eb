// Tracing for both planes (docs/tracing.md). The SDK behind it loads only when tracing is on.
export { startTracing } from "./start-tracing";
export {
  type CarrierGetter,
  MAX_TRACE_LINKS,
  NO_SPAN,
  NO_TRACING,
  type SpanAttributes,
  type SpanKind,
  type SpanValue,
  TRACE_LINKS_KEY,
  TRACEPARENT_KEY,
  TRACESTATE_KEY,
  type TraceSpan,
  type Tracing,
  traceIdOf,
} from "./trace-span";
export { parseTracingConfig, type TracingConfig, TracingConfigError, type TracingSampler } from "./tracing-config";
