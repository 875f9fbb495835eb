// The model calls' front door (app/front-door.ts) against fastify, on the app the data plane builds: a
// POST to a model call's exact path is taken by the door, the same path with a query string is left to
// fastify's route, and each request of a corpus (keys, bodies, limits, errors, streams, the shutdown)
// gets the same answer from both: status, headers (but the request's own ids) and body, and the same
// call handed to the engine (a stub here; the real engine is the integration suites').
import http from "node:http";
import type { AddressInfo } from "node:net";
import type { Tracing } from "@gateway/proto/tracing";
import { afterEach, describe, expect, it, vi } from "vitest";
import { buildDataPlaneApp } from "../../src/app/build-app";
import { FrontDoor } from "../../src/app/front-door";
import type { KeyValidation } from "../../src/app/plugins/auth";
import type { KeyIdentity } from "../../src/auth/key-cache";
import type { ClientDialect } from "../../src/dialects/client-dialect";
import type { ClientReply } from "../../src/engine/client-reply";
import type { Engine, IncomingCall } from "../../src/engine/engine";
import { insufficientCredits } from "../../src/errors";
import type { RateDecision } from "../../src/limits/rate-limiter";
import { createMetrics } from "../../src/metrics";
import { socketExchange } from "../support/raw-http";

const GOOD = `sk_acme_${"a".repeat(43)}`;
const LIMITED = `sk_acme_${"l".repeat(43)}`;
const identityOf = (projectId: string): KeyIdentity => ({
  projectId,
  keyId: `key_${projectId}`,
  rpmLimit: projectId === "limited" ? 1 : 100,
  key: { rpmLimit: null, moneyLimits: false, expiresAtMs: 0, limitsKeyId: `key_${projectId}` },
});
const keys: KeyValidation = {
  validate: (key) => (key === GOOD ? identityOf("acme") : key === LIMITED ? Promise.resolve(identityOf("limited")) : undefined),
};
const limiter = {
  check: async (subject: string, limit: number): Promise<RateDecision> =>
    subject === "limited"
      ? { allowed: false, limit, remaining: 0, resetSeconds: 42 }
      : { allowed: true, limit, remaining: limit - 1, resetSeconds: 60 },
};

/** What the stub engine was handed, by the request's `marker`. */
const seen = new Map<string, unknown[]>();
/** Releases the calls waiting in the engine. */
const waiting: (() => void)[] = [];
const release = () => {
  for (const resolve of waiting.splice(0)) resolve();
};

/** The engine's part, as the marker in the body asks: echo what it was given, fail, stream, or wait. */
const engine = {
  async prepare(dialect: ClientDialect, incoming: IncomingCall) {
    const request = dialect.parse(incoming.body, incoming.headers);
    const marker = String((incoming.body as { marker?: unknown }).marker ?? "");
    const given = { body: incoming.body, bodyBytes: incoming.bodyBytes, project: incoming.identity.projectId, read: incoming.readAt > 0 };
    seen.set(marker, [...(seen.get(marker) ?? []), given]);
    if (marker === "refuse") throw insufficientCredits();
    if (marker === "crash") throw new Error("a bug");
    if (marker === "wait") await new Promise<void>((resolve) => waiting.push(resolve));
    return {
      marker,
      given,
      target: { model: { id: "stub-model" }, path: { provider: "stub" } },
      plan: { request: { ...request, stream: marker === "stream", operation: "chat", body: { model: "stub" } }, trace: { attempts: [] } },
    };
  },
  async serve(call: { marker: string; given: unknown }, reply: ClientReply) {
    if (call.marker !== "stream") return reply.header("x-service-model", "stub-model").send({ given: call.given });
    reply.hijack();
    reply.raw.writeHead(200, { ...reply.getHeaders(), "content-type": "text/event-stream; charset=utf-8" } as http.OutgoingHttpHeaders);
    reply.raw.write('data: {"a":1}\n\n');
    reply.raw.end("data: [DONE]\n\n");
    return reply;
  },
} as unknown as Engine;

const metrics = createMetrics({
  rateLimiter: { mode: "redis", stats: { fallbackChecks: 0, blockAdmissions: 0, blockReturns: 0 } },
  billing: {
    pendingCount: 0,
    drawsUnderWayCount: 0,
    leases: { openCount: 0, stats: { granted: 0, refused: 0, leasedRequests: 0 } },
    journalStats: undefined,
    journalCircuitOpen: false,
  },
  health: { circuitViews: () => [] },
  controlPlane: { stall: { stalled: false, fastFailures: 0 } },
  keyPools: new Map(),
});

async function startApp(maxInFlight = 0) {
  const app = buildDataPlaneApp({
    logLevel: "silent",
    bodyLimitBytes: 2048,
    rawFrontDoor: true,
    requestTimeouts: { headersMs: 10_000, requestMs: 30_000 },
    trustedProxies: [],
    maxInFlight,
    metrics,
    keys,
    limits: { limiter, defaultRpmLimit: 0 },
    health: {} as never,
    catalogue: () => undefined,
    engine,
    tracing: { enabled: false } as Tracing,
  });
  await app.listen({ host: "127.0.0.1", port: 0 });
  return { app, url: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}` };
}

interface Sent {
  path: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Sent in chunks, without a Content-Length. */
  chunked?: boolean;
}

interface Answer {
  status: number;
  headers: Record<string, unknown>;
  text: string;
}

/** The answer, its headers without those that differ by request (ids, date) or by connection. */
function send(url: string, request: Sent, query = ""): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const body = request.body;
    const headers = {
      ...request.headers,
      ...(body !== undefined && !request.chunked && { "content-length": String(Buffer.byteLength(body)) }),
    };
    const outgoing = http.request(`${url}${request.path}${query}`, { method: "POST", headers, agent: false }, (response) => {
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("end", () => {
        const {
          date,
          "x-request-id": _id,
          "x-gateway-request-id": _gatewayId,
          connection,
          "keep-alive": _alive,
          ...kept
        } = response.headers;
        resolve({ status: response.statusCode!, headers: kept, text: Buffer.concat(chunks).toString("utf8") });
      });
    });
    outgoing.on("error", reject);
    if (request.chunked && body !== undefined) {
      const bytes = Buffer.from(body);
      for (let at = 0; at < bytes.length; at += 1000) outgoing.write(bytes.subarray(at, at + 1000));
    }
    outgoing.end(request.chunked ? undefined : body);
  });
}

const chat = (body: unknown, headers: Record<string, string> = { authorization: `Bearer ${GOOD}` }): Sent => ({
  path: "/v1/chat/completions",
  headers: { "content-type": "application/json", ...headers },
  body: typeof body === "string" ? body : JSON.stringify(body),
});
const hello = (marker: string) => ({ model: "auto", marker, messages: [{ role: "user", content: "hi" }] });

const CORPUS: [label: string, request: Sent][] = [
  ["a call", chat(hello("ok"))],
  ["a stream", chat({ ...hello("stream"), stream: true })],
  ["no key", chat(hello("x"), {})],
  ["a key not in the issued format", chat(hello("x"), { authorization: "Bearer nope" })],
  ["an unknown key by x-api-key", { ...chat(hello("x"), {}), headers: { "x-api-key": `sk_acme_${"b".repeat(43)}` } }],
  ["a client's own request id", chat(hello("ok"), { authorization: `Bearer ${GOOD}`, "x-request-id": "mine-1" })],
  ["a key over its project's limit", chat(hello("x"), { authorization: `Bearer ${LIMITED}` })],
  ["a body that is not JSON", chat("{nope")],
  ["a body nested too deep", chat(`{"model":"auto","messages":${"[".repeat(70)}${"]".repeat(70)}}`)],
  ["an empty body", { ...chat(""), body: "" }],
  ["no body at all", { path: "/v1/chat/completions", headers: { authorization: `Bearer ${GOOD}` } }],
  ["a body declared over the limit", chat({ ...hello("big"), pad: "x".repeat(3000) })],
  ["a chunked body over the limit", { ...chat({ ...hello("big"), pad: "x".repeat(3000) }), chunked: true }],
  ["a chunked body within it", { ...chat(hello("chunked")), chunked: true }],
  [
    "a body of another content type",
    { ...chat(hello("typed")), headers: { authorization: `Bearer ${GOOD}`, "content-type": "text/plain" } },
  ],
  ["multi-byte text", chat({ ...hello("utf8"), messages: [{ role: "user", content: "é😀中".repeat(50) }] })],
  ["a request the dialect refuses", chat({ marker: "invalid", messages: "no" })],
  ["the engine's refusal", chat(hello("refuse"))],
  ["an unexpected failure", chat(hello("crash"))],
  ["a Messages call", { ...chat({ ...hello("messages"), model: "claude", max_tokens: 5 }), path: "/v1/messages" }],
  ["a Messages call without a key", { ...chat(hello("x"), {}), path: "/v1/messages" }],
  ["a Messages body over the limit", { ...chat({ pad: "x".repeat(3000) }), path: "/v1/messages" }],
  ["a Responses call", { ...chat({ model: "auto", marker: "responses", input: "hi" }), path: "/v1/responses" }],
  ["an embeddings call", { ...chat({ model: "auto", marker: "embeddings", input: "hi" }), path: "/v1/embeddings" }],
];

describe("the model calls' front door", () => {
  let stop: () => Promise<unknown> = async () => {};
  afterEach(async () => {
    vi.restoreAllMocks();
    release(); // a failed test's waiting call would hold the app's close
    seen.clear();
    await stop();
  });

  it("takes a model call's exact path and leaves the rest to fastify, which answers the same", async () => {
    const { app, url } = await startApp();
    stop = () => app.close();
    const take = vi.spyOn(FrontDoor.prototype, "take");
    for (const [label, request] of CORPUS) {
      seen.clear();
      take.mockClear();
      const door = await send(url, request);
      const viaDoor = [...seen.entries()];
      expect(
        take.mock.results.map((result) => result.value),
        label,
      ).toEqual([true]);
      seen.clear();
      take.mockClear();
      const fastify = await send(url, request, "?via=fastify");
      expect(
        take.mock.results.map((result) => result.value),
        label,
      ).toEqual([false]);
      expect(door, label).toEqual(fastify);
      expect(viaDoor, label).toEqual([...seen.entries()]);
    }
    // The corpus reached the engine, and was refused before it, where it should.
    const ok = await send(url, CORPUS[0]![1]);
    expect(JSON.parse(ok.text)).toEqual({
      given: { body: hello("ok"), bodyBytes: Buffer.byteLength(JSON.stringify(hello("ok"))), project: "acme", read: true },
    });
    expect(ok.headers["x-ratelimit-remaining-requests"]).toBe("99");
    expect((await send(url, CORPUS[6]![1])).status).toBe(429);
    expect((await send(url, CORPUS[11]![1])).status).toBe(413);
  });

  it("leaves other methods, paths and spellings to fastify", async () => {
    const { app, url } = await startApp();
    stop = () => app.close();
    const take = vi.spyOn(FrontDoor.prototype, "take");
    const paths = ["/v1/chat/completions/", "/v1/chat/completions?x=1", "/v1/models", "/v1/messages/count_tokens", "/V1/chat/completions"];
    for (const path of paths) await send(url, { ...chat(hello("x")), path });
    expect(take.mock.results.map((result) => result.value)).toEqual(paths.map(() => false));
    await fetch(`${url}/v1/chat/completions`, { headers: { authorization: `Bearer ${GOOD}` } });
    expect(take.mock.results.at(-1)?.value).toBe(false);
  });

  it("counts its calls and fastify's against one in-flight limit", async () => {
    const { app, url } = await startApp(1);
    stop = () => app.close();
    for (const query of ["", "?via=fastify"]) {
      const waiting = send(url, chat(hello("wait")), query);
      await vi.waitFor(() => expect(seen.has("wait")).toBe(true));
      const refusedByDoor = await send(url, chat(hello("x")));
      const refusedByFastify = await send(url, chat(hello("x")), "?via=fastify");
      expect(refusedByDoor.status).toBe(503);
      expect(refusedByDoor).toEqual(refusedByFastify);
      release();
      expect((await waiting).status).toBe(200);
      seen.clear();
    }
  });

  it("refuses a call arriving on a kept-alive connection once the app closes, as fastify refuses its own", async () => {
    const { app, url } = await startApp();
    const body = JSON.stringify(hello("wait"));
    const head = (path: string, length: number) =>
      `POST ${path} HTTP/1.1\r\nhost: localhost\r\nauthorization: Bearer ${GOOD}\r\ncontent-type: application/json\r\ncontent-length: ${length}\r\n\r\n`;
    const late = JSON.stringify(hello("late"));
    let closing: (value: unknown) => void = () => {};
    const closingNow = new Promise((resolve) => (closing = resolve));
    // Two connections, each with a call in flight; a call arrives on each once the app closes, one at the
    // door's path and one at fastify's (the refusal closes its connection).
    const exchanges = ["/v1/chat/completions", "/v1/chat/completions?via=fastify"].map((path) =>
      socketExchange(url, [
        { text: `${head("/v1/chat/completions", body.length)}${body}` },
        { text: `${head(path, late.length)}${late}`, after: closingNow },
      ]),
    );
    await vi.waitFor(() => expect(seen.get("wait")).toHaveLength(2));
    const closed = app.close();
    closing(undefined);
    setTimeout(release, 300);
    const [viaDoor, viaFastify] = await Promise.all(exchanges);
    const [first, door] = viaDoor!;
    const [second, fastify] = viaFastify!;
    await closed;
    expect([first?.status, second?.status]).toEqual([200, 200]);
    expect(door?.status).toBe(503);
    expect(JSON.parse(door!.body).error.code).toBe("shutting_down");
    expect(door!.headers.connection).toBe("close");
    const { "x-request-id": _a, "x-gateway-request-id": _b, date: _c, ...doorHeaders } = door!.headers;
    const { "x-request-id": _d, "x-gateway-request-id": _e, date: _f, ...fastifyHeaders } = fastify!.headers;
    expect({ ...door, headers: doorHeaders }).toEqual({ ...fastify, headers: fastifyHeaders });
    expect(seen.has("late")).toBe(false);
  });
});
