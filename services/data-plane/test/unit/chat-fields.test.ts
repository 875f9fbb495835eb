// The chat completions dialect refuses a defined field of the wrong type with 400 invalid_body naming
// it (the acceptance review's fuzzed bodies: `"stream": "yes"` forwarded, `"model": 5` read as no
// model, `"n": 1e308` a 500 in the hold's arithmetic).
import { describe, expect, it } from "vitest";
import { openAiChat } from "../../src/dialects/openai/openai-chat-dialect";
import { thrown } from "../support/thrown";

const messages = [{ role: "user", content: "Hi" }];

describe("chat completions field types", () => {
  it.each<[string, Record<string, unknown>, string]>([
    ["stream as a string", { stream: "yes" }, "stream must be a boolean."],
    ["model as a number", { model: 5 }, "model must be a string."],
    ["n beyond any bound", { n: 1e308 }, "n must be an integer from 1 to 128."],
    ["n zero", { n: 0 }, "n must be an integer from 1 to 128."],
    ["max_tokens negative", { max_tokens: -1 }, "max_tokens must be an integer from 1 to 100000000."],
    ["max_completion_tokens fractional", { max_completion_tokens: 1.5 }, "max_completion_tokens must be an integer from 1 to 100000000."],
    ["temperature as a string", { temperature: "hot" }, "temperature must be a number."],
    ["tools as an object", { tools: {} }, "tools must be an array."],
    ["stop as a number", { stop: 3 }, "stop must be a string or an array of at most 4 strings."],
    // OpenAI's documented maximum (issue 33, item 2): the translations to Anthropic and Gemini walk the list.
    ["stop with 5 sequences", { stop: ["a", "b", "c", "d", "e"] }, "stop must be a string or an array of at most 4 strings."],
    [
      "stop with 100,000 sequences",
      { stop: Array.from({ length: 100_000 }, String) },
      "stop must be a string or an array of at most 4 strings.",
    ],
    ["stop holding a number", { stop: ["a", 1] }, "stop must be a string or an array of at most 4 strings."],
    ["top_logprobs too many", { top_logprobs: 50 }, "top_logprobs must be an integer from 0 to 20."],
  ])("refuses %s", (_case, fields, message) => {
    const error = thrown(() => openAiChat.parse({ model: "auto", messages, ...fields }));
    expect(error).toMatchObject({ code: "invalid_body", status: 400, message });
  });

  it("takes well-typed fields, null as unset, and unknown fields as they are", () => {
    const body = {
      model: "openai/gpt-4.1-mini",
      messages,
      stream: true,
      stream_options: { include_usage: true },
      n: 2,
      max_completion_tokens: 256,
      temperature: 0.2,
      stop: ["\n", "a", "b", "c"],
      tool_choice: "auto",
      seed: null,
      something_new: { kept: true },
    };
    expect(openAiChat.parse(body).body).toBe(body);
  });
});
