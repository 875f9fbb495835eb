// The Anthropic Messages dialect's whole answers (native and translated), its
// usage with cache fields and cost, and its error mapping table.
import type { GatewayError } from "@gateway/proto";
import { describe, expect, it } from "vitest";
import { anthropicMessages } from "../../src/dialects/anthropic-messages/anthropic-messages-dialect";
import type { AnswerContext } from "../../src/dialects/client-dialect";
import {
  controlPlaneUnavailable,
  insufficientCredits,
  internalError,
  invalidApiKey,
  invalidRequest,
  modelNotFound,
  bodyTooLarge,
  rateLimitExceeded,
  spendCapExceeded,
  streamFailed,
  upstreamFailure,
  upstreamUnreachable,
} from "../../src/errors";
import { convertAnthropicUsage, readAnthropicUsage } from "../../src/providers/anthropic/convert-anthropic-usage";
import { readChatUsage } from "../../src/providers/chat-usage";
import { fixtures } from "../support/fixture";

const request = anthropicMessages.parse({ model: "auto", max_tokens: 100, messages: [{ role: "user", content: "hi" }] });

const USAGE = { prompt_tokens: 100, completion_tokens: 20, total_tokens: 120, prompt_tokens_details: { cached_tokens: 30 } };

/** The engine's context: the shared usage, and the record billed (read from it, as its codec would). */
function context(fields: Partial<AnswerContext> = {}): AnswerContext {
  return {
    request,
    requestId: "0b7c-42",
    usage: USAGE,
    tokens: readChatUsage({ usage: "usage" in fields ? fields.usage : USAGE }) ?? { inputTokens: 100, outputTokens: 20 },
    debitedNano: 12_345n,
    trace: { requested: "auto" },
    upstreamModel: "up-model",
    ...fields,
  };
}

describe("anthropicMessages.answer, translated", () => {
  it("writes a message: thinking, text and tool_use blocks (input parsed), stop_reason, usage with cache fields and cost", () => {
    const completion = {
      id: "chatcmpl-1",
      object: "chat.completion",
      model: "gpt-4.1-mini",
      choices: [
        {
          index: 0,
          finish_reason: "tool_calls",
          message: {
            role: "assistant",
            content: "Let me check.",
            reasoning: "The user wants weather.",
            tool_calls: [{ id: "call_1", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } }],
          },
        },
      ],
    };
    expect(anthropicMessages.answer(completion, context())).toEqual({
      id: "msg_0b7c42",
      type: "message",
      role: "assistant",
      model: "gpt-4.1-mini",
      content: [
        { type: "thinking", thinking: "The user wants weather.", signature: "" },
        { type: "text", text: "Let me check." },
        { type: "tool_use", id: "call_1", name: "get_weather", input: { city: "Paris" } },
      ],
      stop_reason: "tool_use",
      stop_sequence: null,
      usage: {
        input_tokens: 70,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 30,
        cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 0 },
        output_tokens: 20,
        cost: 0.000012345,
      },
    });
  });

  it.each<[string, string]>([
    ["stop", "end_turn"],
    ["length", "max_tokens"],
    ["tool_calls", "tool_use"],
    ["content_filter", "refusal"],
    ["something_new", "end_turn"],
  ])("maps finish_reason %s to stop_reason %s", (finish, stop) => {
    const completion = { choices: [{ finish_reason: finish, message: { content: "x" } }] };
    expect(anthropicMessages.answer(completion, context()).stop_reason).toBe(stop);
  });

  it("writes an OpenAI refusal as a text block with stop_reason refusal", () => {
    const completion = {
      choices: [{ finish_reason: "stop", message: { role: "assistant", content: null, refusal: "I can't help with that." } }],
    };
    const message = anthropicMessages.answer(completion, context());
    expect(message.content).toEqual([{ type: "text", text: "I can't help with that." }]);
    expect(message.stop_reason).toBe("refusal");
  });

  it("counts a known cache write apart, takes the billed tokens without usage, and adds the trace for a service block", () => {
    const written = anthropicMessages.answer(
      { choices: [] },
      context({
        usage: { prompt_tokens: 100, completion_tokens: 5, prompt_tokens_details: { cached_tokens: 10, cache_write_tokens: 40 } },
      }),
    );
    expect(written.usage).toMatchObject({
      input_tokens: 50,
      cache_creation_input_tokens: 40,
      cache_read_input_tokens: 10,
      output_tokens: 5,
    });
    const withService = anthropicMessages.parse({ model: "auto", max_tokens: 1, messages: [{ role: "user", content: "hi" }], service: {} });
    const estimated = anthropicMessages.answer({ choices: [] }, context({ usage: undefined, request: withService }));
    expect(estimated.usage).toEqual({
      input_tokens: 100,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
      cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 0 },
      output_tokens: 20,
      cost: 0.000012345,
    });
    expect(estimated.service).toEqual({ reason: { requested: "auto" } });
  });
});

describe("anthropicMessages.answer, native", () => {
  it("is the upstream's message as written, only usage.cost added", () => {
    const recorded = fixtures("anthropic-messages").text("anthropic.messages.response.json");
    const upstream = JSON.parse(recorded);
    const usage = JSON.parse(recorded).usage;
    const answer = anthropicMessages.answer(upstream, context({ usage: convertAnthropicUsage(usage), tokens: readAnthropicUsage(usage) }));
    const expected = JSON.parse(recorded);
    expected.usage.cost = 0.000012345;
    expect(JSON.stringify(answer)).toBe(JSON.stringify(expected));
  });
});

describe("the error mapping (status -> Anthropic error type)", () => {
  it.each<[string, GatewayError, number, string]>([
    ["a bad body", invalidRequest("invalid_body", "bad"), 400, "invalid_request_error"],
    ["a bad key", invalidApiKey(), 401, "authentication_error"],
    ["no credit", insufficientCredits(), 402, "billing_error"],
    ["an upstream 403", upstreamFailure(403), 403, "permission_error"],
    ["an unknown model id", modelNotFound("x"), 404, "not_found_error"],
    ["a body too large", bodyTooLarge(10), 413, "request_too_large"],
    ["the per-minute limit", rateLimitExceeded(3), 429, "rate_limit_error"],
    ["the daily spend cap", spendCapExceeded(600), 429, "rate_limit_error"],
    ["an upstream 429", upstreamFailure(429), 429, "rate_limit_error"],
    ["an internal error", internalError(), 500, "api_error"],
    ["an upstream 500", upstreamFailure(500), 500, "api_error"],
    ["an upstream 502", upstreamFailure(502), 502, "api_error"],
    ["a broken stream", streamFailed(), 502, "api_error"],
    ["an upstream 503", upstreamFailure(503), 503, "overloaded_error"],
    ["the control plane away", controlPlaneUnavailable(), 503, "overloaded_error"],
    ["an upstream 529", upstreamFailure(529), 529, "overloaded_error"],
    ["no upstream reachable", upstreamUnreachable(), 504, "timeout_error"],
    ["an upstream 422", upstreamFailure(422), 422, "invalid_request_error"],
  ])("%s: status %i, type %s, the gateway's code and message kept", (_case, error, status, type) => {
    expect(error.status).toBe(status);
    expect(anthropicMessages.errorBody(error)).toEqual({ type: "error", error: { type, message: error.message, code: error.code } });
  });

  it("keeps Retry-After on both limits (the headers are the error's own)", () => {
    expect(rateLimitExceeded(3).replyHeaders).toMatchObject({ "retry-after": "3", "x-should-retry": "true" });
    expect(spendCapExceeded(600).replyHeaders).toMatchObject({ "retry-after": "600", "x-should-retry": "false" });
  });

  it("writes an error as one `event: error` frame", () => {
    expect(anthropicMessages.errorFrame(upstreamFailure(529))).toBe(
      'event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"The upstream provider failed to answer.","code":529}}\n\n',
    );
  });
});
