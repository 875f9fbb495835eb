// The Responses dialect's whole answers: a chat.completion (translated path)
// as a response object, a native response with usage.cost added, and errors.
import { describe, expect, it } from "vitest";
import type { AnswerContext } from "../../src/dialects/client-dialect";
import { openAiResponses } from "../../src/dialects/openai-responses/openai-responses-dialect";
import { upstreamUnreachable } from "../../src/errors";
import { fixtures } from "../support/fixture";

const recorded = fixtures("openai-compatible");
const HEX = "0a1b2c3d4e5f40718293a4b5c6d7e8f9";
const REQUEST_ID = "0a1b2c3d-4e5f-4071-8293-a4b5c6d7e8f9";

function context(body: Record<string, unknown> = { model: "auto", input: "hi" }, fields: Partial<AnswerContext> = {}): AnswerContext {
  return {
    request: openAiResponses.parse(body),
    requestId: REQUEST_ID,
    usage: {
      prompt_tokens: 20,
      completion_tokens: 7,
      total_tokens: 27,
      prompt_tokens_details: { cached_tokens: 5 },
      completion_tokens_details: { reasoning_tokens: 2 },
    },
    // The record the meter billed, as its codec read it from that usage.
    tokens: { inputTokens: 20, cachedInputTokens: 5, outputTokens: 7, reasoningTokens: 2 },
    debitedNano: 12_345n,
    trace: { requested: "auto" },
    upstreamModel: "claude-up",
    ...fields,
  };
}

const completion = (message: Record<string, unknown>, finish = "stop") => ({
  id: "msg_up",
  object: "chat.completion",
  created: 1_700_000_000,
  model: "claude-sonnet-4-20250514",
  choices: [{ index: 0, message: { role: "assistant", ...message }, finish_reason: finish }],
});

const USAGE = {
  input_tokens: 20,
  input_tokens_details: { cached_tokens: 5 },
  output_tokens: 7,
  output_tokens_details: { reasoning_tokens: 2 },
  total_tokens: 27,
  cost: 0.000012345,
};

describe("openAiResponses.answer, translated", () => {
  it("writes a text answer as a completed response, keys in OpenAI's order, settings echoed, usage with cost", () => {
    const body = { model: "auto", input: "hi", instructions: "Be brief.", temperature: 0.5, metadata: { a: "1" } };
    const response = openAiResponses.answer(completion({ content: "Hello!" }), context(body));
    expect(response).toEqual({
      id: `resp_${HEX}`,
      object: "response",
      created_at: 1_700_000_000,
      status: "completed",
      background: false,
      error: null,
      incomplete_details: null,
      instructions: "Be brief.",
      max_output_tokens: null,
      max_tool_calls: null,
      model: "claude-sonnet-4-20250514",
      output: [
        {
          id: `msg_${HEX}_0`,
          type: "message",
          status: "completed",
          content: [{ type: "output_text", annotations: [], logprobs: [], text: "Hello!" }],
          role: "assistant",
        },
      ],
      parallel_tool_calls: true,
      previous_response_id: null,
      prompt_cache_key: null,
      reasoning: { effort: null, summary: null },
      safety_identifier: null,
      service_tier: "default",
      store: false,
      temperature: 0.5,
      text: { format: { type: "text" } },
      tool_choice: "auto",
      tools: [],
      top_logprobs: 0,
      top_p: null,
      truncation: "disabled",
      usage: USAGE,
      user: null,
      metadata: { a: "1" },
    });
    expect(Object.keys(response).slice(0, 4)).toEqual(["id", "object", "created_at", "status"]);
  });

  it("echoes each function tool as OpenAI does: every field there, null where the request gave none", () => {
    const tools = [{ type: "function", name: "get_weather", parameters: { type: "object" } }];
    const response = openAiResponses.answer(completion({ content: "Hi" }), context({ model: "auto", input: "hi", tools }));
    expect(response.tools).toEqual([
      { type: "function", description: null, name: "get_weather", parameters: { type: "object" }, strict: null },
    ]);
  });

  it("writes reasoning as a summary item, then text, then each tool call as a function_call item", () => {
    const message = {
      content: "Checking.",
      reasoning: "The user wants weather.",
      tool_calls: [
        { id: "toolu_1", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } },
        { id: "toolu_2", type: "function", function: { name: "get_weather", arguments: '{"city":"Rome"}' } },
      ],
    };
    const response = openAiResponses.answer(completion(message, "tool_calls"), context());
    expect(response.status).toBe("completed");
    expect(response.output).toEqual([
      { id: `rs_${HEX}_0`, type: "reasoning", summary: [{ type: "summary_text", text: "The user wants weather." }] },
      expect.objectContaining({ type: "message", content: [expect.objectContaining({ text: "Checking." })] }),
      {
        id: `fc_${HEX}_0`,
        type: "function_call",
        status: "completed",
        arguments: '{"city":"Paris"}',
        call_id: "toolu_1",
        name: "get_weather",
      },
      {
        id: `fc_${HEX}_1`,
        type: "function_call",
        status: "completed",
        arguments: '{"city":"Rome"}',
        call_id: "toolu_2",
        name: "get_weather",
      },
    ]);
  });

  it("leaves the message out when only tools were called, and reads reasoning_content too", () => {
    const message = { content: null, reasoning_content: "thinking", tool_calls: [{ id: "c", function: { name: "f", arguments: "{}" } }] };
    const output = openAiResponses.answer(completion(message, "tool_calls"), context()).output as { type: string }[];
    expect(output.map((item) => item.type)).toEqual(["reasoning", "function_call"]);
  });

  it("writes a length finish as incomplete with reason max_output_tokens", () => {
    const response = openAiResponses.answer(completion({ content: "Cut" }, "length"), context());
    expect(response).toMatchObject({ status: "incomplete", incomplete_details: { reason: "max_output_tokens" } });
    expect((response.output as { status: string }[])[0]!.status).toBe("incomplete");
  });

  it("estimates usage from the billed tokens when the upstream reported none, and adds the routing trace when asked", () => {
    const response = openAiResponses.answer(
      completion({ content: "x" }),
      context({ input: "hi", service: { tier: "economy" } }, { usage: undefined, tokens: { inputTokens: 3, outputTokens: 1 } }),
    );
    expect(response.usage).toEqual({
      input_tokens: 3,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: 1,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: 4,
      cost: 0.000012345,
    });
    expect(response.service).toEqual({ reason: { requested: "auto" } });
  });
});

describe("openAiResponses.answer, native", () => {
  it("keeps the upstream's response as written, adding usage.cost", () => {
    const upstream = recorded.json("openai.responses.response.json");
    const expected = structuredClone(upstream);
    (expected.usage as Record<string, unknown>).cost = 0.000012345;
    const answer = openAiResponses.answer(upstream, context());
    expect(JSON.stringify(answer)).toBe(JSON.stringify(expected));
  });
});

describe("openAiResponses errors", () => {
  it("writes a JSON error body in OpenAI's shape", () => {
    expect(openAiResponses.errorBody(upstreamUnreachable())).toEqual({
      error: { type: "upstream_error", code: 504, message: "The upstream provider could not be reached.", param: null },
    });
  });

  it("writes a failure before any event as an error event, then response.failed, numbered from 0", () => {
    const frames = openAiResponses.errorFrame(upstreamUnreachable()).split("\n\n").filter(Boolean);
    expect(frames).toHaveLength(2);
    expect(frames[0]).toBe(
      'event: error\ndata: {"type":"error","sequence_number":0,"error":{"type":"upstream_error","code":504,"message":"The upstream provider could not be reached.","param":null}}',
    );
    const [name, data] = frames[1]!.split("\n");
    expect(name).toBe("event: response.failed");
    expect(JSON.parse(data!.slice("data: ".length))).toMatchObject({
      type: "response.failed",
      sequence_number: 1,
      response: { object: "response", status: "failed", error: { code: "504", message: "The upstream provider could not be reached." } },
    });
  });
});
