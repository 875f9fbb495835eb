// An OTLP/HTTP trace receiver for tests: accepts POST /v1/traces in the JSON
// encoding (OTEL_EXPORTER_OTLP_TRACES_PROTOCOL=http/json) and keeps every span
// with the service that sent it. Ids arrive as hex strings in that encoding.
import http from "node:http";
import type { AddressInfo } from "node:net";

type AnyValue = { stringValue?: string; intValue?: string | number; boolValue?: boolean; doubleValue?: number };
interface KeyValue {
  key: string;
  value: AnyValue;
}

export interface ReceivedSpan {
  service: string;
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  /** OTLP's SpanKind: 1 internal, 2 server, 3 client. */
  kind: number;
  attributes: Record<string, string | number | boolean>;
  events: { name: string }[];
  links: { traceId: string; spanId: string }[];
  /** OTLP's status code: 0 unset, 1 ok, 2 error. */
  status: number;
}

interface ExportRequest {
  resourceSpans?: {
    resource?: { attributes?: KeyValue[] };
    scopeSpans?: {
      spans?: (Omit<ReceivedSpan, "service" | "attributes" | "status"> & { attributes?: KeyValue[]; status?: { code?: number } })[];
    }[];
  }[];
}

const plainValue = (value: AnyValue): string | number | boolean =>
  value.stringValue ?? (value.intValue !== undefined ? Number(value.intValue) : (value.boolValue ?? value.doubleValue ?? ""));
const attributesOf = (list: KeyValue[] | undefined) => Object.fromEntries((list ?? []).map(({ key, value }) => [key, plainValue(value)]));

export class OtlpReceiver {
  readonly spans: ReceivedSpan[] = [];
  /** Export requests received, whatever their encoding. */
  requests = 0;
  private constructor(private readonly server: http.Server) {}

  static async start(): Promise<OtlpReceiver> {
    let receiver: OtlpReceiver | undefined;
    const server = http.createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on("data", (chunk: Buffer) => chunks.push(chunk));
      request.on("end", () => {
        receiver!.requests++;
        if (request.url === "/v1/traces" && request.headers["content-type"]?.startsWith("application/json"))
          receiver!.take(JSON.parse(Buffer.concat(chunks).toString("utf8")) as ExportRequest);
        response.writeHead(200, { "content-type": "application/json" }).end("{}");
      });
    });
    receiver = new OtlpReceiver(server);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    return receiver;
  }

  /** The base URL, for OTEL_EXPORTER_OTLP_ENDPOINT (the exporter adds /v1/traces). */
  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  trace(traceId: string): ReceivedSpan[] {
    return this.spans.filter((span) => span.traceId === traceId);
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private take(body: ExportRequest): void {
    for (const resourceSpans of body.resourceSpans ?? []) {
      const service = String(attributesOf(resourceSpans.resource?.attributes)["service.name"] ?? "");
      for (const scope of resourceSpans.scopeSpans ?? [])
        for (const span of scope.spans ?? [])
          this.spans.push({
            service,
            traceId: span.traceId,
            spanId: span.spanId,
            parentSpanId: span.parentSpanId ?? "",
            name: span.name,
            kind: span.kind,
            attributes: attributesOf(span.attributes),
            events: span.events ?? [],
            links: span.links ?? [],
            status: span.status?.code ?? 0,
          });
    }
  }
}
