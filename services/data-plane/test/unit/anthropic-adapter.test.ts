// AnthropicAdapter, request side: OpenAI chat bodies in, Anthropic Messages
// calls out. Where a recorded Anthropic request exists (src/providers/anthropic/__fixtures__),
// the OpenAI body that means the same thing must translate to exactly it.
import { describe, expect, it } from "vitest";
import { AnthropicAdapter } from "../../src/providers/anthropic/anthropic-adapter";
import type { RequestContext } from "../../src/providers/provider-adapter";
import { fixtures } from "../support/fixture";

/** A recorded request: Anthropic's own, or OpenAI's (openai.*) from the OpenAI-compatible fixtures. */
const wire = (file: string): Record<string, unknown> => fixtures(file.startsWith("openai.") ? "openai-compatible" : "anthropic").json(file);

const adapter = new AnthropicAdapter();
const context = (overrides: Partial<RequestContext> = {}): RequestContext => ({
  upstreamModel: "claude-sonnet-4-5",
  apiKey: "sk-ant-test",
  maxOutputTokens: 64000,
  ...overrides,
});
/** The Anthropic body the adapter builds for an OpenAI chat body. */
const translate = (body: Record<string, unknown>, overrides: Partial<RequestContext> = {}) =>
  JSON.parse(adapter.request("chat", body, context(overrides)).body);

const weatherTool = {
  type: "function",
  function: {
    name: "get_weather",
    description: "Weather in a city",
    parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
  },
};
const user = (content: unknown) => ({ role: "user", content });

describe("AnthropicAdapter: contract", () => {
  it("is the anthropic protocol, offers chat and not embeddings", () => {
    expect(adapter.protocol).toBe("anthropic");
    expect(adapter.supports("chat")).toBe(true);
    expect(adapter.supports("embeddings")).toBe(false);
  });

  it("refuses to build or read an embeddings call", () => {
    expect(() => adapter.request("embeddings", { input: "x" }, context())).toThrow(/no embeddings/);
    expect(() => adapter.response("embeddings", {}, { id: "x", created: 1, model: "m" })).toThrow(/no embeddings/);
  });

  it("POSTs /messages with the version header, JSON content type and the key as x-api-key", () => {
    const call = adapter.request("chat", { messages: [user("Hi")] }, context({ apiKey: "sk-ant-123" }));
    expect(call.path).toBe("/messages");
    expect(call.headers).toEqual({ "x-api-key": "sk-ant-123", "anthropic-version": "2023-06-01", "content-type": "application/json" });
  });

  it("sends no x-api-key when the path has no credential", () => {
    const call = adapter.request("chat", { messages: [user("Hi")] }, context({ apiKey: undefined }));
    expect(call.headers).toEqual({ "anthropic-version": "2023-06-01", "content-type": "application/json" });
  });
});

describe("AnthropicAdapter.request reproduces recorded Anthropic requests", () => {
  /** The recordings name Anthropic's defaults explicitly (tool type "custom", stream false); the adapter leaves defaults out. */
  const withoutDefaults = (recorded: Record<string, unknown>) => {
    const { stream, ...rest } = recorded;
    if (stream !== false) rest.stream = stream;
    if (Array.isArray(rest.tools))
      rest.tools = rest.tools.map(({ type, ...tool }: Record<string, unknown>) => (type === "custom" ? tool : { type, ...tool }));
    return rest;
  };

  it("plain question (anthropic.messages.request.json)", () => {
    const body = { model: "anthropic/claude-opus-4-8", max_tokens: 16000, messages: [user("What is the capital of France?")] };
    expect(translate(body, { upstreamModel: "claude-opus-4-8" })).toEqual(wire("anthropic.messages.request.json"));
  });

  it("json_schema response_format -> output_config.format (anthropic.messages.json_schema.request.json)", () => {
    const recorded = wire("anthropic.messages.json_schema.request.json") as { output_config: { format: { schema: unknown } } };
    const body = {
      model: "auto",
      max_completion_tokens: 1024,
      messages: [user("Extract: I want to order 2 Green Tea at $5.50 each")],
      response_format: {
        type: "json_schema",
        json_schema: { name: "OrderItem", strict: true, schema: recorded.output_config.format.schema },
      },
    };
    const translated = translate(body);
    expect(translated).toEqual(recorded);
    expect(adapter.request("chat", body, context()).headers["anthropic-beta"]).toBeUndefined(); // structured outputs are GA
  });

  it("streamed json_schema request (anthropic.messages.stream.recorded.request.json)", () => {
    const body = {
      model: "auto",
      stream: true,
      stream_options: { include_usage: true },
      max_tokens: 1024,
      messages: [user("Extract order IDs from the following text:\n\nOrder 12345\nOrder 67890")],
      response_format: { type: "json_schema", json_schema: { name: "ids", schema: { type: "array", items: { type: "integer" } } } },
    };
    expect(translate(body)).toEqual(wire("anthropic.messages.stream.recorded.request.json"));
  });

  const testTool = (recorded: Record<string, unknown>) => {
    const [tool] = recorded.tools as { name: string; description: string; input_schema: unknown }[];
    return { type: "function", function: { name: tool!.name, description: tool!.description, parameters: tool!.input_schema } };
  };

  it("a function tool (anthropic.messages.tools.request.json)", () => {
    const recorded = wire("anthropic.messages.tools.request.json");
    const body = {
      model: "x",
      stream: false,
      max_tokens: 1000,
      messages: [user('Use the test_tool with value "test", then provide a final response')],
      tools: [testTool(recorded)],
    };
    expect(translate(body, { upstreamModel: "claude-opus-4-8" })).toEqual(withoutDefaults(recorded));
  });

  it("multi-turn with an assistant tool call and its tool result (anthropic.messages.tools.result.request.json)", () => {
    const recorded = wire("anthropic.messages.tools.result.request.json");
    const body = {
      model: "x",
      max_tokens: 1000,
      messages: [
        user('Use the test_tool with value "test", then provide a final response'),
        {
          role: "assistant",
          content: 'I\'ll use the test_tool with the value "test" as requested, then provide a final response.',
          tool_calls: [
            { id: "toolu_011LF2VkWpAfJnTKJcmh1PNf", type: "function", function: { name: "test_tool", arguments: '{"value":"test"}' } },
          ],
        },
        { role: "tool", tool_call_id: "toolu_011LF2VkWpAfJnTKJcmh1PNf", content: "Tool result" },
      ],
      tools: [testTool(recorded)],
    };
    expect(translate(body, { upstreamModel: "claude-opus-4-8" })).toEqual(withoutDefaults(recorded));
  });

  it("OpenAI's recorded image-input request: text and an https image as a url source", () => {
    const translated = translate(wire("openai.chat.image_input.request.json"));
    expect(translated.max_tokens).toBe(300);
    expect(translated.messages).toEqual([
      {
        role: "user",
        content: [
          { type: "text", text: "What is in this image?" },
          {
            type: "image",
            source: {
              type: "url",
              url: "https://upload.wikimedia.org/wikipedia/commons/thumb/d/dd/Gfp-wisconsin-madison-the-nature-boardwalk.jpg/2560px-Gfp-wisconsin-madison-the-nature-boardwalk.jpg",
            },
          },
        ],
      },
    ]);
  });

  it("OpenAI's recorded default request: the developer message becomes system", () => {
    const translated = translate(wire("openai.chat.request.json"));
    expect(translated).toEqual({
      model: "claude-sonnet-4-5",
      max_tokens: 64000,
      system: "You are a helpful assistant.",
      messages: [{ role: "user", content: "Hello!" }],
    });
  });

  it("OpenAI's recorded tools request: tool_choice auto", () => {
    const recorded = wire("openai.chat.tools.request.json") as {
      tools: { function: { name: string; description: string; parameters: unknown } }[];
    };
    const translated = translate(recorded);
    const tool = recorded.tools[0]!.function;
    expect(translated.tools).toEqual([{ name: tool.name, description: tool.description, input_schema: tool.parameters }]);
    expect(translated.tool_choice).toEqual({ type: "auto" });
  });

  it("OpenAI's recorded json_schema request: the schema unchanged under output_config.format", () => {
    const recorded = wire("openai.chat.json_schema.request.json") as { response_format: { json_schema: { schema: unknown } } };
    expect(translate(recorded).output_config).toEqual({
      format: { type: "json_schema", schema: recorded.response_format.json_schema.schema },
    });
  });
});

describe("AnthropicAdapter.request: system and messages", () => {
  it("gathers system and developer messages, wherever they are, into system blocks in order", () => {
    const translated = translate({
      messages: [
        { role: "system", content: "Be brief." },
        user("Hi"),
        { role: "developer", content: [{ type: "text", text: "Answer in French." }] },
        user("Again"),
      ],
    });
    expect(translated.system).toEqual([
      { type: "text", text: "Be brief." },
      { type: "text", text: "Answer in French." },
    ]);
    // The two user turns left adjacent by moving the developer message out are one turn.
    expect(translated.messages).toEqual([
      {
        role: "user",
        content: [
          { type: "text", text: "Hi" },
          { type: "text", text: "Again" },
        ],
      },
    ]);
  });

  it("sends no system when there is none", () => {
    expect(translate({ messages: [user("Hi")] })).not.toHaveProperty("system");
  });

  it("forwards Anthropic's cache_control on text parts (writes are priced now), and drops a shape Anthropic does not read", () => {
    const translated = translate({
      messages: [
        { role: "system", content: [{ type: "text", text: "Long rules", cache_control: { type: "ephemeral" } }] },
        user([
          { type: "text", text: "Question", cache_control: { type: "ephemeral", ttl: "1h" } },
          { type: "text", text: "Aside", cache_control: { type: "persistent" } },
        ]),
      ],
    });
    expect(translated.system).toEqual([{ type: "text", text: "Long rules", cache_control: { type: "ephemeral" } }]);
    expect(translated.messages[0].content).toEqual([
      { type: "text", text: "Question", cache_control: { type: "ephemeral", ttl: "1h" } },
      { type: "text", text: "Aside" },
    ]);
  });

  it("translates a multi-turn conversation with parallel tool calls, merging consecutive tool results into one user turn", () => {
    const translated = translate({
      messages: [
        user("Weather in Paris and Rome?"),
        {
          role: "assistant",
          content: null,
          tool_calls: [
            { id: "toolu_1", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } },
            { id: "toolu_2", type: "function", function: { name: "get_weather", arguments: '{"city":"Rome"}' } },
          ],
        },
        { role: "tool", tool_call_id: "toolu_1", content: "18C" },
        { role: "tool", tool_call_id: "toolu_2", content: [{ type: "text", text: "24C" }] },
        user("Which is warmer?"),
        { role: "assistant", content: [{ type: "text", text: "Rome." }] },
        user("Thanks"),
      ],
      tools: [weatherTool],
    });
    expect(translated.messages).toEqual([
      { role: "user", content: "Weather in Paris and Rome?" },
      {
        role: "assistant",
        content: [
          { type: "tool_use", id: "toolu_1", name: "get_weather", input: { city: "Paris" } },
          { type: "tool_use", id: "toolu_2", name: "get_weather", input: { city: "Rome" } },
        ],
      },
      {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "toolu_1", content: "18C" },
          { type: "tool_result", tool_use_id: "toolu_2", content: "24C" },
          { type: "text", text: "Which is warmer?" },
        ],
      },
      { role: "assistant", content: "Rome." },
      { role: "user", content: "Thanks" },
    ]);
  });

  it("gives tool calls with arguments that are not a JSON object an empty input, and an empty tool result no content", () => {
    const translated = translate({
      messages: [
        user("Go"),
        {
          role: "assistant",
          tool_calls: [
            { id: "t1", type: "function", function: { name: "ping", arguments: "" } },
            { id: "t2", type: "function", function: { name: "ping", arguments: '{"cut' } },
          ],
        },
        { role: "tool", tool_call_id: "t1", content: "" },
      ],
    });
    expect(translated.messages[1].content).toEqual([
      { type: "tool_use", id: "t1", name: "ping", input: {} },
      { type: "tool_use", id: "t2", name: "ping", input: {} },
    ]);
    expect(translated.messages[2]).toEqual({ role: "user", content: [{ type: "tool_result", tool_use_id: "t1" }] });
  });

  it("turns a base64 data: URL into a base64 image source and an http URL into a url source; detail is dropped", () => {
    const translated = translate({
      messages: [
        user([
          { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0KGgo=", detail: "high" } },
          { type: "image_url", image_url: { url: "http://example.com/cat.webp" } },
          { type: "text", text: "Compare them" },
        ]),
      ],
    });
    expect(translated.messages[0].content).toEqual([
      { type: "image", source: { type: "base64", media_type: "image/png", data: "iVBORw0KGgo=" } },
      { type: "image", source: { type: "url", url: "http://example.com/cat.webp" } },
      { type: "text", text: "Compare them" },
    ]);
  });

  it("turns a file part with inline data (a PDF) into a document block; a file_id is dropped", () => {
    const pdf = Buffer.from("%PDF-1.4").toString("base64");
    const translated = translate({
      messages: [
        user([
          { type: "file", file: { filename: "report.pdf", file_data: `data:application/pdf;base64,${pdf}` } },
          { type: "file", file: { file_id: "file-abc" } },
          { type: "text", text: "Summarize" },
        ]),
      ],
    });
    expect(translated.messages[0].content).toEqual([
      { type: "document", source: { type: "base64", media_type: "application/pdf", data: pdf }, title: "report.pdf" },
      { type: "text", text: "Summarize" },
    ]);
  });

  it("re-encodes a URL-encoded data: URL as base64", () => {
    const translated = translate({ messages: [user([{ type: "image_url", image_url: { url: "data:image/svg+xml,%3Csvg%2F%3E" } }])] });
    expect(translated.messages[0].content[0].source).toEqual({
      type: "base64",
      media_type: "image/svg+xml",
      data: Buffer.from("<svg/>").toString("base64"),
    });
  });

  it("drops parts and roles Anthropic cannot take (audio, legacy function role, names, refusals) without error", () => {
    const translated = translate({
      messages: [
        {
          role: "user",
          name: "ann",
          content: [
            { type: "input_audio", input_audio: { data: "AAA", format: "wav" } },
            { type: "text", text: "Hi" },
          ],
        },
        { role: "function", name: "f", content: "x" },
        {
          role: "assistant",
          content: [
            { type: "refusal", refusal: "No." },
            { type: "text", text: "Hello" },
          ],
          refusal: "No.",
        },
        { role: "user", content: "" },
        "not a message",
      ],
    });
    expect(translated.messages).toEqual([
      { role: "user", content: "Hi" },
      { role: "assistant", content: "Hello" },
    ]);
  });
});

describe("AnthropicAdapter.request: tools and tool_choice", () => {
  const choice = (body: Record<string, unknown>) => translate({ messages: [user("Hi")], tools: [weatherTool], ...body }).tool_choice;

  it("function tools -> name, description, input_schema; strict kept; non-function tools dropped", () => {
    const translated = translate({
      messages: [user("Hi")],
      tools: [
        { ...weatherTool, function: { ...weatherTool.function, strict: true } },
        { type: "function", function: { name: "now" } },
        { type: "custom", custom: { name: "grammar" } },
      ],
    });
    expect(translated.tools).toEqual([
      { name: "get_weather", description: "Weather in a city", input_schema: weatherTool.function.parameters, strict: true },
      { name: "now", input_schema: { type: "object", properties: {} } },
    ]);
  });

  it.each<[string, Record<string, unknown>, unknown]>([
    ["no choice", {}, undefined],
    ["auto", { tool_choice: "auto" }, { type: "auto" }],
    ["none", { tool_choice: "none" }, { type: "none" }],
    ["required -> any", { tool_choice: "required" }, { type: "any" }],
    [
      "a named function -> tool",
      { tool_choice: { type: "function", function: { name: "get_weather" } } },
      { type: "tool", name: "get_weather" },
    ],
    [
      "parallel_tool_calls false alone -> auto without parallel use",
      { parallel_tool_calls: false },
      { type: "auto", disable_parallel_tool_use: true },
    ],
    [
      "required + parallel_tool_calls false",
      { tool_choice: "required", parallel_tool_calls: false },
      { type: "any", disable_parallel_tool_use: true },
    ],
    [
      "named + parallel_tool_calls false",
      { tool_choice: { type: "function", function: { name: "get_weather" } }, parallel_tool_calls: false },
      { type: "tool", name: "get_weather", disable_parallel_tool_use: true },
    ],
    ["none + parallel_tool_calls false", { tool_choice: "none", parallel_tool_calls: false }, { type: "none" }],
    ["parallel_tool_calls true", { parallel_tool_calls: true }, undefined],
    ["allowed_tools (no counterpart)", { tool_choice: { type: "allowed_tools", allowed_tools: { mode: "auto", tools: [] } } }, undefined],
  ])("%s", (_name, body, expected) => {
    expect(choice(body)).toEqual(expected);
  });

  it("sends no tool_choice without tools", () => {
    const translated = translate({ messages: [user("Hi")], tool_choice: "required", parallel_tool_calls: false });
    expect(translated).not.toHaveProperty("tools");
    expect(translated).not.toHaveProperty("tool_choice");
  });
});

describe("AnthropicAdapter.request: other fields", () => {
  it("max_tokens: max_completion_tokens first, then max_tokens, else the model's maximum output", () => {
    expect(translate({ messages: [user("Hi")], max_completion_tokens: 100, max_tokens: 200 }).max_tokens).toBe(100);
    expect(translate({ messages: [user("Hi")], max_tokens: 200 }).max_tokens).toBe(200);
    expect(translate({ messages: [user("Hi")] }, { maxOutputTokens: 8192 }).max_tokens).toBe(8192);
    expect(translate({ messages: [user("Hi")], max_tokens: "lots" }, { maxOutputTokens: 8192 }).max_tokens).toBe(8192);
  });

  it("stop (string or array) -> stop_sequences", () => {
    expect(translate({ messages: [user("Hi")], stop: "END" }).stop_sequences).toEqual(["END"]);
    expect(translate({ messages: [user("Hi")], stop: ["a", "", 3, "b"] }).stop_sequences).toEqual(["a", "b"]);
    expect(translate({ messages: [user("Hi")], stop: null })).not.toHaveProperty("stop_sequences");
  });

  it("temperature (clamped to Anthropic's 0..1), top_k, and top_p only without temperature", () => {
    expect(translate({ messages: [user("Hi")], temperature: 0.3, top_p: 0.9, top_k: 40 })).toMatchObject({ temperature: 0.3, top_k: 40 });
    expect(translate({ messages: [user("Hi")], temperature: 0.3, top_p: 0.9 })).not.toHaveProperty("top_p");
    expect(translate({ messages: [user("Hi")], temperature: 1.7 }).temperature).toBe(1);
    expect(translate({ messages: [user("Hi")], top_p: 0.5 }).top_p).toBe(0.5);
  });

  it("user -> metadata.user_id (safety_identifier when user is absent); OpenAI's metadata map is dropped", () => {
    expect(translate({ messages: [user("Hi")], user: "u-42", metadata: { team: "a" } }).metadata).toEqual({ user_id: "u-42" });
    expect(translate({ messages: [user("Hi")], safety_identifier: "s-7" }).metadata).toEqual({ user_id: "s-7" });
    expect(translate({ messages: [user("Hi")], metadata: { team: "a" } })).not.toHaveProperty("metadata");
  });

  it("stream: true -> stream: true (usage needs no stream_options on Anthropic)", () => {
    const translated = translate({ messages: [user("Hi")], stream: true, stream_options: { include_usage: true } });
    expect(translated.stream).toBe(true);
    expect(translated).not.toHaveProperty("stream_options");
    expect(translate({ messages: [user("Hi")], stream: false })).not.toHaveProperty("stream");
  });

  it("json_object is dropped (no Anthropic JSON mode; the prompt already asks for JSON), text too", () => {
    expect(translate({ messages: [user("JSON please")], response_format: { type: "json_object" } })).not.toHaveProperty("output_config");
    expect(translate({ messages: [user("Hi")], response_format: { type: "text" } })).not.toHaveProperty("output_config");
  });

  it("drops every field Anthropic has no counterpart for, never failing", () => {
    const translated = translate({
      model: "auto:quality",
      messages: [user("Hi")],
      n: 3,
      logprobs: true,
      top_logprobs: 2,
      seed: 7,
      frequency_penalty: 0.5,
      presence_penalty: 0.5,
      logit_bias: { "1": 2 },
      service_tier: "flex",
      store: true,
      modalities: ["text"],
      reasoning_effort: "low",
      service: { tier: "quality" },
      provider: { order: ["anthropic"] },
      transforms: ["middle-out"],
      min_p: 0.1,
      repetition_penalty: 1.1,
      usage: { include: true },
    });
    expect(translated).toEqual({ model: "claude-sonnet-4-5", max_tokens: 64000, messages: [{ role: "user", content: "Hi" }] });
  });

  it("uses the upstream model id, never the caller's", () => {
    expect(translate({ model: "anthropic/claude-x", messages: [user("Hi")] }, { upstreamModel: "claude-x-20260101" }).model).toBe(
      "claude-x-20260101",
    );
  });
});

describe("AnthropicAdapter requests at the edges", () => {
  it("sends a conversation of system messages only as one user turn (Anthropic refuses empty messages)", () => {
    const translated = translate({ messages: [{ role: "system", content: "Say hi." }] });
    expect(translated.messages).toEqual([{ role: "user", content: "Say hi." }]);
    expect(translated).not.toHaveProperty("system");
  });

  it("lowers the default max_tokens when prompt plus the maximum would exceed the context window, never the caller's", () => {
    const long = "x".repeat(3 * 190_000); // about 190k tokens by the bytes / 3 estimate
    expect(translate({ messages: [{ role: "user", content: "short" }] }, { contextLength: 200_000 }).max_tokens).toBe(64000);
    const lowered = translate({ messages: [{ role: "user", content: long }] }, { contextLength: 200_000 }).max_tokens as number;
    expect(lowered).toBeLessThan(10_001);
    expect(lowered).toBeGreaterThan(9_000);
    expect(translate({ messages: [{ role: "user", content: long }], max_tokens: 50_000 }, { contextLength: 200_000 }).max_tokens).toBe(
      50_000,
    );
  });
});
