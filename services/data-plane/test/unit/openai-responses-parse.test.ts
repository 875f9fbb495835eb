// The Responses dialect's parsing: every accepted field into the shared (chat)
// body, the body as written kept for a native upstream, and each refusal.
import { describe, expect, it } from "vitest";
import { openAiResponses } from "../../src/dialects/openai-responses/openai-responses-dialect";
import { thrown } from "../support/thrown";

const WEATHER = { type: "object", properties: { city: { type: "string" } }, required: ["city"] };

describe("openAiResponses.parse: accepted fields", () => {
  it("takes input as a string, instructions as the system message, and keeps the body as written", () => {
    const body = { model: "auto:economy", input: "Hello", instructions: "Be brief.", store: true };
    const request = openAiResponses.parse(body);
    expect(request).toMatchObject({ operation: "chat", stream: false, service: undefined });
    expect(request.original).toBe(body);
    expect(request.nativeOnly).toBeUndefined();
    expect(request.body).toEqual({
      model: "auto:economy",
      messages: [
        { role: "system", content: "Be brief." },
        { role: "user", content: "Hello" },
      ],
    });
  });

  it("maps every translated setting to its chat field", () => {
    const request = openAiResponses.parse({
      model: "anthropic/claude-sonnet-4",
      input: "x",
      stream: true,
      temperature: 0.2,
      top_p: 0.9,
      metadata: { team: "a" },
      user: "u1",
      parallel_tool_calls: false,
      max_output_tokens: 300,
      reasoning: { effort: "low", summary: "auto" },
      text: { format: { type: "json_schema", name: "city", description: "A city", schema: WEATHER, strict: true }, verbosity: "low" },
      tools: [{ type: "function", name: "get_weather", description: "Weather", parameters: WEATHER, strict: true }],
      tool_choice: { type: "function", name: "get_weather" },
      service: { tier: "economy" },
    });
    expect(request.stream).toBe(true);
    expect(request.service).toMatchObject({ tier: "economy" });
    expect(request.body).toEqual({
      model: "anthropic/claude-sonnet-4",
      temperature: 0.2,
      top_p: 0.9,
      parallel_tool_calls: false,
      metadata: { team: "a" },
      user: "u1",
      messages: [{ role: "user", content: "x" }],
      tools: [{ type: "function", function: { name: "get_weather", description: "Weather", parameters: WEATHER, strict: true } }],
      tool_choice: { type: "function", function: { name: "get_weather" } },
      max_completion_tokens: 300,
      reasoning_effort: "low",
      verbosity: "low",
      response_format: { type: "json_schema", json_schema: { name: "city", description: "A city", schema: WEATHER, strict: true } },
      stream: true,
    });
  });

  it.each<[unknown, unknown]>([
    ["auto", "auto"],
    ["none", "none"],
    ["required", "required"],
  ])("keeps tool_choice %s", (choice, expected) => {
    expect(openAiResponses.parse({ input: "x", tool_choice: choice }).body.tool_choice).toBe(expected);
  });

  it("maps text.format json_object, and text as plain text to nothing", () => {
    expect(openAiResponses.parse({ input: "x", text: { format: { type: "json_object" } } }).body.response_format).toEqual({
      type: "json_object",
    });
    expect(openAiResponses.parse({ input: "x", text: { format: { type: "text" } } }).body.response_format).toBeUndefined();
  });

  it("translates message items with text and image parts, assistant output_text, function calls and their outputs", () => {
    const request = openAiResponses.parse({
      input: [
        { role: "developer", content: "Use tools." },
        {
          type: "message",
          role: "user",
          content: [
            { type: "input_text", text: "What is here?" },
            { type: "input_image", image_url: "https://example.com/a.png", detail: "low" },
          ],
        },
        { type: "reasoning", id: "rs_1", summary: [] },
        { type: "message", role: "assistant", content: [{ type: "output_text", text: "Let me look.", annotations: [] }] },
        { type: "function_call", call_id: "call_1", name: "get_weather", arguments: '{"city":"Paris"}' },
        { type: "function_call", call_id: "call_2", name: "get_weather", arguments: '{"city":"Rome"}' },
        { type: "function_call_output", call_id: "call_1", output: "sunny" },
        { type: "function_call_output", call_id: "call_2", output: [{ type: "input_text", text: "rainy" }] },
      ],
    });
    expect(request.body.messages).toEqual([
      { role: "developer", content: "Use tools." },
      {
        role: "user",
        content: [
          { type: "text", text: "What is here?" },
          { type: "image_url", image_url: { url: "https://example.com/a.png", detail: "low" } },
        ],
      },
      {
        role: "assistant",
        content: "Let me look.",
        tool_calls: [
          { id: "call_1", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } },
          { id: "call_2", type: "function", function: { name: "get_weather", arguments: '{"city":"Rome"}' } },
        ],
      },
      { role: "tool", tool_call_id: "call_1", content: "sunny" },
      { role: "tool", tool_call_id: "call_2", content: "rainy" },
    ]);
  });

  it("starts an assistant turn for a function call with no text before it", () => {
    const request = openAiResponses.parse({
      input: [
        { role: "user", content: "hi" },
        { type: "function_call", call_id: "c", name: "f", arguments: "{}" },
      ],
    });
    expect((request.body.messages as unknown[])[1]).toEqual({
      role: "assistant",
      content: null,
      tool_calls: [{ id: "c", type: "function", function: { name: "f", arguments: "{}" } }],
    });
  });

  it("translates an inline input_file into the shared chat file part", () => {
    const pdf = "data:application/pdf;base64,JVBERi0x";
    const request = openAiResponses.parse({
      input: [
        {
          role: "user",
          content: [
            { type: "input_text", text: "Sum up" },
            { type: "input_file", filename: "a.pdf", file_data: pdf },
          ],
        },
      ],
    });
    expect(request.body.messages).toEqual([
      {
        role: "user",
        content: [
          { type: "text", text: "Sum up" },
          { type: "file", file: { filename: "a.pdf", file_data: pdf } },
        ],
      },
    ]);
  });
});

describe("openAiResponses.parse: refusals", () => {
  const storage = "The gateway stores no responses or conversations: send the full input with every request.";
  it.each<[string, unknown, string, string]>([
    ["an array body", [], "invalid_body", "The request body must be a JSON object."],
    ["no input", { model: "auto" }, "invalid_body", "input must be a string or a non-empty array of input items."],
    ["an empty input list", { input: [] }, "invalid_body", "input must be a string or a non-empty array of input items."],
    [
      "previous_response_id",
      { input: "x", previous_response_id: "resp_1" },
      "invalid_request",
      `previous_response_id is not supported. ${storage}`,
    ],
    ["conversation", { input: "x", conversation: "conv_1" }, "invalid_request", `conversation is not supported. ${storage}`],
    [
      "background",
      { input: "x", background: true },
      "invalid_request",
      "background is not supported: the gateway stores no responses to poll. Stream instead.",
    ],
    [
      "an image by file_id",
      { input: [{ role: "user", content: [{ type: "input_image", file_id: "file-1" }] }] },
      "unsupported_input",
      "input[0].content[0]: input_image by file_id is not supported (the gateway stores no files); send image_url (an https or data: URL).",
    ],
    [
      "an input_file by file_id",
      { input: [{ role: "user", content: [{ type: "input_file", file_id: "file-1" }] }] },
      "unsupported_input",
      "input[0].content[0]: input_file by file_id is not supported (the gateway stores no files); send file_data (a data: URL).",
    ],
    [
      "an input_file whose file_data is no data: URL",
      { input: [{ role: "user", content: [{ type: "input_file", file_data: "JVBERi0x" }] }] },
      "invalid_body",
      "input[0].content[0].file_data must be a data: URL (data:<media type>;base64,<data>).",
    ],
    [
      "an unknown part",
      { input: [{ role: "user", content: [{ type: "input_audio" }] }] },
      "unsupported_input",
      'input[0].content[0] has type "input_audio": only input_text, input_image (by image_url), input_file (by file_data) and output_text parts are supported.',
    ],
    [
      "a hosted tool",
      { input: "x", tools: [{ type: "function", name: "f" }, { type: "web_search" }] },
      "unsupported_input",
      `tools[1] is a web_search tool: the gateway serves function tools only, because hosted tools are priced per call and use the provider account's stored resources.`,
    ],
    [
      "a custom tool",
      { input: "x", tools: [{ type: "custom", name: "c" }] },
      "unsupported_input",
      `tools[0] is a custom tool: the gateway serves function tools only, because hosted tools are priced per call and use the provider account's stored resources.`,
    ],
    [
      "a hosted tool_choice",
      { input: "x", tool_choice: { type: "file_search" } },
      "unsupported_input",
      `tool_choice of type file_search is not supported: the gateway serves function tools only, because hosted tools are priced per call and use the provider account's stored resources.`,
    ],
    [
      "a stored prompt",
      { input: "x", prompt: { id: "pmpt_1" } },
      "unsupported_input",
      `prompt (a stored prompt) is not supported: the gateway serves function tools only, because hosted tools are priced per call and use the provider account's stored resources.`,
    ],
    [
      "an item_reference",
      { input: [{ type: "item_reference", id: "msg_1" }] },
      "unsupported_input",
      "input[0] is an item_reference: the gateway stores no responses or items, so send the full input instead of references (clients such as the Vercel AI SDK do when store is false).",
    ],
    [
      "a hosted tool's item",
      { input: [{ type: "web_search_call", id: "ws_1" }] },
      "unsupported_input",
      `input[0] has type "web_search_call": only message, function_call, function_call_output and reasoning items are accepted; the gateway serves function tools only, because hosted tools are priced per call and use the provider account's stored resources.`,
    ],
    [
      "an item whose type is 1 MB long, quoted cut (issue 33, item 2)",
      { input: [{ type: "x".repeat(1 << 20) }] },
      "unsupported_input",
      `input[0] has type "${"x".repeat(200)}... (${(1 << 20) - 200} more characters)": only message, function_call, function_call_output and reasoning items are accepted; the gateway serves function tools only, because hosted tools are priced per call and use the provider account's stored resources.`,
    ],
    [
      "a bad role",
      { input: [{ role: "tool", content: "x" }] },
      "invalid_body",
      "input[0].role must be one of user, system, developer, assistant.",
    ],
    [
      "a function call without arguments",
      { input: [{ type: "function_call", call_id: "c", name: "f" }] },
      "invalid_body",
      "input[0]: a function_call needs call_id, name and arguments (a JSON string).",
    ],
    ["tools not a list", { input: "x", tools: {} }, "invalid_body", "tools must be an array."],
    [
      "a bad tool_choice",
      { input: "x", tool_choice: "sometimes" },
      "invalid_body",
      'tool_choice must be "auto", "none", "required" or {"type":"function","name":...}.',
    ],
    [
      "a bad max_output_tokens",
      { input: "x", max_output_tokens: 0 },
      "invalid_body",
      "max_output_tokens must be an integer from 1 to 100000000.",
    ],
    [
      "a json_schema format without a schema",
      { input: "x", text: { format: { type: "json_schema", name: "x" } } },
      "invalid_body",
      "text.format of type json_schema needs a name and a schema.",
    ],
    ["a store that is not a boolean", { input: "x", store: "yes" }, "invalid_body", "store must be a boolean."],
    [
      "a bad service block",
      { input: "x", service: { tier: "gold" } },
      "invalid_service",
      "service.tier must be one of economy, balanced, quality.",
    ],
  ])("refuses %s", (_case, body, code, message) => {
    expect(thrown(() => openAiResponses.parse(body))).toMatchObject({ status: 400, code, message });
  });

  it("accepts background: false and store: false", () => {
    expect(openAiResponses.parse({ input: "x", background: false, store: false }).body).toEqual({
      messages: [{ role: "user", content: "x" }],
    });
  });
});
