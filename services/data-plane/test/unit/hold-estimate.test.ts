import { describe, expect, it } from "vitest";
import {
  chatInputUpperBound,
  chatOutputUpperBound,
  countImageParts,
  estimateTokens,
  TOKENS_PER_IMAGE_ALLOWANCE,
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

describe("chatInputUpperBound", () => {
  it("is the body bytes when there are no images", () => {
    expect(chatInputUpperBound(1234, [{ role: "user", content: "hi" }])).toBe(1234);
  });

  it("adds the allowance per image part", () => {
    expect(TOKENS_PER_IMAGE_ALLOWANCE).toBe(3_000);
    expect(chatInputUpperBound(500, [{ role: "user", content: [image, image] }])).toBe(6_500);
  });
});

describe("chatOutputUpperBound", () => {
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
    ["n multiplies the caller's max", { max_tokens: 100, n: 3 }, 16_384, 128_000, 300],
    ["n multiplies the model max", { n: 2 }, 16_384, 128_000, 32_768],
    ["n = 1 keeps one choice", { max_tokens: 100, n: 1 }, 16_384, 128_000, 100],
    ["n = 0 counts as one choice", { max_tokens: 100, n: 0 }, 16_384, 128_000, 100],
    ["fractional n counts as one choice", { max_tokens: 100, n: 2.5 }, 16_384, 128_000, 100],
    ["string n counts as one choice", { max_tokens: 100, n: "3" }, 16_384, 128_000, 100],
  ])("%s", (_name, body, maxOutput, context, expected) => {
    expect(chatOutputUpperBound(body, maxOutput, context)).toBe(expected);
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
