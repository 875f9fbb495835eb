// AnthropicAdapter, non-streamed answers: recorded Anthropic Messages in,
// OpenAI chat.completion out.
import { describe, expect, it } from "vitest";
import { AnthropicAdapter } from "../../src/providers/anthropic/anthropic-adapter";
import type { ResponseContext } from "../../src/providers/provider-adapter";
import { fixtures } from "../support/fixture";

const wire = (file: string): Record<string, unknown> => fixtures("anthropic").json(file);

const adapter = new AnthropicAdapter();
const context: ResponseContext = { id: "chatcmpl-gateway", created: 1_790_000_000, model: "claude-from-catalogue" };
const translate = (json: unknown) => adapter.response("chat", json, context);

/** A minimal Anthropic message for cases no recording covers. */
const message = (overrides: Record<string, unknown>) => ({
  id: "msg_constructed",
  type: "message",
  role: "assistant",
  model: "claude-sonnet-4-5-20250929",
  content: [{ type: "text", text: "ok" }],
  stop_reason: "end_turn",
  stop_sequence: null,
  usage: { input_tokens: 10, output_tokens: 2 },
  ...overrides,
});

describe("AnthropicAdapter.response on recorded messages", () => {
  it("plain text answer (anthropic.messages.response.json)", () => {
    expect(translate(wire("anthropic.messages.response.json"))).toEqual({
      id: "msg_01Egs18hRzhru3uGon3qesbA",
      object: "chat.completion",
      created: 1_790_000_000,
      model: "claude-sonnet-4-5-20250929",
      choices: [
        {
          index: 0,
          message: {
            role: "assistant",
            content: '{"product_name": "Green Tea", "price": 5.50, "quantity": 2}',
            refusal: null,
            annotations: [],
          },
          logprobs: null,
          finish_reason: "stop",
        },
      ],
      usage: { prompt_tokens: 249, completion_tokens: 26, total_tokens: 275, prompt_tokens_details: { cached_tokens: 0 } },
      // What OpenAI's live answers always carry (providers/openai-answer-fields.ts).
      service_tier: "default",
      system_fingerprint: expect.stringMatching(/^fp_[0-9a-f]{12}$/),
    });
  });

  it("text and a tool call (anthropic.messages.tools.response.json)", () => {
    const completion = translate(wire("anthropic.messages.tools.response.json")) as any;
    expect(completion.id).toBe("msg_012foMGXNQ1eqhaq3QvA5dY6");
    expect(completion.choices[0]).toEqual({
      index: 0,
      message: {
        role: "assistant",
        content: 'I\'ll use the test_tool with the value "test" as requested, then provide a final response.',
        refusal: null,
        annotations: [],
        tool_calls: [
          { id: "toolu_011LF2VkWpAfJnTKJcmh1PNf", type: "function", function: { name: "test_tool", arguments: '{"value":"test"}' } },
        ],
      },
      logprobs: null,
      finish_reason: "tool_calls",
    });
    expect(completion.usage).toEqual({
      prompt_tokens: 415,
      completion_tokens: 76,
      total_tokens: 491,
      prompt_tokens_details: { cached_tokens: 0 },
    });
  });

  it("the answer after a tool result (anthropic.messages.tools.result.response.json)", () => {
    const completion = translate(wire("anthropic.messages.tools.result.response.json")) as any;
    expect(completion.choices[0].finish_reason).toBe("stop");
    expect(completion.choices[0].message.content).toMatch(/^I have successfully executed the test_tool/);
    expect(completion.choices[0].message).not.toHaveProperty("tool_calls");
    expect(completion.usage.total_tokens).toBe(546);
  });
});

describe("AnthropicAdapter.response", () => {
  it("counts cache writes and reads into prompt_tokens; reads are cached_tokens, writes cache_write_tokens", () => {
    const completion = translate(
      message({
        usage: {
          input_tokens: 21,
          cache_creation_input_tokens: 188086,
          cache_read_input_tokens: 5000,
          output_tokens: 393,
          service_tier: "standard",
        },
      }),
    ) as any;
    expect(completion.usage).toEqual({
      prompt_tokens: 21 + 188086 + 5000,
      completion_tokens: 393,
      total_tokens: 21 + 188086 + 5000 + 393,
      prompt_tokens_details: { cached_tokens: 5000, cache_write_tokens: 188086 },
    });
  });

  it("reports thinking in message.reasoning (never in content) and thinking tokens as reasoning_tokens", () => {
    const completion = translate(
      message({
        content: [
          { type: "thinking", thinking: "Let me think.", signature: "sig" },
          { type: "redacted_thinking", data: "opaque" },
          { type: "text", text: "Four." },
        ],
        usage: { input_tokens: 30, output_tokens: 80, output_tokens_details: { thinking_tokens: 60 } },
      }),
    ) as any;
    expect(completion.choices[0].message).toEqual({
      role: "assistant",
      content: "Four.",
      refusal: null,
      annotations: [],
      reasoning: "Let me think.",
    });
    expect(completion.usage.completion_tokens_details).toEqual({ reasoning_tokens: 60 });
  });

  it("a refusal: finish_reason content_filter and message.refusal from stop_details.explanation", () => {
    const completion = translate(
      message({
        content: [],
        stop_reason: "refusal",
        stop_details: { type: "refusal", category: "cyber", explanation: "This request was refused due to policy." },
      }),
    ) as any;
    expect(completion.choices[0].finish_reason).toBe("content_filter");
    expect(completion.choices[0].message).toEqual({
      role: "assistant",
      content: null,
      refusal: "This request was refused due to policy.",
      annotations: [],
    });
  });

  it("a refusal without explanation still has a refusal text, and keeps what was written before it", () => {
    const completion = translate(
      message({ content: [{ type: "text", text: "Hi" }], stop_reason: "refusal", stop_details: { type: "refusal", explanation: null } }),
    ) as any;
    expect(completion.choices[0].message.content).toBe("Hi");
    expect(completion.choices[0].message.refusal).toEqual(expect.any(String));
    expect(completion.choices[0].message.refusal.length).toBeGreaterThan(0);
  });

  it.each<[string | null, string]>([
    ["end_turn", "stop"],
    ["stop_sequence", "stop"],
    ["max_tokens", "length"],
    ["model_context_window_exceeded", "length"],
    ["tool_use", "tool_calls"],
    ["refusal", "content_filter"],
    ["pause_turn", "stop"],
    ["a_future_reason", "stop"],
    [null, "stop"],
  ])("stop_reason %s -> finish_reason %s", (stopReason, finishReason) => {
    expect((translate(message({ stop_reason: stopReason })) as any).choices[0].finish_reason).toBe(finishReason);
  });

  it("joins several text blocks; no text at all is content null; empty tool input is {}", () => {
    expect(
      (
        translate(
          message({
            content: [
              { type: "text", text: "a" },
              { type: "text", text: "b" },
            ],
          }),
        ) as any
      ).choices[0].message.content,
    ).toBe("ab");
    const toolOnly = translate(
      message({ content: [{ type: "tool_use", id: "toolu_x", name: "now", input: {} }], stop_reason: "tool_use" }),
    ) as any;
    expect(toolOnly.choices[0].message.content).toBeNull();
    expect(toolOnly.choices[0].message.tool_calls[0].function.arguments).toBe("{}");
  });

  it("falls back to the context's id and model when the message has none, and omits usage it cannot read", () => {
    const completion = translate(message({ id: undefined, model: undefined, usage: undefined })) as any;
    expect(completion.id).toBe("chatcmpl-gateway");
    expect(completion.model).toBe("claude-from-catalogue");
    expect(completion).not.toHaveProperty("usage");
  });

  it.each<[string, unknown]>([
    ["an error envelope", { type: "error", error: { type: "api_error", message: "Internal server error" } }],
    ["null", null],
    ["a string", "msg"],
    ["a message without content", { type: "message", id: "msg_x" }],
    ["an OpenAI completion", { object: "chat.completion", choices: [] }],
  ])("throws on %s", (_name, json) => {
    expect(() => translate(json)).toThrow(/not a message/);
  });
});
