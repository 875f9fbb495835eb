// A stand-in for an OpenTelemetry collector in the benchmarks (--tracing): an
// OTLP/HTTP endpoint in the bench process that takes every export and keeps
// only counts, so tracing's cost is measured in the gateway, not in a collector.
import http from "node:http";
import type { AddressInfo } from "node:net";

export interface TraceSink {
  /** OTEL_* for a traced service: OTLP/HTTP (protobuf, the default) to this sink, everything else at its default. */
  env: Record<string, string>;
  /** Export requests and their bytes so far. */
  stats(): { exports: number; bytes: number };
  close(): Promise<void>;
}

export async function startTraceSink(): Promise<TraceSink> {
  let exports = 0;
  let bytes = 0;
  const server = http.createServer((request, response) => {
    request.on("data", (chunk: Buffer) => {
      bytes += chunk.length;
    });
    request.on("end", () => {
      exports++;
      response.writeHead(200, { "content-type": request.headers["content-type"] ?? "application/x-protobuf" }).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    env: { OTEL_EXPORTER_OTLP_ENDPOINT: url },
    stats: () => ({ exports, bytes }),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
