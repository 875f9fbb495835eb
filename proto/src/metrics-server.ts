// The Prometheus scrape listener both planes run on their own port
// (METRICS_PORT), off the public data-plane port and the admin port: metrics
// name models, providers and access paths that clients and admin callers need
// not see, and a scrape must not queue behind their traffic. GET /metrics, and
// GET /health with the details a plane keeps from its public /health (the data
// plane's: it knows no admin token to show them to); anything else is 404.
// Plain node:http: a scrape needs no framework, and prom-client stays the
// services' own dependency.
import http from "node:http";
import type { AddressInfo } from "node:net";

/** What the listener reads per scrape (a prom-client Registry is one). */
export interface MetricsText {
  readonly contentType: string;
  metrics(): Promise<string>;
}

/** A plane's state with its details, for operators: the status to answer with and the JSON body. */
export type HealthDetails = () => { status: number; body: unknown };

export interface RunningMetricsServer {
  /** Base URL; the scrape path is `${url}/metrics`. */
  url: string;
  close(): Promise<void>;
}

export async function startMetricsServer(
  registry: MetricsText,
  host: string,
  port: number,
  health?: HealthDetails,
): Promise<RunningMetricsServer> {
  const server = http.createServer((request, response) => {
    const path = (request.url ?? "").split("?")[0];
    const readable = request.method === "GET" || request.method === "HEAD";
    if (path === "/health" && health && readable) {
      const { status, body } = health();
      response.writeHead(status, { "content-type": "application/json; charset=utf-8" }).end(JSON.stringify(body));
      return;
    }
    if (path !== "/metrics" || !readable) {
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
