// The Anthropic Messages dialect's stream renderers. Native: recorded
// Anthropic streams relayed byte for byte, message_delta held back and given
// usage.cost, message_stop after it. Translated: shared chat chunks as
// Anthropic's exact event sequence and framing. Both: a failure ends with the
// usage and one `event: error`.
import { describe, expect, it } from "vitest";
import { anthropicMessages } from "../../src/dialects/anthropic-messages/anthropic-messages-dialect";
import type { AnswerContext, RenderContext } from "../../src/dialects/client-dialect";
import { streamFailed } from "../../src/errors";
import type { UsageRecord } from "../../src/billing/pricing";
import { AnthropicStreamTranslator } from "../../src/providers/anthropic/anthropic-stream-translator";
import { readChatUsage } from "../../src/providers/chat-usage";
import type { OpenAiChunk } from "../../src/providers/provider-adapter";
import { type SseEvent, SseParser } from "../../src/upstream/sse-parser";
import { fixtures } from "../support/fixture";

const request = anthropicMessages.parse({ model: "auto", max_tokens: 100, messages: [{ role: "user", content: "hi" }], stream: true });
const renderContext = (native: boolean): RenderContext => ({ request, requestId: "0b7c-42", native, upstreamModel: "up-model" });
const COST = 0.000012345;

/** The engine's context: the shared usage, and the record billed (as the meter reads it; {1, 1} estimated without usage). */
function answerContext(usage: unknown, fields: Partial<AnswerContext> = {}): AnswerContext {
  return {
    request,
    requestId: "0b7c-42",
    usage,
    tokens: readChatUsage({ usage }) ?? { inputTokens: 1, outputTokens: 1 },
    debitedNano: 12_345n,
    trace: {},
    upstreamModel: "up-model",
    ...fields,
  };
}

function events(text: string): SseEvent[] {
  return new SseParser().push(text).flatMap((item) => (item.kind === "event" ? [item.event] : []));
}

/** Each event's data as JSON, with its event name, from a rendered stream. */
function parsed(text: string): { event: string; data: Record<string, unknown> }[] {
  expect(text.endsWith("\n\n")).toBe(true);
  return text
    .slice(0, -2)
    .split("\n\n")
    .map((frame) => {
      const match = /^event: ([a-z_]+)\ndata: (.*)$/s.exec(frame);
      expect(match, frame).not.toBeNull();
      return { event: match![1]!, data: JSON.parse(match![2]!) };
    });
}

describe("the native stream renderer", () => {
  /** Replays a recording through the Anthropic translator (for the meter's usage) and the renderer. */
  function replay(file: string, failAfter?: number) {
    const recorded = `${fixtures("anthropic-messages").text(file).replace(/\n*$/, "")}\n\n`;
    const translator = new AnthropicStreamTranslator({ id: "x", created: 1, model: "m" });
    const renderer = anthropicMessages.streamRenderer(renderContext(true));
    let usage: unknown;
    let record: UsageRecord | undefined;
    let out = "";
    const all = events(recorded);
    for (const event of failAfter === undefined ? all : all.slice(0, failAfter)) {
      const chunks: OpenAiChunk[] = [];
      for (const item of translator.push(event)) {
        if (item.kind !== "chunk") continue;
        chunks.push(item.chunk);
        if (item.usage) [usage, record] = [item.chunk.usage, item.usage];
      }
      out += renderer.frames(event, chunks);
    }
    const context = answerContext(usage, record ? { tokens: record } : {});
    out += renderer.finish(context, failAfter === undefined ? undefined : streamFailed());
    return { recorded, out };
  }

  it.each<[string, Record<string, number>]>([
    ["anthropic.messages.stream.recorded.sse", {}],
    // Its message_delta reports only output_tokens: the cumulative input and cache counts are added.
    ["anthropic.messages.stream.tools.sse", { input_tokens: 377, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 }],
    ["anthropic.messages.stream.thinking.sse", {}],
  ])("relays %s byte for byte, except message_delta's usage (cost and the counts it lacks)", (file, added) => {
    const { recorded, out } = replay(file);
    const deltaLine = /^data: (\{"type":"message_delta".*)$/m.exec(recorded)!;
    const delta = JSON.parse(deltaLine[1]!);
    delta.usage = { ...delta.usage, ...added, cost: COST };
    expect(out).toBe(recorded.replace(deltaLine[0], `data: ${JSON.stringify(delta)}`));
  });

  it("writes message_delta and message_stop only at the end, message_delta's usage complete with cache fields", () => {
    const { out } = replay("anthropic.messages.stream.tools.sse");
    const frames = parsed(out);
    expect(frames.slice(-2).map((frame) => frame.event)).toEqual(["message_delta", "message_stop"]);
    expect(frames.at(-2)!.data.usage).toMatchObject({
      input_tokens: 377,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
      cost: COST,
    });
  });

  it("holds message_start and ping back until the first content event, so an overload right after message_start can be retried", () => {
    const renderer = anthropicMessages.streamRenderer(renderContext(true));
    const start = { event: "message_start", data: '{"type":"message_start","message":{"id":"msg_1"}}', id: undefined };
    const ping = { event: "ping", data: '{"type": "ping"}', id: undefined };
    const block = { event: "content_block_start", data: '{"type":"content_block_start","index":0}', id: undefined };
    expect(renderer.frames(start, [])).toBe("");
    expect(renderer.frames(ping, [])).toBe("");
    expect(renderer.frames(block, [])).toBe(
      `event: message_start\ndata: ${start.data}\n\nevent: ping\ndata: ${ping.data}\n\nevent: content_block_start\ndata: ${block.data}\n\n`,
    );
    expect(renderer.frames(ping, [])).toBe(`event: ping\ndata: ${ping.data}\n\n`);
  });

  it("fills the cumulative counts a message_delta lacks from message_start's", () => {
    const renderer = anthropicMessages.streamRenderer(renderContext(true));
    renderer.frames(
      {
        event: "message_delta",
        data: '{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":9}}',
        id: undefined,
      },
      [],
    );
    const usage = { prompt_tokens: 120, completion_tokens: 9, prompt_tokens_details: { cached_tokens: 100, cache_write_tokens: 15 } };
    const [delta] = parsed(renderer.finish(answerContext(usage), undefined));
    expect(delta!.data.usage).toEqual({
      output_tokens: 9,
      input_tokens: 5,
      cache_creation_input_tokens: 15,
      cache_read_input_tokens: 100,
      cost: COST,
    });
  });

  it("ends a stream cut after the first events with message_delta (usage, cost) and one error event, no message_stop", () => {
    const { out } = replay("anthropic.messages.stream.recorded.sse", 5);
    const frames = parsed(out);
    expect(frames.slice(-2).map((frame) => frame.event)).toEqual(["message_delta", "error"]);
    // No usage reached the meter before the cut: message_delta says the billed (estimated) counts.
    expect(frames.at(-2)!.data).toMatchObject({ delta: { stop_reason: null }, usage: { input_tokens: 1, output_tokens: 1, cost: COST } });
    expect(frames.at(-1)!.data).toEqual({
      type: "error",
      error: { type: "api_error", message: "The upstream provider failed during the stream.", code: 502 },
    });
  });
});

describe("the translated stream renderer", () => {
  const chunk = (delta: Record<string, unknown>, finish: string | null = null): OpenAiChunk => ({
    id: "chatcmpl-1",
    object: "chat.completion.chunk",
    created: 1,
    model: "gpt-4.1-mini",
    choices: [{ index: 0, delta, finish_reason: finish }],
  });
  const ignored: SseEvent = { event: "message", data: "ignored", id: undefined };
  const usage = { prompt_tokens: 50, completion_tokens: 12, total_tokens: 62, prompt_tokens_details: { cached_tokens: 20 } };

  it("writes Anthropic's exact event sequence: message_start, ping, blocks in order (thinking, text, tool_use), message_delta, message_stop", () => {
    const renderer = anthropicMessages.streamRenderer(renderContext(false));
    let out = renderer.frames(ignored, [chunk({ role: "assistant", content: "" })]);
    out += renderer.frames(ignored, [chunk({ reasoning: "Think" }), chunk({ reasoning: "ing." })]);
    out += renderer.frames(ignored, [chunk({ content: "Hel" }), chunk({ content: "lo" })]);
    out += renderer.frames(ignored, [
      chunk({ tool_calls: [{ index: 0, id: "call_1", type: "function", function: { name: "get_weather", arguments: "" } }] }),
    ]);
    out += renderer.frames(ignored, [chunk({ tool_calls: [{ index: 0, function: { arguments: '{"city":' } }] })]);
    out += renderer.frames(ignored, [chunk({ tool_calls: [{ index: 0, function: { arguments: '"Paris"}' } }] })]);
    out += renderer.frames(ignored, [chunk({}, "tool_calls")]);
    out += renderer.frames(ignored, [{ id: "chatcmpl-1", object: "chat.completion.chunk", choices: [], usage }]);
    out += renderer.finish(answerContext(usage), undefined);
    const message = {
      id: "msg_0b7c42",
      type: "message",
      role: "assistant",
      model: "gpt-4.1-mini",
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: {
        input_tokens: 0,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 0,
        cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 0 },
        output_tokens: 0,
      },
    };
    const frame = (name: string, data: unknown) => `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;
    const blockDelta = (index: number, delta: unknown) => frame("content_block_delta", { type: "content_block_delta", index, delta });
    expect(out).toBe(
      [
        frame("message_start", { type: "message_start", message }),
        frame("ping", { type: "ping" }),
        frame("content_block_start", {
          type: "content_block_start",
          index: 0,
          content_block: { type: "thinking", thinking: "", signature: "" },
        }),
        blockDelta(0, { type: "thinking_delta", thinking: "Think" }),
        blockDelta(0, { type: "thinking_delta", thinking: "ing." }),
        frame("content_block_stop", { type: "content_block_stop", index: 0 }),
        frame("content_block_start", { type: "content_block_start", index: 1, content_block: { type: "text", text: "" } }),
        blockDelta(1, { type: "text_delta", text: "Hel" }),
        blockDelta(1, { type: "text_delta", text: "lo" }),
        frame("content_block_stop", { type: "content_block_stop", index: 1 }),
        frame("content_block_start", {
          type: "content_block_start",
          index: 2,
          content_block: { type: "tool_use", id: "call_1", name: "get_weather", input: {} },
        }),
        // A tool call is written whole once no more fragments can belong to it: its arguments in one delta.
        blockDelta(2, { type: "input_json_delta", partial_json: '{"city":"Paris"}' }),
        frame("content_block_stop", { type: "content_block_stop", index: 2 }),
        frame("message_delta", {
          type: "message_delta",
          delta: { stop_reason: "tool_use", stop_sequence: null },
          usage: {
            input_tokens: 30,
            cache_creation_input_tokens: 0,
            cache_read_input_tokens: 20,
            cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 0 },
            output_tokens: 12,
            cost: COST,
          },
        }),
        frame("message_stop", { type: "message_stop" }),
      ].join(""),
    );
  });

  /** The tool_use blocks of a rendered stream: each start, its arguments joined, and its stop, by block index. */
  function toolBlocks(text: string) {
    const frames = parsed(text);
    const blocks = frames.filter((frame) => frame.event === "content_block_start").map((frame) => frame.data);
    return blocks.map((start) => {
      const index = start.index as number;
      const deltas = frames.filter((frame) => frame.event === "content_block_delta" && frame.data.index === index);
      const stops = frames.filter((frame) => frame.event === "content_block_stop" && frame.data.index === index);
      const json = deltas.map((frame) => (frame.data.delta as { partial_json?: string }).partial_json ?? "").join("");
      return { index, block: start.content_block, json, stops: stops.length };
    });
  }

  it("opens one tool_use block per tool call, in order", () => {
    const renderer = anthropicMessages.streamRenderer(renderContext(false));
    let out = renderer.frames(ignored, [
      chunk({ tool_calls: [{ index: 0, id: "a", function: { name: "f", arguments: "{}" } }] }),
      chunk({ tool_calls: [{ index: 1, id: "b", function: { name: "g", arguments: "{}" } }] }),
    ]);
    out += renderer.finish(answerContext(usage), undefined);
    expect(toolBlocks(out)).toEqual([
      { index: 0, block: { type: "tool_use", id: "a", name: "f", input: {} }, json: "{}", stops: 1 },
      { index: 1, block: { type: "tool_use", id: "b", name: "g", input: {} }, json: "{}", stops: 1 },
    ]);
  });

  it("keeps two calls of one delta without index apart, by their ids", () => {
    const renderer = anthropicMessages.streamRenderer(renderContext(false));
    let out = renderer.frames(ignored, [
      chunk({
        tool_calls: [
          { id: "a", type: "function", function: { name: "f", arguments: '{"x":1}' } },
          { id: "b", type: "function", function: { name: "g", arguments: '{"y":2}' } },
        ],
      }),
    ]);
    out += renderer.finish(answerContext(usage), undefined);
    expect(toolBlocks(out)).toEqual([
      { index: 0, block: { type: "tool_use", id: "a", name: "f", input: {} }, json: '{"x":1}', stops: 1 },
      { index: 1, block: { type: "tool_use", id: "b", name: "g", input: {} }, json: '{"y":2}', stops: 1 },
    ]);
  });

  it("gathers interleaved fragments (indices 0, 1, 0) into their own calls, each written whole once the next block starts", () => {
    const renderer = anthropicMessages.streamRenderer(renderContext(false));
    let out = renderer.frames(ignored, [
      chunk({ tool_calls: [{ index: 0, id: "a", function: { name: "f", arguments: '{"x":' } }] }),
      chunk({ tool_calls: [{ index: 1, id: "b", function: { name: "g", arguments: '{"y":2}' } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: "1}" } }] }),
    ]);
    out += renderer.frames(ignored, [chunk({ content: "Done." })]);
    out += renderer.finish(answerContext(usage), undefined);
    expect(toolBlocks(out)).toEqual([
      { index: 0, block: { type: "tool_use", id: "a", name: "f", input: {} }, json: '{"x":1}', stops: 1 },
      { index: 1, block: { type: "tool_use", id: "b", name: "g", input: {} }, json: '{"y":2}', stops: 1 },
      { index: 2, block: { type: "text", text: "" }, json: "", stops: 1 },
    ]);
  });

  it("opens the stream only with the first chunk that has content: after a role-only chunk nothing is written (a failure can be retried)", () => {
    const renderer = anthropicMessages.streamRenderer(renderContext(false));
    expect(renderer.frames(ignored, [chunk({ role: "assistant", content: "" })])).toBe("");
    const first = parsed(renderer.frames(ignored, [chunk({ content: "Hi" })]));
    expect(first.map((frame) => frame.event)).toEqual(["message_start", "ping", "content_block_start", "content_block_delta"]);
  });

  it("sends message_start and ping at the end when nothing was sent", () => {
    const renderer = anthropicMessages.streamRenderer(renderContext(false));
    expect(renderer.frames(ignored, [chunk({ role: "assistant" }), chunk({}, "stop")])).toBe("");
    const frames = parsed(renderer.finish(answerContext(usage), undefined));
    expect(frames.map((frame) => frame.event)).toEqual(["message_start", "ping", "message_delta", "message_stop"]);
  });

  it("writes a refusal delta as text, and stop_reason refusal", () => {
    const renderer = anthropicMessages.streamRenderer(renderContext(false));
    let out = renderer.frames(ignored, [chunk({ role: "assistant", content: null, refusal: "" }), chunk({ refusal: "I can't" })]);
    out += renderer.frames(ignored, [chunk({}, "stop")]);
    const frames = parsed(out + renderer.finish(answerContext(usage), undefined));
    expect(frames.find((frame) => frame.event === "content_block_delta")!.data.delta).toEqual({ type: "text_delta", text: "I can't" });
    expect(frames.at(-2)!.data.delta).toEqual({ stop_reason: "refusal", stop_sequence: null });
  });

  it("maps a length finish to max_tokens, and says end_turn when no finish came", () => {
    const capped = anthropicMessages.streamRenderer(renderContext(false));
    capped.frames(ignored, [chunk({ content: "x" }, "length")]);
    expect(parsed(capped.finish(answerContext(usage), undefined)).at(-2)!.data.delta).toEqual({
      stop_reason: "max_tokens",
      stop_sequence: null,
    });
    const open = anthropicMessages.streamRenderer(renderContext(false));
    open.frames(ignored, [chunk({ content: "x" })]);
    const frames = parsed(open.finish(answerContext(usage), undefined));
    expect(frames.map((frame) => frame.event).slice(-3)).toEqual(["content_block_stop", "message_delta", "message_stop"]);
    expect(frames.at(-2)!.data.delta).toEqual({ stop_reason: "end_turn", stop_sequence: null });
  });

  it("ends a failed stream by closing the open block, message_delta with usage and cost, then one error event", () => {
    const renderer = anthropicMessages.streamRenderer(renderContext(false));
    renderer.frames(ignored, [chunk({ content: "partial" })]);
    const frames = parsed(renderer.finish(answerContext(undefined, { tokens: { inputTokens: 7, outputTokens: 2 } }), streamFailed()));
    expect(frames.map((frame) => frame.event)).toEqual(["content_block_stop", "message_delta", "error"]);
    expect(frames[1]!.data).toEqual({
      type: "message_delta",
      delta: { stop_reason: null, stop_sequence: null },
      usage: {
        input_tokens: 7,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 0,
        cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 0 },
        output_tokens: 2,
        cost: COST,
      },
    });
    expect(frames[2]!.data).toMatchObject({ type: "error", error: { type: "api_error", code: 502 } });
  });

  it("renders nothing for the usage-only chunk", () => {
    const renderer = anthropicMessages.streamRenderer(renderContext(false));
    expect(renderer.frames(ignored, [{ id: "c", choices: [], usage }])).toBe("");
  });
});
