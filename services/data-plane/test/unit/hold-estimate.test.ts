import { describe, expect, it } from "vitest";
import fc from "fast-check";
import {
  bodyMarks,
  choicesAsked,
  countImageParts,
  estimateTokens,
  mayProduce,
  outputLimitPerChoice,
} from "../../src/billing/hold-estimate";

const image = { type: "image_url", image_url: { url: "data:image/png;base64,AAAA" } };
const text = { type: "text", text: "hi" };

describe("countImageParts", () => {
  it.each<[string, unknown, number]>([
    ["not an array", { role: "user" }, 0],
    ["undefined", undefined, 0],
    ["string contents", [{ role: "user", content: "hello" }], 0],
    ["one image", [{ role: "user", content: [text, image] }], 1],
    [
      "images across messages",
      [
        { role: "user", content: [image, image] },
        { role: "assistant", content: "ok" },
        { role: "user", content: [text, image] },
      ],
      3,
    ],
    ["null messages and null parts are skipped", [null, { role: "user", content: [null, image, 5, "image_url"] }], 1],
    ["other part types", [{ role: "user", content: [{ type: "input_audio" }, { type: "file" }, { type: "IMAGE_URL" }] }], 0],
  ])("%s -> %d", (_name, messages, expected) => {
    expect(countImageParts(messages)).toBe(expected);
  });
});

describe("outputLimitPerChoice", () => {
  it.each<[string, Record<string, unknown>, number, number, number]>([
    ["max_completion_tokens", { max_completion_tokens: 100 }, 16_384, 128_000, 100],
    ["max_tokens", { max_tokens: 200 }, 16_384, 128_000, 200],
    [
      "the larger of max_completion_tokens and max_tokens (an upstream may honour either)",
      { max_completion_tokens: 100, max_tokens: 200 },
      16_384,
      128_000,
      200,
    ],
    ["the larger when max_completion_tokens is the larger", { max_completion_tokens: 300, max_tokens: 200 }, 16_384, 128_000, 300],
    ["max_tokens used when max_completion_tokens is 0", { max_completion_tokens: 0, max_tokens: 200 }, 16_384, 128_000, 200],
    ["max_tokens used when max_completion_tokens is negative", { max_completion_tokens: -5, max_tokens: 200 }, 16_384, 128_000, 200],
    ["max_tokens used when max_completion_tokens is fractional", { max_completion_tokens: 10.5, max_tokens: 200 }, 16_384, 128_000, 200],
    ["max_tokens used when max_completion_tokens is a string", { max_completion_tokens: "100", max_tokens: 200 }, 16_384, 128_000, 200],
    ["model max output when neither is given", {}, 16_384, 128_000, 16_384],
    ["model max output when both are invalid", { max_completion_tokens: null, max_tokens: 0 }, 16_384, 128_000, 16_384],
    ["context length when the model max output is 0", {}, 0, 128_000, 128_000],
  ])("%s", (_name, body, maxOutput, context, expected) => {
    expect(outputLimitPerChoice(body, maxOutput, context)).toBe(expected);
  });
});

describe("choicesAsked", () => {
  it.each<[unknown, number]>([
    [3, 3],
    [1, 1],
    [undefined, 1],
    [0, 1],
    [2.5, 1],
    ["3", 1],
  ])("n = %j -> %d", (n, expected) => {
    expect(choicesAsked({ n })).toBe(expected);
  });
});

const cacheWrite = (body: string) => bodyMarks(body).cacheWrite;

describe("what a forwarded body says", () => {
  it("can write a cache when cache_control appears anywhere, for an hour when a 1h ttl does", () => {
    expect(cacheWrite(JSON.stringify({ messages: [{ content: "hi" }] }))).toBe("none");
    expect(cacheWrite(JSON.stringify({ system: [{ text: "s", cache_control: { type: "ephemeral" } }] }))).toBe("5m");
    expect(cacheWrite(JSON.stringify({ cache_control: { type: "ephemeral", ttl: "1h" } }))).toBe("1h");
    // A caller's text that names it is escaped, and not read as a field.
    expect(cacheWrite(JSON.stringify({ messages: [{ content: '"cache_control": {"ttl":"1h"}' }] }))).toBe("none");
  });

  it("names its service tiers", () => {
    expect(bodyMarks(JSON.stringify({ service_tier: "priority", messages: [] })).serviceTiers).toEqual(["priority"]);
    expect(bodyMarks(JSON.stringify({ messages: [] })).serviceTiers).toEqual([]);
  });

  const audioInput = (body: string) => bodyMarks(body).audioInput;
  it("carries audio in OpenAI's and Gemini's shapes", () => {
    expect(audioInput(JSON.stringify({ content: [{ type: "input_audio", input_audio: { data: "AA" } }] }))).toBe(true);
    expect(audioInput(JSON.stringify({ parts: [{ inlineData: { mimeType: "audio/wav", data: "AA" } }] }))).toBe(true);
    expect(audioInput(JSON.stringify({ content: "input_audio" }))).toBe(false);
  });

  it("reads a value that names another mark: a match takes only its key", () => {
    const body = JSON.stringify({ service_tier: "cache_control", content: [{ type: "image" }, { type: "input_audio" }] });
    expect(bodyMarks(body)).toEqual({ mediaParts: 1, audioInput: true, cacheWrite: "5m", serviceTiers: ["cache_control"] });
  });

  it("reads what one regular expression per mark read, in one pass (differential)", () => {
    fc.assert(
      fc.property(forwardedBody, (body) => {
        expect(bodyMarks(body)).toEqual(marksOneScanEach(body));
      }),
      { numRuns: 2_000 },
    );
  });

  it("may produce images or audio when asked for, or when the model produces them unasked", () => {
    expect(mayProduce("image", { modalities: ["text", "image"] }, ["text"])).toBe(true);
    expect(mayProduce("image", {}, ["text", "image"])).toBe(true);
    expect(mayProduce("audio", { modalities: ["text", "image"] }, ["text", "image"])).toBe(false);
  });
});

describe("estimateTokens", () => {
  it.each<[string, number]>([
    ["", 0],
    ["a", 1],
    ["abcd", 1],
    ["abcde", 2],
    ["abcdefgh", 2],
    ["é", 1], // 2 bytes
    ["😀😀", 2], // 8 bytes
    ["日本語", 3], // 9 bytes
  ])("%j -> %d", (text, expected) => {
    expect(estimateTokens(text)).toBe(expected);
  });
});

// The reading bodyMarks replaced (a regular expression per mark), kept as the differential test's reference.
function marksOneScanEach(body: string) {
  const media = /"type":"(?:image_url|input_image|image|document|file|input_file)"|"(?:inlineData|fileData)":/g;
  const cacheWrite = !body.includes('"cache_control"') ? "none" : body.includes('"ttl":"1h"') ? "1h" : "5m";
  return {
    mediaParts: [...body.matchAll(media)].length,
    audioInput: /"type":"input_audio"|"audio":\{|"mimeType":"audio\//.test(body),
    cacheWrite,
    serviceTiers: [...body.matchAll(/"service_tier":"([^"\\]*)"/g)].map((match) => match[1]),
  };
}

// Bodies built from the keys and values the marks read, nested and mixed with text that spells them.
const word = fc.constantFrom(
  "type",
  "image_url",
  "input_image",
  "image",
  "document",
  "file",
  "input_file",
  "input_audio",
  "inlineData",
  "fileData",
  "audio",
  "mimeType",
  "audio/wav",
  "image/png",
  "service_tier",
  "priority",
  "flex",
  "cache_control",
  "ttl",
  "1h",
  "5m",
  "text",
  '"type":"image"',
  'say "cache_control"',
  'x"type', // as a key: an escaped quote just before a mark's name
  'x"service_tier',
  'x"cache_control',
  "back\\slash",
  "",
);
const value = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: "small" },
    word,
    fc.integer(),
    fc.array(tie("value"), { maxLength: 4 }),
    fc.dictionary(word, tie("value"), { maxKeys: 4 }),
  ),
})).value;
const forwardedBody = value.map((body) => JSON.stringify(body));
