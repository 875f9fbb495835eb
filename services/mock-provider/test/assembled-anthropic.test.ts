// Script `assembled` on the Anthropic persona: a non-stream Messages request
// answers with the stream recording of the same shape folded into one Message;
// it must agree exactly with what a client accumulates from that stream.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { accumulateMessageStream, summarizeMessage } from "./accumulate";
import { anthropicEvents, fixtureJson, fixtureText, messages, script, startMock } from "./helpers";
import type { Json, Mock } from "./helpers";

let mock: Mock;
beforeAll(async () => {
  mock = await startMock();
});
afterAll(() => mock.close());
beforeEach(() => mock.app.mock.reset());

const USER = [{ role: "user", content: "What is the weather in Paris?" }];
const PLAIN = { model: "claude-opus-4-8", max_tokens: 100, messages: USER };
const TOOLS = [
  { name: "get_weather", description: "Weather", input_schema: { type: "object", properties: { location: { type: "string" } } } },
];
const OUTPUT_CONFIG = { format: { type: "json_schema", schema: { type: "object" } } };
const USAGE = { usage: { prompt_tokens: 42, completion_tokens: 7 } };

const SHAPES: [string, Json, string][] = [
  ["plain", PLAIN, "anthropic.messages.stream.sse"],
  ["tool_result turn", fixtureJson("anthropic.messages.tools.result.request.json"), "anthropic.messages.stream.sse"],
  ["tools", { ...PLAIN, tools: TOOLS }, "anthropic.messages.stream.tools.sse"],
  ["json_schema", { ...PLAIN, output_config: OUTPUT_CONFIG }, "anthropic.messages.stream.recorded.sse"],
];

const parsed = (text: string): Json[] => anthropicEvents(text).map((e) => JSON.parse(e.data) as Json);

async function streamed(body: Json, scripted: Json): Promise<Json[]> {
  const res = await messages(mock, { ...body, stream: true }, script(scripted));
  expect(res.status).toBe(200);
  return parsed(await res.text());
}

async function assembled(body: Json, scripted: Json = {}): Promise<Json> {
  const res = await messages(mock, body, script({ ...scripted, assembled: true }));
  expect(res.status).toBe(200);
  return (await res.json()) as Json;
}

describe("assembled: Anthropic persona", () => {
  for (const [name, body, recording] of SHAPES) {
    it(`${name}: agrees with the accumulated stream (${recording}), recorded and scripted usage`, async () => {
      for (const scripted of [{}, USAGE]) {
        const fromStream = accumulateMessageStream(await streamed(body, scripted));
        const answer = await assembled(body, scripted);
        expect(summarizeMessage(answer)).toEqual(fromStream);
        expect(answer.id).toMatch(/^msg_mock_\d+$/);
        expect(answer.model).toBe(body.model);
      }
      const recorded = parsed(fixtureText(recording).replace(/\n*$/, "\n\n"));
      expect(summarizeMessage(await assembled(body))).toEqual(accumulateMessageStream(recorded));
      expect(summarizeMessage(await assembled(body, USAGE))).toMatchObject({ inputTokens: 42, outputTokens: 7 });
    });
  }

  it("tools: a Message as the API returns it (message_start's fields and order, text + tool_use blocks)", async () => {
    const answer = await assembled({ ...PLAIN, tools: TOOLS });
    const start = parsed(fixtureText("anthropic.messages.stream.tools.sse"))[0]!.message as Json;
    expect(Object.keys(answer)).toEqual(Object.keys(start));
    expect(answer).toEqual({
      ...start,
      id: answer.id,
      model: "claude-opus-4-8",
      content: [
        { type: "text", text: "I'll check the current weather in Paris for you." },
        {
          type: "tool_use",
          id: "toolu_01NRLabsLyVHZPKxbKvkfSMn",
          name: "get_weather",
          caller: { type: "direct" },
          input: { location: "Paris" },
        },
      ],
      stop_reason: "tool_use",
      stop_sequence: null,
      usage: { ...start.usage, output_tokens: 65 },
    });
  });

  it("json_schema: usage keeps the recorded cache fields; message_delta's repeated input agrees", async () => {
    const answer = await assembled({ ...PLAIN, output_config: OUTPUT_CONFIG }, USAGE);
    expect(answer.content).toEqual([{ type: "text", text: "[12345,67890]" }]);
    expect(answer.usage).toMatchObject({ input_tokens: 42, output_tokens: 7, cache_read_input_tokens: 0, service_tier: "standard" });
  });

  it("has no effect on stream requests", async () => {
    const normalize = (text: string) => text.replace(/msg_mock_\d+/g, "ID");
    const plain = await (await messages(mock, { ...PLAIN, stream: true })).text();
    const withScript = await (await messages(mock, { ...PLAIN, stream: true }, script({ assembled: true }))).text();
    expect(normalize(withScript)).toBe(normalize(plain));
  });
});
