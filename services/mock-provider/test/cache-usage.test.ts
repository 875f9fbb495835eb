// Scripted cache figures (usage.cached_tokens / usage.cache_creation_tokens) in
// each vendor's own fields, checked against the cached-usage recordings.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { anthropicEvents, chat, fixtureEvents, fixtureJson, messages, script, sseData, startMock, USER } from "./helpers";
import type { Json, Mock } from "./helpers";

let mock: Mock;
beforeAll(async () => {
  mock = await startMock();
});
afterAll(() => mock.close());
beforeEach(() => mock.app.mock.reset());

const CLAUDE = { model: "claude-opus-4-8", max_tokens: 100, messages: [{ role: "user", content: "Hi" }] };
const JSON_SCHEMA = { ...CLAUDE, output_config: { format: { type: "json_schema", schema: { type: "object" } } } };
const tool = { type: "function", function: { name: "f", parameters: { type: "object", properties: {} } } };

async function body(res: Response): Promise<Json> {
  expect(res.status).toBe(200);
  return (await res.json()) as Json;
}

describe("Anthropic: cache_read_input_tokens / cache_creation_input_tokens", () => {
  // The cache recordings are anthropic.messages.response.json (served for json_schema) with other usage numbers.
  it("cached_tokens gives exactly anthropic.messages.cache_read.response.json (id/model aside)", async () => {
    const usage = { prompt_tokens: 21, completion_tokens: 393, cached_tokens: 188086 };
    const got = await body(await messages(mock, JSON_SCHEMA, script({ usage })));
    const recorded = fixtureJson("anthropic.messages.cache_read.response.json");
    expect(got).toEqual({ ...recorded, id: got.id, model: "claude-opus-4-8" });
    expect(Object.keys(got.usage)).toEqual(Object.keys(recorded.usage));
  });

  it("cache_creation_tokens gives exactly anthropic.messages.cache_write.response.json (5m breakdown included)", async () => {
    const usage = { prompt_tokens: 21, completion_tokens: 393, cache_creation_tokens: 188086 };
    const got = await body(await messages(mock, JSON_SCHEMA, script({ usage })));
    expect(got).toEqual({ ...fixtureJson("anthropic.messages.cache_write.response.json"), id: got.id, model: "claude-opus-4-8" });
  });

  it("stream: message_start gets the cache fields (inserted after input_tokens when the recording lacks them)", async () => {
    const usage = { prompt_tokens: 5, completion_tokens: 9, cached_tokens: 100, cache_creation_tokens: 30 };
    const res = await messages(mock, { ...CLAUDE, stream: true }, script({ usage }));
    const events = anthropicEvents(await res.text());
    const start = JSON.parse(events.find((e) => e.event === "message_start")!.data) as Json;
    expect(start.message.usage).toEqual({
      input_tokens: 5,
      cache_creation_input_tokens: 30,
      cache_read_input_tokens: 100,
      output_tokens: 1,
    });
    expect(Object.keys(start.message.usage)).toEqual([
      "input_tokens",
      "cache_creation_input_tokens",
      "cache_read_input_tokens",
      "output_tokens",
    ]);
    // The SDK recording's message_delta carries only output_tokens: nothing is added there.
    const delta = JSON.parse(events.find((e) => e.event === "message_delta")!.data) as Json;
    expect(delta.usage).toEqual({ output_tokens: 9 });
  });

  it("stream: the real recording's message_delta repeats the cache counts, so they are rewritten there too", async () => {
    const usage = { prompt_tokens: 5, completion_tokens: 9, cached_tokens: 100, cache_creation_tokens: 30 };
    const res = await messages(mock, { ...JSON_SCHEMA, stream: true }, script({ usage }));
    const events = anthropicEvents(await res.text());
    const start = JSON.parse(events.find((e) => e.event === "message_start")!.data) as Json;
    expect(start.message.usage).toMatchObject({
      cache_creation_input_tokens: 30,
      cache_read_input_tokens: 100,
      cache_creation: { ephemeral_5m_input_tokens: 30, ephemeral_1h_input_tokens: 0 },
    });
    const delta = JSON.parse(events.find((e) => e.event === "message_delta")!.data) as Json;
    expect(delta.usage).toEqual({ input_tokens: 5, cache_creation_input_tokens: 30, cache_read_input_tokens: 100, output_tokens: 9 });
  });

  it("assembled keeps the scripted cache figures", async () => {
    const usage = { prompt_tokens: 5, completion_tokens: 9, cached_tokens: 100 };
    const got = await body(await messages(mock, CLAUDE, script({ usage, assembled: true })));
    expect(got.usage).toEqual({ input_tokens: 5, cache_creation_input_tokens: 0, cache_read_input_tokens: 100, output_tokens: 9 });
  });
});

describe("OpenAI chat: prompt_tokens_details.cached_tokens", () => {
  it("cached_tokens on the plain answer gives the usage of openai.chat.cached.response.json", async () => {
    const usage = { prompt_tokens: 2006, completion_tokens: 300, cached_tokens: 1920 };
    const got = await body(await chat(mock, { model: "m", messages: USER }, script({ usage })));
    const recorded = fixtureJson("openai.chat.cached.response.json").usage as Json;
    expect(got.usage).toEqual(recorded);
    expect(Object.keys(got.usage)).toEqual(Object.keys(recorded));
  });

  it("a recording without prompt_tokens_details gets it in the cached recording's shape, before completion_tokens_details", async () => {
    const got = await body(
      await chat(
        mock,
        { model: "m", messages: USER, tools: [tool] },
        script({ usage: { prompt_tokens: 50, completion_tokens: 5, cached_tokens: 32 } }),
      ),
    );
    const recorded = fixtureJson("openai.chat.tools.response.json").usage as Json;
    expect(got.usage).toEqual({
      prompt_tokens: 50,
      completion_tokens: 5,
      total_tokens: 55,
      prompt_tokens_details: { cached_tokens: 32, audio_tokens: 0 },
      completion_tokens_details: recorded.completion_tokens_details,
    });
    expect(Object.keys(got.usage)).toEqual(Object.keys(fixtureJson("openai.chat.cached.response.json").usage as Json));
  });

  it("stream: the usage chunk carries it", async () => {
    const res = await chat(
      mock,
      { model: "m", messages: USER, stream: true, stream_options: { include_usage: true } },
      script({ usage: { prompt_tokens: 10, completion_tokens: 2, cached_tokens: 8 } }),
    );
    const data = sseData(await res.text());
    const usageChunk = JSON.parse(data.at(-2)!) as Json;
    const recorded = fixtureEvents("openai.chat.stream.sse").at(-1)!.usage as Json;
    expect(usageChunk.usage).toEqual({
      prompt_tokens: 10,
      completion_tokens: 2,
      total_tokens: 12,
      prompt_tokens_details: { cached_tokens: 8, audio_tokens: 0 },
      completion_tokens_details: recorded.completion_tokens_details,
    });
  });

  it("without cache fields the details stay as recorded", async () => {
    const got = await body(await chat(mock, { model: "m", messages: USER, tools: [tool] }, script({ usage: { prompt_tokens: 1 } })));
    expect(got.usage).not.toHaveProperty("prompt_tokens_details");
  });
});

describe("usage script validation", () => {
  for (const usage of [
    { prompt_tokens: 1, cached_tokens: -1 },
    { prompt_tokens: 1, cache_creation_tokens: 1.5 },
    { prompt_tokens: 1, cache_tokens: 3 },
  ]) {
    it(`rejects ${JSON.stringify(usage)}`, async () => {
      const res = await chat(mock, { model: "m", messages: USER }, script({ usage }));
      expect(res.status).toBe(400);
      expect(((await res.json()) as Json).error.code).toBe("invalid_mock_script");
    });
  }

  it("queued scripts take the cache fields too", async () => {
    const res = await fetch(`${mock.url}/_mock/scripts`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ match: "cache-me", usage: { prompt_tokens: 9, cached_tokens: 4, cache_creation_tokens: 2 } }),
    });
    expect(res.status).toBe(200);
    const got = await body(await chat(mock, { model: "m", messages: [{ role: "user", content: "cache-me" }] }));
    expect(got.usage.prompt_tokens_details.cached_tokens).toBe(4);
  });
});
