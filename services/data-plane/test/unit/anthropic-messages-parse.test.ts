// The Anthropic Messages dialect's reading of a body: every accepted field into
// the shared representation, the body kept as written, and each rejection.
import { describe, expect, it } from "vitest";
import { anthropicMessages } from "../../src/dialects/anthropic-messages/anthropic-messages-dialect";
import { parseCountTokensRequest } from "../../src/dialects/anthropic-messages/parse-request";
import { thrown } from "../support/thrown";

const PNG = "iVBORw0KGgo=";
const PDF = "JVBERi0xLjQ=";

describe("anthropicMessages.parse", () => {
  it("translates every field into the shared body and keeps the body as written", () => {
    const body = {
      model: "auto:economy",
      max_tokens: 1024,
      system: [{ type: "text", text: "Be brief.", cache_control: { type: "ephemeral" } }],
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: "Look:" },
            { type: "image", source: { type: "base64", media_type: "image/png", data: PNG } },
            { type: "image", source: { type: "url", url: "https://example.com/a.png" } },
            { type: "document", source: { type: "base64", media_type: "application/pdf", data: PDF }, title: "a.pdf" },
            { type: "document", source: { type: "text", media_type: "text/plain", data: "plain words" } },
          ],
        },
        {
          role: "assistant",
          content: [
            { type: "thinking", thinking: "hmm", signature: "sig" },
            { type: "redacted_thinking", data: "xyz" },
            { type: "text", text: "Checking." },
            { type: "tool_use", id: "toolu_1", name: "get_weather", input: { city: "Paris" } },
          ],
        },
        {
          role: "user",
          content: [
            { type: "tool_result", tool_use_id: "toolu_1", content: [{ type: "text", text: "sunny" }] },
            { type: "tool_result", tool_use_id: "toolu_2", content: "no such city", is_error: true },
            { type: "text", text: "Thanks" },
          ],
        },
      ],
      tools: [{ name: "get_weather", description: "Weather", input_schema: { type: "object", properties: {} } }],
      tool_choice: { type: "any", disable_parallel_tool_use: true },
      stop_sequences: ["END"],
      temperature: 0.5,
      top_p: 0.9,
      top_k: 40,
      thinking: { type: "enabled", budget_tokens: 8_000 },
      metadata: { user_id: "user-7" },
      output_config: { format: { type: "json_schema", schema: { type: "object" } } },
      stream: true,
      service: { tier: "economy" },
    };
    const request = anthropicMessages.parse(body, { "anthropic-beta": "prompt-caching-2024-07-31", "anthropic-version": "2023-06-01" });
    expect(request.original).toBe(body);
    expect(request.stream).toBe(true);
    expect(request.service).toMatchObject({ tier: "economy" });
    expect(request.forwardHeaders).toEqual({ "anthropic-beta": "prompt-caching-2024-07-31" });
    expect(request.nativeOnly).toBeUndefined();
    expect(request.body).toEqual({
      model: "auto:economy",
      messages: [
        { role: "system", content: [{ type: "text", text: "Be brief." }] },
        {
          role: "user",
          content: [
            { type: "text", text: "Look:" },
            { type: "image_url", image_url: { url: `data:image/png;base64,${PNG}` } },
            { type: "image_url", image_url: { url: "https://example.com/a.png" } },
            { type: "file", file: { filename: "a.pdf", file_data: `data:application/pdf;base64,${PDF}` } },
            { type: "text", text: "plain words" },
          ],
        },
        {
          role: "assistant",
          content: "Checking.",
          tool_calls: [{ id: "toolu_1", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } }],
        },
        { role: "tool", tool_call_id: "toolu_1", content: "sunny" },
        { role: "tool", tool_call_id: "toolu_2", content: "Error: no such city" },
        { role: "user", content: "Thanks" },
      ],
      tools: [
        { type: "function", function: { name: "get_weather", parameters: { type: "object", properties: {} }, description: "Weather" } },
      ],
      tool_choice: "required",
      parallel_tool_calls: false,
      max_completion_tokens: 1024,
      stop: ["END"],
      temperature: 0.5,
      top_p: 0.9,
      top_k: 40,
      user: "user-7",
      response_format: { type: "json_schema", json_schema: { name: "output", schema: { type: "object" }, strict: true } },
      stream: true,
    });
  });

  it.each<[unknown, unknown, unknown]>([
    [{ type: "auto" }, "auto", undefined],
    [{ type: "none" }, "none", undefined],
    [{ type: "tool", name: "f" }, { type: "function", function: { name: "f" } }, undefined],
    [{ type: "auto", disable_parallel_tool_use: true }, "auto", false],
  ])("maps tool_choice %j", (choice, toolChoice, parallel) => {
    const { body } = anthropicMessages.parse({
      model: "m",
      max_tokens: 1,
      messages: [{ role: "user", content: "hi" }],
      tool_choice: choice,
    });
    expect(body.tool_choice).toEqual(toolChoice);
    expect(body.parallel_tool_calls).toBe(parallel);
  });

  it.each<[string, unknown]>([
    ["enabled", { type: "enabled", budget_tokens: 20_000 }],
    ["adaptive", { type: "adaptive" }],
  ])("does not translate thinking (%s): reasoning_effort would make a non-reasoning model answer 400", (_case, thinking) => {
    const request = anthropicMessages.parse({ model: "m", max_tokens: 1, messages: [{ role: "user", content: "hi" }], thinking });
    expect(request.body).not.toHaveProperty("reasoning_effort");
    expect(request.original.thinking).toEqual(thinking);
  });

  it("keeps an assistant turn of thinking only as empty text, and a turn of tool calls only with null content", () => {
    const { body } = anthropicMessages.parse({
      model: "m",
      max_tokens: 1,
      messages: [
        { role: "user", content: "hi" },
        { role: "assistant", content: [{ type: "thinking", thinking: "hmm", signature: "sig" }] },
        { role: "user", content: "go" },
        { role: "assistant", content: [{ type: "tool_use", id: "t", name: "f", input: {} }] },
      ],
    });
    expect((body.messages as Record<string, unknown>[]).filter((message) => message.role === "assistant")).toEqual([
      { role: "assistant", content: "" },
      { role: "assistant", content: null, tool_calls: [{ id: "t", type: "function", function: { name: "f", arguments: "{}" } }] },
    ]);
  });

  it("keeps a system turn inside messages in its place (Claude Code sends one for models it does not know)", () => {
    const body = {
      model: "auto",
      max_tokens: 64,
      system: "Be brief.",
      messages: [
        { role: "user", content: "hi" },
        { role: "system", content: [{ type: "text", text: "# Environment" }] },
        { role: "system", content: "" },
      ],
    };
    const request = anthropicMessages.parse(body);
    expect(request.body.messages).toEqual([
      { role: "system", content: "Be brief." },
      { role: "user", content: "hi" },
      { role: "system", content: [{ type: "text", text: "# Environment" }] },
    ]);
    expect(request.original).toBe(body);
  });

  it("gives a tool_result's images to a user message after the tool messages", () => {
    const image = { type: "image", source: { type: "base64", media_type: "image/png", data: PNG } };
    const { body } = anthropicMessages.parse({
      model: "m",
      max_tokens: 1,
      messages: [
        { role: "user", content: [{ type: "tool_result", tool_use_id: "t", content: [{ type: "text", text: "chart:" }, image] }] },
      ],
    });
    expect(body.messages).toEqual([
      { role: "tool", tool_call_id: "t", content: "chart:" },
      { role: "user", content: [{ type: "image_url", image_url: { url: `data:image/png;base64,${PNG}` } }] },
    ]);
  });

  it.each<[string, Record<string, unknown>, string]>([
    [
      "an Anthropic-defined client tool",
      { tools: [{ type: "bash_20250124", name: "bash" }] },
      "tools.0: the Anthropic-defined tool bash_20250124",
    ],
    [
      "a document by URL",
      { messages: [{ role: "user", content: [{ type: "document", source: { type: "url", url: "https://x/a.pdf" } }] }] },
      "messages.0.content.0.source: a document of source type url",
    ],
    [
      "a document with citations",
      {
        messages: [
          {
            role: "user",
            content: [{ type: "document", source: { type: "text", media_type: "text/plain", data: "x" }, citations: { enabled: true } }],
          },
        ],
      },
      "messages.0.content.0.citations: citations can only be asked of an Anthropic model.",
    ],
    [
      "a server tool block",
      { messages: [{ role: "assistant", content: [{ type: "server_tool_use", id: "s" }] }] },
      "a server_tool_use block",
    ],
    [
      "a block whose type is 1 MB long, quoted cut (issue 33, item 2)",
      { messages: [{ role: "user", content: [{ type: "y".repeat(1 << 20) }] }] },
      `messages.0.content.0: a ${"y".repeat(200)}... (${(1 << 20) - 200} more characters) block can only be sent to an Anthropic model.`,
    ],
  ])("marks %s as native-only, with a clear 400 for translated paths", (_case, fields, message) => {
    const request = anthropicMessages.parse({ model: "m", max_tokens: 1, messages: [{ role: "user", content: "hi" }], ...fields });
    expect(request.nativeOnly).toMatchObject({ status: 400, code: "unsupported_input" });
    expect(request.nativeOnly!.message).toContain(message);
  });

  const valid = { model: "m", max_tokens: 1, messages: [{ role: "user", content: "hi" }] };
  const serverTools = "The gateway serves client tools only: server tools are priced per call by the provider";
  const storedFiles = "Files are stored resources of the provider account";
  const image = (source: unknown) => ({ ...valid, messages: [{ role: "user", content: [{ type: "image", source }] }] });
  it.each<[string, unknown, string, string]>([
    [
      "web search",
      { ...valid, tools: [{ type: "web_search_20250305", name: "web_search" }] },
      "tools.0: the server tool web_search_20250305",
      serverTools,
    ],
    [
      "web fetch",
      { ...valid, tools: [{ type: "web_fetch_20250910", name: "web_fetch" }] },
      "tools.0: the server tool web_fetch_20250910",
      serverTools,
    ],
    [
      "code execution",
      { ...valid, tools: [{ type: "code_execution_20250825", name: "code_execution" }] },
      "the server tool code_execution_20250825",
      serverTools,
    ],
    [
      "an MCP connector",
      { ...valid, mcp_servers: [{ type: "url", url: "https://mcp.example", name: "x" }] },
      "mcp_servers: an MCP connector",
      serverTools,
    ],
    ["a container", { ...valid, container: "container_1" }, "container: a code execution container", serverTools],
    ["an image by file id", image({ type: "file", file_id: "file_1" }), "messages.0.content.0.source: a file_id", storedFiles],
    [
      "a document by file id in a tool result",
      {
        ...valid,
        messages: [
          {
            role: "user",
            content: [{ type: "tool_result", tool_use_id: "t", content: [{ type: "document", source: { type: "file", file_id: "f" } }] }],
          },
        ],
      },
      "messages.0.content.0.content.0.source: a file_id",
      storedFiles,
    ],
    [
      "a container upload",
      { ...valid, messages: [{ role: "user", content: [{ type: "container_upload", file_id: "f" }] }] },
      "messages.0.content.0: a file_id",
      storedFiles,
    ],
  ])("refuses %s on every path with a 400 saying why", (_case, body, where, why) => {
    for (const parse of [anthropicMessages.parse, parseCountTokensRequest]) {
      const error = thrown(() => parse(body));
      expect(error).toMatchObject({ status: 400, code: "unsupported_input" });
      expect((error as Error).message).toContain(where);
      expect((error as Error).message).toContain(why);
    }
  });

  it.each<[string, unknown, string]>([
    ["an array", [], "The request body must be a JSON object."],
    ["no max_tokens", { model: "m", messages: valid.messages }, "max_tokens: Field required."],
    ["max_tokens 0", { ...valid, max_tokens: 0 }, "max_tokens: must be an integer from 1 to 100000000."],
    ["no messages", { model: "m", max_tokens: 1 }, "messages: must be a non-empty array."],
    ["empty messages", { ...valid, messages: [] }, "messages: must be a non-empty array."],
    ["a tool role", { ...valid, messages: [{ role: "tool", content: "x" }] }, 'messages.0.role: must be "user", "assistant" or "system".'],
    [
      "a system turn with an image",
      { ...valid, messages: [{ role: "system", content: [{ type: "image" }] }] },
      'messages.0.content.0.type: must be "text".',
    ],
    [
      "content of a number",
      { ...valid, messages: [{ role: "user", content: 7 }] },
      "messages.0.content: must be a string or an array of content blocks.",
    ],
    [
      "a block without type",
      { ...valid, messages: [{ role: "user", content: [{ text: "x" }] }] },
      "messages.0.content.0.type: must be a string.",
    ],
    ["a system image", { ...valid, system: [{ type: "image" }] }, 'system.0.type: must be "text".'],
    ["a tool without schema", { ...valid, tools: [{ name: "f" }] }, "tools.0.input_schema: must be an object."],
    ["a bad tool_choice", { ...valid, tool_choice: { type: "some" } }, 'tool_choice.type: must be one of "auto", "any", "tool", "none".'],
    ["stop_sequences of a string", { ...valid, stop_sequences: "END" }, "stop_sequences: must be an array of strings."],
    ["a string temperature", { ...valid, temperature: "hot" }, "temperature: must be a number."],
    ["thinking without budget", { ...valid, thinking: { type: "enabled" } }, "thinking.budget_tokens: Field required."],
    ["a bad thinking type", { ...valid, thinking: { type: "on" } }, 'thinking.type: must be "enabled", "disabled" or "adaptive".'],
    ["a string stream", { ...valid, stream: "yes" }, "stream: must be a boolean."],
    ["metadata of a string", { ...valid, metadata: "x" }, "metadata: must be an object."],
    [
      "a tool_result without id",
      { ...valid, messages: [{ role: "user", content: [{ type: "tool_result" }] }] },
      "messages.0.content.0.tool_use_id: must be a string.",
    ],
  ])("refuses %s with a 400", (_case, body, message) => {
    expect(thrown(() => anthropicMessages.parse(body))).toMatchObject({ status: 400, code: "invalid_body", message });
  });

  it("refuses a bad service block", () => {
    expect(thrown(() => anthropicMessages.parse({ ...valid, service: { tier: "gold" } }))).toMatchObject({
      status: 400,
      code: "invalid_service",
    });
  });
});

describe("parseCountTokensRequest", () => {
  it("takes a body without max_tokens, never streamed", () => {
    const request = parseCountTokensRequest({ model: "m", messages: [{ role: "user", content: "hi" }], stream: true });
    expect(request.stream).toBe(false);
    expect(request.body).toEqual({ model: "m", messages: [{ role: "user", content: "hi" }] });
  });
});
