// OpenAI Responses API (POST /v1/responses): the recorded Response chosen by
// request shape, streams replayed byte for byte apart from id/created_at/model
// (and usage when scripted), the Responses failure form mid-stream.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { anthropicEvents, fixtureJson, fixtureText, post, readAll, script, startMock } from "./helpers";
import type { Json, Mock } from "./helpers";

let mock: Mock;
beforeAll(async () => {
  mock = await startMock();
});
afterAll(() => mock.close());
beforeEach(() => mock.app.mock.reset());

const PLAIN = { model: "gpt-5-mock", input: "What's the weather like in SF?" };
const TOOL = {
  type: "function",
  name: "calculator",
  parameters: { type: "object", properties: { a: { type: "number" } } },
  strict: true,
};
const JSON_SCHEMA_REQUEST = fixtureJson("openai.responses.json_schema.request.json");
const TEXT_STREAM = "openai.responses.stream.sse";
const TOOLS_STREAM = "openai.responses.stream.reasoning_tools.sse";

const responses = (body: unknown, headers: Record<string, string> = {}) => post(mock, "/v1/responses", body, headers);

async function json(body: unknown, headers: Record<string, string> = {}): Promise<Json> {
  const res = await responses(body, headers);
  expect(res.status).toBe(200);
  return (await res.json()) as Json;
}

/** The recording with only the per-request fields replaced, key order kept. */
function expectRecording(body: Json, fixture: string, model: string) {
  const recorded = fixtureJson(fixture);
  expect(body.id).toMatch(/^resp_mock_\d+$/);
  expect(body.created_at).toBeGreaterThanOrEqual(Math.floor(Date.now() / 1000) - 5);
  expect(body).toEqual({ ...recorded, id: body.id, created_at: body.created_at, model });
  expect(Object.keys(body)).toEqual(Object.keys(recorded));
}

/** Parsed `data:` payloads of a Responses stream, checking the framing of every event on the way. */
function payloads(text: string): Json[] {
  return anthropicEvents(text).map(({ event, data }) => {
    const payload = JSON.parse(data) as Json;
    expect(payload.type).toBe(event);
    return payload;
  });
}

/** The recorded stream with the Response objects' id/created_at/model replaced as the mock does. */
function recordedWith(fixture: string, response: { id: string; created_at: number; model: string }): string {
  const text = fixtureText(fixture);
  const recorded = payloads(text)[0]!.response as Json;
  return text
    .split(`"id":"${recorded.id}"`)
    .join(`"id":"${response.id}"`)
    .split(`"created_at":${recorded.created_at}`)
    .join(`"created_at":${response.created_at}`)
    .split(`"model":"${recorded.model}"`)
    .join(`"model":"${response.model}"`);
}

async function stream(body: Json, headers: Record<string, string> = {}) {
  const res = await responses({ ...body, stream: true }, headers);
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toBe("text/event-stream");
  const { text, error } = await readAll(res);
  expect(error).toBeUndefined();
  const events = payloads(text);
  return { res, text, events, response: events[0]!.response as { id: string; created_at: number; model: string } };
}

describe("Responses: non-stream answers by request shape", () => {
  it("plain input -> openai.responses.response.json", async () => {
    const res = await responses(PLAIN);
    expect(res.headers.get("x-request-id")).toMatch(/^req_mock_\d+$/);
    expectRecording((await res.json()) as Json, "openai.responses.response.json", "gpt-5-mock");
  });

  it("function tools -> reasoning + function_call (openai.responses.tools.response.json)", async () => {
    const body = await json({ ...PLAIN, tools: [TOOL] });
    expectRecording(body, "openai.responses.tools.response.json", "gpt-5-mock");
    expect((body.output as Json[]).map((item) => item.type)).toEqual(["reasoning", "function_call"]);
  });

  it("text.format json_schema -> openai.responses.json_schema.response.json", async () => {
    const body = await json(JSON_SCHEMA_REQUEST);
    expectRecording(body, "openai.responses.json_schema.response.json", "gpt-4o-mini");
  });

  it("reasoning -> openai.responses.reasoning.response.json", async () => {
    expectRecording(await json({ ...PLAIN, reasoning: { effort: "high" } }), "openai.responses.reasoning.response.json", "gpt-5-mock");
  });

  it("an input ending in a function_call_output gets the plain text answer, tools or not", async () => {
    const input = [
      { role: "user", content: "12 + 7?" },
      { type: "function_call", call_id: "call_1", name: "calculator", arguments: '{"a":12}' },
      { type: "function_call_output", call_id: "call_1", output: "19" },
    ];
    expectRecording(await json({ ...PLAIN, input, tools: [TOOL] }), "openai.responses.response.json", "gpt-5-mock");
  });

  it("previous_response_id needs nothing special; ids count on the shared counter", async () => {
    const first = await json(PLAIN);
    const second = await json({ ...PLAIN, previous_response_id: first.id });
    expect(Number(String(second.id).slice("resp_mock_".length))).toBe(Number(String(first.id).slice("resp_mock_".length)) + 1);
  });
});

describe("Responses: streams", () => {
  it("text: the recording byte for byte apart from id/created_at/model, no [DONE]", async () => {
    const { text, events, response } = await stream(PLAIN);
    expect(response.id).toMatch(/^resp_mock_\d+$/);
    expect(response.model).toBe("gpt-5-mock");
    expect(text).toBe(recordedWith(TEXT_STREAM, response));
    expect(text).toMatch(/^(event: [a-z_.]+\ndata: [^\n]+\n\n)+$/);
    expect(text).not.toContain("[DONE]");
    expect(events.map((event) => event.sequence_number)).toEqual(events.map((_, i) => i));
    expect(events.map((event) => event.type)).toEqual([
      "response.created",
      "response.in_progress",
      "response.output_item.added",
      "response.content_part.added",
      ...Array(8).fill("response.output_text.delta"),
      "response.output_text.done",
      "response.content_part.done",
      "response.output_item.done",
      "response.completed",
    ]);
    for (const event of [events[0]!, events[1]!, events.at(-1)!]) {
      expect((event.response as Json).id).toBe(response.id);
      expect((event.response as Json).created_at).toBe(response.created_at);
    }
  });

  it("function tools: the reasoning + function call recording, numbered 0..55", async () => {
    const { text, events, response } = await stream({ ...PLAIN, tools: [TOOL] });
    expect(text).toBe(recordedWith(TOOLS_STREAM, response));
    expect(events).toHaveLength(56);
    expect(events.map((event) => event.sequence_number)).toEqual(events.map((_, i) => i));
    expect(events.at(-1)!.type).toBe("response.completed");
  });

  it("json_schema and reasoning requests stream the text recording (no other stream was recorded)", async () => {
    for (const body of [JSON_SCHEMA_REQUEST, { ...PLAIN, reasoning: { effort: "low" } }]) {
      const { text, response } = await stream(body);
      expect(text).toBe(recordedWith(TEXT_STREAM, response));
    }
  });

  it("scripted usage rewrites response.completed only, details kept", async () => {
    const { events } = await stream(PLAIN, script({ usage: { prompt_tokens: 7, completion_tokens: 3 } }));
    expect((events[0]!.response as Json).usage).toBeNull();
    const recorded = (payloads(fixtureText(TEXT_STREAM)).at(-1)!.response as Json).usage as Json;
    expect((events.at(-1)!.response as Json).usage).toEqual({ ...recorded, input_tokens: 7, output_tokens: 3, total_tokens: 10 });
  });

  it("firstChunkDelayMs, chunkDelayMs and latency apply as to chat streams", async () => {
    const started = Date.now();
    await stream(PLAIN, script({ firstChunkDelayMs: 100, chunkDelayMs: 5 }));
    expect(Date.now() - started).toBeGreaterThanOrEqual(100 + 5 * 14);
  });
});

describe("Responses: failures", () => {
  const recordedFailure = payloads(fixtureText("openai.responses.stream.error.sse"));
  const recordedError = recordedFailure.find((event) => event.type === "error")!;
  const recordedFailed = recordedFailure.find((event) => event.type === "response.failed")!;

  for (const [name, body, fixture, total] of [
    ["text", PLAIN, TEXT_STREAM, 16],
    ["tools", { ...PLAIN, tools: [TOOL] }, TOOLS_STREAM, 56],
  ] as const) {
    it(`error-event-mid-stream (${name}): half the events, then error + response.failed numbered on`, async () => {
      const res = await responses({ ...body, stream: true }, script({ fault: "error-event-mid-stream" }));
      expect(res.status).toBe(200);
      const { text, error } = await readAll(res);
      expect(error).toBeUndefined();
      const events = payloads(text);
      const half = total / 2;
      expect(events).toHaveLength(half + 2);
      expect(events.map((event) => event.sequence_number)).toEqual(events.map((_, i) => i));
      const response = events[0]!.response as { id: string; created_at: number; model: string };
      const expected = recordedWith(fixture, response)
        .split("\n\n")
        .slice(0, half)
        .map((block) => `${block}\n\n`)
        .join("");
      expect(text.startsWith(expected)).toBe(true);
      expect(events[half]).toEqual({ ...recordedError, sequence_number: half });
      expect(events[half + 1]).toEqual({
        ...recordedFailed,
        sequence_number: half + 1,
        response: { ...(recordedFailed.response as Json), id: response.id, created_at: response.created_at, model: "gpt-5-mock" },
      });
      // Key order as recorded, in the rewritten failure events too.
      expect(Object.keys(events[half]!)).toEqual(Object.keys(recordedError));
      expect(Object.keys(events[half + 1]!)).toEqual(Object.keys(recordedFailed));
      expect(text).toMatch(/event: error\ndata: [^\n]+\n\nevent: response.failed\ndata: [^\n]+\n\n$/);
      expect(text).not.toContain("[DONE]");
      expect(mock.app.mock.lastRequest()?.responseText).toBe(text);
    });
  }

  it("reset-mid-stream cuts the stream after half the events", async () => {
    const res = await responses({ ...PLAIN, stream: true }, script({ fault: "reset-mid-stream" }));
    const { text, error } = await readAll(res);
    expect(error).toBeDefined();
    expect(anthropicEvents(text)).toHaveLength(8);
  });

  it("a scripted status answers OpenAI's error body, also for stream requests", async () => {
    for (const stream of [false, true]) {
      const res = await responses({ ...PLAIN, stream }, script({ errorFixture: "openai.error.429.rate_limit_exceeded" }));
      expect(res.status).toBe(429);
      expect(await res.json()).toEqual(fixtureJson("openai.error.429.rate_limit_exceeded.json"));
    }
  });

  it("missing model or input -> 400 invalid_request_error with param", async () => {
    const noModel = await responses({ input: "hi" });
    expect(noModel.status).toBe(400);
    expect(await noModel.json()).toEqual({
      error: {
        message: "Missing required parameter: 'model'.",
        type: "invalid_request_error",
        param: "model",
        code: "missing_required_parameter",
      },
    });
    const noInput = await responses({ model: "gpt-5-mock" });
    expect(noInput.status).toBe(400);
    expect(((await noInput.json()) as Json).error).toEqual({
      message: "Missing required parameter: 'input'.",
      type: "invalid_request_error",
      param: "input",
      code: "missing_required_parameter",
    });
    const notJson = await responses("{nope");
    expect(notJson.status).toBe(400);
    expect(((await notJson.json()) as Json).error.type).toBe("invalid_request_error");
  });

  it("auth as the other OpenAI routes: no bearer -> 401 invalid_api_key", async () => {
    const res = await fetch(`${mock.url}/v1/responses`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(PLAIN),
    });
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual(fixtureJson("openai.error.401.invalid_api_key.json"));
    expect(mock.app.mock.lastRequest()?.persona).toBe("openai");
  });
});

describe("Responses: scripted usage and assembled", () => {
  it("scripted usage replaces input/output/total tokens, details kept", async () => {
    const body = await json({ ...PLAIN, reasoning: { effort: "high" } }, script({ usage: { prompt_tokens: 40, completion_tokens: 2 } }));
    const recorded = fixtureJson("openai.responses.reasoning.response.json").usage as Json;
    expect(body.usage).toEqual({ ...recorded, input_tokens: 40, output_tokens: 2, total_tokens: 42 });
    expect(Object.keys(body.usage as Json)).toEqual(Object.keys(recorded));
  });

  for (const [name, body] of [
    ["text", PLAIN],
    ["tools", { ...PLAIN, tools: [TOOL] }],
    ["json_schema", JSON_SCHEMA_REQUEST],
  ] as const) {
    it(`assembled (${name}): the Response that response.completed of the same stream carries`, async () => {
      const usage = { prompt_tokens: 11, completion_tokens: 5 };
      const assembled = await json(body, script({ assembled: true, usage }));
      const { events } = await stream(body, script({ usage }));
      const completed = events.at(-1)!.response as Json;
      expect(assembled).toEqual({ ...completed, id: assembled.id, created_at: assembled.created_at });
      expect(Object.keys(assembled)).toEqual(Object.keys(completed));
      expect(assembled.usage).toMatchObject({ input_tokens: 11, output_tokens: 5, total_tokens: 16 });
    });
  }
});

describe("Responses: scripted cache figures", () => {
  it("cached_tokens / cache_creation_tokens go to input_tokens_details (shape of openai.responses.cached.response.json)", async () => {
    const usage = { prompt_tokens: 3700, completion_tokens: 741, cached_tokens: 2560 };
    const got = await json({ ...PLAIN, reasoning: { effort: "high" } }, script({ usage }));
    const recorded = fixtureJson("openai.responses.cached.response.json").usage as Json;
    // Same fields, in the same order, with the scripted numbers; reasoning_tokens stays as recorded here.
    expect(got.usage).toEqual({ ...recorded, output_tokens_details: (got.usage as Json).output_tokens_details });
    expect(JSON.stringify(Object.keys(got.usage as Json))).toBe(JSON.stringify(Object.keys(recorded)));

    const both = await json(
      PLAIN,
      script({ usage: { prompt_tokens: 10, completion_tokens: 1, cached_tokens: 4, cache_creation_tokens: 6 } }),
    );
    expect((both.usage as Json).input_tokens_details).toEqual({ cached_tokens: 4, cache_write_tokens: 6 });
  });

  it("stream: in response.completed", async () => {
    const { events } = await stream(PLAIN, script({ usage: { prompt_tokens: 10, completion_tokens: 1, cached_tokens: 4 } }));
    expect(((events.at(-1)!.response as Json).usage as Json).input_tokens_details).toEqual({ cached_tokens: 4 });
  });
});
