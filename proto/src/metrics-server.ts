// The Prometheus scrape listener both planes run on their own port
// (METRICS_PORT), off the public data-plane port and the admin port: metrics
// name models, providers and access paths that clients and admin callers need
// not see, and a scrape must not queue behind their traffic. GET /metrics is
// the only route; anything else is 404. Plain node:http: a scrape needs no
// framework, and prom-client stays the services' own dependency.
import http from "node:http";
import type { AddressInfo } from "node:net";

/** What the listener reads per scrape (a prom-client Registry is one). */
export interface MetricsText {
  readonly contentType: string;
  metrics(): Promise<string>;
}

export interface RunningMetricsServer {
  /** Base URL; the scrape path is `${url}/metrics`. */
  url: string;
  close(): Promise<void>;
}

export async function startMetricsServer(registry: MetricsText, host: string, port: number): Promise<RunningMetricsServer> {
  const server = http.createServer((request, response) => {
    const path = (request.url ?? "").split("?")[0];
    if (path !== "/metrics" || (request.method !== "GET" && request.method !== "HEAD")) {
      response.writeHead(404, { "content-type": "text/plain" }).end("not found\n");
      return;
    }
    registry.metrics().then(
      (text) => response.writeHead(200, { "content-type": registry.contentType }).end(text),
      () => response.writeHead(500, { "content-type": "text/plain" }).end("metrics unavailable\n"),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const shownHost = address.family === "IPv6" ? `[${address.address}]` : address.address;
  return {
    url: `http://${shownHost}:${address.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
