// Claude on Vertex AI: the Anthropic Messages body on :rawPredict /
// :streamRawPredict (no model, the Vertex version inside), and the recorded
// Vertex answers and cache streams read into the one usage record.
import { describe, expect, it } from "vitest";
import type { RequestContext, ResponseContext, StreamItem } from "../../src/providers/provider-adapter";
import { VertexClaudeAdapter } from "../../src/providers/vertex/vertex-claude-adapter";
import { SseParser, type SseEvent } from "../../src/upstream/sse-parser";
import { fixtures } from "../support/fixture";

const vertex = fixtures("vertex");
const adapter = new VertexClaudeAdapter({ project: "p1", location: "europe-west1" });
const request: RequestContext = { upstreamModel: "claude-opus-4-6", apiKey: undefined, maxOutputTokens: 4096 };
const context: ResponseContext = { id: "chatcmpl-gateway", created: 1_764_000_000, model: "claude-opus-4-6" };

function sseEvents(text: string): SseEvent[] {
  const parser = new SseParser();
  return [...parser.push(text), ...parser.end()].flatMap((item) => (item.kind === "event" ? [item.event] : []));
}

describe("Claude on Vertex: requests", () => {
  it("sends the recorded rawPredict body for a chat body: version first, no model", () => {
    const recorded = vertex.json("vertex.claude.rawPredict.request.json");
    const call = adapter.request("chat", { messages: recorded.messages, max_tokens: recorded.max_tokens }, request);
    expect(call.path).toBe("/projects/p1/locations/europe-west1/publishers/anthropic/models/claude-opus-4-6:rawPredict");
    expect(call.headers).toEqual({ "content-type": "application/json" });
    expect(call.body).toBe(JSON.stringify(recorded));
  });

  it("keeps stream: true in the body of a streamed call", () => {
    const call = adapter.request("chat", { messages: [{ role: "user", content: "Hi" }], stream: true }, request);
    expect(call.path.endsWith(":streamRawPredict")).toBe(true);
    expect(JSON.parse(call.body)).toMatchObject({ anthropic_version: "vertex-2023-10-16", max_tokens: 4096, stream: true });
    expect(JSON.parse(call.body)).not.toHaveProperty("model");
  });

  it("passes a Messages client through natively, with its beta header and the cap", () => {
    const codec = adapter.native("anthropic-messages");
    expect(codec).toBeDefined();
    const body = { model: "claude-opus", max_tokens: 9000, messages: [{ role: "user", content: "Hi" }], stream: true, container: "x" };
    const call = codec!.call(body, { ...request, clientHeaders: { "anthropic-beta": "context-1m-2025-08-07" } }, 2000);
    expect(call.path.endsWith("/claude-opus-4-6:streamRawPredict")).toBe(true);
    expect(call.headers).toEqual({ "content-type": "application/json", "anthropic-beta": "context-1m-2025-08-07" });
    expect(JSON.parse(call.body)).toEqual({
      anthropic_version: "vertex-2023-10-16",
      max_tokens: 2000,
      messages: [{ role: "user", content: "Hi" }],
      stream: true,
    });
    expect(adapter.native("openai-chat")).toBeUndefined();
  });

  it("counts tokens at the count-tokens model, the body keeping its model", () => {
    const call = adapter.native("anthropic-messages")!.countTokens!({ model: "x", messages: [{ role: "user", content: "Hi" }] }, request);
    expect(call.path).toBe("/projects/p1/locations/europe-west1/publishers/anthropic/models/count-tokens:rawPredict");
    expect(JSON.parse(call.body)).toEqual({
      anthropic_version: "vertex-2023-10-16",
      model: "claude-opus-4-6",
      messages: [{ role: "user", content: "Hi" }],
    });
  });

  it("has no embeddings", () => {
    expect(adapter.supports("embeddings")).toBe(false);
  });
});

describe("Claude on Vertex: answers", () => {
  it("reads the recorded rawPredict answer and its usage", () => {
    const json = vertex.json("vertex.claude.rawPredict.response.json");
    const completion = adapter.response("chat", json, context);
    expect(completion.choices).toMatchObject([{ finish_reason: "stop", message: { content: expect.stringMatching(/^Hi there!/) } }]);
    expect(completion.usage).toMatchObject({ prompt_tokens: 9, completion_tokens: 24 });
    expect(adapter.usage("chat", json)).toEqual({
      inputTokens: 9,
      cachedInputTokens: 0,
      cacheWrite5mTokens: 0,
      cacheWrite1hTokens: 0,
      outputTokens: 24,
    });
  });

  it.each([
    ["vertex.claude.streamRawPredict.cache_write.sse", { inputTokens: 28814, cachedInputTokens: 0, cacheWrite5mTokens: 28804 }],
    ["vertex.claude.streamRawPredict.cache_read.sse", { inputTokens: 28814, cachedInputTokens: 28804, cacheWrite5mTokens: 0 }],
  ])("translates %s with its cache usage", (file, expected) => {
    for (const translator of [adapter.stream(context), adapter.native("anthropic-messages")!.stream(context)]) {
      const items: StreamItem[] = [...sseEvents(vertex.text(file)).flatMap((event) => translator.push(event)), ...translator.end()];
      const billed = items.flatMap((item) => (item.kind === "chunk" && item.usage ? [item.usage] : []));
      expect(billed.at(-1)).toEqual({ ...expected, cacheWrite1hTokens: 0, outputTokens: 4 });
      expect(items.at(-1)).toEqual({ kind: "done" });
      const text = items
        .flatMap((item) => (item.kind === "chunk" ? (item.chunk.choices as { delta: { content?: string } }[]) : []))
        .map((choice) => choice.delta.content ?? "")
        .join("");
      expect(text).toBe("ack");
    }
  });
});
