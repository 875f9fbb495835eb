// The data plane's request timeouts (issue 33, item 6): a client that trickles its headers or its body
// is answered 408 request_timeout in the table's shape and cut, instead of holding a connection open
// for ever (fastify's requestTimeout was 0). They cover receiving the request only: a stream or a whole
// answer that takes longer is not cut, and an upload slower than a moment but within the timeout works.
// Short timeouts here (headers 2 s, request 5 s); the defaults are 30 s and 300 s.
import http from "node:http";
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { errorShapeProblem } from "../support/error-shape";
import { pacedRequest } from "../support/raw-http";
import { marker, startStack, type GatewayStack, type TestProject } from "../harness/gateway-stack";

const HEADERS_TIMEOUT_MS = 2000;
const REQUEST_TIMEOUT_MS = 5000;
/** Node checks every second; the machine is shared: the answer may come this long after the timeout. */
const LATE_BY_MS = 6000;

interface Trickled {
  /** The raw bytes the server sent before it closed the connection. */
  text: string;
  /** From the first byte sent to the first byte of the answer (the close follows it: proto's LINGER_MS at most). */
  ms: number;
  /** Bytes written before the server closed. */
  written: number;
}

/** Writes `head`, then `rest` one byte every `everyMs`, until the server closes the connection (or `giveUpMs`). */
function trickle(baseUrl: string, head: string, rest: string, everyMs: number, giveUpMs = 20_000): Promise<Trickled> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve) => {
    const socket = net.connect(Number(port), hostname);
    const started = performance.now();
    const received: Buffer[] = [];
    let written = 0;
    let answeredMs: number | undefined;
    let timer: NodeJS.Timeout | undefined;
    const next = () => {
      if (socket.destroyed || written >= rest.length) return;
      socket.write(rest[written++]!);
      timer = setTimeout(next, everyMs);
    };
    socket.on("connect", () => {
      socket.write(head);
      timer = setTimeout(next, everyMs);
    });
    socket.on("data", (chunk: Buffer) => {
      answeredMs ??= performance.now() - started;
      received.push(chunk);
    });
    socket.on("error", () => {});
    socket.on("close", () => {
      clearTimeout(timer);
      clearTimeout(giveUp);
      resolve({ text: Buffer.concat(received).toString("utf8"), ms: answeredMs ?? performance.now() - started, written });
    });
    const giveUp = setTimeout(() => socket.destroy(), giveUpMs);
  });
}

function expectTimeoutAnswer(trickled: Trickled, timeoutMs: number): void {
  const [head = "", body = ""] = trickled.text.split("\r\n\r\n");
  expect(head.split("\r\n")[0], `after ${trickled.ms.toFixed(0)} ms: ${JSON.stringify(trickled.text)}`).toBe(
    "HTTP/1.1 408 Request Timeout",
  );
  const headers = Object.fromEntries(
    head
      .split("\r\n")
      .slice(1)
      .map((line) => [line.slice(0, line.indexOf(":")).toLowerCase(), line.slice(line.indexOf(":") + 1).trim()]),
  );
  expect(errorShapeProblem({ status: 408, headers, text: body }, "openai")).toBeUndefined();
  expect(JSON.parse(body)).toMatchObject({ error: { code: "request_timeout" } });
  expect(trickled.ms).toBeGreaterThanOrEqual(timeoutMs - 50);
  expect(trickled.ms).toBeLessThan(timeoutMs + LATE_BY_MS);
}

// Concurrent: each test mostly waits for a timeout or a slow answer, on one stack.
describe.concurrent("request timeouts", () => {
  let stack: GatewayStack;
  let project: TestProject;

  beforeAll(async () => {
    stack = await startStack({
      backend: "postgresql",
      dataPlaneEnv: {
        DATA_PLANE_HEADERS_TIMEOUT_MS: String(HEADERS_TIMEOUT_MS),
        DATA_PLANE_REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS),
      },
    });
    project = await stack.createProject({ balanceUsd: "5.00" });
  });

  afterAll(async () => {
    await stack?.stop();
  });

  it("answers a body sent one byte at a time with 408 request_timeout and closes the connection", async () => {
    const body = JSON.stringify({ model: "auto", messages: [{ role: "user", content: "hello" }] });
    const head = [
      "POST /v1/chat/completions HTTP/1.1",
      "host: localhost",
      `authorization: Bearer ${project.key}`,
      "content-type: application/json",
      `content-length: ${Buffer.byteLength(body)}`,
      "",
      "",
    ].join("\r\n");
    const trickled = await trickle(stack.url, head, body, 250);
    expectTimeoutAnswer(trickled, REQUEST_TIMEOUT_MS);
    expect(trickled.written).toBeLessThan(body.length); // cut while still sending
    // The route whose body read was cut ends quietly: no 500 logged for it.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(stack.dataPlanes[0]!.output()).not.toContain("unexpected error");
  });

  it("answers headers sent one byte at a time with 408 request_timeout and closes the connection", async () => {
    const head = `GET /v1/models HTTP/1.1\r\nhost: localhost\r\nauthorization: Bearer ${project.key}\r\nx-padding: ${"p".repeat(200)}\r\n\r\n`;
    const trickled = await trickle(stack.url, head.slice(0, 10), head.slice(10), 100);
    expectTimeoutAnswer(trickled, HEADERS_TIMEOUT_MS);
  });

  it("does not cut a stream, nor a whole answer, that lasts longer than the request timeout", async () => {
    const streamed = marker();
    const whole = marker();
    // About 40 events, one every 200 ms: some 8 s, past the request timeout.
    await stack.mockScript({ match: streamed, chunkDelayMs: 200 });
    await stack.mockScript({ match: whole, latencyMs: REQUEST_TIMEOUT_MS + 2000 });
    const started = performance.now();
    const [stream, answer] = await Promise.all([
      stack.post("/v1/chat/completions", project.key, {
        model: "auto",
        stream: true,
        messages: [{ role: "user", content: streamed }],
      }),
      stack.post("/v1/chat/completions", project.key, { model: "auto", messages: [{ role: "user", content: whole }] }),
    ]);
    const text = await stream.text();
    expect(stream.status).toBe(200);
    expect(text.trimEnd().endsWith("data: [DONE]")).toBe(true);
    expect(answer.status).toBe(200);
    expect(((await answer.json()) as { choices: unknown[] }).choices).toHaveLength(1);
    expect(performance.now() - started).toBeGreaterThan(REQUEST_TIMEOUT_MS + 1000);
  });

  it("takes an upload slower than a moment that ends within the request timeout", async () => {
    // 256 KiB at 128 KiB/s: about 2 s of a 5 s timeout.
    const body = Buffer.from(
      JSON.stringify({ model: "auto", max_tokens: 16, messages: [{ role: "user", content: `${marker()} ${"x".repeat(256 * 1024)}` }] }),
    );
    const agent = new http.Agent({ keepAlive: false });
    const started = performance.now();
    const answer = await pacedRequest(
      stack.url,
      {
        method: "POST",
        path: "/v1/chat/completions",
        headers: { authorization: `Bearer ${project.key}`, "content-type": "application/json" },
        body,
      },
      128 * 1024,
      agent,
    );
    agent.destroy();
    expect(answer.networkError).toBeUndefined();
    expect(answer.status, answer.text).toBe(200);
    expect(performance.now() - started).toBeGreaterThan(1500);
  });
});
