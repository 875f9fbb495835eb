// Anthropic persona, happy paths: the recorded answer chosen by request shape,
// replayed byte for byte apart from id/model (and usage when scripted).
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { anthropicEvents, fixtureJson, messages, script, servedTranscript, startMock } from "./helpers";
import type { Json, Mock } from "./helpers";

let mock: Mock;
beforeAll(async () => {
  mock = await startMock();
});
afterAll(() => mock.close());
beforeEach(() => mock.app.mock.reset());

const USER = [{ role: "user", content: "What is the capital of France?" }];
const PLAIN = { model: "claude-opus-4-8", max_tokens: 100, messages: USER };
const TOOLS = [
  { name: "get_weather", description: "Weather", input_schema: { type: "object", properties: { location: { type: "string" } } } },
];
const OUTPUT_CONFIG = { format: { type: "json_schema", schema: { type: "object", properties: { a: { type: "string" } } } } };

/** The recording with only the per-request fields replaced. */
function expectRecording(body: Json, fixture: string, model: string) {
  const recorded = fixtureJson(fixture);
  expect(body).toEqual({ ...recorded, id: body.id, model });
  expect(body.id).toMatch(/^msg_mock_\d+$/);
  expect(Object.keys(body)).toEqual(Object.keys(recorded)); // key order as recorded
}

async function streamText(body: Json, headers: Record<string, string> = {}) {
  const res = await messages(mock, { ...body, stream: true }, headers);
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
  return res.text();
}

/** A recorded transcript with its message id and model replaced the way the mock does. */
function recordedWith(fixture: string, id: string, model: string): string {
  const text = servedTranscript(fixture);
  const start = JSON.parse(anthropicEvents(text)[0]!.data) as Json;
  return text.replace(`"id":"${start.message.id}"`, `"id":"${id}"`).replace(`"model":"${start.message.model}"`, `"model":"${model}"`);
}

describe("Anthropic persona: answers by request shape", () => {
  it("plain -> the recorded text-only message (anthropic.messages.tools.result.response.json)", async () => {
    const res = await messages(mock, PLAIN);
    expect(res.status).toBe(200);
    expect(res.headers.get("request-id")).toMatch(/^req_mock_\d+$/);
    expectRecording((await res.json()) as Json, "anthropic.messages.tools.result.response.json", "claude-opus-4-8");
  });

  it("tools -> text + tool_use, stop_reason tool_use", async () => {
    const res = await messages(mock, { ...PLAIN, tools: TOOLS });
    const body = (await res.json()) as Json;
    expectRecording(body, "anthropic.messages.tools.response.json", "claude-opus-4-8");
    expect(body.stop_reason).toBe("tool_use");
  });

  it("a last turn carrying tool_result blocks gets the text answer recorded after a tool result", async () => {
    const conversation = fixtureJson("anthropic.messages.tools.result.request.json");
    const body = (await (await messages(mock, conversation)).json()) as Json;
    expectRecording(body, "anthropic.messages.tools.result.response.json", conversation.model);
    expect(body.stop_reason).toBe("end_turn");
  });

  it("output_config.format json_schema (and the beta output_format) -> the json_schema recording", async () => {
    const a = (await (await messages(mock, { ...PLAIN, output_config: OUTPUT_CONFIG })).json()) as Json;
    expectRecording(a, "anthropic.messages.response.json", "claude-opus-4-8");
    expect(JSON.parse(a.content[0].text)).toEqual({ product_name: "Green Tea", price: 5.5, quantity: 2 });
    const b = (await (await messages(mock, { ...PLAIN, output_format: OUTPUT_CONFIG.format })).json()) as Json;
    expectRecording(b, "anthropic.messages.response.json", "claude-opus-4-8");
  });

  it("ids count per instance and the request's model is echoed", async () => {
    const first = (await (await messages(mock, PLAIN)).json()) as Json;
    const second = (await (await messages(mock, { ...PLAIN, model: "claude-haiku-4-5" })).json()) as Json;
    expect(Number(second.id.slice("msg_mock_".length))).toBe(Number(first.id.slice("msg_mock_".length)) + 1);
    expect(second.model).toBe("claude-haiku-4-5");
  });
});

describe("Anthropic persona: streams replay the recorded SSE", () => {
  it("plain: byte for byte anthropic.messages.stream.sse (ping included), only id/model replaced", async () => {
    const text = await streamText(PLAIN);
    const id = (JSON.parse(anthropicEvents(text)[0]!.data) as Json).message.id as string;
    expect(id).toMatch(/^msg_mock_\d+$/);
    expect(text).toBe(recordedWith("anthropic.messages.stream.sse", id, "claude-opus-4-8"));
    expect(anthropicEvents(text).map((e) => e.event)).toContain("ping");
    expect(text).not.toContain("[DONE]");
  });

  it("tools: the recorded input_json_delta stream", async () => {
    const text = await streamText({ ...PLAIN, tools: TOOLS });
    const id = (JSON.parse(anthropicEvents(text)[0]!.data) as Json).message.id as string;
    expect(text).toBe(recordedWith("anthropic.messages.stream.tools.sse", id, "claude-opus-4-8"));
  });

  it("json_schema: the real recorded stream, whitespace padding before each closing brace kept", async () => {
    const text = await streamText({ ...PLAIN, output_config: OUTPUT_CONFIG });
    const id = (JSON.parse(anthropicEvents(text)[0]!.data) as Json).message.id as string;
    expect(text).toBe(recordedWith("anthropic.messages.stream.recorded.sse", id, "claude-opus-4-8"));
    expect(text).toContain('"inference_geo":"not_available"}}   }');
  });

  it("the request log holds the exact text written and names the persona", async () => {
    const text = await streamText(PLAIN);
    const entry = mock.app.mock.lastRequest()!;
    expect(entry).toMatchObject({ path: "/v1/messages", persona: "anthropic", responseStatus: 200, responseText: text });
  });
});

describe("Anthropic persona: usage scripts", () => {
  const USAGE = script({ usage: { prompt_tokens: 42, completion_tokens: 7 } });

  it("non-stream: input_tokens/output_tokens replaced, cache fields kept", async () => {
    const body = (await (await messages(mock, PLAIN, USAGE)).json()) as Json;
    const recorded = fixtureJson("anthropic.messages.tools.result.response.json").usage;
    expect(body.usage).toEqual({ ...recorded, input_tokens: 42, output_tokens: 7 });
    expect(Object.keys(body.usage)).toEqual(Object.keys(recorded));
  });

  it("stream: message_start carries the input, message_delta the final output (and the input where recorded)", async () => {
    const events = anthropicEvents(await streamText({ ...PLAIN, output_config: OUTPUT_CONFIG }, USAGE));
    const start = JSON.parse(events.find((e) => e.event === "message_start")!.data) as Json;
    const delta = JSON.parse(events.find((e) => e.event === "message_delta")!.data) as Json;
    expect(start.message.usage).toMatchObject({ input_tokens: 42, output_tokens: 1, cache_read_input_tokens: 0 });
    expect(delta.usage).toEqual({ input_tokens: 42, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 7 });
    // Rewritten events keep the recorded padding.
    expect(events[0]!.data.endsWith("}   }")).toBe(true);
  });

  it("stream without input in message_delta leaves it out", async () => {
    const events = anthropicEvents(await streamText(PLAIN, script({ usage: { prompt_tokens: 3, completion_tokens: 0 } })));
    const start = JSON.parse(events[0]!.data) as Json;
    const delta = JSON.parse(events.find((e) => e.event === "message_delta")!.data) as Json;
    expect(start.message.usage).toEqual({ input_tokens: 3, output_tokens: 0 });
    expect(delta.usage).toEqual({ output_tokens: 0 });
  });
});
