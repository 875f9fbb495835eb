// Upstream stream events that are not the JSON their protocol promises, from a
// tiny upstream of the test's own (the mock provider sends its malformed event
// mid-stream only; that case is in the fault matrix). Before anything reached
// the client, a malformed content event is a failed attempt, retried; a
// malformed keep-alive (Anthropic's ping) holds nothing and is dropped, not
// relayed as it came. Both are counted (docs/resilience.md, "Streams").
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startStack, type GatewayStack, type TestProject } from "../harness/gateway-stack";
import { sseData } from "../support/sse-data";

const NOT_JSON = "{not json, from the upstream";

const chatChunk = (delta: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
  `data: ${JSON.stringify({ id: "chatcmpl-1", object: "chat.completion.chunk", created: 1, model: "gpt-4.1-mini", choices: [{ index: 0, delta, finish_reason: null }], ...extra })}\n\n`;
const CHAT_STREAM = [
  chatChunk({ role: "assistant", content: "" }),
  chatChunk({ content: "Hello" }),
  chatChunk({}, { choices: [{ index: 0, delta: {}, finish_reason: "stop" }] }),
  chatChunk({}, { choices: [], usage: { prompt_tokens: 5, completion_tokens: 1, total_tokens: 6 } }),
  "data: [DONE]\n\n",
].join("");

const named = (event: string, data: unknown) => `event: ${event}\ndata: ${typeof data === "string" ? data : JSON.stringify(data)}\n\n`;
const MESSAGES_STREAM_WITH_BAD_PING = [
  named("message_start", {
    type: "message_start",
    message: {
      id: "msg_1",
      type: "message",
      role: "assistant",
      model: "claude-sonnet-4-20250514",
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: 5, output_tokens: 1 },
    },
  }),
  named("ping", NOT_JSON),
  named("content_block_start", { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } }),
  named("content_block_delta", { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "Hello" } }),
  named("content_block_stop", { type: "content_block_stop", index: 0 }),
  named("message_delta", { type: "message_delta", delta: { stop_reason: "end_turn", stop_sequence: null }, usage: { output_tokens: 2 } }),
  named("message_stop", { type: "message_stop" }),
].join("");

describe("malformed upstream events", () => {
  let upstream: Server;
  let stack: GatewayStack;
  let project: TestProject;
  /** Requests the upstream received, by the tag in their body. */
  const asked = new Map<string, number>();

  beforeAll(async () => {
    upstream = createServer((request, response) => {
      let body = "";
      request.on("data", (chunk: Buffer) => {
        body += chunk;
      });
      request.on("end", () => {
        const tag = /tag-[\w-]+/.exec(body)?.[0] ?? "";
        const seen = (asked.get(tag) ?? 0) + 1;
        asked.set(tag, seen);
        response.writeHead(200, { "content-type": "text/event-stream" });
        if (request.url?.endsWith("/messages")) return response.end(MESSAGES_STREAM_WITH_BAD_PING);
        // The first answer to tag-malformed-first opens with a malformed event, the next is clean.
        if (tag === "tag-malformed-first" && seen === 1) return response.end(`data: ${NOT_JSON}\n\n${CHAT_STREAM}`);
        response.end(tag === "tag-junk-after-done" ? `${CHAT_STREAM}data: ${NOT_JSON}\n\n` : CHAT_STREAM);
      });
    });
    await new Promise<void>((resolve) => upstream.listen(0, "127.0.0.1", resolve));
    const base = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/v1`;
    stack = await startStack({
      backend: "postgresql",
      dataPlaneEnv: { OPENAI_BASE_URL: base, ANTHROPIC_BASE_URL: base, ANTHROPIC_API_KEY: "upstream-secret-key" },
    });
    project = await stack.createProject({ balanceUsd: "1.00" });
  });

  afterAll(async () => {
    await stack?.stop();
    await new Promise((resolve) => upstream?.close(resolve));
  });

  async function malformedCount(provider: string, lost: boolean): Promise<number> {
    const text = await (await fetch(`${stack.metricsUrl}/metrics`)).text();
    const pattern = new RegExp(`^gateway_upstream_malformed_events_total\\{provider="${provider}",content_lost="${lost}"\\} (\\d+)$`, "m");
    return Number(pattern.exec(text)?.[1] ?? 0);
  }

  it("a malformed first event: nothing reached the client, so the attempt is retried and the client gets one clean stream", async () => {
    const response = await stack.post("/v1/chat/completions", project.key, {
      model: "openai/gpt-4.1-mini",
      stream: true,
      messages: [{ role: "user", content: "tag-malformed-first" }],
    });
    expect(response.status).toBe(200);
    const text = await response.text();
    expect(text).not.toContain("not json");
    const events = sseData(text);
    expect(events.at(-1)).toBe("[DONE]");
    expect(events.filter((data) => data.includes('"error"'))).toEqual([]);
    expect(asked.get("tag-malformed-first")).toBe(2);
    expect(await malformedCount("openai", true)).toBe(1);
  });

  it("a malformed event after the answer finished ([DONE]): nothing of it was lost, the stream ends clean", async () => {
    const response = await stack.post("/v1/chat/completions", project.key, {
      model: "openai/gpt-4.1-mini",
      stream: true,
      messages: [{ role: "user", content: "tag-junk-after-done" }],
    });
    const events = sseData(await response.text());
    expect(events.at(-1)).toBe("[DONE]");
    expect(events.filter((data) => data.includes('"error"'))).toEqual([]);
    expect(await malformedCount("openai", false)).toBe(1);
  });

  it("a malformed ping in a native Anthropic stream: dropped, the answer relayed whole and billed", async () => {
    const response = await stack.post("/v1/messages", project.key, {
      model: "anthropic/claude-sonnet-4",
      max_tokens: 64,
      stream: true,
      messages: [{ role: "user", content: "tag-malformed-ping" }],
    });
    expect(response.status).toBe(200);
    const text = await response.text();
    expect(text).not.toContain("not json");
    expect(text).toContain('"text":"Hello"');
    expect(text).toContain("event: message_stop");
    expect(asked.get("tag-malformed-ping")).toBe(1);
    expect(await malformedCount("anthropic", false)).toBe(1);
    const debits = (await stack.ledger(project.projectId)).filter((entry) => entry.request_id === response.headers.get("x-request-id"));
    expect(debits).toHaveLength(1);
  });
});
