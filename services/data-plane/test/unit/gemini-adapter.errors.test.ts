// GeminiAdapter error classification: Google error envelopes, read from their
// structured fields (status, details) only, never the message.
import { describe, expect, it } from "vitest";
import { GeminiAdapter } from "../../src/providers/gemini/gemini-adapter";
import { fixtures } from "../support/fixture";

const wire = (file: string): unknown => fixtures("gemini").json(file);

const adapter = new GeminiAdapter();

describe("GeminiAdapter.classifyError on recorded envelopes", () => {
  it.each<[string, string | undefined]>([
    ["gemini.error.404.not_found.json", "model_not_found"],
    ["gemini.error.400.api_key_invalid.json", undefined], // the gateway's credential: the status says it, no caller-facing category
    ["gemini.error.429.resource_exhausted.json", undefined], // quota: the 429 status says it
  ])("%s -> %s", (file, expected) => {
    expect(adapter.classifyError(wire(file))).toBe(expected);
  });

  it("the array-wrapped form of an envelope classifies the same", () => {
    expect(adapter.classifyError([wire("gemini.error.404.not_found.json")])).toBe("model_not_found");
  });
});

describe("GeminiAdapter.classifyError (constructed)", () => {
  it.each<[string, unknown, string | undefined]>([
    ["NOT_FOUND without details", { error: { code: 404, status: "NOT_FOUND" } }, "model_not_found"],
    // An over-long prompt is INVALID_ARGUMENT with nothing structured to tell it apart: only its message says so.
    [
      "an over-long prompt",
      {
        error: {
          code: 400,
          message: "The input token count (2551556) exceeds the maximum number of tokens allowed (1048576).",
          status: "INVALID_ARGUMENT",
        },
      },
      undefined,
    ],
    [
      "a message naming a missing model, with another status",
      { error: { code: 400, message: "models/x is not found", status: "INVALID_ARGUMENT" } },
      undefined,
    ],
    ["PERMISSION_DENIED (e.g. a missing uploaded file)", { error: { code: 403, status: "PERMISSION_DENIED" } }, undefined],
    ["an OpenAI-style body", { error: { code: "model_not_found", type: "invalid_request_error" } }, undefined],
    ["a prototype key as status", { error: { status: "toString" } }, undefined],
    ["no error field", { candidates: [] }, undefined],
    ["a string", "NOT_FOUND", undefined],
    ["null", null, undefined],
  ])("%s", (_name, body, expected) => {
    expect(adapter.classifyError(body)).toBe(expected);
  });
});
