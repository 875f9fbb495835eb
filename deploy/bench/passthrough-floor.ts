// The benchmark's floor: the least a Node.js proxy can do between a client and
// the upstream. A bare node:http server that reads the request body, forwards
// it with undici (one Agent, keep-alive pool, the same library and pool size the
// data plane uses) to UPSTREAM_URL + the request path with the upstream key, and
// pipes the answer back as it arrives (streams included). No auth, no limits,
// no billing, no routing, no parsing of either body.
//
//   UPSTREAM_URL=http://127.0.0.1:4010 UPSTREAM_API_KEY=k PORT=0 tsx deploy/bench/passthrough-floor.ts
//
// Prints one ready line: {"msg":"floor ready","url":"http://127.0.0.1:<port>"}.
// undici is the data plane's own dependency (the repository root does not list it).
import { createServer, type IncomingHttpHeaders } from "node:http";
import { pipeline } from "node:stream/promises";
import { Agent, request } from "../../services/data-plane/node_modules/undici/index.js";

const upstream = process.env.UPSTREAM_URL ?? "http://127.0.0.1:8090";
const upstreamKey = process.env.UPSTREAM_API_KEY ?? "mock-provider-key";
// No cap on connections per origin, as the data plane (UPSTREAM_MAX_CONNECTIONS unset).
const agent = new Agent({ keepAliveTimeout: 30_000, connections: null });

/** The upstream key as the client sent its own: Bearer, or Anthropic's x-api-key with its version header. */
function upstreamHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  if (headers["x-api-key"] === undefined) return { "content-type": "application/json", authorization: `Bearer ${upstreamKey}` };
  return {
    "content-type": "application/json",
    "x-api-key": upstreamKey,
    "anthropic-version": String(headers["anthropic-version"] ?? "2023-06-01"),
  };
}

const server = createServer((incoming, outgoing) => {
  const chunks: Buffer[] = [];
  incoming.on("data", (chunk: Buffer) => chunks.push(chunk));
  incoming.on("end", () => {
    request(`${upstream}${incoming.url}`, {
      method: incoming.method as "POST",
      headers: upstreamHeaders(incoming.headers),
      body: Buffer.concat(chunks),
      dispatcher: agent,
    }).then(
      async (answer) => {
        const contentType = answer.headers["content-type"];
        outgoing.writeHead(answer.statusCode, contentType ? { "content-type": contentType } : {});
        await pipeline(answer.body, outgoing).catch(() => outgoing.destroy());
      },
      () => {
        outgoing.writeHead(502, { "content-type": "application/json" });
        outgoing.end('{"error":{"type":"upstream_error","code":"upstream_unreachable","message":"floor: upstream failed"}}');
      },
    );
  });
});
server.keepAliveTimeout = 65_000;

server.listen(Number(process.env.PORT ?? 0), "127.0.0.1", () => {
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  console.log(JSON.stringify({ msg: "floor ready", url: `http://127.0.0.1:${port}` }));
});

const stop = () => server.close(() => void agent.close().then(() => process.exit(0)));
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
