// An upstream that answers 200 MiB, against the data plane as production runs
// it (the bundle, --max-old-space-size=256): a whole JSON answer, one stream
// event and an error body of that size. Each is refused past its cap
// (UPSTREAM_MAX_BODY_BYTES, or 64 KiB for an error body) with an error in the
// table's shape; the process stays up and serves the next request; the hold is
// released at once, not left to expire. The upstream writes its 200 MiB as it
// goes (a chunked body without Content-Length, so the cap is met by counting),
// never holding them in this process.
import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startStack, type GatewayStack, type TestProject } from "../harness/gateway-stack";

const HUGE_BYTES = 200 * 1024 * 1024;
const PIECE = Buffer.alloc(1024 * 1024, "a");
const MODEL = "openai/gpt-4.1-mini";

const SMALL_ANSWER = JSON.stringify({
  id: "chatcmpl-small",
  object: "chat.completion",
  created: 1,
  model: "gpt-4.1-mini",
  choices: [{ index: 0, message: { role: "assistant", content: "small" }, finish_reason: "stop" }],
  usage: { prompt_tokens: 5, completion_tokens: 1, total_tokens: 6 },
});

/**
 * Far above any cap (16 MiB for answers, 64 KiB for error bodies) plus what loopback socket buffers
 * take in, far below the 200 MiB the upstream would write to a reader that read it all.
 */
const READ_NEAR_CAP = 32 * 1024 * 1024;

const CHUNK = (delta: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
  `data: ${JSON.stringify({ id: "chatcmpl-long", object: "chat.completion.chunk", created: 1, model: "gpt-4.1-mini", choices: [{ index: 0, delta, finish_reason: null }], ...extra })}\n\n`;
/** One content event of 64 KiB: the long stream is made of these. */
const CONTENT_EVENT = Buffer.from(CHUNK({ content: "a".repeat(64 * 1024) }));
const LONG_STREAM_BYTES = 300 * 1024 * 1024;

/** A stream of LONG_STREAM_BYTES in small content events, then its usage and [DONE], written as the reader takes it. */
async function writeLongStream(response: ServerResponse): Promise<void> {
  for (let written = 0; written < LONG_STREAM_BYTES && !response.destroyed; written += CONTENT_EVENT.length) {
    if (!response.write(CONTENT_EVENT))
      await new Promise<void>((resolve) => {
        const done = () => {
          response.off("drain", done).off("close", done);
          resolve();
        };
        response.on("drain", done).on("close", done);
      });
  }
  if (response.destroyed) return;
  response.write(CHUNK({}, { choices: [{ index: 0, delta: {}, finish_reason: "stop" }] }));
  response.end(`${CHUNK({}, { choices: [], usage: { prompt_tokens: 5, completion_tokens: 1000, total_tokens: 1005 } })}data: [DONE]\n\n`);
}

/** The huge answers the upstream was asked for, in order, with the bytes the gateway took of each before it hung up. */
const asked: { tag: string; written: number }[] = [];

/** Writes `prefix`, then `a`s up to HUGE_BYTES in all, then `suffix`, one MiB at a time as the reader takes them; stops when it leaves. */
async function writeHuge(response: ServerResponse, prefix: string, suffix: string, record: { written: number }): Promise<void> {
  response.write(prefix);
  for (; record.written < HUGE_BYTES && !response.destroyed; record.written += PIECE.length) {
    if (!response.write(PIECE))
      await new Promise<void>((resolve) => {
        const done = () => {
          response.off("drain", done).off("close", done);
          resolve();
        };
        response.on("drain", done).on("close", done);
      });
  }
  if (!response.destroyed) response.end(suffix);
}

/** The hostile upstream: the request's content says which huge answer to give; any other request gets a small answer. */
function hostileUpstream(): Server {
  return createServer((request, response) => {
    let body = "";
    request.on("data", (chunk: Buffer) => {
      body += chunk;
    });
    request.on("end", () => {
      const record = { tag: /huge-\w+/.exec(body)?.[0] ?? "", written: 0 };
      if (record.tag) asked.push(record);
      response.on("error", () => {}); // the gateway hangs up half-way: expected
      if (body.includes("huge-json")) {
        response.writeHead(200, { "content-type": "application/json" });
        void writeHuge(
          response,
          '{"id":"chatcmpl-huge","object":"chat.completion","created":1,"model":"gpt-4.1-mini","choices":[{"index":0,"message":{"role":"assistant","content":"',
          '"},"finish_reason":"stop"}],"usage":{"prompt_tokens":5,"completion_tokens":1,"total_tokens":6}}',
          record,
        );
      } else if (body.includes("huge-event")) {
        response.writeHead(200, { "content-type": "text/event-stream" });
        void writeHuge(response, 'data: {"choices":[{"index":0,"delta":{"content":"', '"}}]}\n\ndata: [DONE]\n\n', record);
      } else if (body.includes("long-stream")) {
        response.writeHead(200, { "content-type": "text/event-stream" });
        void writeLongStream(response);
      } else if (body.includes("huge-error")) {
        response.writeHead(500, { "content-type": "application/json" });
        void writeHuge(response, '{"error":{"message":"', '"}}', record);
      } else {
        response.writeHead(200, { "content-type": "application/json" });
        response.end(SMALL_ANSWER);
      }
    });
  });
}

describe("a 200 MiB upstream answer through the production data plane", () => {
  let upstream: Server;
  let stack: GatewayStack;
  let project: TestProject;

  beforeAll(async () => {
    upstream = hostileUpstream();
    await new Promise<void>((resolve) => upstream.listen(0, "127.0.0.1", resolve));
    stack = await startStack({
      backend: "postgresql",
      productionDataPlane: true,
      dataPlaneEnv: { OPENAI_BASE_URL: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/v1` },
    });
    project = await stack.createProject({ balanceUsd: "1.00" });
  });

  afterAll(async () => {
    await stack?.stop();
    upstream?.closeAllConnections();
    await new Promise((resolve) => upstream?.close(resolve));
  });

  const ask = (content: string, stream = false) =>
    stack.post("/v1/chat/completions", project.key, { model: MODEL, stream, messages: [{ role: "user", content }] });

  /** The process is up, serves a normal request, and holds nothing for the project. */
  async function expectStillServing(): Promise<void> {
    expect(stack.dataPlanes[0]!.child.exitCode).toBeNull();
    const normal = await ask("a normal question");
    expect(normal.status).toBe(200);
    expect(((await normal.json()) as { choices: { message: { content: string } }[] }).choices[0]!.message.content).toBe("small");
    expect(await stack.holds(project.projectId)).toEqual([]);
  }

  async function expectReleased(requestId: string): Promise<void> {
    const released = await stack.holds(project.projectId, "released");
    expect(released.map((hold) => hold.request_id)).toContain(requestId);
  }

  it.each([
    ["a whole JSON answer", "huge-json", false],
    ["one event of a stream", "huge-event", true],
  ])("%s: 502 upstream_error after one attempt, the hold released, the process still serving", async (_name, tag, stream) => {
    const answer = await ask(tag, stream);
    expect(answer.status).toBe(502);
    const sent = asked.filter((seen) => seen.tag === tag);
    expect(sent).toHaveLength(1); // not retried: any target would answer as large
    expect(sent[0]!.written).toBeLessThan(READ_NEAR_CAP); // the gateway stopped reading near its cap
    expect(await answer.json()).toEqual({ error: { type: "upstream_error", code: 502, message: expect.any(String), param: null } });
    await expectReleased(answer.headers.get("x-request-id")!);
    await expectStillServing();
  });

  it("a 300 MiB stream of small events: relayed whole (a stream has no cap as a whole, and none of it is kept), the process still serving", async () => {
    const answer = await ask("long-stream", true);
    expect(answer.status).toBe(200);
    let bytes = 0;
    let tail = "";
    const decoder = new TextDecoder();
    for await (const piece of answer.body!) {
      bytes += piece.length;
      tail = (tail + decoder.decode(piece, { stream: true })).slice(-200);
    }
    expect(bytes).toBeGreaterThan(LONG_STREAM_BYTES);
    expect(tail.endsWith("data: [DONE]\n\n")).toBe(true);
    await expectStillServing();
  });

  it("an error body: read no further than its cap, the status kept, the process still serving", async () => {
    const answer = await ask("huge-error");
    expect(answer.status).toBe(500);
    const sent = asked.filter((seen) => seen.tag === "huge-error");
    expect(sent).toHaveLength(2); // a 500: retried once, as any
    for (const { written } of sent) expect(written).toBeLessThan(READ_NEAR_CAP); // read no further than its cap
    expect(await answer.json()).toEqual({ error: { type: "upstream_error", code: 500, message: expect.any(String), param: null } });
    await expectReleased(answer.headers.get("x-request-id")!);
    await expectStillServing();
  });
});
