// What the services see of tracing: a span they can end, annotate and open
// children of, and the headers that carry it to the next hop. With tracing off
// every span is NO_SPAN, whose calls do nothing, so the request path pays only
// for the calls themselves (docs/tracing.md).

export type SpanValue = string | number | boolean;
export type SpanAttributes = Readonly<Record<string, SpanValue | undefined>>;

/** A span's role, as OpenTelemetry names them: it answers a call (server) or makes one (client). */
export type SpanKind = "internal" | "server" | "client";

export interface TraceSpan {
  /** False for NO_SPAN and for spans the sampler dropped: attributes worth computing only for a recorded span. */
  readonly recording: boolean;
  /** The W3C trace id (32 hex digits); "" for NO_SPAN. */
  readonly traceId: string;
  /** The span's own id (16 hex digits); "" for NO_SPAN. */
  readonly spanId: string;
  child(name: string, attributes?: SpanAttributes, kind?: SpanKind): TraceSpan;
  set(name: string, value: SpanValue | undefined): void;
  event(name: string, attributes?: SpanAttributes): void;
  rename(name: string): void;
  /** Marks the span failed (OpenTelemetry's ERROR status); `message` is a code, never an upstream's text. */
  fail(message: string): void;
  end(): void;
  /** `traceparent` (and `tracestate`) for a call made under this span; undefined for NO_SPAN. */
  headers(): Record<string, string> | undefined;
}

/** How a server span learns its parent: the incoming headers or gRPC metadata, read only when tracing is on. */
export type CarrierGetter = (name: "traceparent" | "tracestate") => string | undefined;

export interface Tracing {
  readonly enabled: boolean;
  /** A server span; its parent is the caller's `traceparent`, `links` other spans it serves (a batch's requests). */
  server(name: string, carrier: CarrierGetter, attributes?: SpanAttributes, links?: readonly string[]): TraceSpan;
  /** Exports what is buffered and stops; called on shutdown. */
  shutdown(): Promise<void>;
}

const nothing = (): void => {};

export const NO_SPAN: TraceSpan = {
  recording: false,
  traceId: "",
  spanId: "",
  child: () => NO_SPAN,
  set: nothing,
  event: nothing,
  rename: nothing,
  fail: nothing,
  end: nothing,
  headers: () => undefined,
};

export const NO_TRACING: Tracing = {
  enabled: false,
  server: () => NO_SPAN,
  shutdown: async () => {},
};

/** gRPC metadata keys: the W3C headers, and the traceparents of a batch's other requests. */
export const TRACEPARENT_KEY = "traceparent";
export const TRACESTATE_KEY = "tracestate";
export const TRACE_LINKS_KEY = "gateway-trace-links";
/** A Draw call links at most this many of its requests' spans (its first is the parent). */
export const MAX_TRACE_LINKS = 32;

/** version-traceid-parentid-flags; an all-zero id is invalid (W3C Trace Context). */
const TRACEPARENT = /^[0-9a-f]{2}-([0-9a-f]{32})-([0-9a-f]{16})-[0-9a-f]{2}$/;

/** The trace id of a valid `traceparent`, else undefined: logs join the client's trace even with tracing off. */
export function traceIdOf(traceparent: string | string[] | undefined): string | undefined {
  if (typeof traceparent !== "string") return undefined;
  const match = TRACEPARENT.exec(traceparent.trim());
  if (!match || /^0+$/.test(match[1]!) || /^0+$/.test(match[2]!) || traceparent.startsWith("ff")) return undefined;
  return match[1];
}
