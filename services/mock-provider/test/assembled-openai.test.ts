// Script `assembled` on the OpenAI persona and its OpenRouter flavour: a
// non-stream request answers with the stream recording of the same shape,
// assembled; it must agree exactly with what a client accumulates from the
// stream (content, tool calls, finish reason, usage).
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { accumulateChatStream, summarizeCompletion } from "./accumulate";
import { chat, fixtureEvents, script, sseData, startMock, USER } from "./helpers";
import type { Json, Mock } from "./helpers";

let mock: Mock;
beforeAll(async () => {
  mock = await startMock();
});
afterAll(() => mock.close());
beforeEach(() => mock.app.mock.reset());

const weatherTool = { type: "function", function: { name: "get_weather", parameters: { type: "object", properties: {} } } };
const stockTool = { type: "function", function: { name: "get_stock_price", parameters: { type: "object", properties: {} } } };
const IMAGE_MESSAGES = [
  {
    role: "user",
    content: [
      { type: "text", text: "What is this?" },
      { type: "image_url", image_url: { url: "https://example.com/a.png" } },
    ],
  },
];

/** Request shape → the stream recording it replays. */
const SHAPES: [string, Json, string][] = [
  ["plain", { messages: USER }, "openai.chat.stream.sse"],
  ["tools", { messages: USER, tools: [weatherTool] }, "openai.chat.stream.tools.sse"],
  ["parallel tools", { messages: USER, tools: [weatherTool, stockTool] }, "openai.chat.stream.tools_parallel.sse"],
  [
    "json_schema",
    { messages: USER, response_format: { type: "json_schema", json_schema: { name: "w", schema: { type: "object" } } } },
    "openai.chat.stream.json_schema.sse",
  ],
  ["image input (plain stream)", { messages: IMAGE_MESSAGES }, "openai.chat.stream.sse"],
];
const USAGE = { usage: { prompt_tokens: 42, completion_tokens: 7 } };
const ASSEMBLED = { assembled: true };

function chunksOf(text: string): Json[] {
  return sseData(text.replace(/^: OPENROUTER PROCESSING\n\n/, ""))
    .filter((d) => d !== "[DONE]")
    .map((d) => JSON.parse(d) as Json);
}

async function streamed(body: Json, scripted: Json = {}, headers: Record<string, string> = {}): Promise<Json[]> {
  const res = await chat(mock, { ...body, stream: true, stream_options: { include_usage: true } }, { ...headers, ...script(scripted) });
  expect(res.status).toBe(200);
  return chunksOf(await res.text());
}

async function assembled(body: Json, scripted: Json = {}, headers: Record<string, string> = {}): Promise<Json> {
  const res = await chat(mock, body, { ...headers, ...script({ ...scripted, ...ASSEMBLED }) });
  expect(res.status).toBe(200);
  return (await res.json()) as Json;
}

describe("assembled: OpenAI persona", () => {
  for (const [name, shape, recording] of SHAPES) {
    const body = { model: "gpt-4.1-mini", ...shape };
    it(`${name}: agrees with the accumulated stream (${recording}), recorded and scripted usage`, async () => {
      for (const scripted of [{}, USAGE]) {
        const fromStream = accumulateChatStream(await streamed(body, scripted));
        const answer = await assembled(body, scripted);
        expect(summarizeCompletion(answer)).toEqual(fromStream);
        expect(answer.id).toMatch(/^chatcmpl-mock-\d+$/);
        expect(answer.model).toBe("gpt-4.1-mini");
      }
      // and it is that recording's answer, not the non-stream recording's
      expect(summarizeCompletion(await assembled(body))).toEqual(accumulateChatStream(fixtureEvents(recording)));
      const scripted = summarizeCompletion(await assembled(body, USAGE));
      expect(scripted.usage).toMatchObject({ prompt_tokens: 42, completion_tokens: 7, total_tokens: 49 });
    });
  }

  it("is a chat.completion shaped as the API sends it", async () => {
    const answer = await assembled({ model: "gpt-4.1-mini", messages: USER, tools: [weatherTool, stockTool] });
    const usageChunk = fixtureEvents("openai.chat.stream.tools_parallel.sse").at(-1)!;
    expect(Object.keys(answer)).toEqual(["id", "object", "created", "model", "choices", "usage", "system_fingerprint"]);
    expect(answer).toMatchObject({ object: "chat.completion", system_fingerprint: "fp_5050236cbd", usage: usageChunk.usage });
    expect(answer.choices).toEqual([
      {
        index: 0,
        message: {
          role: "assistant",
          content: null,
          tool_calls: [
            {
              id: "call_JMW1whyEaYG438VE1OIflxA2",
              type: "function",
              function: { name: "GetWeatherArgs", arguments: '{"city": "Edinburgh", "country": "GB", "units": "c"}' },
            },
            {
              id: "call_DNYTawLBoN8fj3KN6qU9N1Ou",
              type: "function",
              function: { name: "get_stock_price", arguments: '{"ticker": "AAPL", "exchange": "NASDAQ"}' },
            },
          ],
          refusal: null,
        },
        logprobs: null,
        finish_reason: "tool_calls",
      },
    ]);
  });

  it("plain: the streamed text in message.content", async () => {
    const answer = await assembled({ model: "m", messages: USER });
    const text = fixtureEvents("openai.chat.stream.sse")
      .map((c) => c.choices[0]?.delta.content ?? "")
      .join("");
    expect(answer.choices[0].message).toEqual({ role: "assistant", content: text, refusal: null });
    expect(answer.choices[0].finish_reason).toBe("stop");
  });

  it("has no effect on stream requests, and `assembled: false` answers as recorded", async () => {
    const normalize = (text: string) => text.replace(/chatcmpl-mock-\d+/g, "ID").replace(/"created":\d+/g, '"created":0');
    const body = { model: "m", messages: USER, stream: true, stream_options: { include_usage: true } };
    const plain = await (await chat(mock, body)).text();
    const withScript = await (await chat(mock, body, script(ASSEMBLED))).text();
    expect(normalize(withScript)).toBe(normalize(plain));
    const recorded = (await (await chat(mock, { model: "m", messages: USER })).json()) as Json;
    const off = (await (await chat(mock, { model: "m", messages: USER }, script({ assembled: false }))).json()) as Json;
    expect({ ...off, id: recorded.id, created: recorded.created }).toEqual(recorded);
  });

  it("is validated strictly, in every script layer", async () => {
    for (const value of ["yes", 1, null, {}]) {
      const res = await chat(mock, { model: "m", messages: USER }, script({ assembled: value }));
      expect(res.status).toBe(400);
      expect(((await res.json()) as Json).error.message).toMatch(/assembled must be a boolean/);
    }
    const res = await fetch(`${mock.url}/_mock/scripts`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ match: "x", assembled: "true" }),
    });
    expect(res.status).toBe(400);
    mock.app.mock.setDefaultScript({ assembled: true });
    const answer = (await (await chat(mock, { model: "m", messages: USER })).json()) as Json;
    expect(answer.system_fingerprint).toBe("fp_5050236cbd"); // the stream's, not the non-stream recording's
    expect(mock.app.mock.lastRequest()?.script).toEqual({ assembled: true });
  });
});

describe("assembled: OpenRouter flavour", () => {
  const OPENROUTER = { "x-mock-persona": "openrouter" };
  const IMAGE = { messages: USER, modalities: ["image", "text"] };
  const shapes: [string, Json][] = [...SHAPES.map(([name, shape]): [string, Json] => [name, shape]), ["image output", IMAGE]];

  for (const [name, shape] of shapes) {
    for (const model of ["openai/gpt-4.1-mini", "anthropic/claude-sonnet-4", "google/gemini-2.5-flash-image"]) {
      it(`${name} (${model}): agrees with the accumulated stream, provider and priced usage included`, async () => {
        const body = { model, ...shape };
        for (const scripted of [{}, USAGE]) {
          const chunks = await streamed(body, scripted, OPENROUTER);
          const answer = await assembled(body, scripted, OPENROUTER);
          expect(summarizeCompletion(answer)).toEqual(accumulateChatStream(chunks));
          expect(answer.provider).toBe(chunks[0]!.provider);
          expect(Object.keys(answer).slice(0, 2)).toEqual(["id", "provider"]);
          expect(answer.id).toMatch(/^gen-\d+-mock\d+$/);
          expect(answer.usage.cost).toBeTypeOf("number");
        }
      });
    }
  }

  it("image output: the streamed images in message.images, content as streamed", async () => {
    const answer = await assembled({ model: "google/gemini-2.5-flash-image", ...IMAGE }, {}, OPENROUTER);
    const message = answer.choices[0].message;
    expect(message.content).toBe("");
    expect(message.images).toEqual([
      { type: "image_url", image_url: { url: expect.stringMatching(/^data:image\/png;base64,/) }, index: 0 },
    ]);
    expect(answer.choices[0].native_finish_reason).toBe("STOP");
  });
});
