// Every client dialect renders its usage from the one usage record the call
// was billed from: cache reads, cache writes (split by lifetime where the
// dialect has the field), reasoning; recorded upstream answers read by their
// codecs and written in each dialect, as the engine does (engine/relay-answer.ts).
import { describe, expect, it } from "vitest";
import type { UsageRecord } from "../../src/billing/pricing";
import { anthropicMessages } from "../../src/dialects/anthropic-messages/anthropic-messages-dialect";
import type { AnswerContext, ClientDialect } from "../../src/dialects/client-dialect";
import { openAiChat } from "../../src/dialects/openai/openai-chat-dialect";
import { openAiResponses } from "../../src/dialects/openai-responses/openai-responses-dialect";
import type { UsageMeter } from "../../src/engine/usage-meter";
import { AnthropicAdapter } from "../../src/providers/anthropic/anthropic-adapter";
import { chatUsage } from "../../src/providers/chat-usage";
import { GeminiAdapter } from "../../src/providers/gemini/gemini-adapter";
import { OpenAiCompatibleAdapter } from "../../src/providers/openai-compatible/openai-compatible-adapter";
import type { ProviderAdapter } from "../../src/providers/provider-adapter";
import { fixtures } from "../support/fixture";
import { meterWhole, RESPONSE_CONTEXT } from "../support/meter-replay";

const COST = 0.000012345;
const messages = [{ role: "user", content: "hi" }];
const requests = {
  chat: openAiChat.parse({ model: "auto", messages }),
  responses: openAiResponses.parse({ model: "auto", input: "hi" }),
  messages: anthropicMessages.parse({ model: "auto", max_tokens: 100, messages }),
};

function context(request: AnswerContext["request"], usage: unknown, tokens: UsageRecord): AnswerContext {
  return { request, requestId: "0b7c-42", usage, tokens, debitedNano: 12_345n, trace: undefined, upstreamModel: "up" };
}

/** A translated answer in a dialect, from the meter that read it. */
function rendered(dialect: ClientDialect, request: AnswerContext["request"], meter: UsageMeter, answer: Record<string, unknown>) {
  return dialect.answer(structuredClone(answer), context(request, meter.usage, meter.tokens("{}"))).usage as Record<string, unknown>;
}

/** A recorded upstream answer through its adapter (translated) into the meter, and the shared answer. */
function upstream(adapter: ProviderAdapter, folder: "anthropic" | "gemini" | "openai-compatible", file: string) {
  const body = fixtures(folder).text(file);
  const answer = adapter.response("chat", JSON.parse(body), RESPONSE_CONTEXT);
  const meter = meterWhole({ response: () => answer, usage: (json) => adapter.usage("chat", json) }, body);
  return { meter, answer };
}

describe("a record with cache reads, both write lifetimes and reasoning, in each dialect", () => {
  const record: UsageRecord = {
    inputTokens: 1000,
    cachedInputTokens: 600,
    cacheWrite5mTokens: 100,
    cacheWrite1hTokens: 200,
    outputTokens: 80,
    reasoningTokens: 30,
  };
  const completion = {
    id: "c",
    object: "chat.completion",
    model: "m",
    choices: [{ index: 0, message: { content: "x" }, finish_reason: "stop" }],
  };
  // A translated answer carries the shared usage its codec wrote from the record.
  const translated = (request: AnswerContext["request"]) => context(request, chatUsage(record), record);

  it("OpenAI chat: cached_tokens, the writes in cache_write_tokens, reasoning_tokens (whole and streamed alike)", () => {
    const expected = {
      prompt_tokens: 1000,
      completion_tokens: 80,
      total_tokens: 1080,
      prompt_tokens_details: { cached_tokens: 600, cache_write_tokens: 300 },
      completion_tokens_details: { reasoning_tokens: 30 },
      cost: COST,
    };
    expect(openAiChat.answer(structuredClone(completion), translated(requests.chat)).usage).toEqual(expected);
    const renderer = openAiChat.streamRenderer({ request: requests.chat, requestId: "r", native: false, upstreamModel: "up" });
    const final = renderer.finish(translated(requests.chat), undefined).split("\n\n")[0]!.slice("data: ".length);
    expect(JSON.parse(final).usage).toEqual(expected);
  });

  it("Responses: input_tokens_details.cached_tokens, output_tokens_details.reasoning_tokens (whole and streamed alike)", () => {
    const expected = {
      input_tokens: 1000,
      input_tokens_details: { cached_tokens: 600 },
      output_tokens: 80,
      output_tokens_details: { reasoning_tokens: 30 },
      total_tokens: 1080,
      cost: COST,
    };
    expect(openAiResponses.answer(structuredClone(completion), translated(requests.responses)).usage).toEqual(expected);
    const renderer = openAiResponses.streamRenderer({ request: requests.responses, requestId: "r", native: false, upstreamModel: "up" });
    const frames = renderer.finish(translated(requests.responses), undefined);
    const completed = /event: response.completed\ndata: (.*)\n\n/.exec(frames)![1]!;
    expect(JSON.parse(completed).response.usage).toEqual(expected);
  });

  it("Anthropic Messages: uncached input apart, cache reads, writes with their 5m/1h split, thinking (whole and streamed alike)", () => {
    const expected = {
      input_tokens: 100,
      cache_creation_input_tokens: 300,
      cache_read_input_tokens: 600,
      cache_creation: { ephemeral_5m_input_tokens: 100, ephemeral_1h_input_tokens: 200 },
      output_tokens: 80,
      output_tokens_details: { thinking_tokens: 30 },
      cost: COST,
    };
    expect(anthropicMessages.answer(structuredClone(completion), translated(requests.messages)).usage).toEqual(expected);
    const renderer = anthropicMessages.streamRenderer({ request: requests.messages, requestId: "r", native: false, upstreamModel: "up" });
    const frames = renderer.finish(translated(requests.messages), undefined);
    const delta = /event: message_delta\ndata: (.*)\n\n/.exec(frames)![1]!;
    expect(JSON.parse(delta).usage).toEqual(expected);
  });
});

describe("recorded upstream answers, translated into each dialect", () => {
  it("OpenAI's cached answer: 1920 of 2006 prompt tokens cached", () => {
    const { meter, answer } = upstream(new OpenAiCompatibleAdapter(), "openai-compatible", "openai.chat.cached.response.json");
    expect(rendered(openAiResponses, requests.responses, meter, answer)).toMatchObject({
      input_tokens: 2006,
      input_tokens_details: { cached_tokens: 1920 },
      output_tokens_details: { reasoning_tokens: 0 },
    });
    expect(rendered(anthropicMessages, requests.messages, meter, answer)).toMatchObject({
      input_tokens: 86,
      cache_read_input_tokens: 1920,
      cache_creation_input_tokens: 0,
      output_tokens: 300,
      output_tokens_details: { thinking_tokens: 0 },
    });
  });

  it("Anthropic's cache write: OpenRouter's cache_write_tokens for an OpenAI client, the 5-minute split back for an Anthropic one", () => {
    const { meter, answer } = upstream(new AnthropicAdapter(), "anthropic", "anthropic.messages.cache_write.response.json");
    expect(rendered(openAiChat, requests.chat, meter, answer)).toEqual({
      prompt_tokens: 188_107,
      completion_tokens: 393,
      total_tokens: 188_500,
      prompt_tokens_details: { cached_tokens: 0, cache_write_tokens: 188_086 },
      cost: COST,
    });
    expect(rendered(openAiResponses, requests.responses, meter, answer)).toMatchObject({
      input_tokens: 188_107,
      input_tokens_details: { cached_tokens: 0 },
    });
    expect(rendered(anthropicMessages, requests.messages, meter, answer)).toEqual({
      input_tokens: 21,
      cache_creation_input_tokens: 188_086,
      cache_read_input_tokens: 0,
      cache_creation: { ephemeral_5m_input_tokens: 188_086, ephemeral_1h_input_tokens: 0 },
      output_tokens: 393,
      cost: COST,
    });
  });

  it("Gemini's cached answer: cachedContentTokenCount as cached tokens and cache reads", () => {
    const { meter, answer } = upstream(new GeminiAdapter(), "gemini", "gemini.generateContent.cached.response.json");
    expect(rendered(openAiChat, requests.chat, meter, answer)).toMatchObject({ prompt_tokens_details: { cached_tokens: 323_383 } });
    expect(rendered(openAiResponses, requests.responses, meter, answer)).toMatchObject({
      input_tokens_details: { cached_tokens: 323_383 },
    });
    expect(rendered(anthropicMessages, requests.messages, meter, answer)).toMatchObject({
      input_tokens: 5,
      cache_read_input_tokens: 323_383,
      output_tokens: 397,
    });
  });
});
