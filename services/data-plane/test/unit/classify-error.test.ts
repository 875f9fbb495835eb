import { describe, expect, it } from "vitest";
import { classifyUpstreamError } from "../../src/providers/openai-compatible/classify-error";
import { responseRetryAfter, retryAfterSeconds } from "../../src/upstream/retry-after";

describe("classifyUpstreamError (structured fields only)", () => {
  it.each<[string, unknown, string | undefined]>([
    ["context_length_exceeded", { error: { code: "context_length_exceeded", message: "x" } }, "context_window_exceeded"],
    ["content_policy_violation", { error: { code: "content_policy_violation" } }, "content_policy"],
    ["unsupported_parameter", { error: { code: "unsupported_parameter" } }, "unsupported_parameter"],
    ["invalid_image_url", { error: { code: "invalid_image_url" } }, "invalid_image"],
    ["model_not_found", { error: { code: "model_not_found" } }, "model_not_found"],
    ["a type instead of a code", { error: { type: "content_filter" } }, "content_policy"],
    ["an unknown code", { error: { code: "rate_limit_exceeded" } }, undefined],
    ["only a message mentioning a category", { error: { message: "maximum context length exceeded" } }, undefined],
    ["not an object", "oops", undefined],
    ["null", null, undefined],
    ["a prototype key", { error: { code: "toString" } }, undefined],
  ])("%s", (_name, body, expected) => {
    expect(classifyUpstreamError(body)).toBe(expected);
  });
});

describe("retryAfterSeconds", () => {
  const now = Date.UTC(2026, 10, 22, 12, 0, 0);
  it.each<[string | undefined, number | undefined]>([
    ["7", 7],
    [" 12 ", 12],
    ["0", 1],
    ["Sun, 22 Nov 2026 12:00:30 GMT", 30],
    ["canary-7f3a", undefined],
    ["-5", undefined],
    [undefined, undefined],
  ])("%s -> %s", (header, expected) => {
    expect(retryAfterSeconds(header, now)).toBe(expected);
  });
});

describe("responseRetryAfter", () => {
  it.each<[Record<string, string>, number | undefined]>([
    [{ "retry-after": "7", "retry-after-ms": "500" }, 7],
    [{ "retry-after-ms": "2500" }, 3],
    [{ "retry-after-ms": "20" }, 1],
    [{ "retry-after-ms": "soon" }, undefined],
    [{}, undefined],
  ])("%j -> %s", (headers, expected) => {
    expect(responseRetryAfter(headers)).toBe(expected);
  });
});
