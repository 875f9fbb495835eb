// Upstream calls through undici's dispatch handler (upstream/upstream-http.ts) and the body it feeds
// (upstream/upstream-body.ts), against a real HTTP server: reads in order then the end, an unread body
// that pauses the connection, a signal that fires before the call is sent or while its body is read,
// a dump, and a call that reaches no server.
import { once } from "node:events";
import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { UpstreamAbort } from "../../src/engine/client-link";
import { type UpstreamResponse, UpstreamHttp, type UpstreamSignal } from "../../src/upstream/upstream-http";

const PIECE = Buffer.alloc(64 * 1024, "a");
/** What each path's answer wrote, by path. */
const written = new Map<string, number>();
const open = new Set<ServerResponse>();

/** Writes `pieces` 64 KiB pieces as fast as the client takes them (or until it leaves). */
async function writePieces(path: string, res: ServerResponse, pieces: number): Promise<void> {
  res.writeHead(200, { "content-type": "application/octet-stream" });
  written.set(path, 0);
  for (let i = 0; i < pieces && !res.destroyed; i++) {
    if (!res.write(PIECE)) await Promise.race([once(res, "drain"), once(res, "close")]);
    written.set(path, written.get(path)! + PIECE.length);
  }
  res.end();
}

let server: Server;
let url: string;
const http = new UpstreamHttp({ connectTimeoutMs: 2_000, headersTimeoutMs: 5_000, streamIdleTimeoutMs: 5_000, maxConnections: 0 });
const requests: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    requests.push(req.url!);
    open.add(res);
    res.on("close", () => open.delete(res));
    req.resume();
    if (req.url === "/small") res.end("hello, upstream");
    else if (req.url === "/error") res.writeHead(429, { "retry-after": "2" }).end('{"error":"slow down"}');
    else if (req.url === "/many") void writePieces(req.url, res, 8);
    else if (req.url === "/huge")
      void writePieces(req.url, res, 32 * 16); // 32 MiB
    else if (req.url === "/hang") res.writeHead(200).write("first");
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  for (const res of open) res.destroy();
  await http.close(100);
  server.close();
});

const post = (path: string, signal: UpstreamSignal = new UpstreamAbort(), watch = { dispatched: false }) =>
  http.post(`${url}${path}`, { "content-type": "application/json" }, "{}", signal, watch);

/** The whole body, read as the relay reads it. */
async function readAll(response: UpstreamResponse): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for (;;) {
    let chunk = response.body.read();
    if (chunk instanceof Promise) chunk = await chunk;
    if (chunk === null) return Buffer.concat(chunks);
    chunks.push(chunk);
  }
}

describe("upstream calls through the dispatch handler", () => {
  it("gives the status and headers, then the body's reads in order and its end", async () => {
    const small = await post("/small");
    expect(small.statusCode).toBe(200);
    expect(small.headers["content-length"]).toBe("15");
    expect((await readAll(small)).toString()).toBe("hello, upstream");
    expect((await readAll(await post("/many"))).length).toBe(8 * PIECE.length);
    const refused = await post("/error");
    expect([refused.statusCode, refused.headers["retry-after"]]).toEqual([429, "2"]);
    expect((await readAll(refused)).toString()).toBe('{"error":"slow down"}');
  });

  it("pauses the connection while the body goes unread, and goes on once it is read", async () => {
    const huge = await post("/huge");
    await new Promise((resolve) => setTimeout(resolve, 500));
    // Socket buffers on both sides and the body's 64 KiB: far below the 32 MiB the server would write.
    expect(written.get("/huge")).toBeLessThan(8 * 1024 * 1024);
    expect((await readAll(huge)).length).toBe(32 * 1024 * 1024);
  });

  it("never sends a call whose signal fired first, and fails a pending read when it fires mid-body", async () => {
    const aborted = new UpstreamAbort();
    aborted.abort();
    const watch = { dispatched: false };
    const before = requests.length;
    await expect(post("/small", aborted, watch)).rejects.toThrow();
    expect(watch.dispatched).toBe(false);
    expect(requests.length).toBe(before);

    const signal = new AbortController();
    const sent = { dispatched: false };
    const hanging = await post("/hang", signal.signal, sent);
    expect(sent.dispatched).toBe(true);
    expect((await hanging.body.read())?.toString()).toBe("first");
    const pending = hanging.body.read();
    signal.abort(new Error("the client left"));
    await expect(pending).rejects.toThrow("the client left");
  });

  it("dumps a short rest to its end and cuts a long one; destroy fails the reads", async () => {
    const small = await post("/small");
    await small.body.dump();
    const huge = await post("/huge");
    await huge.body.dump();
    expect(written.get("/huge")).toBeLessThan(8 * 1024 * 1024);
    const many = await post("/many");
    many.body.destroy(new Error("cut"));
    expect(() => many.body.read()).toThrow("cut");
  });

  it("fails a call that reaches no server, and one to a URL undici refuses, before anything is sent", async () => {
    const closed = createServer();
    closed.listen(0, "127.0.0.1");
    await once(closed, "listening");
    const port = (closed.address() as AddressInfo).port;
    closed.close();
    const watch = { dispatched: false };
    await expect(http.post(`http://127.0.0.1:${port}/v1`, {}, "{}", new UpstreamAbort(), watch)).rejects.toThrow();
    await expect(http.post("not a url", {}, "{}", new UpstreamAbort(), watch)).rejects.toThrow("invalid upstream URL");
  });
});
