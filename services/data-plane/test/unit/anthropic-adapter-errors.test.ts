// AnthropicAdapter.classifyError: categories from the error envelope's
// structured `error.type` only, never from its message text.
import { describe, expect, it } from "vitest";
import { AnthropicAdapter } from "../../src/providers/anthropic/anthropic-adapter";
import { fixtures } from "../support/fixture";

const recorded = fixtures("anthropic");
const adapter = new AnthropicAdapter();

describe("AnthropicAdapter.classifyError on the recorded error bodies", () => {
  const expected: Record<string, string | undefined> = {
    "anthropic.error.400.invalid_request_error.json": undefined,
    "anthropic.error.401.authentication_error.json": undefined,
    "anthropic.error.403.permission_error.json": undefined,
    "anthropic.error.404.not_found_error.json": "model_not_found",
    "anthropic.error.413.request_too_large.json": undefined,
    "anthropic.error.429.rate_limit_error.json": undefined,
    "anthropic.error.500.api_error.json": undefined,
    "anthropic.error.529.overloaded_error.json": undefined,
  };

  it("has an expectation for every recorded Anthropic error body", () => {
    const files = recorded.names("anthropic.error.");
    expect(files).toEqual(Object.keys(expected).sort());
  });

  it.each(Object.entries(expected))("%s -> %s", (file, category) => {
    expect(adapter.classifyError(recorded.json(file))).toBe(category);
  });

  it("classifies the data of a recorded in-stream error event the same way", () => {
    const text = recorded.text("anthropic.messages.stream.error.sse");
    const data = /event: error\ndata: (.*)\n/.exec(text)?.[1];
    expect(data).toBeDefined();
    expect(adapter.classifyError(JSON.parse(data!))).toBeUndefined(); // overloaded_error
  });
});

describe("AnthropicAdapter.classifyError", () => {
  it.each<[string, unknown, string | undefined]>([
    ["not_found_error", { type: "error", error: { type: "not_found_error", message: "model: x" } }, "model_not_found"],
    ["not_found_error without the outer type", { error: { type: "not_found_error" } }, "model_not_found"],
    [
      "a too-long prompt (told only by the message)",
      { type: "error", error: { type: "invalid_request_error", message: "prompt is too long: 210000 tokens > 200000 maximum" } },
      undefined,
    ],
    [
      "a bad image (told only by the message)",
      { type: "error", error: { type: "invalid_request_error", message: "Could not process image" } },
      undefined,
    ],
    [
      "a message naming a category under an unknown type",
      { type: "error", error: { type: "future_error", message: "model_not_found context_length_exceeded" } },
      undefined,
    ],
    ["billing_error", { type: "error", error: { type: "billing_error" } }, undefined],
    ["an OpenAI-format body", { error: { code: "context_length_exceeded", type: "invalid_request_error" } }, undefined],
    ["a prototype key", { type: "error", error: { type: "toString" } }, undefined],
    ["a non-string type", { type: "error", error: { type: 404 } }, undefined],
    ["null", null, undefined],
    ["text", "Bad Gateway", undefined],
  ])("%s -> %s", (_name, body, expected) => {
    expect(adapter.classifyError(body)).toBe(expected);
  });
});
