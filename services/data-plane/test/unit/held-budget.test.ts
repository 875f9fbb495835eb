// What a stream renderer holds of an answer until it can write it is capped at
// UPSTREAM_MAX_BODY_BYTES (held-budget.ts; docs/resilience.md, "Size limits"):
// a native stream's opening, a translated Responses stream's output (repeated
// in response.completed), a tool call translated for Messages (written whole).
import { describe, expect, it } from "vitest";
import { anthropicMessages } from "../../src/dialects/anthropic-messages/anthropic-messages-dialect";
import { MessagesNativeStreamRenderer } from "../../src/dialects/anthropic-messages/native-stream-renderer";
import { HeldOpening } from "../../src/dialects/held-opening";
import { openAiResponses } from "../../src/dialects/openai-responses/openai-responses-dialect";
import type { OpenAiChunk } from "../../src/providers/provider-adapter";
import { UpstreamBodyTooLarge } from "../../src/upstream/body-limit";

const chunk = (delta: Record<string, unknown>): OpenAiChunk => ({
  id: "c1",
  object: "chat.completion.chunk",
  created: 1,
  model: "up",
  choices: [{ index: 0, delta, finish_reason: null }],
});

describe("HeldOpening", () => {
  it("holds frames up to its limit and releases them once", () => {
    const opening = new HeldOpening(8);
    opening.hold("abcd");
    opening.hold("efgh");
    expect(opening.release()).toBe("abcdefgh");
    expect(opening.release()).toBe("");
  });

  it("throws once what it holds passes the limit", () => {
    const opening = new HeldOpening(8);
    opening.hold("abcd");
    expect(() => opening.hold("efghi")).toThrow(UpstreamBodyTooLarge);
  });

  it("caps a native Messages stream that pings without end before its first content", () => {
    const renderer = new MessagesNativeStreamRenderer(1024);
    const ping = { event: "ping", data: '{"type":"ping"}', id: undefined };
    expect(() => {
      for (let i = 0; i < 1000; i++) renderer.frames(ping, []);
    }).toThrow(UpstreamBodyTooLarge);
  });
});

describe("translations that hold the answer", () => {
  it("a translated Responses stream: its output, held for response.completed, up to the limit", () => {
    const request = openAiResponses.parse({ model: "auto", input: "hi", stream: true });
    const renderer = openAiResponses.streamRenderer({ request, requestId: "r", native: false, upstreamModel: "up", maxHeldLength: 100 });
    expect(renderer.frames(undefined, [chunk({ role: "assistant", content: "a".repeat(60) })])).toContain("response.output_text.delta");
    expect(() => renderer.frames(undefined, [chunk({ content: "a".repeat(60) })])).toThrow(UpstreamBodyTooLarge);
  });

  it("a tool call translated for Messages: its arguments, held until it is written whole, up to the limit", () => {
    const request = anthropicMessages.parse({ model: "auto", max_tokens: 100, messages: [{ role: "user", content: "hi" }], stream: true });
    const renderer = anthropicMessages.streamRenderer({ request, requestId: "r", native: false, upstreamModel: "up", maxHeldLength: 100 });
    const call = (args: string) =>
      chunk({ tool_calls: [{ index: 0, id: "call_1", type: "function", function: { name: "f", arguments: args } }] });
    renderer.frames(undefined, [call("x".repeat(60))]);
    expect(() => renderer.frames(undefined, [call("x".repeat(60))])).toThrow(UpstreamBodyTooLarge);
  });
});
