// Gemini on Vertex AI: the Gemini translation with Vertex's bodies and answers,
// replayed from the recorded Vertex files (createTime, avgLogprobs,
// trafficType, billablePromptUsage, a MAX_TOKENS candidate without parts).
import { describe, expect, it } from "vitest";
import type { OpenAiChunk, RequestContext, ResponseContext, StreamItem } from "../../src/providers/provider-adapter";
import { VertexGeminiAdapter } from "../../src/providers/vertex/vertex-gemini-adapter";
import { SseParser, type SseEvent } from "../../src/upstream/sse-parser";
import { fixtures } from "../support/fixture";

const vertex = fixtures("vertex");
const adapter = new VertexGeminiAdapter({ project: "p1", location: "us-central1" });
const request: RequestContext = { upstreamModel: "gemini-2.5-flash", apiKey: "must-not-travel", maxOutputTokens: 2048 };
const context: ResponseContext = { id: "chatcmpl-gateway", created: 1_764_000_000, model: "gemini-2.5-flash" };

function sseEvents(text: string): SseEvent[] {
  const parser = new SseParser();
  return [...parser.push(text), ...parser.end()].flatMap((item) => (item.kind === "event" ? [item.event] : []));
}

function translate(text: string): StreamItem[] {
  const translator = adapter.stream(context);
  return [...sseEvents(text).flatMap((event) => translator.push(event)), ...translator.end()];
}

describe("Gemini on Vertex: requests", () => {
  it("sends the Gemini body with no API key, header or query", () => {
    const call = adapter.request("chat", { messages: [{ role: "user", content: "Why is the sky blue?" }], max_tokens: 20 }, request);
    expect(call.headers).toEqual({ "content-type": "application/json" });
    expect(call.path).not.toContain("key=");
    expect(JSON.parse(call.body)).toEqual({
      contents: [{ role: "user", parts: [{ text: "Why is the sky blue?" }] }],
      generationConfig: { maxOutputTokens: 20 },
    });
  });

  it("sends embeddings as :predict instances, with the dimensions as outputDimensionality", () => {
    const call = adapter.request("embeddings", { input: ["a", "b"], dimensions: 256 }, { ...request, upstreamModel: "text-embedding-005" });
    expect(call.headers).toEqual({ "content-type": "application/json" });
    expect(JSON.parse(call.body)).toEqual({ instances: [{ content: "a" }, { content: "b" }], parameters: { outputDimensionality: 256 } });
  });
});

describe("Gemini on Vertex: answers", () => {
  it("reads a recorded generateContent answer and its usage", () => {
    const json = vertex.json("vertex.gemini.generateContent.response.json");
    const completion = adapter.response("chat", json, context);
    expect(completion.id).toBe("chatcmpl-jC77aI_PD-v8698Pl73V0QY");
    expect(completion.model).toBe("gemini-2.5-flash");
    const [choice] = completion.choices as { message: { content: string }; finish_reason: string }[];
    expect(choice?.finish_reason).toBe("length");
    expect(choice?.message.content).toMatch(/^The sky is blue primarily/);
    expect(completion.usage).toMatchObject({ prompt_tokens: 6, completion_tokens: 197, total_tokens: 203 });
    expect(adapter.usage("chat", json)).toEqual({ inputTokens: 6, outputTokens: 197, reasoningTokens: 42 });
  });

  it("reads a MAX_TOKENS candidate that has no parts as an empty answer cut by length", () => {
    const json = vertex.json("vertex.gemini.generateContent.max_tokens_no_parts.response.json");
    const completion = adapter.response("chat", json, context);
    const [choice] = completion.choices as { message: { content: unknown }; finish_reason: string }[];
    expect(choice?.message.content).toBeNull();
    expect(choice?.finish_reason).toBe("length");
    // All 19 output tokens were thoughts: billed as output, as reasoning.
    expect(adapter.usage("chat", json)).toEqual({ inputTokens: 6, outputTokens: 19, reasoningTokens: 19 });
  });

  it("reads a recorded function call", () => {
    const completion = adapter.response("chat", vertex.json("vertex.gemini.generateContent.tools.response.json"), context);
    const [choice] = completion.choices as { message: { tool_calls: { function: { name: string } }[] }; finish_reason: string }[];
    expect(choice?.finish_reason).toBe("tool_calls");
    expect(choice?.message.tool_calls[0]?.function.name).toBeTypeOf("string");
  });

  it("translates the recorded stream: usage only from the last event, one id, done at the end", () => {
    const items = translate(vertex.text("vertex.gemini.streamGenerateContent.sse"));
    const chunks = items.flatMap((item): OpenAiChunk[] => (item.kind === "chunk" ? [item.chunk] : []));
    expect(new Set(chunks.map((chunk) => chunk.id))).toEqual(new Set(["chatcmpl-qi77aNGcN7PQnvgP3Kaf8Ac"]));
    const text = chunks
      .flatMap((chunk) => chunk.choices as { delta: { content?: string } }[])
      .map((choice) => choice.delta.content ?? "")
      .join("");
    expect(text).toMatch(/^The sky appears blue/);
    expect(text).toMatch(/reach your eyes directly\.$/);
    const billed = items.flatMap((item) => (item.kind === "chunk" && item.usage ? [item.usage] : []));
    expect(billed).toEqual([{ inputTokens: 6, outputTokens: 1689, reasoningTokens: 1214 }]);
    expect(items.at(-1)).toEqual({ kind: "done" });
    expect(items.some((item) => item.kind === "malformed" || item.kind === "error")).toBe(false);
  });

  it("reads a :predict answer's vectors and token counts", () => {
    const json = {
      predictions: [
        { embeddings: { statistics: { truncated: false, token_count: 4 }, values: [0.1, -0.2] } },
        { embeddings: { statistics: { truncated: false, token_count: 3 }, values: [0.3, 0.4] } },
      ],
      metadata: { billableCharacterCount: 20 },
    };
    expect(adapter.response("embeddings", json, { ...context, model: "text-embedding-005" })).toEqual({
      object: "list",
      data: [
        { object: "embedding", index: 0, embedding: [0.1, -0.2] },
        { object: "embedding", index: 1, embedding: [0.3, 0.4] },
      ],
      model: "text-embedding-005",
      usage: { prompt_tokens: 7, total_tokens: 7 },
    });
    expect(adapter.usage("embeddings", json)).toEqual({ inputTokens: 7, outputTokens: 0 });
    expect(() => adapter.response("embeddings", { error: {} }, context)).toThrow();
  });
});
