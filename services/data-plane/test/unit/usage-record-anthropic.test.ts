// Anthropic usage read into the one usage record the meter bills from, whole
// Messages and streams, translated (the adapter) and passed through (the
// Messages codec) alike: cache reads, writes by lifetime, thinking, web
// searches, the tier. Recordings in providers/anthropic/__fixtures__.
import { describe, expect, it } from "vitest";
import { AnthropicAdapter } from "../../src/providers/anthropic/anthropic-adapter";
import { anthropicMessagesCodec } from "../../src/providers/anthropic/anthropic-messages-codec";
import { convertAnthropicUsage, readAnthropicUsage } from "../../src/providers/anthropic/convert-anthropic-usage";
import { fixtures } from "../support/fixture";
import { billed, meterStream, meterWhole, RESPONSE_CONTEXT } from "../support/meter-replay";

const recorded = fixtures("anthropic");
const adapter = new AnthropicAdapter();
/** The translating adapter and the native codec: both read the same usage into the same record. */
const codecs = [
  [
    "the adapter",
    {
      response: (json: unknown) => adapter.response("chat", json, RESPONSE_CONTEXT),
      usage: (json: unknown) => adapter.usage("chat", json),
    },
  ],
  [
    "the Messages codec",
    { response: (json: unknown) => anthropicMessagesCodec.response(json, RESPONSE_CONTEXT), usage: anthropicMessagesCodec.usage },
  ],
] as const;
const streams = [
  ["the adapter", () => adapter.stream(RESPONSE_CONTEXT)],
  ["the Messages codec", () => anthropicMessagesCodec.stream(RESPONSE_CONTEXT)],
] as const;

describe.each(codecs)("whole Messages through %s", (_name, codec) => {
  it("a cache write (anthropic.messages.cache_write.response.json): the whole prompt as input, the writes 5-minute as split", () => {
    expect(billed(meterWhole(codec, recorded.text("anthropic.messages.cache_write.response.json")))).toEqual({
      inputTokens: 188_107,
      cachedInputTokens: 0,
      cacheWrite5mTokens: 188_086,
      cacheWrite1hTokens: 0,
      outputTokens: 393,
      serviceTier: "standard",
      images: 0,
    });
  });

  it("a cache read (anthropic.messages.cache_read.response.json)", () => {
    expect(billed(meterWhole(codec, recorded.text("anthropic.messages.cache_read.response.json")))).toEqual({
      inputTokens: 188_107,
      cachedInputTokens: 188_086,
      cacheWrite5mTokens: 0,
      cacheWrite1hTokens: 0,
      outputTokens: 393,
      serviceTier: "standard",
      images: 0,
    });
  });
});

describe.each(streams)("streams through %s", (_name, stream) => {
  it("anthropic.messages.stream.cache.sse: message_delta's cumulative counts win; writes beyond message_start's split are 5-minute", () => {
    // message_start: input 2, writes 3068 (all 5-minute); message_delta: input 6, writes 3337, reads 6289, output 198.
    expect(billed(meterStream(stream(), recorded.text("anthropic.messages.stream.cache.sse")))).toEqual({
      inputTokens: 6 + 3337 + 6289,
      cachedInputTokens: 6289,
      cacheWrite5mTokens: 3337,
      cacheWrite1hTokens: 0,
      outputTokens: 198,
      reasoningTokens: 0,
      webSearches: 0,
      serviceTier: "standard",
      images: 0,
    });
  });

  it("a stream's 1-hour writes, thinking and web searches", () => {
    const frame = (event: string, data: unknown) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
    const usage = {
      input_tokens: 10,
      cache_creation_input_tokens: 300,
      cache_read_input_tokens: 40,
      cache_creation: { ephemeral_5m_input_tokens: 100, ephemeral_1h_input_tokens: 200 },
      output_tokens: 1,
      service_tier: "priority",
    };
    const body = [
      frame("message_start", { type: "message_start", message: { id: "msg_1", model: "claude-x", content: [], usage } }),
      frame("content_block_start", { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } }),
      frame("content_block_delta", { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "Hi" } }),
      frame("content_block_stop", { type: "content_block_stop", index: 0 }),
      frame("message_delta", {
        type: "message_delta",
        delta: { stop_reason: "end_turn", stop_sequence: null },
        usage: { output_tokens: 90, output_tokens_details: { thinking_tokens: 60 }, server_tool_use: { web_search_requests: 3 } },
      }),
      frame("message_stop", { type: "message_stop" }),
    ].join("");
    expect(billed(meterStream(stream(), body))).toEqual({
      inputTokens: 350,
      cachedInputTokens: 40,
      cacheWrite5mTokens: 100,
      cacheWrite1hTokens: 200,
      outputTokens: 90,
      reasoningTokens: 60,
      webSearches: 3,
      serviceTier: "priority",
      images: 0,
    });
  });
});

describe("readAnthropicUsage", () => {
  it("all writes are 5-minute without the split; an hour's share never exceeds the writes", () => {
    expect(readAnthropicUsage({ input_tokens: 1, cache_creation_input_tokens: 50, output_tokens: 2 })).toMatchObject({
      cacheWrite5mTokens: 50,
      cacheWrite1hTokens: 0,
    });
    const overstated = { input_tokens: 1, cache_creation_input_tokens: 50, cache_creation: { ephemeral_1h_input_tokens: 80 } };
    expect(readAnthropicUsage(overstated)).toMatchObject({ inputTokens: 51, cacheWrite5mTokens: 0, cacheWrite1hTokens: 50 });
    expect(readAnthropicUsage({ output_tokens: 2 })).toBeUndefined();
  });

  it("the OpenAI usage of a translated answer is written from the record: what has no OpenAI field stays out", () => {
    const usage = {
      input_tokens: 10,
      cache_creation_input_tokens: 300,
      cache_read_input_tokens: 40,
      cache_creation: { ephemeral_5m_input_tokens: 100, ephemeral_1h_input_tokens: 200 },
      output_tokens: 90,
      server_tool_use: { web_search_requests: 3 },
      service_tier: "standard",
    };
    expect(convertAnthropicUsage(usage)).toEqual({
      prompt_tokens: 350,
      completion_tokens: 90,
      total_tokens: 440,
      prompt_tokens_details: { cached_tokens: 40, cache_write_tokens: 300 },
    });
  });
});
