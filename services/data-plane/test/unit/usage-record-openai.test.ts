// OpenAI-shaped usage read into the one usage record the meter bills from:
// Chat Completions (OpenAI, OpenRouter) and the Responses API, whole answers
// and streams, from the recorded answers in providers/openai-compatible/__fixtures__.
import { describe, expect, it } from "vitest";
import { chatUsage, readChatUsage } from "../../src/providers/chat-usage";
import { OpenAiCompatibleAdapter } from "../../src/providers/openai-compatible/openai-compatible-adapter";
import { responsesCodec } from "../../src/providers/openai-compatible/responses-codec";
import { fixtures } from "../support/fixture";
import { billed, meterStream, meterWhole, RESPONSE_CONTEXT } from "../support/meter-replay";

const recorded = fixtures("openai-compatible");
const adapter = new OpenAiCompatibleAdapter();
const chat = adapter.native("openai-chat")!;

describe("Chat Completions usage", () => {
  it("a cached answer (openai.chat.cached.response.json): cached tokens apart, every reported detail, the answer's service_tier", () => {
    const meter = meterWhole(
      { response: (json) => chat.response(json, RESPONSE_CONTEXT), usage: (json) => chat.usage(json) },
      recorded.text("openai.chat.cached.response.json"),
    );
    expect(billed(meter)).toEqual({
      inputTokens: 2006,
      cachedInputTokens: 1920,
      audioInputTokens: 0,
      outputTokens: 300,
      reasoningTokens: 0,
      audioOutputTokens: 0,
      serviceTier: "default",
      images: 0,
    });
  });

  it("a stream: the usage chunk's counts and the tier OpenAI writes on every chunk", () => {
    const chunk = (fields: Record<string, unknown>) =>
      `data: ${JSON.stringify({ id: "chatcmpl-1", object: "chat.completion.chunk", created: 1, model: "o4-mini", service_tier: "priority", ...fields })}\n\n`;
    const body = [
      chunk({ choices: [{ index: 0, delta: { role: "assistant", content: "Hi" }, finish_reason: null }] }),
      chunk({ choices: [{ index: 0, delta: {}, finish_reason: "stop" }] }),
      chunk({
        choices: [],
        usage: {
          prompt_tokens: 1200,
          completion_tokens: 300,
          total_tokens: 1500,
          prompt_tokens_details: { cached_tokens: 1024, audio_tokens: 0 },
          completion_tokens_details: {
            reasoning_tokens: 256,
            audio_tokens: 0,
            accepted_prediction_tokens: 0,
            rejected_prediction_tokens: 0,
          },
        },
      }),
      "data: [DONE]\n\n",
    ].join("");
    expect(billed(meterStream(adapter.stream(), body))).toEqual({
      inputTokens: 1200,
      cachedInputTokens: 1024,
      audioInputTokens: 0,
      outputTokens: 300,
      reasoningTokens: 256,
      audioOutputTokens: 0,
      serviceTier: "priority",
      images: 0,
    });
  });

  it("OpenRouter's recorded stream (openrouter.chat.stream.recorded.sse): usage on a chunk that still has choices, `service_tier: null` is no tier", () => {
    const meter = meterStream(adapter.stream(), recorded.text("openrouter.chat.stream.recorded.sse"));
    expect(billed(meter)).toEqual({
      inputTokens: 20,
      cachedInputTokens: 0,
      cacheWrite5mTokens: 0,
      audioInputTokens: 0,
      outputTokens: 2,
      reasoningTokens: 0,
      imageOutputTokens: 0,
      audioOutputTokens: 0,
      images: 0,
    });
    // The shared usage stays OpenRouter's own (its cost goes to the log line, engine/relay-answer.ts).
    expect((meter.usage as { cost: number }).cost).toBe(0.000004);
  });

  it("OpenRouter's cache writes (openrouter.usage.cache_write.observed.json) are 5-minute writes: it reports no lifetime", () => {
    const observed = recorded.json("openrouter.usage.cache_write.observed.json");
    expect(adapter.usage("chat", observed)).toEqual({
      inputTokens: 20243,
      cachedInputTokens: 0,
      cacheWrite5mTokens: 20240,
      cacheWriteLifetimeUnknown: true,
      audioInputTokens: 0,
      outputTokens: 1270,
      reasoningTokens: 516,
      imageOutputTokens: 0,
      audioOutputTokens: 0,
    });
  });

  it("reads image input tokens where an upstream reports them, and nothing without a prompt count", () => {
    expect(readChatUsage({ usage: { prompt_tokens: 900, completion_tokens: 3.4, prompt_tokens_details: { image_tokens: 768 } } })).toEqual({
      inputTokens: 900,
      imageInputTokens: 768,
      outputTokens: 3,
    });
    expect(readChatUsage({ usage: { prompt_tokens: 3, completion_tokens: -1 }, service_tier: "" })).toEqual({
      inputTokens: 3,
      outputTokens: 0,
    });
    expect(readChatUsage({ usage: { completion_tokens: 3 } })).toBeUndefined();
    expect(readChatUsage({ usage: "nope" })).toBeUndefined();
    expect(adapter.usage("chat", "not an answer")).toBeUndefined();
  });

  it("embeddings usage is prompt tokens only", () => {
    expect(adapter.usage("embeddings", { object: "list", data: [], usage: { prompt_tokens: 8, total_tokens: 8 } })).toEqual({
      inputTokens: 8,
      outputTokens: 0,
    });
  });
});

describe("chatUsage: the record as a translated answer's OpenAI usage", () => {
  it("writes the totals and each detail it has an OpenAI field for; both write lifetimes in cache_write_tokens", () => {
    expect(
      chatUsage({
        inputTokens: 1000,
        cachedInputTokens: 600,
        cacheWrite5mTokens: 100,
        cacheWrite1hTokens: 200,
        imageInputTokens: 50,
        outputTokens: 80,
        reasoningTokens: 30,
        imageOutputTokens: 10,
        webSearches: 2,
        serviceTier: "priority",
      }),
    ).toEqual({
      prompt_tokens: 1000,
      completion_tokens: 80,
      total_tokens: 1080,
      prompt_tokens_details: { cached_tokens: 600, cache_write_tokens: 300 },
      completion_tokens_details: { reasoning_tokens: 30, image_tokens: 10 },
    });
  });

  it("an estimate (totals only) is the minimal usage", () => {
    expect(chatUsage({ inputTokens: 7, outputTokens: 2 })).toEqual({ prompt_tokens: 7, completion_tokens: 2, total_tokens: 9 });
  });
});

describe("Responses API usage", () => {
  const codec = { response: (json: unknown) => responsesCodec.response(json, RESPONSE_CONTEXT), usage: responsesCodec.usage };

  it("a cached answer (openai.responses.cached.response.json): cached input, reasoning output, the response's service_tier", () => {
    expect(billed(meterWhole(codec, recorded.text("openai.responses.cached.response.json")))).toEqual({
      inputTokens: 3700,
      cachedInputTokens: 2560,
      outputTokens: 741,
      reasoningTokens: 640,
      serviceTier: "default",
      images: 0,
    });
  });

  it("a stream (openai.responses.stream.sse): response.completed's usage and tier", () => {
    expect(billed(meterStream(responsesCodec.stream(RESPONSE_CONTEXT), recorded.text("openai.responses.stream.sse")))).toEqual({
      inputTokens: 444,
      cachedInputTokens: 0,
      outputTokens: 12,
      reasoningTokens: 0,
      serviceTier: "default",
      images: 0,
    });
  });

  it("cache writes newer answers report are 5-minute writes", () => {
    const usage = { input_tokens: 50, input_tokens_details: { cached_tokens: 10, cache_write_tokens: 30 }, output_tokens: 5 };
    expect(responsesCodec.usage({ object: "response", output: [], usage })).toEqual({
      inputTokens: 50,
      cachedInputTokens: 10,
      cacheWrite5mTokens: 30,
      cacheWriteLifetimeUnknown: true,
      outputTokens: 5,
      reasoningTokens: 0,
    });
    expect(responsesCodec.usage({ object: "response", status: "failed", usage: null })).toBeUndefined();
  });
});
