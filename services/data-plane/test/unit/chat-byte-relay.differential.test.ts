// Same-dialect answers relayed as bytes (engine/chat-byte-relay.ts) against the
// pipeline that parses and writes them again: the recorded OpenAI-compatible
// streams and answers, then thousands of generated ones (content in every
// script, escapes, tool calls, images, usage with and without an aggregator's
// cost, errors, comments, malformed events, other framings, invalid UTF-8, cut
// bodies), each split into reads at random. Both must give the client the same
// bytes (the same JSON where the upstream's was not compact: the bytes path
// keeps the upstream's spacing) and bill the same usage, with the same outcome.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { afterEach, describe, expect, it, vi } from "vitest";
import { SseResponse } from "../../src/engine/sse-response";
import { type RelayRun, reads, relayOnce } from "../support/relay-harness";

const FIXTURES = join(__dirname, "../../../mock-provider/fixtures");
const recorded = (suffix: string) =>
  readdirSync(FIXTURES)
    .filter((name) => /^(openai|azure|openrouter)\.chat\./.test(name) && name.endsWith(suffix))
    .map((name) => ({ name, bytes: readFileSync(join(FIXTURES, name)) }));

/** The client's frames (SSE) or body, with each JSON read so that spacing does not count. */
function frames(client: Buffer, stream: boolean): unknown[] {
  const text = client.toString();
  const parts = stream ? text.split("\n\n") : [text];
  return parts.map((part) => {
    const data = stream ? part.replace(/^data: /, "") : part;
    try {
      return { json: JSON.parse(data) as unknown };
    } catch {
      return part;
    }
  });
}

/** Relays `body` both ways and requires the same client bytes (or JSON, `compact` false), bill and outcome. */
async function same(body: Buffer, cuts: readonly number[], stream: boolean, compact: boolean, service = false): Promise<RelayRun> {
  const parsed = await relayOnce(reads(body, cuts), { stream, relayBytes: false, service });
  const bytes = await relayOnce(reads(body, cuts), { stream, relayBytes: true, service });
  expect(bytes.kind).toBe(parsed.kind);
  expect(bytes.billed).toEqual(parsed.billed);
  expect(bytes.attempt).toEqual(parsed.attempt);
  expect(bytes.malformed).toEqual(parsed.malformed);
  if (compact) expect(bytes.client.toString()).toBe(parsed.client.toString());
  else expect(frames(bytes.client, stream)).toEqual(frames(parsed.client, stream));
  return bytes;
}

// A stream without a usage chunk gets one written with the time as `created`: the same second for both paths.
vi.spyOn(Date, "now").mockReturnValue(1_790_000_000_000);

let relayedFrames = 0;
const spy = vi.spyOn(SseResponse.prototype, "addBytes");
afterEach(() => {
  relayedFrames += spy.mock.calls.length;
  spy.mockClear();
});

describe("recorded answers", () => {
  it.each(recorded(".sse"))("$name streams the same, whole and read byte by byte", async ({ name, bytes }) => {
    await same(bytes, [], true, true);
    await same(
      bytes,
      Array.from({ length: 200 }, (_, index) => index / 200),
      true,
      true,
    );
    // Their content goes out as bytes (OpenRouter's error comes first: nothing of it is relayed).
    if (!name.includes("error")) expect(spy.mock.calls.length).toBeGreaterThan(10);
  });

  it.each(recorded(".response.json"))("$name is answered the same", async ({ bytes }) => {
    await same(bytes, [0.5], false, false);
    await same(bytes, [], false, false, true);
  });
});

// ---- Generated streams ----

const text = fc.oneof(
  { weight: 12, arbitrary: fc.string({ unit: "grapheme", maxLength: 12 }) },
  { weight: 1, arbitrary: fc.string({ unit: "binary", maxLength: 6 }) },
  { weight: 6, arbitrary: fc.constantFrom("", "\n", '"quoted"', "back\\slash", "tab\there", "\u2028", "😀", "é", "日本語") },
  // Lone surrogate halves (JSON.stringify escapes them): the scan leaves them to the parser.
  { weight: 1, arbitrary: fc.constantFrom("\ud83d", "\ude00x") },
);
/** One choice's delta: the fields OpenAI and its peers stream. */
const delta = fc.record(
  {
    role: fc.constant("assistant"),
    content: fc.oneof(text, fc.constant(null)),
    refusal: fc.oneof(text, fc.constant(null)),
    reasoning: text,
    tool_calls: fc.array(
      fc.record({ index: fc.nat(3), id: text, type: fc.constant("function"), function: fc.record({ name: text, arguments: text }) }),
      { maxLength: 2 },
    ),
  },
  { requiredKeys: [] },
);
/** A delta with images (billed per image): the parser's. */
const withImages = delta.map((each) => ({ ...each, images: [{ type: "image_url", image_url: { url: "data:image/png;base64,AAAA" } }] }));

const head = { id: "chatcmpl-x", object: "chat.completion.chunk", created: 1_790_000_000, model: "gpt-test" };
const usage = fc.record(
  {
    prompt_tokens: fc.nat(5000),
    completion_tokens: fc.nat(5000),
    total_tokens: fc.nat(10000),
    cost: fc.double({ min: 0, max: 1, noNaN: true }),
    prompt_tokens_details: fc.record({ cached_tokens: fc.nat(100) }),
  },
  { requiredKeys: ["prompt_tokens", "completion_tokens"] },
);

/** One event's data as JSON text: compact (JSON.stringify) or written otherwise (`compact` false). */
type Data = { data: string; compact: boolean };
const json = (value: unknown): Data => ({ data: JSON.stringify(value), compact: true });

const contentChunk = fc
  .record({
    deltas: fc.array(fc.oneof({ weight: 9, arbitrary: delta }, { weight: 1, arbitrary: withImages }), { minLength: 1, maxLength: 2 }),
    usageNull: fc.boolean(),
    finish: fc.constantFrom(null, "stop"),
  })
  .map(({ deltas, usageNull, finish }) =>
    json({
      ...head,
      choices: deltas.map((each, index) => ({ index, delta: each, logprobs: null, finish_reason: finish })),
      ...(usageNull ? { usage: null } : {}),
    }),
  );
const usageChunk = fc
  .record({ usage, tier: fc.option(fc.constantFrom("default", "flex", "priority")) })
  .map(({ usage, tier }) => json({ ...head, ...(tier ? { service_tier: tier } : {}), choices: [], usage }));

/** JSON the scan must read as JSON.parse does, or leave to it. */
const oddData: fc.Arbitrary<Data> = fc.oneof(
  fc.constant({ data: '{ "id" : "x", "choices" : [ { "index" : 0, "delta" : { "content" : "spaced" } } ] }', compact: false }),
  fc.constant({ data: '{"id":"x","choices":[{"index":0,"delta":{"content":"\\u00e9\\ud83d\\ude00\\n"}}]}', compact: false }),
  fc.constant({ data: '{"id":"x","choices":[{"index":0,"delta":{"content":"a","content":"bb"}}]}', compact: false }),
  fc.constant({ data: '{"id":"x","choices":[{"index":0,"d\\u0065lta":{"content":"hidden"}}]}', compact: false }),
  fc.constant({ data: '{"id":"x","choices":[{"index":0,"delta":{"content":"\\ud800"}}]}', compact: false }),
  fc.constant({ data: '{"id":"x","choices":[null]}', compact: true }),
  fc.constant({ data: '{"id":"x","choices":[],"usage":{"prompt_tokens":3, "completion_tokens":4}}', compact: false }),
  fc.constant({ data: '{"id":"x","choices":[],"usage":{}}', compact: true }),
  fc.constant({ data: '{"id":"x","choices":[{"index":0,"delta":{"content":1e5}}],"n":-0.5E+2}', compact: false }),
  fc.constant({ data: '{"error":{"message":"overloaded","code":502}}', compact: true }),
  fc.constant({ data: '{"id":"x","error":null,"choices":[{"index":0,"delta":{"content":"e"}}]}', compact: true }),
  fc.constant({ data: '{"id":"x","choices":[{"index":0,"delta":{"content":"cut', compact: true }),
  fc.constant({ data: "[1,2]", compact: true }),
  fc.constant({ data: "not json", compact: true }),
  fc.constant({ data: '{"id":"x"} trailing', compact: true }),
  fc.constant({ data: '{"a":tru}', compact: true }),
  fc.constant({ data: '{"a":01}', compact: true }),
  fc.constant({ data: '{"a":"\\x"}', compact: true }),
);

type Event = { kind: "data"; data: Data } | { kind: "comment" } | { kind: "error-event" } | { kind: "raw"; bytes: Buffer };
const event: fc.Arbitrary<Event> = fc.oneof(
  { weight: 24, arbitrary: contentChunk.map((data): Event => ({ kind: "data", data })) },
  { weight: 1, arbitrary: usageChunk.map((data): Event => ({ kind: "data", data })) },
  { weight: 2, arbitrary: oddData.map((data): Event => ({ kind: "data", data })) },
  { weight: 1, arbitrary: fc.constant<Event>({ kind: "comment" }) },
  { weight: 1, arbitrary: fc.constant<Event>({ kind: "error-event" }) },
  // Invalid UTF-8 inside a chunk's text.
  {
    weight: 1,
    arbitrary: fc.constant<Event>({
      kind: "raw",
      bytes: Buffer.from([...Buffer.from('data: {"choices":[{"delta":{"content":"'), 0xff, 0x22, 0x7d, 0x7d, 0x5d, 0x7d, 10, 10]),
    }),
  },
);

/** How the upstream frames its events: the canonical form, or one the parser must take over. */
const framing = fc.constantFrom("lf", "lf", "lf", "lf", "lf", "lf", "crlf", "no-space", "id-lines", "named", "bom", "extra-blank");

function frame(each: Event, how: string): Buffer {
  if (each.kind === "raw") return each.bytes;
  if (each.kind === "comment") return Buffer.from(": keep-alive\n\n");
  if (each.kind === "error-event") return Buffer.from('event: error\ndata: {"error":{"message":"boom"}}\n\n');
  const { data } = each.data;
  const line = how === "no-space" ? `data:${data}` : `data: ${data}`;
  const field = how === "id-lines" ? "id: 7\n" : how === "named" ? "event: message\n" : "";
  const text = `${field}${line}\n\n${how === "extra-blank" ? "\n" : ""}`;
  return Buffer.from(how === "crlf" ? text.replaceAll("\n", "\r\n") : text);
}

/** A place in a body, as a fraction of its length (read boundaries, a cut). */
const fraction = fc.integer({ min: 0, max: 1000 }).map((permille) => permille / 1000);

const streamBody = fc.record({
  events: fc.array(event, { minLength: 0, maxLength: 14 }),
  usage: fc.option(usageChunk, { freq: 4 }),
  done: fc.boolean(),
  how: framing,
  // One body in five cut short somewhere.
  cutAt: fc.oneof({ weight: 4, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: fraction }),
  cuts: fc.array(fraction, { maxLength: 6 }),
});

describe("generated answers", () => {
  it("streams: the same bytes and bill either way, for 3,000 streams", async () => {
    relayedFrames = 0;
    await fc.assert(
      fc.asyncProperty(streamBody, async ({ events, usage, done, how, cutAt, cuts }) => {
        const all: Event[] = [...events, ...(usage ? [{ kind: "data" as const, data: usage }] : [])];
        let body = Buffer.concat([...all.map((each) => frame(each, how)), Buffer.from(done ? "data: [DONE]\n\n" : "")]);
        if (how === "bom") body = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), body]);
        if (cutAt !== null) body = body.subarray(0, Math.floor(cutAt * body.length));
        const compact = all.every((each) => each.kind !== "data" || each.data.compact);
        await same(body, cuts, true, compact);
      }),
      { numRuns: 3000 },
    );
    relayedFrames += spy.mock.calls.length;
    // Most of the generated content went out as bytes: the comparison is not between two parses.
    expect(relayedFrames).toBeGreaterThan(2000);
  });

  const answer = fc.record({
    choices: fc.array(
      fc.record({
        index: fc.nat(3),
        message: fc.oneof({ weight: 9, arbitrary: delta }, { weight: 1, arbitrary: withImages }),
        finish_reason: fc.constantFrom("stop", "length", null),
      }),
      { maxLength: 3 },
    ),
    usage: fc.option(usage, { freq: 6 }),
    tier: fc.option(fc.constantFrom("default", "flex")),
    service: fc.boolean(),
    ownService: fc.boolean(),
    pretty: fc.boolean(),
  });

  it("whole answers: the same body and bill either way, for 1,500 answers", async () => {
    await fc.assert(
      fc.asyncProperty(answer, fc.array(fraction, { maxLength: 3 }), async (generated, cuts) => {
        const value = {
          id: "chatcmpl-x",
          object: "chat.completion",
          created: 1_790_000_000,
          model: "gpt-test",
          choices: generated.choices,
          ...(generated.usage ? { usage: generated.usage } : {}),
          ...(generated.tier ? { service_tier: generated.tier } : {}),
          ...(generated.ownService ? { service: "upstream's" } : {}),
        };
        const body = Buffer.from(generated.pretty ? JSON.stringify(value, null, 2) : JSON.stringify(value));
        await same(body, cuts, false, !generated.pretty, generated.service);
      }),
      { numRuns: 1500 },
    );
  });

  it("whole answers that are not one (an error, not JSON, a byte-order mark, invalid UTF-8) or have no usage to read", async () => {
    for (const body of [
      '{"error":{"message":"overloaded"}}',
      '{"choices":{}}',
      "not json",
      '\ufeff{"id":"x","choices":[],"usage":{"prompt_tokens":1,"completion_tokens":2}}',
      '{"id":"x","choices":[{"message":{"content":"a"}}],"usage":{"prompt_tokens":1,"completion_tokens":2},"usage":null}',
      // A usage object the codec cannot read: both estimate from the delivered text.
      '{"id":"x","choices":[{"message":{"content":"h\\u00e9llo 😀","tool_calls":[{"id":"c","function":{"arguments":"{}"}}]}}],"usage":{}}',
    ])
      await same(Buffer.from(body), [], false, false);
    const invalid = Buffer.concat([
      Buffer.from('{"choices":[{"message":{"content":"'),
      Buffer.from([0xc3]),
      Buffer.from('"}}],"usage":{"prompt_tokens":1}}'),
    ]);
    await same(invalid, [], false, false);
  });
});
