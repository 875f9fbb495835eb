// Anthropic Messages and Responses streams to clients of the same dialect,
// their text deltas relayed as bytes (providers/anthropic/messages-event-bytes.ts,
// providers/openai-compatible/responses-event-bytes.ts) against the pipeline
// that parses every event: the recorded streams, then generated ones (text,
// thinking and tool deltas, usage, errors, pings, held openings, odd JSON,
// other framings, invalid UTF-8, cut bodies), each split into reads at random.
// Both must give the client the same bytes and bill the same usage.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it, vi } from "vitest";
import { SseResponse } from "../../src/engine/sse-response";
import { reads, relayOnce } from "../support/relay-harness";

const FIXTURES = join(__dirname, "../../../mock-provider/fixtures");
const recorded = (pattern: RegExp) =>
  readdirSync(FIXTURES)
    .filter((name) => pattern.test(name))
    .map((name) => ({ name, bytes: readFileSync(join(FIXTURES, name)) }));

vi.spyOn(Date, "now").mockReturnValue(1_790_000_000_000);
const relayed = vi.spyOn(SseResponse.prototype, "addBytes");

type Dialect = "messages" | "responses";

async function same(dialect: Dialect, body: Buffer, cuts: readonly number[]): Promise<void> {
  const parsed = await relayOnce(reads(body, cuts), { stream: true, relayBytes: false, dialect });
  const bytes = await relayOnce(reads(body, cuts), { stream: true, relayBytes: true, dialect });
  expect(bytes.kind).toBe(parsed.kind);
  expect(bytes.billed).toEqual(parsed.billed);
  expect(bytes.attempt).toEqual(parsed.attempt);
  expect(bytes.malformed).toEqual(parsed.malformed);
  expect(bytes.client.toString()).toBe(parsed.client.toString());
}

describe("recorded streams", () => {
  const cases = [
    ...recorded(/^(anthropic\.messages|vertex\.claude)\..*\.sse$/).map((each) => ({ ...each, dialect: "messages" as const })),
    ...recorded(/^openai\.responses\..*\.sse$/).map((each) => ({ ...each, dialect: "responses" as const })),
  ];
  it.each(cases)("$name: the same bytes and bill, whole and read byte by byte", async ({ name, bytes, dialect }) => {
    relayed.mockClear();
    await same(dialect, bytes, []);
    await same(
      dialect,
      bytes,
      Array.from({ length: 150 }, (_, index) => index / 150),
    );
    if (!name.includes("error")) expect(relayed.mock.calls.length).toBeGreaterThan(0);
  });
});

// ---- Generated streams ----

const text = fc.oneof(
  { weight: 8, arbitrary: fc.string({ unit: "grapheme", maxLength: 10 }) },
  { weight: 3, arbitrary: fc.constantFrom("", "\n", '"q"', "back\\slash", "\u2028", "😀", "日本語") },
  { weight: 1, arbitrary: fc.constantFrom("\ud83d", "\ude00x") },
);
const fraction = fc.integer({ min: 0, max: 1000 }).map((permille) => permille / 1000);
const frame = (name: string, data: string) => `event: ${name}\ndata: ${data}\n\n`;
const json = (name: string, value: unknown) => frame(name, JSON.stringify(value));

/** Odd events any stream may carry: the scan reads them as the parser does, or leaves them to it. */
const oddEvent = (delta: string) =>
  fc.constantFrom(
    frame(delta, '{"type":"x","delta":{"type":"text_delta","text":"a","text":"bb"},"delta":"dup"}'),
    frame(delta, '{"type":"content_block_delta","index":0,"delta":{"type":"text_\\u0064elta","text":"esc"}}'),
    frame(delta, '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":7}}'),
    frame(delta, '{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"\\ud800"}}'),
    frame(delta, '{"t\\u0079pe":"other","delta":"escaped key"}'),
    frame(delta, '{"delta":"x","delta":"yy"}'),
    frame(delta, '{"type":"response.output_text.delta","delta":{"not":"text"}}'),
    frame(delta, '{"type":"content_block_delta","delta":{"type":"text_delta","text":"spaced" } }'),
    frame(delta, "not json"),
    frame(delta, "[1]"),
    frame(delta, '{"type":"content_block_delta","delta":{"type":"text_delta","text":"cut'),
    ": keep-alive\n\n",
    'event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n',
    `event: ${delta}\nid: 4\ndata: {"delta":"with an id"}\n\n`,
    `data: {"type":"${delta}","delta":"unnamed"}\n\n`,
  );

const anthropicEvent = fc.oneof(
  {
    weight: 12,
    arbitrary: fc.record({ index: fc.nat(2), kind: fc.constantFrom("text_delta", "thinking_delta"), text }).map(({ index, kind, text }) =>
      json("content_block_delta", {
        type: "content_block_delta",
        index,
        delta: kind === "text_delta" ? { type: kind, text } : { type: kind, thinking: text },
      }),
    ),
  },
  {
    weight: 2,
    arbitrary: fc
      .record({ index: fc.nat(2), partial: text })
      .map(({ index, partial }) =>
        json("content_block_delta", { type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json: partial } }),
      ),
  },
  {
    weight: 2,
    arbitrary: fc.record({ index: fc.nat(2), type: fc.constantFrom("text", "thinking", "tool_use") }).map(({ index, type }) =>
      json("content_block_start", {
        type: "content_block_start",
        index,
        content_block: type === "tool_use" ? { type, id: "toolu_1", name: "f", input: {} } : { type, [type]: "" },
      }),
    ),
  },
  { weight: 1, arbitrary: fc.nat(2).map((index) => json("content_block_stop", { type: "content_block_stop", index })) },
  { weight: 1, arbitrary: fc.constant(json("ping", { type: "ping" })) },
  { weight: 2, arbitrary: oddEvent("content_block_delta") },
);

const anthropicStream = fc.record({
  start: fc.boolean(),
  events: fc.array(anthropicEvent, { maxLength: 14 }),
  end: fc.constantFrom("delta-stop", "delta", "none"),
  output: fc.nat(4000),
});

const responsesEvent = fc.oneof(
  {
    weight: 12,
    arbitrary: fc
      .record({
        name: fc.constantFrom(
          "response.output_text.delta",
          "response.refusal.delta",
          "response.reasoning_summary_text.delta",
          "response.reasoning_text.delta",
        ),
        text,
        sequence: fc.nat(100),
        typed: fc.boolean(),
      })
      .map(({ name, text, sequence, typed }) =>
        json(name, { ...(typed ? { type: name } : {}), item_id: "msg_1", output_index: 0, delta: text, sequence_number: sequence }),
      ),
  },
  {
    weight: 1,
    arbitrary: fc.constant(
      json("response.output_item.added", { type: "response.output_item.added", output_index: 0, item: { type: "message" } }),
    ),
  },
  {
    weight: 1,
    arbitrary: fc.constant(
      json("response.function_call_arguments.delta", { type: "response.function_call_arguments.delta", output_index: 1, delta: "{}" }),
    ),
  },
  { weight: 2, arbitrary: oddEvent("response.output_text.delta") },
);

const responsesStream = fc.record({
  added: fc.boolean(),
  events: fc.array(responsesEvent, { maxLength: 14 }),
  completed: fc.boolean(),
  output: fc.nat(4000),
});

const framing = fc.constantFrom("lf", "lf", "lf", "lf", "crlf", "bom");
const body = (text: string, how: string) =>
  how === "crlf" ? Buffer.from(text.replaceAll("\n", "\r\n")) : how === "bom" ? Buffer.from(`\ufeff${text}`) : Buffer.from(text);
const cutShort = fc.oneof({ weight: 4, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: fraction });

describe("generated streams", () => {
  it("Messages: the same bytes and bill either way, for 2,000 streams", async () => {
    relayed.mockClear();
    await fc.assert(
      fc.asyncProperty(anthropicStream, framing, cutShort, fc.array(fraction, { maxLength: 6 }), async (stream, how, cutAt, cuts) => {
        let text = stream.start
          ? json("message_start", {
              type: "message_start",
              message: {
                id: "msg_1",
                type: "message",
                role: "assistant",
                content: [],
                model: "claude-test",
                usage: { input_tokens: 12, output_tokens: 1 },
              },
            })
          : "";
        text += stream.events.join("");
        if (stream.end !== "none")
          text += json("message_delta", {
            type: "message_delta",
            delta: { stop_reason: "end_turn" },
            usage: { output_tokens: stream.output },
          });
        if (stream.end === "delta-stop") text += json("message_stop", { type: "message_stop" });
        let bytes = body(text, how);
        if (cutAt !== null) bytes = bytes.subarray(0, Math.floor(cutAt * bytes.length));
        await same("messages", bytes, cuts);
      }),
      { numRuns: 2000 },
    );
    expect(relayed.mock.calls.length).toBeGreaterThan(1000);
  });

  it("Responses: the same bytes and bill either way, for 2,000 streams", async () => {
    relayed.mockClear();
    const snapshot = { id: "resp_1", object: "response", created_at: 1_790_000_000, model: "gpt-test", status: "in_progress", output: [] };
    await fc.assert(
      fc.asyncProperty(responsesStream, framing, cutShort, fc.array(fraction, { maxLength: 6 }), async (stream, how, cutAt, cuts) => {
        let text = json("response.created", { type: "response.created", response: snapshot, sequence_number: 0 });
        if (stream.added)
          text += json("response.output_item.added", { type: "response.output_item.added", output_index: 0, item: { type: "message" } });
        text += stream.events.join("");
        if (stream.completed)
          text += json("response.completed", {
            type: "response.completed",
            response: {
              ...snapshot,
              status: "completed",
              usage: { input_tokens: 9, output_tokens: stream.output, total_tokens: 9 + stream.output },
            },
          });
        let bytes = body(text, how);
        if (cutAt !== null) bytes = bytes.subarray(0, Math.floor(cutAt * bytes.length));
        await same("responses", bytes, cuts);
      }),
      { numRuns: 2000 },
    );
    expect(relayed.mock.calls.length).toBeGreaterThan(1000);
  });
});
