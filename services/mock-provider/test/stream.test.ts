import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { usageChunkFor } from "../src/chat";
import { loadFixtures } from "../src/fixtures";
import { chat, fixtureEvents, fixtureText, script, sseData, startMock, USER } from "./helpers";
import type { Json, Mock } from "./helpers";

let mock: Mock;
beforeAll(async () => {
  mock = await startMock();
});
afterAll(() => mock.close());
beforeEach(() => mock.app.mock.reset());

const tool = (name: string) => ({ type: "function", function: { name, parameters: { type: "object", properties: {} } } });

/**
 * The recorded transcript with only id/created/model substituted, as raw text:
 * the mock must reproduce the recording byte for byte apart from those values.
 */
function expectedTranscript(fixture: string, identity: { id: string; created: number; model: string }, includeUsage: boolean) {
  const first = fixtureEvents(fixture)[0]!;
  let text = fixtureText(fixture)
    .split(`"id":"${first.id}"`)
    .join(`"id":"${identity.id}"`)
    .split(`"created":${first.created}`)
    .join(`"created":${identity.created}`)
    .split(`"model":"${first.model}"`)
    .join(`"model":"${identity.model}"`);
  if (!includeUsage) text = text.replace(/data: \{[^\n]*"choices":\[\],"usage":[^\n]*\n\n/, "");
  return text;
}

async function stream(body: Json, headers: Record<string, string> = {}) {
  const res = await chat(mock, { model: "stream-model", messages: USER, stream: true, ...body }, headers);
  const text = await res.text();
  const first = JSON.parse(sseData(text)[0]!) as Json;
  return { res, text, identity: { id: first.id as string, created: first.created as number, model: first.model as string } };
}

describe("stream replay", () => {
  it("replays the plain transcript exactly, with the usage chunk only on include_usage", async () => {
    const withUsage = await stream({ stream_options: { include_usage: true } });
    expect(withUsage.res.status).toBe(200);
    expect(withUsage.res.headers.get("content-type")).toBe("text/event-stream");
    expect(withUsage.identity.id).toMatch(/^chatcmpl-mock-\d+$/);
    expect(withUsage.identity.model).toBe("stream-model");
    expect(withUsage.text).toBe(expectedTranscript("openai.chat.stream.sse", withUsage.identity, true));

    const without = await stream({});
    expect(without.text).toBe(expectedTranscript("openai.chat.stream.sse", without.identity, false));
    expect(without.text).not.toContain('"choices":[]');

    const usageFalse = await stream({ stream_options: { include_usage: false } });
    expect(usageFalse.text).not.toContain('"usage"');
  });

  it("frames every event as `data: <json>\\n\\n` and ends with [DONE]", async () => {
    const { text } = await stream({ stream_options: { include_usage: true } });
    expect(text).toMatch(/^(data: [^\n]+\n\n)+$/);
    expect(text.endsWith("data: [DONE]\n\n")).toBe(true);
    const data = sseData(text);
    const recorded = fixtureEvents("openai.chat.stream.sse");
    expect(data).toHaveLength(recorded.length + 1);
    data.slice(0, -1).forEach((payload, i) => {
      const event = JSON.parse(payload) as Json;
      expect(event).toEqual({ ...recorded[i], id: event.id, created: event.created, model: "stream-model" });
    });
    // All chunks of one stream share id and created.
    expect(new Set(data.slice(0, -1).map((d) => (JSON.parse(d) as Json).id)).size).toBe(1);
    const usageChunk = JSON.parse(data.at(-2)!) as Json;
    expect(usageChunk.choices).toEqual([]);
    expect(usageChunk.usage).toEqual({
      prompt_tokens: 14,
      completion_tokens: 30,
      total_tokens: 44,
      completion_tokens_details: { reasoning_tokens: 0 },
    });
  });

  const choices: [string, Json, string][] = [
    ["single tool", { tools: [tool("get_weather")] }, "openai.chat.stream.tools.sse"],
    ["parallel tools", { tools: [tool("a"), tool("b")] }, "openai.chat.stream.tools_parallel.sse"],
    ["parallel disabled", { tools: [tool("a"), tool("b")], parallel_tool_calls: false }, "openai.chat.stream.tools.sse"],
    [
      "json_schema",
      { response_format: { type: "json_schema", json_schema: { name: "x", schema: { type: "object" } } } },
      "openai.chat.stream.json_schema.sse",
    ],
    [
      "image input (no recorded image stream: plain stands in)",
      { messages: [{ role: "user", content: [{ type: "image_url", image_url: { url: "https://example.com/a.png" } }] }] },
      "openai.chat.stream.sse",
    ],
  ];
  for (const [name, body, fixture] of choices) {
    it(`${name} -> ${fixture}`, async () => {
      const withUsage = await stream({ ...body, stream_options: { include_usage: true } });
      expect(withUsage.text).toBe(expectedTranscript(fixture, withUsage.identity, true));
      const without = await stream(body);
      expect(without.text).toBe(expectedTranscript(fixture, without.identity, false));
    });
  }

  it("records exactly the text it sent", async () => {
    const { text } = await stream({ stream_options: { include_usage: true } });
    const entry = mock.app.mock.lastRequest()!;
    expect(entry.responseStatus).toBe(200);
    expect(entry.responseText).toBe(text);
    expect(entry.responseBody).toBeUndefined();
  });
});

describe("stream usage overrides", () => {
  it("puts fixed usage in the usage chunk, keeping recorded details", async () => {
    const { text } = await stream(
      { stream_options: { include_usage: true } },
      script({ usage: { prompt_tokens: 7, completion_tokens: 5 } }),
    );
    const usageChunk = JSON.parse(sseData(text).at(-2)!) as Json;
    expect(usageChunk.usage).toEqual({
      prompt_tokens: 7,
      completion_tokens: 5,
      total_tokens: 12,
      completion_tokens_details: { reasoning_tokens: 0 },
    });
  });

  it("draws random usage within bounds and sums the total", async () => {
    for (let i = 0; i < 5; i++) {
      const { text } = await stream({ stream_options: { include_usage: true } }, script({ usage: "random" }));
      const { usage } = JSON.parse(sseData(text).at(-2)!) as Json;
      expect(usage.prompt_tokens).toBeGreaterThanOrEqual(1);
      expect(usage.prompt_tokens).toBeLessThanOrEqual(200);
      expect(usage.completion_tokens).toBeGreaterThanOrEqual(1);
      expect(usage.completion_tokens).toBeLessThanOrEqual(400);
      expect(usage.total_tokens).toBe(usage.prompt_tokens + usage.completion_tokens);
    }
  });

  it("synthesises a usage chunk shaped like the plain stream's when a transcript has none", () => {
    const fixtures = loadFixtures();
    const bare = { chunks: fixtures.stream.tools.chunks, usageChunk: null };
    const synthesised = usageChunkFor(bare, fixtures);
    const template = fixtureEvents("openai.chat.stream.sse").at(-1)!;
    expect(Object.keys(synthesised)).toEqual(Object.keys(template));
    expect(synthesised.choices).toEqual([]);
    expect(synthesised.usage).toEqual(template.usage);
    expect(synthesised.system_fingerprint).toBe(fixtureEvents("openai.chat.stream.tools.sse")[0]!.system_fingerprint);
  });
});

describe("timing scripts", () => {
  it("chunkDelayMs spaces events out and latencyMs delays headers", async () => {
    const events = fixtureEvents("openai.chat.stream.tools.sse").length; // usage chunk left out below, [DONE] added
    const started = Date.now();
    const res = await chat(
      mock,
      { model: "m", messages: USER, stream: true, tools: [tool("get_weather")] },
      script({ latencyMs: 150, chunkDelayMs: 10 }),
    );
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
    const body = await res.text();
    expect(sseData(body)).toHaveLength(events); // (events - usage chunk) + [DONE]
    // One delay before every event after the first.
    expect(Date.now() - started).toBeGreaterThanOrEqual(140 + (events - 1) * 10 - 20);
  });

  it("firstChunkDelayMs sends the headers at once and holds only the first event", async () => {
    const started = Date.now();
    const res = await chat(mock, { model: "m", messages: USER, stream: true }, script({ firstChunkDelayMs: 300 }));
    const headersAfter = Date.now() - started;
    expect(res.status).toBe(200);
    expect(headersAfter).toBeLessThan(250);
    const reader = res.body!.getReader();
    const first = await reader.read();
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    expect(new TextDecoder().decode(first.value)).toMatch(/^data: \{/);
    // The rest follows without further delay and the stream is complete.
    let text = new TextDecoder().decode(first.value);
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) text += new TextDecoder().decode(chunk.value);
    expect(Date.now() - started).toBeLessThan(290 + 250);
    expect(text.endsWith("data: [DONE]\n\n")).toBe(true);
    expect(mock.app.mock.lastRequest()!.responseText).toBe(text);
  });

  it("firstChunkDelayMs adds to latencyMs and leaves a non-stream response alone", async () => {
    let started = Date.now();
    const res = await chat(mock, { model: "m", messages: USER, stream: true }, script({ latencyMs: 100, firstChunkDelayMs: 200 }));
    expect(Date.now() - started).toBeGreaterThanOrEqual(90);
    expect(Date.now() - started).toBeLessThan(280);
    await res.text();
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);

    started = Date.now();
    const json = await chat(mock, { model: "m", messages: USER }, script({ firstChunkDelayMs: 400 }));
    expect(((await json.json()) as Json).object).toBe("chat.completion");
    expect(Date.now() - started).toBeLessThan(350);
  });

  it("a client leaving during firstChunkDelayMs gets no event and nothing is written later", async () => {
    const controller = new AbortController();
    const res = await chat(mock, { model: "m", messages: USER, stream: true }, script({ firstChunkDelayMs: 300 }), controller.signal);
    expect(res.status).toBe(200);
    controller.abort();
    const index = mock.app.mock.lastRequest()!.index;
    await new Promise((r) => setTimeout(r, 400));
    const entry = mock.app.mock.requests(index)[0]!;
    expect(entry.responseStatus).toBe(200);
    expect(entry.responseText).toBe("");
    expect((await chat(mock, { model: "m", messages: USER })).status).toBe(200);
  });

  it("firstChunkDelayMs must be a non-negative integer", async () => {
    for (const value of [-1, 1.5, "100"]) {
      const res = await chat(mock, { model: "m", messages: USER, stream: true }, script({ firstChunkDelayMs: value }));
      expect(res.status).toBe(400);
      expect(((await res.json()) as Json).error.message).toMatch(/firstChunkDelayMs must be a non-negative integer/);
    }
  });
});
