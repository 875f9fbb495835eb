// AnthropicAdapter, streamed answers: every recorded Anthropic SSE stream
// (parsed by the gateway's one SSE parser) in, OpenAI chunks out. The streamed
// translation must agree with the non-streamed one: each stream is also
// assembled into the Message the non-streamed API would have returned (the way
// Anthropic's SDKs accumulate a stream), and response() of that Message must
// carry the same content, tool calls, reasoning, refusal, finish reason and usage
// as the chunks.
import { describe, expect, it } from "vitest";
import { AnthropicAdapter } from "../../src/providers/anthropic/anthropic-adapter";
import type { ResponseContext, StreamItem } from "../../src/providers/provider-adapter";
import { SseParser, type SseEvent } from "../../src/upstream/sse-parser";
import { fixtures } from "../support/fixture";

const recorded = fixtures("anthropic");

const adapter = new AnthropicAdapter();
const context: ResponseContext = { id: "chatcmpl-gateway", created: 1_790_000_000, model: "claude-from-catalogue" };

function parseSse(text: string): SseEvent[] {
  const parser = new SseParser();
  return [...parser.push(text), ...parser.end()].flatMap((item) => (item.kind === "event" ? [item.event] : []));
}

/** The recorded stream's events. Some SDK fixtures end without the final blank line; served, they get one (__fixtures__/README.md). */
const recordedEvents = (file: string): SseEvent[] => {
  const text = recorded.text(file);
  return parseSse(text.endsWith("\n\n") ? text : `${text}\n\n`);
};

function translateStream(events: SseEvent[]): StreamItem[] {
  const translator = adapter.stream(context);
  return [...events.flatMap((event) => translator.push(event)), ...translator.end()];
}

const ev = (event: string, data: unknown): SseEvent => ({
  event,
  data: typeof data === "string" ? data : JSON.stringify(data),
  id: undefined,
});
const chunks = (items: StreamItem[]) => items.flatMap((item) => (item.kind === "chunk" ? [item.chunk as any] : []));

/** What an OpenAI client assembles from the chunks (the openai SDK's stream accumulation, for one choice). */
function accumulateChunks(items: StreamItem[]) {
  let content = "";
  let reasoning = "";
  let refusal: string | null = null;
  let finishReason: string | null = null;
  let usage: unknown;
  const toolCalls: { id: string; type: string; function: { name: string; arguments: string } }[] = [];
  for (const chunk of chunks(items)) {
    if (chunk.usage) usage = chunk.usage;
    for (const choice of chunk.choices) {
      const delta = choice.delta;
      if (typeof delta.content === "string") content += delta.content;
      if (typeof delta.reasoning === "string") reasoning += delta.reasoning;
      if (typeof delta.refusal === "string") refusal = (refusal ?? "") + delta.refusal;
      for (const call of delta.tool_calls ?? []) {
        if (call.id) toolCalls[call.index] = { id: call.id, type: call.type, function: { name: call.function.name, arguments: "" } };
        toolCalls[call.index]!.function.arguments += call.function?.arguments ?? "";
      }
      if (choice.finish_reason) finishReason = choice.finish_reason;
    }
  }
  return { content: content || null, reasoning: reasoning || undefined, refusal, toolCalls, finishReason, usage };
}

/** The Message the non-streamed API returns for the same answer: what Anthropic's SDKs build from the events. */
function accumulateAnthropicMessage(events: SseEvent[]) {
  let message: any;
  const partialJson = new Map<number, string>();
  for (const { data } of events) {
    const event = JSON.parse(data);
    if (event.type === "message_start") message = structuredClone(event.message);
    else if (event.type === "content_block_start") message.content[event.index] = structuredClone(event.content_block);
    else if (event.type === "content_block_delta") {
      const block = message.content[event.index];
      if (event.delta.type === "text_delta") block.text += event.delta.text;
      else if (event.delta.type === "thinking_delta") block.thinking += event.delta.thinking;
      else if (event.delta.type === "signature_delta") block.signature = event.delta.signature;
      else if (event.delta.type === "input_json_delta")
        partialJson.set(event.index, (partialJson.get(event.index) ?? "") + event.delta.partial_json);
    } else if (event.type === "content_block_stop" && partialJson.has(event.index)) {
      const text = partialJson.get(event.index)!;
      message.content[event.index].input = text.trim() ? JSON.parse(text) : {};
    } else if (event.type === "message_delta") {
      message.stop_reason = event.delta.stop_reason;
      message.stop_sequence = event.delta.stop_sequence;
      if (event.delta.stop_details) message.stop_details = event.delta.stop_details;
      for (const [key, value] of Object.entries(event.usage ?? {})) if (value !== null) message.usage[key] = value;
    }
  }
  return message;
}

/** Every chunk has the OpenAI chunk shape; only the finish chunk has a finish_reason; usage chunks have no choices. */
function expectChunkShapes(items: StreamItem[], id: string, model: string) {
  for (const chunk of chunks(items)) {
    expect(chunk).toMatchObject({ id, object: "chat.completion.chunk", created: context.created, model, service_tier: "default" });
    expect(chunk.system_fingerprint).toMatch(/^fp_[0-9a-f]{12}$/);
    if (chunk.usage) expect(chunk.choices).toEqual([]);
    else {
      expect(chunk.choices).toHaveLength(1);
      expect(chunk.choices[0]).toEqual({
        index: 0,
        delta: expect.any(Object),
        logprobs: null,
        finish_reason: chunk.choices[0].finish_reason,
      });
    }
  }
  const withFinish = chunks(items).filter((chunk) => chunk.choices[0]?.finish_reason != null);
  expect(withFinish.length).toBeLessThanOrEqual(1);
}

const completeStreams = [
  "anthropic.messages.stream.sse",
  "anthropic.messages.stream.recorded.sse",
  "anthropic.messages.stream.tools.sse",
  "anthropic.messages.stream.thinking.sse",
  "anthropic.messages.stream.refusal.sse",
];

describe("AnthropicAdapter.stream on recorded streams", () => {
  it("plain text (anthropic.messages.stream.sse): the role on the first text chunk, one chunk per text delta, finish, usage, done; ping ignored", () => {
    const items = translateStream(recordedEvents("anthropic.messages.stream.sse"));
    const base = {
      id: "msg_4QpJur2dWWDjF6C758FbBw5vm12BaVipnK",
      object: "chat.completion.chunk",
      created: context.created,
      model: "claude-3-opus-latest",
      // What OpenAI's live chunks always carry (providers/openai-answer-fields.ts).
      service_tier: "default",
      system_fingerprint: expect.stringMatching(/^fp_[0-9a-f]{12}$/),
    };
    const choice = (delta: unknown, finish_reason: string | null = null) => ({
      kind: "chunk",
      chunk: { ...base, choices: [{ index: 0, delta, logprobs: null, finish_reason }] },
    });
    expect(items).toEqual([
      choice({ role: "assistant", content: "Hello", refusal: null }),
      choice({ content: " there" }),
      choice({ content: "!" }),
      choice({}, "stop"),
      {
        kind: "chunk",
        chunk: {
          ...base,
          choices: [],
          usage: { prompt_tokens: 11, completion_tokens: 6, total_tokens: 17, prompt_tokens_details: { cached_tokens: 0 } },
        },
        // What is billed: the record read from Anthropic's own usage.
        usage: { inputTokens: 11, cachedInputTokens: 0, cacheWrite5mTokens: 0, cacheWrite1hTokens: 0, outputTokens: 6 },
      },
      { kind: "done" },
    ]);
  });

  it("the recorded stream with whitespace-padded JSON (anthropic.messages.stream.recorded.sse)", () => {
    const items = translateStream(recordedEvents("anthropic.messages.stream.recorded.sse"));
    expectChunkShapes(items, "msg_013nnniYDrJDocdy5nrMU7cH", "claude-sonnet-4-5-20250929");
    const result = accumulateChunks(items);
    expect(JSON.parse(result.content!)).toEqual([12345, 67890]);
    expect(result.finishReason).toBe("stop");
    expect(result.usage).toEqual({
      prompt_tokens: 135,
      completion_tokens: 10,
      total_tokens: 145,
      prompt_tokens_details: { cached_tokens: 0 },
    });
    expect(items.at(-1)).toEqual({ kind: "done" });
  });

  it("text then a tool call with streamed arguments (anthropic.messages.stream.tools.sse)", () => {
    const items = translateStream(recordedEvents("anthropic.messages.stream.tools.sse"));
    expectChunkShapes(items, "msg_019Q1hrJbZG26Fb9BQhrkHEr", "claude-sonnet-4-20250514");
    // The tool_use block is Anthropic's content block 1 but the first tool call: index 0.
    expect(chunks(items).find((chunk) => chunk.choices[0]?.delta.tool_calls)?.choices[0].delta).toEqual({
      tool_calls: [{ index: 0, id: "toolu_01NRLabsLyVHZPKxbKvkfSMn", type: "function", function: { name: "get_weather", arguments: "" } }],
    });
    const result = accumulateChunks(items);
    expect(result.content).toBe("I'll check the current weather in Paris for you.");
    expect(result.toolCalls).toHaveLength(1);
    expect(JSON.parse(result.toolCalls[0]!.function.arguments)).toEqual({ location: "Paris" });
    expect(result.finishReason).toBe("tool_calls");
    expect(result.usage).toEqual({
      prompt_tokens: 377,
      completion_tokens: 65,
      total_tokens: 442,
      prompt_tokens_details: { cached_tokens: 0 },
    });
  });

  it("thinking then text, stopped by a refusal (anthropic.messages.stream.thinking.sse)", () => {
    const items = translateStream(recordedEvents("anthropic.messages.stream.thinking.sse"));
    expectChunkShapes(items, "msg_fixture_a_0001", "claude-fable-5");
    const result = accumulateChunks(items);
    expect(result.reasoning).toMatch(/^Simple educational question about what a solar eclipse is\./);
    expect(result.content).toBe("Hi"); // thinking never leaks into content
    expect(result.finishReason).toBe("content_filter");
    expect(result.refusal).toEqual(expect.any(String));
    expect(result.usage).toEqual({
      prompt_tokens: 28,
      completion_tokens: 106,
      total_tokens: 134,
      prompt_tokens_details: { cached_tokens: 0 },
      completion_tokens_details: { reasoning_tokens: 67 },
    });
  });

  it("a refusal with an explanation (anthropic.messages.stream.refusal.sse)", () => {
    const items = translateStream(recordedEvents("anthropic.messages.stream.refusal.sse"));
    const finish = chunks(items).find((chunk) => chunk.choices[0]?.finish_reason);
    // Nothing came before the refusal, so the role rides on it.
    expect(finish.choices[0]).toEqual({
      index: 0,
      delta: { role: "assistant", content: null, refusal: "This request was refused due to policy." },
      logprobs: null,
      finish_reason: "content_filter",
    });
    expect(accumulateChunks(items).usage).toEqual({
      prompt_tokens: 20,
      completion_tokens: 0,
      total_tokens: 20,
      prompt_tokens_details: { cached_tokens: 0 },
    });
  });

  it("an error event after HTTP 200 (anthropic.messages.stream.error.sse): an error item and nothing before it, so the proxy can still retry elsewhere", () => {
    const items = translateStream(recordedEvents("anthropic.messages.stream.error.sse"));
    expect(items.map((item) => item.kind)).toEqual(["error"]);
    // overloaded_error is a status, not a category (classify-anthropic-error.ts).
    expect(items[0]).toEqual({ kind: "error", category: undefined });
  });

  it.each(completeStreams)("streamed and non-streamed translations agree: %s", (file) => {
    const events = recordedEvents(file);
    const streamed = accumulateChunks(translateStream(events));
    const whole = adapter.response("chat", accumulateAnthropicMessage(events), context) as any;
    const message = whole.choices[0].message;
    expect(streamed.content).toBe(message.content);
    expect(streamed.reasoning).toBe(message.reasoning);
    expect(streamed.refusal).toBe(message.refusal);
    expect(streamed.finishReason).toBe(whole.choices[0].finish_reason);
    expect(streamed.usage).toEqual(whole.usage);
    // Argument text may differ in spacing (streamed fragments vs re-serialised input); the JSON is the same.
    const calls = (list: any[]) =>
      list.map((call) => ({ ...call, function: { ...call.function, arguments: JSON.parse(call.function.arguments) } }));
    expect(calls(streamed.toolCalls)).toEqual(calls(message.tool_calls ?? []));
  });
});

describe("AnthropicAdapter.stream", () => {
  const start = ev("message_start", {
    type: "message_start",
    message: {
      id: "msg_s",
      type: "message",
      role: "assistant",
      content: [],
      model: "claude-s",
      usage: { input_tokens: 5, output_tokens: 1 },
    },
  });
  const stop = ev("message_stop", { type: "message_stop" });
  const finish = (stopReason: string, usage: unknown = { output_tokens: 3 }) =>
    ev("message_delta", { type: "message_delta", delta: { stop_reason: stopReason, stop_sequence: null }, usage });

  it("a body cut before message_stop ends with nothing more: no finish, no usage, no done (the proxy sees a cut)", () => {
    // The plain recording without its final line end: per the SSE standard its message_stop is never complete.
    const events = parseSse(recorded.text("anthropic.messages.stream.sse"));
    const translator = adapter.stream(context);
    const items = events.flatMap((event) => translator.push(event));
    expect(items.some((item) => item.kind === "done")).toBe(false);
    expect(translator.end()).toEqual([]);
  });

  it("numbers tool calls 0, 1, ... and streams each one's arguments under its own index", () => {
    const items = translateStream([
      start,
      ev("content_block_start", { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } }),
      ev("content_block_delta", { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "Checking." } }),
      ev("content_block_stop", { type: "content_block_stop", index: 0 }),
      ev("content_block_start", {
        type: "content_block_start",
        index: 1,
        content_block: { type: "tool_use", id: "toolu_a", name: "get_weather", input: {} },
      }),
      ev("content_block_start", {
        type: "content_block_start",
        index: 2,
        content_block: { type: "tool_use", id: "toolu_b", name: "get_weather", input: {} },
      }),
      ev("content_block_delta", {
        type: "content_block_delta",
        index: 2,
        delta: { type: "input_json_delta", partial_json: '{"city":"Rome"}' },
      }),
      ev("content_block_delta", { type: "content_block_delta", index: 1, delta: { type: "input_json_delta", partial_json: '{"city":' } }),
      ev("content_block_delta", { type: "content_block_delta", index: 1, delta: { type: "input_json_delta", partial_json: '"Paris"}' } }),
      ev("content_block_stop", { type: "content_block_stop", index: 1 }),
      ev("content_block_stop", { type: "content_block_stop", index: 2 }),
      finish("tool_use"),
      stop,
    ]);
    const result = accumulateChunks(items);
    expect(result.toolCalls.map((call) => [call.id, JSON.parse(call.function.arguments)])).toEqual([
      ["toolu_a", { city: "Paris" }],
      ["toolu_b", { city: "Rome" }],
    ]);
  });

  it("gives a tool call that streamed no argument text the arguments {}", () => {
    const items = translateStream([
      start,
      ev("content_block_start", {
        type: "content_block_start",
        index: 0,
        content_block: { type: "tool_use", id: "toolu_n", name: "now", input: {} },
      }),
      ev("content_block_delta", { type: "content_block_delta", index: 0, delta: { type: "input_json_delta", partial_json: "" } }),
      ev("content_block_stop", { type: "content_block_stop", index: 0 }),
      finish("tool_use"),
      stop,
    ]);
    expect(accumulateChunks(items).toolCalls[0]!.function.arguments).toBe("{}");
  });

  it("takes input and cache tokens from message_start, output from message_delta; a null in message_delta erases nothing", () => {
    const items = translateStream([
      ev("message_start", {
        type: "message_start",
        message: {
          id: "msg_c",
          model: "claude-c",
          content: [],
          usage: { input_tokens: 50, cache_creation_input_tokens: 1000, cache_read_input_tokens: 2000, output_tokens: 1 },
        },
      }),
      finish("end_turn", { input_tokens: null, cache_read_input_tokens: null, output_tokens: 40 }),
      stop,
    ]);
    expect(accumulateChunks(items).usage).toEqual({
      prompt_tokens: 3050,
      completion_tokens: 40,
      total_tokens: 3090,
      prompt_tokens_details: { cached_tokens: 2000, cache_write_tokens: 1000 },
    });
    const usageItem = items.find((item) => item.kind === "chunk" && item.usage);
    expect(usageItem).toMatchObject({
      usage: { inputTokens: 3050, cachedInputTokens: 2000, cacheWrite5mTokens: 1000, cacheWrite1hTokens: 0, outputTokens: 40 },
    });
  });

  it("maps max_tokens to length on the final chunk", () => {
    expect(accumulateChunks(translateStream([start, finish("max_tokens"), stop])).finishReason).toBe("length");
  });

  it("still ends with a finish chunk when message_delta carried no stop reason", () => {
    const items = translateStream([start, ev("message_delta", { type: "message_delta", delta: {}, usage: { output_tokens: 2 } }), stop]);
    expect(accumulateChunks(items).finishReason).toBe("stop");
    expect(items.at(-1)).toEqual({ kind: "done" });
  });

  it("reports unparseable data as malformed: content lost, unless the event was a ping", () => {
    const translator = adapter.stream(context);
    expect(translator.push(ev("content_block_delta", "{not json"))).toEqual([{ kind: "malformed", lost: true }]);
    expect(translator.push(ev("message_delta", "[1]"))).toEqual([{ kind: "malformed", lost: true }]);
    expect(translator.push(ev("ping", "{not json"))).toEqual([{ kind: "malformed", lost: false }]);
  });

  it("ignores ping, signature and citation deltas, unknown events, and anything after message_stop", () => {
    const items = translateStream([
      start,
      ev("ping", { type: "ping" }),
      ev("content_block_delta", { type: "content_block_delta", index: 0, delta: { type: "signature_delta", signature: "c2ln" } }),
      ev("content_block_delta", { type: "content_block_delta", index: 0, delta: { type: "citations_delta", citation: {} } }),
      ev("future_event", { type: "future_event" }),
      finish("end_turn"),
      stop,
      ev("content_block_delta", { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "late" } }),
      stop,
    ]);
    expect(
      items.map((item) => (item.kind === "chunk" ? Object.keys((item.chunk as any).choices[0]?.delta ?? { usage: 1 }).join() : item.kind)),
    ).toEqual([
      "role,content,refusal", // message_start's role (with OpenAI's opening content and refusal), carried by the finish chunk (nothing else came)
      "usage",
      "done",
    ]);
  });

  it("reads the type from the data when a relay dropped the event name", () => {
    const items = translateStream([
      { ...start, event: "message" },
      ev("message", { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "Hi" } }),
    ]);
    expect(accumulateChunks(items).content).toBe("Hi");
  });

  it("an error event: its category from the body, even mid-answer; unreadable error data is still an error", () => {
    const notFound = translateStream([start, ev("error", { type: "error", error: { type: "not_found_error", message: "model: x" } })]);
    expect(notFound.at(-1)).toEqual({ kind: "error", category: "model_not_found" });
    expect(translateStream([start, ev("error", "Internal error")]).at(-1)).toEqual({ kind: "error", category: undefined });
  });

  it("uses the context's id and model until message_start names them", () => {
    const items = translateStream([
      ev("content_block_delta", { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "x" } }),
    ]);
    expect(chunks(items)[0]).toMatchObject({ id: "chatcmpl-gateway", model: "claude-from-catalogue" });
  });
});
