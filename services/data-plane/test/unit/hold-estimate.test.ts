import { describe, expect, it } from "vitest";
import {
  cacheWrite,
  carriesAudio,
  choicesAsked,
  countImageParts,
  estimateTokens,
  mayProduce,
  outputLimitPerChoice,
  serviceTiersNamed,
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

describe("what a forwarded body says", () => {
  it("can write a cache when cache_control appears anywhere, for an hour when a 1h ttl does", () => {
    expect(cacheWrite(JSON.stringify({ messages: [{ content: "hi" }] }))).toBe("none");
    expect(cacheWrite(JSON.stringify({ system: [{ text: "s", cache_control: { type: "ephemeral" } }] }))).toBe("5m");
    expect(cacheWrite(JSON.stringify({ cache_control: { type: "ephemeral", ttl: "1h" } }))).toBe("1h");
    // A caller's text that names it is escaped, and not read as a field.
    expect(cacheWrite(JSON.stringify({ messages: [{ content: '"cache_control": {"ttl":"1h"}' }] }))).toBe("none");
  });

  it("names its service tiers", () => {
    expect(serviceTiersNamed(JSON.stringify({ service_tier: "priority", messages: [] }))).toEqual(["priority"]);
    expect(serviceTiersNamed(JSON.stringify({ messages: [] }))).toEqual([]);
  });

  it("carries audio in OpenAI's and Gemini's shapes", () => {
    expect(carriesAudio(JSON.stringify({ content: [{ type: "input_audio", input_audio: { data: "AA" } }] }))).toBe(true);
    expect(carriesAudio(JSON.stringify({ parts: [{ inlineData: { mimeType: "audio/wav", data: "AA" } }] }))).toBe(true);
    expect(carriesAudio(JSON.stringify({ content: "input_audio" }))).toBe(false);
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
