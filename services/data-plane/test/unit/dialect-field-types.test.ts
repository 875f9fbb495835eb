// The Responses, Messages (and count_tokens) and embeddings dialects refuse a defined field of the wrong
// type with 400 invalid_body naming it, as chat completions does (chat-fields.test.ts): before, `"stream":
// "yes"` went upstream as written, `"model": 5` was read as no model, `"max_output_tokens": 1e308` and
// `"dimensions": "x"` reached the holds and the upstream.
import { describe, expect, it } from "vitest";
import { parseCountTokensRequest } from "../../src/dialects/anthropic-messages/parse-request";
import { anthropicMessages } from "../../src/dialects/anthropic-messages/anthropic-messages-dialect";
import { openAiEmbeddings } from "../../src/dialects/openai/openai-embeddings-dialect";
import { openAiResponses } from "../../src/dialects/openai-responses/openai-responses-dialect";
import { thrown } from "../support/thrown";

const messages = [{ role: "user", content: "Hi" }];

describe("Responses field types", () => {
  it.each<[string, Record<string, unknown>, string]>([
    ["model as a number", { model: 5 }, "model must be a string."],
    ["stream as a string", { stream: "yes" }, "stream must be a boolean."],
    ["max_output_tokens beyond any bound", { max_output_tokens: 1e308 }, "max_output_tokens must be an integer from 1 to 100000000."],
    ["input as a number", { input: 7 }, "input must be a string or an array."],
    ["instructions as an array", { instructions: ["x"] }, "instructions must be a string."],
    ["temperature as a string", { temperature: "hot" }, "temperature must be a number."],
    ["tools as an object", { tools: {} }, "tools must be an array."],
    ["top_logprobs too many", { top_logprobs: 21 }, "top_logprobs must be an integer from 0 to 20."],
    ["metadata as a string", { metadata: "x" }, "metadata must be an object."],
    ["background as a string", { background: "true" }, "background must be a boolean."],
    ["previous_response_id as a number", { previous_response_id: 1 }, "previous_response_id must be a string."],
  ])("refuses %s", (_case, fields, message) => {
    expect(thrown(() => openAiResponses.parse({ model: "auto", input: "Hi", ...fields }, {}))).toMatchObject({
      code: "invalid_body",
      status: 400,
      message,
      // OpenAI's error.param: the field at fault.
      param: message.slice(0, message.indexOf(" ")),
    });
  });

  it.each(["previous_response_id", "conversation", "background"])("names %s as the param of its refusal", (field) => {
    const value = field === "background" ? true : "x";
    expect(thrown(() => openAiResponses.parse({ model: "auto", input: "Hi", [field]: value }, {}))).toMatchObject({
      code: "invalid_request",
      param: field,
    });
  });

  it("takes well-typed fields and null as unset", () => {
    const request = openAiResponses.parse(
      { model: "auto", input: "Hi", stream: true, max_output_tokens: 16, top_p: null, store: false },
      {},
    );
    expect(request).toMatchObject({ stream: true, body: { max_completion_tokens: 16 } });
  });
});

describe("Messages field types", () => {
  const valid = { model: "auto", max_tokens: 16, messages };

  it.each<[string, Record<string, unknown>, string]>([
    ["model as a number", { model: 5 }, "model: must be a string."],
    ["max_tokens beyond any bound", { max_tokens: 1e308 }, "max_tokens: must be an integer from 1 to 100000000."],
    ["max_tokens as a string", { max_tokens: "16" }, "max_tokens: must be an integer from 1 to 100000000."],
    ["messages as an object", { messages: {} }, "messages: must be an array."],
    ["system as a number", { system: 1 }, "system: must be a string or an array."],
    ["top_k fractional", { top_k: 1.5 }, "top_k: must be an integer from 1 to 1000000."],
    ["tool_choice as a string", { tool_choice: "auto" }, "tool_choice: must be an object."],
    ["thinking as a boolean", { thinking: true }, "thinking: must be an object."],
    ["service_tier as a number", { service_tier: 1 }, "service_tier: must be a string."],
  ])("refuses %s", (_case, fields, message) => {
    expect(thrown(() => anthropicMessages.parse({ ...valid, ...fields }, {}))).toMatchObject({
      code: "invalid_body",
      status: 400,
      message,
    });
  });

  it("checks count_tokens bodies the same way, max_tokens and stream aside", () => {
    expect(thrown(() => parseCountTokensRequest({ model: ["auto"], messages }))).toMatchObject({
      code: "invalid_body",
      message: "model: must be a string.",
    });
    expect(thrown(() => parseCountTokensRequest({ model: "auto", messages, temperature: "1" }))).toMatchObject({
      message: "temperature: must be a number.",
    });
    expect(parseCountTokensRequest({ model: "auto", messages, max_tokens: "ignored", stream: "ignored" }).stream).toBe(false);
  });
});

const INPUT_EXPECTED =
  "input must be a string, an array of token ids, or a non-empty array of strings or of token id arrays (2048 items at most in each array).";

describe("embeddings field types", () => {
  it.each<[string, Record<string, unknown>, string]>([
    ["model as a number", { model: 5 }, "model must be a string."],
    ["input as an object", { input: { text: "x" } }, INPUT_EXPECTED],
    ["input as an empty list", { input: [] }, INPUT_EXPECTED],
    ["input mixing texts and numbers", { input: ["a", 1] }, INPUT_EXPECTED],
    // OpenAI's documented maximum, 2048 items in any array of `input` (issue 33, item 2).
    ["input of 2049 texts", { input: Array.from({ length: 2049 }, () => "a") }, INPUT_EXPECTED],
    ["input of 2049 token ids", { input: Array.from({ length: 2049 }, () => 1) }, INPUT_EXPECTED],
    ["input of 2049 token id lists", { input: Array.from({ length: 2049 }, () => [1]) }, INPUT_EXPECTED],
    ["input holding a list of 2049 token ids", { input: [[1], Array.from({ length: 2049 }, () => 1)] }, INPUT_EXPECTED],
    ["dimensions beyond any bound", { dimensions: 1e308 }, "dimensions must be an integer from 1 to 65536."],
    ["dimensions as a string", { dimensions: "256" }, "dimensions must be an integer from 1 to 65536."],
    ["an unknown encoding_format", { encoding_format: "hex" }, 'encoding_format must be one of "float", "base64".'],
    ["user as a number", { user: 1 }, "user must be a string."],
  ])("refuses %s", (_case, fields, message) => {
    expect(thrown(() => openAiEmbeddings.parse({ model: "auto", input: "Hi", ...fields }, {}))).toMatchObject({
      code: "invalid_body",
      status: 400,
      message,
    });
  });

  it("takes text, token ids and lists of either, and unknown fields as they are", () => {
    const most = (item: unknown) => Array.from({ length: 2048 }, () => item);
    for (const input of ["Hi", ["a", "b"], [1, 2, 3], [[1, 2], [3]], most("a"), most(1), most(most(1))]) {
      const body = { model: "auto", input, dimensions: 256, encoding_format: "base64", extra: true };
      expect(openAiEmbeddings.parse(body, {}).body).toBe(body);
    }
  });
});
