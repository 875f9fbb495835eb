import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { chat, fixtureJson, getJson, post, startMock, USER } from "./helpers";
import type { Json, Mock } from "./helpers";

let mock: Mock;
beforeAll(async () => {
  mock = await startMock();
});
afterAll(() => mock.close());
beforeEach(() => mock.app.mock.reset());

const weatherTool = { type: "function", function: { name: "get_weather", parameters: { type: "object", properties: {} } } };
const stockTool = { type: "function", function: { name: "get_stock_price", parameters: { type: "object", properties: {} } } };

/** The recorded fixture with only the per-request fields replaced by what the mock sent. */
function expectRecordedExceptIdentity(body: Json, fixtureName: string, model: string) {
  const recorded = fixtureJson(fixtureName);
  expect(body.id).toMatch(/^chatcmpl-mock-\d+$/);
  expect(body.model).toBe(model);
  expect(Math.abs(body.created - Date.now() / 1000)).toBeLessThan(5);
  expect(body).toEqual({ ...recorded, id: body.id, created: body.created, model });
  // Key order is part of "as recorded" too.
  expect(Object.keys(body)).toEqual(Object.keys(recorded));
}

describe("POST /v1/chat/completions (non-stream) fixture choice", () => {
  const cases: [string, Json, string][] = [
    ["plain", { messages: USER }, "openai.chat.response.json"],
    ["single tool", { messages: USER, tools: [weatherTool] }, "openai.chat.tools.response.json"],
    ["two tools -> parallel", { messages: USER, tools: [weatherTool, stockTool] }, "openai.chat.tools_parallel.response.json"],
    [
      "tools, last message a tool result -> text",
      {
        messages: [
          ...USER,
          {
            role: "assistant",
            content: null,
            tool_calls: [{ id: "c", type: "function", function: { name: "get_weather", arguments: "{}" } }],
          },
          { role: "tool", tool_call_id: "c", content: "sunny" },
        ],
        tools: [weatherTool],
      },
      "openai.chat.response.json",
    ],
    [
      "two tools, parallel_tool_calls false -> single",
      { messages: USER, tools: [weatherTool, stockTool], parallel_tool_calls: false },
      "openai.chat.tools.response.json",
    ],
    [
      "two tools, parallel_tool_calls true -> parallel",
      { messages: USER, tools: [weatherTool, stockTool], parallel_tool_calls: true },
      "openai.chat.tools_parallel.response.json",
    ],
    [
      "json_schema",
      { messages: USER, response_format: { type: "json_schema", json_schema: { name: "x", schema: { type: "object" } } } },
      "openai.chat.json_schema.response.json",
    ],
    ["json_object is not json_schema", { messages: USER, response_format: { type: "json_object" } }, "openai.chat.response.json"],
    [
      "image input",
      {
        messages: [
          {
            role: "user",
            content: [
              { type: "text", text: "What is in this image?" },
              { type: "image_url", image_url: { url: "https://example.com/a.jpg" } },
            ],
          },
        ],
      },
      "openai.chat.image_input.response.json",
    ],
  ];

  for (const [name, request, fixture] of cases) {
    it(`${name} -> ${fixture}`, async () => {
      const res = await chat(mock, { model: "my-model", ...request });
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toMatch(/^application\/json/);
      expectRecordedExceptIdentity((await res.json()) as Json, fixture, "my-model");
    });
  }

  it("numbers ids sequentially per instance", async () => {
    const first = (await (await chat(mock, { model: "m", messages: USER })).json()) as Json;
    const second = (await (await chat(mock, { model: "m", messages: USER })).json()) as Json;
    const n = Number(first.id.slice("chatcmpl-mock-".length));
    expect(second.id).toBe(`chatcmpl-mock-${n + 1}`);
  });

  it("keeps recorded usage by default, including the details objects", async () => {
    const body = (await (await chat(mock, { model: "m", messages: USER })).json()) as Json;
    expect(body.usage).toEqual({
      prompt_tokens: 19,
      completion_tokens: 10,
      total_tokens: 29,
      prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
      completion_tokens_details: {
        reasoning_tokens: 0,
        audio_tokens: 0,
        accepted_prediction_tokens: 0,
        rejected_prediction_tokens: 0,
      },
    });
  });
});

describe("request validation and other routes", () => {
  it("rejects a body that is not JSON with an OpenAI-style 400", async () => {
    const res = await post(mock, "/v1/chat/completions", "{not json");
    expect(res.status).toBe(400);
    const body = (await res.json()) as Json;
    expect(body.error.type).toBe("invalid_request_error");
    expect(body.error.message).toMatch(/could not parse the JSON body/);
    expect(mock.app.mock.lastRequest()?.body).toBe("{not json");
  });

  it("requires model and messages", async () => {
    const noModel = await chat(mock, { messages: USER });
    expect(noModel.status).toBe(400);
    expect(((await noModel.json()) as Json).error.message).toBe("you must provide a model parameter");
    const noMessages = await chat(mock, { model: "m" });
    expect(noMessages.status).toBe(400);
    expect(((await noMessages.json()) as Json).error.param).toBe("messages");
  });

  it("GET /v1/models lists models OpenAI-style", async () => {
    const res = await fetch(`${mock.url}/v1/models`, { headers: { authorization: "Bearer x" } });
    expect(res.status).toBe(200);
    const body = (await res.json()) as Json;
    expect(body.object).toBe("list");
    expect(body.data.length).toBeGreaterThanOrEqual(3);
    for (const model of body.data) {
      expect(model).toEqual({ id: expect.any(String), object: "model", created: expect.any(Number), owned_by: expect.any(String) });
    }
    const one = await fetch(`${mock.url}/v1/models/gpt-4o-mini`, { headers: { authorization: "Bearer x" } });
    expect(((await one.json()) as Json).id).toBe("gpt-4o-mini");
    const missing = await fetch(`${mock.url}/v1/models/nope`, { headers: { authorization: "Bearer x" } });
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as Json).error.code).toBe("model_not_found");
  });

  it("answers unknown routes with a 404 OpenAI error, recorded but consuming no script", async () => {
    mock.app.mock.addScript({ match: "anything", times: 1, status: 500 });
    const res = await post(mock, "/v1/responses-not-here", { q: "anything" });
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({
      error: { message: "Invalid URL (POST /v1/responses-not-here)", type: "invalid_request_error", param: null, code: null },
    });
    expect(mock.app.mock.lastRequest()?.path).toBe("/v1/responses-not-here");
    expect(mock.app.mock.scripts()).toHaveLength(1);

    const outside = await getJson(mock, "/elsewhere");
    expect(outside.status).toBe(404);
    expect(outside.body.error.message).toBe("Invalid URL (GET /elsewhere)");
  });
});
