// Scripted usage details beyond the cache reads (cache-usage.test.ts): 1-hour
// cache writes, reasoning tokens, web searches and the service tier, each in
// the vendor's own field and where its recordings put it.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  anthropicEvents,
  CONTENTS,
  chat,
  fixtureJson,
  fixtureText,
  gemini,
  geminiSseData,
  messages,
  post,
  script,
  sseData,
  startMock,
  USER,
} from "./helpers";
import type { Json, Mock } from "./helpers";

let mock: Mock;
beforeAll(async () => {
  mock = await startMock();
});
afterAll(() => mock.close());
beforeEach(() => mock.app.mock.reset());

async function body(res: Response): Promise<Json> {
  expect(res.status).toBe(200);
  return (await res.json()) as Json;
}

const STREAM = { stream: true, stream_options: { include_usage: true } };

describe("OpenAI chat: reasoning_tokens and service_tier", () => {
  const usage = { prompt_tokens: 2006, completion_tokens: 300, cached_tokens: 1920, reasoning_tokens: 120, service_tier: "priority" };

  it("a completion: reasoning_tokens in completion_tokens_details, service_tier where recorded", async () => {
    const got = await body(await chat(mock, { model: "m", messages: USER }, script({ usage })));
    const recorded = fixtureJson("openai.chat.response.json");
    expect(got.usage).toEqual({
      ...fixtureJson("openai.chat.cached.response.json").usage,
      completion_tokens_details: { ...recorded.usage.completion_tokens_details, reasoning_tokens: 120 },
    });
    expect(got.service_tier).toBe("priority");
    expect(Object.keys(got)).toEqual(Object.keys(recorded));
  });

  it("a recording without service_tier gets it after usage, before system_fingerprint (openai.chat.cached.response.json's order)", async () => {
    const schema = { type: "json_schema", json_schema: { name: "x", schema: {} } };
    const got = await body(await chat(mock, { model: "m", messages: USER, response_format: schema }, script({ usage })));
    expect(Object.keys(got)).toEqual(Object.keys(fixtureJson("openai.chat.cached.response.json")));
    expect(got.service_tier).toBe("priority");
    expect(got.usage.completion_tokens_details).toEqual({ reasoning_tokens: 120 });
  });

  it("a stream: service_tier after model on every chunk, the usage chunk's reasoning_tokens; assembled agrees", async () => {
    const res = await chat(mock, { model: "m", messages: USER, ...STREAM }, script({ usage }));
    const chunks = sseData(await res.text())
      .filter((data) => data !== "[DONE]")
      .map((data) => JSON.parse(data) as Json);
    for (const chunk of chunks) expect(Object.keys(chunk).slice(0, 5)).toEqual(["id", "object", "created", "model", "service_tier"]);
    expect(chunks.every((chunk) => chunk.service_tier === "priority")).toBe(true);
    expect(chunks.at(-1)!.usage.completion_tokens_details.reasoning_tokens).toBe(120);
    const assembled = await body(await chat(mock, { model: "m", messages: USER }, script({ usage, assembled: true })));
    expect(assembled.service_tier).toBe("priority");
    expect(Object.keys(assembled).slice(-3)).toEqual(["usage", "service_tier", "system_fingerprint"]);
    expect(assembled.usage).toEqual(chunks.at(-1)!.usage);
  });

  it("OpenAI reports no cache writes: they are ignored on the OpenAI persona", async () => {
    const got = await body(
      await chat(
        mock,
        { model: "m", messages: USER },
        script({ usage: { prompt_tokens: 9, cache_creation_tokens: 5, cache_creation_1h_tokens: 2 } }),
      ),
    );
    expect(got.usage.prompt_tokens_details).toEqual({ cached_tokens: 0, audio_tokens: 0 });
  });
});

describe("OpenRouter: cache writes in prompt_tokens_details.cache_write_tokens", () => {
  const usage = {
    prompt_tokens: 20243,
    completion_tokens: 1270,
    cache_creation_tokens: 20000,
    cache_creation_1h_tokens: 240,
    reasoning_tokens: 516,
  };
  const observed = fixtureJson("openrouter.usage.cache_write.observed.json").usage;

  it("both lifetimes summed, after cached_tokens as in openrouter.usage.cache_write.observed.json; priced on the totals", async () => {
    const got = await body(await chat(mock, { model: "anthropic/claude-x", messages: USER }, script({ usage })));
    expect(got.usage.prompt_tokens_details).toEqual({ cached_tokens: 0, cache_write_tokens: 20240, audio_tokens: 0 });
    expect(Object.keys(got.usage.prompt_tokens_details)).toEqual(Object.keys(observed.prompt_tokens_details).slice(0, 3));
    expect(got.usage.completion_tokens_details.reasoning_tokens).toBe(516);
    expect(Object.keys(got.usage)).toEqual(Object.keys(observed));
    expect(got.usage.cost).toBe((20243 * 1 + 1270 * 2) / 1e6);
  });

  it("a stream's usage chunk carries them; a recording without prompt_tokens_details gets OpenRouter's", async () => {
    const res = await chat(mock, { model: "anthropic/claude-x", messages: USER, ...STREAM }, script({ usage }));
    const last = JSON.parse(sseData((await res.text()).replace(": OPENROUTER PROCESSING\n\n", "")).at(-2)!) as Json;
    expect(last.usage.prompt_tokens_details).toEqual({ cached_tokens: 0, cache_write_tokens: 20240, audio_tokens: 0 });
    expect(Object.keys(last.usage)).toEqual(Object.keys(observed));
  });
});

describe("Responses: reasoning_tokens, cache writes, service_tier", () => {
  const responses = (request: Json, headers: Record<string, string>) => post(mock, "/v1/responses", request, headers);
  const REASONING = { model: "gpt-5-mock", input: "hi", reasoning: { effort: "high" } };

  it("the reasoning answer scripted with openai.responses.cached.response.json's numbers has exactly its usage and tier", async () => {
    const usage = { prompt_tokens: 3700, completion_tokens: 741, cached_tokens: 2560, reasoning_tokens: 640, service_tier: "default" };
    const got = await body(await responses(REASONING, script({ usage })));
    const recorded = fixtureJson("openai.responses.cached.response.json");
    expect(got.usage).toEqual(recorded.usage);
    expect(Object.keys(got.usage)).toEqual(Object.keys(recorded.usage));
    expect(got.service_tier).toBe("default");
  });

  it("both write lifetimes in cache_write_tokens; the tier served in response.completed only (the others keep the asked 'auto')", async () => {
    const usage = {
      prompt_tokens: 50,
      completion_tokens: 5,
      cache_creation_tokens: 10,
      cache_creation_1h_tokens: 20,
      service_tier: "flex",
    };
    const res = await responses({ model: "gpt-5-mock", input: "hi", stream: true }, script({ usage }));
    const events = anthropicEvents(await res.text()).map((event) => JSON.parse(event.data) as Json);
    const carrying = events.filter((event) => event.response);
    expect(carrying.map((event) => [event.type, event.response.service_tier])).toEqual([
      ["response.created", "auto"],
      ["response.in_progress", "auto"],
      ["response.completed", "flex"],
    ]);
    expect(carrying.at(-1)!.response.usage.input_tokens_details).toEqual({ cached_tokens: 0, cache_write_tokens: 30 });
  });
});

describe("Anthropic: 1-hour cache writes, web searches, service_tier", () => {
  const CLAUDE = { model: "claude-opus-4-8", max_tokens: 100, messages: [{ role: "user", content: "Hi" }] };
  const JSON_SCHEMA = { ...CLAUDE, output_config: { format: { type: "json_schema", schema: { type: "object" } } } };
  const usage = {
    prompt_tokens: 21,
    completion_tokens: 393,
    cache_creation_tokens: 1000,
    cache_creation_1h_tokens: 188086,
    web_search_requests: 2,
    service_tier: "priority",
  };

  it("a Message: writes of both lifetimes and their split, server_tool_use after output_tokens, the tier where recorded", async () => {
    const got = await body(await messages(mock, JSON_SCHEMA, script({ usage })));
    expect(got.usage).toEqual({
      input_tokens: 21,
      cache_creation_input_tokens: 189086,
      cache_read_input_tokens: 0,
      cache_creation: { ephemeral_5m_input_tokens: 1000, ephemeral_1h_input_tokens: 188086 },
      output_tokens: 393,
      server_tool_use: { web_search_requests: 2 },
      service_tier: "priority",
      inference_geo: "not_available",
    });
  });

  it("the real stream: the split in message_start, the searches in message_delta (after output_tokens, as recorded)", async () => {
    const res = await messages(mock, { ...JSON_SCHEMA, stream: true }, script({ usage }));
    const events = anthropicEvents(await res.text());
    const start = JSON.parse(events.find((e) => e.event === "message_start")!.data) as Json;
    expect(start.message.usage).toMatchObject({
      cache_creation_input_tokens: 189086,
      cache_creation: { ephemeral_5m_input_tokens: 1000, ephemeral_1h_input_tokens: 188086 },
      service_tier: "priority",
    });
    const delta = JSON.parse(events.find((e) => e.event === "message_delta")!.data) as Json;
    expect(delta.usage).toEqual({
      input_tokens: 21,
      cache_creation_input_tokens: 189086,
      cache_read_input_tokens: 0,
      output_tokens: 393,
      server_tool_use: { web_search_requests: 2 },
    });
    const recorded = anthropicEvents(fixtureText("anthropic.messages.stream.cache.sse")).find((e) => e.event === "message_delta")!;
    const recordedKeys = Object.keys((JSON.parse(recorded.data) as Json).usage).filter((key) => key !== "output_tokens_details");
    expect(Object.keys(delta.usage)).toEqual(recordedKeys);
  });

  it("an SDK stream without the split gets it after the counters only when 1-hour writes are scripted; the tier after output_tokens", async () => {
    const split = await messages(mock, { ...CLAUDE, stream: true }, script({ usage }));
    const start = JSON.parse(anthropicEvents(await split.text())[0]!.data) as Json;
    expect(Object.keys(start.message.usage)).toEqual([
      "input_tokens",
      "cache_creation_input_tokens",
      "cache_read_input_tokens",
      "cache_creation",
      "output_tokens",
      "service_tier",
    ]);
    const fiveMinutes = await messages(
      mock,
      { ...CLAUDE, stream: true },
      script({ usage: { prompt_tokens: 5, cache_creation_tokens: 30 } }),
    );
    const plain = JSON.parse(anthropicEvents(await fiveMinutes.text())[0]!.data) as Json;
    expect(plain.message.usage).not.toHaveProperty("cache_creation");
  });

  it("assembled keeps them all", async () => {
    const got = await body(await messages(mock, JSON_SCHEMA, script({ usage, assembled: true })));
    expect(got.usage).toMatchObject({
      cache_creation_input_tokens: 189086,
      cache_creation: { ephemeral_5m_input_tokens: 1000, ephemeral_1h_input_tokens: 188086 },
      server_tool_use: { web_search_requests: 2 },
      service_tier: "priority",
    });
  });
});

describe("Gemini: cachedContentTokenCount and thoughtsTokenCount", () => {
  const MODEL = "gemini-2.5-flash";

  it("a response: cachedContentTokenCount after totalTokenCount (as in gemini.generateContent.cached.response.json), thoughts in place, in the total", async () => {
    const usage = { prompt_tokens: 323388, completion_tokens: 397, cached_tokens: 323383, reasoning_tokens: 48 };
    const res = await gemini(mock, `${MODEL}:generateContent`, { contents: CONTENTS }, { "x-goog-api-key": "g", ...script({ usage }) });
    const got = (await body(res)).usageMetadata as Json;
    expect(got).toEqual({
      candidatesTokenCount: 397,
      promptTokenCount: 323388,
      promptTokensDetails: [{ modality: "TEXT", tokenCount: 323388 }],
      thoughtsTokenCount: 48,
      totalTokenCount: 323388 + 397 + 48,
      cachedContentTokenCount: 323383,
    });
    const recorded = fixtureJson("gemini.generateContent.cached.response.json").usageMetadata;
    expect(Object.keys(got).slice(-2)).toEqual(Object.keys(recorded).slice(-2));
  });

  it("a stream: the cached and thought counts on every event, as gemini.streamGenerateContent.thinking.sse repeats them", async () => {
    const usage = { prompt_tokens: 9, completion_tokens: 23, cached_tokens: 4, reasoning_tokens: 302 };
    const res = await gemini(
      mock,
      `${MODEL}:streamGenerateContent?alt=sse`,
      { contents: CONTENTS },
      { "x-goog-api-key": "g", ...script({ usage }) },
    );
    const events = geminiSseData(await res.text()).map((data) => (JSON.parse(data) as Json).usageMetadata as Json);
    for (const metadata of events) {
      expect(metadata).toMatchObject({ promptTokenCount: 9, cachedContentTokenCount: 4, thoughtsTokenCount: 302 });
      expect(Object.keys(metadata).at(-1)).toBe("thoughtsTokenCount");
    }
    expect(events.at(-1)).toMatchObject({ candidatesTokenCount: 23, totalTokenCount: 9 + 23 + 302 });
    const recorded = geminiSseData(fixtureText("gemini.streamGenerateContent.thinking.sse")).map(
      (data) => (JSON.parse(data) as Json).usageMetadata as Json,
    );
    expect(recorded.every((metadata) => metadata.totalTokenCount === metadata.promptTokenCount + metadata.candidatesTokenCount + 302)).toBe(
      true,
    );
  });

  it("without reasoning_tokens the recorded thoughts are dropped: the output is the scripted completion", async () => {
    const res = await gemini(
      mock,
      `${MODEL}:generateContent`,
      { contents: CONTENTS },
      { "x-goog-api-key": "g", ...script({ usage: { prompt_tokens: 7, completion_tokens: 5 } }) },
    );
    const got = (await body(res)).usageMetadata as Json;
    expect(got).not.toHaveProperty("thoughtsTokenCount");
    expect(got).not.toHaveProperty("cachedContentTokenCount");
    expect(got.totalTokenCount).toBe(12);
  });
});

describe("usage script validation (new fields)", () => {
  for (const usage of [
    { prompt_tokens: 1, cache_creation_1h_tokens: -1 },
    { prompt_tokens: 1, reasoning_tokens: 0.5 },
    { prompt_tokens: 1, web_search_requests: "2" },
    { prompt_tokens: 1, service_tier: "" },
    { prompt_tokens: 1, service_tier: 3 },
    { prompt_tokens: 1, thinking_tokens: 3 },
  ]) {
    it(`rejects ${JSON.stringify(usage)}`, async () => {
      const res = await chat(mock, { model: "m", messages: USER }, script({ usage }));
      expect(res.status).toBe(400);
      expect(((await res.json()) as Json).error.code).toBe("invalid_mock_script");
    });
  }

  it("queued scripts take them too", async () => {
    const queued = await fetch(`${mock.url}/_mock/scripts`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ match: "tier-me", usage: { prompt_tokens: 9, reasoning_tokens: 4, service_tier: "flex" } }),
    });
    expect(queued.status).toBe(200);
    const got = await body(await chat(mock, { model: "m", messages: [{ role: "user", content: "tier-me" }] }));
    expect([got.service_tier, got.usage.completion_tokens_details.reasoning_tokens]).toEqual(["flex", 4]);
  });
});
