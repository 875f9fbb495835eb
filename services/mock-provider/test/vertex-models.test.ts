// The Vertex persona's model routes: Gemini (generateContent, SSE and array
// streams) and Claude (rawPredict, streamRawPredict) answered from the recorded
// Vertex files, and scripted failures in google.rpc.Status bodies.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { anthropicEvents, fixtureJson, type Json, type Mock, readAll, script, startMock, vertexAccessToken } from "./helpers";

const BASE = "/vertex/v1/projects/p1/locations/us-east5/publishers";
let mock: Mock;
let token = "";

beforeAll(async () => {
  mock = await startMock();
  token = await vertexAccessToken(mock);
});
afterAll(() => mock.close());

const call = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(mock.url + BASE + path, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
const GEMINI_BODY = { contents: [{ role: "user", parts: [{ text: "Why is the sky blue?" }] }] };
const CLAUDE_BODY = { anthropic_version: "vertex-2023-10-16", max_tokens: 64, messages: [{ role: "user", content: "Hi" }] };

describe("vertex persona: Gemini", () => {
  it("answers generateContent with the recorded Vertex response", async () => {
    const res = await call("/google/models/gemini-2.5-flash:generateContent", GEMINI_BODY);
    expect(res.status).toBe(200);
    const body = (await res.json()) as Json;
    const recorded = fixtureJson("vertex.gemini.generateContent.response.json");
    expect(body).toEqual({ ...recorded, responseId: expect.stringMatching(/^resp-vrtx-/), modelVersion: "gemini-2.5-flash" });
  });

  it("streams SSE with ?alt=sse, and one JSON array without it", async () => {
    const sse = await call("/google/models/gemini-2.5-flash:streamGenerateContent?alt=sse", GEMINI_BODY);
    expect(sse.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const events = (await readAll(sse)).text.split("\r\n\r\n").filter(Boolean);
    expect(events).toHaveLength(8);
    expect(JSON.parse(events.at(-1)!.slice("data: ".length)).candidates[0].finishReason).toBe("STOP");
    const array = await call("/google/models/gemini-2.5-flash:streamGenerateContent", GEMINI_BODY);
    const parsed = JSON.parse((await readAll(array)).text) as Json[];
    expect(parsed).toHaveLength(8);
    expect(parsed.at(-1)!.usageMetadata.totalTokenCount).toBe(1695);
  });

  it("honours scripted usage", async () => {
    const res = await call(
      "/google/models/gemini-2.5-flash:generateContent",
      GEMINI_BODY,
      script({ usage: { prompt_tokens: 11, completion_tokens: 7 } }),
    );
    expect(((await res.json()) as Json).usageMetadata).toMatchObject({
      promptTokenCount: 11,
      candidatesTokenCount: 7,
      totalTokenCount: 18,
    });
  });
});

describe("vertex persona: embeddings (:predict)", () => {
  const recorded = fixtureJson("gemini.embedContent.response.json").embedding.values as number[];

  it("answers one prediction per instance, its values at the model's dimensions, with a token count", async () => {
    const res = await call("/google/models/text-embedding-005:predict", { instances: [{ content: "one two" }, { content: "three" }] });
    expect(res.status).toBe(200);
    const body = (await res.json()) as Json;
    expect(body.predictions).toHaveLength(2);
    expect(body.predictions[0].embeddings.values).toHaveLength(768);
    expect(body.predictions[0].embeddings.values.slice(0, recorded.length)).toEqual(recorded);
    expect(body.predictions[0].embeddings.statistics).toEqual({ truncated: false, token_count: 2 });
    expect(body.metadata).toEqual({ billableCharacterCount: 12 });
  });

  it("honours outputDimensionality and a scripted prompt_tokens", async () => {
    const res = await call(
      "/google/models/gemini-embedding-001:predict",
      { instances: [{ content: "hello" }], parameters: { outputDimensionality: 16 } },
      script({ usage: { prompt_tokens: 9 } }),
    );
    const prediction = ((await res.json()) as Json).predictions[0];
    expect(prediction.embeddings.values).toHaveLength(16);
    expect(prediction.embeddings.statistics.token_count).toBe(9);
  });

  it("refuses more than one instance on gemini-embedding-001, and an instance without content", async () => {
    const two = await call("/google/models/gemini-embedding-001:predict", { instances: [{ content: "a" }, { content: "b" }] });
    expect(two.status).toBe(400);
    expect(((await two.json()) as Json).error.status).toBe("INVALID_ARGUMENT");
    const empty = await call("/google/models/text-embedding-005:predict", { instances: [{ text: "a" }] });
    expect(empty.status).toBe(400);
  });
});

describe("vertex persona: Claude", () => {
  it("answers rawPredict with an Anthropic Message, msg_vrtx_ id and req_vrtx_ request id", async () => {
    const res = await call("/anthropic/models/claude-opus-4-6:rawPredict", CLAUDE_BODY);
    expect(res.status).toBe(200);
    expect(res.headers.get("request-id")).toMatch(/^req_vrtx_/);
    const body = (await res.json()) as Json;
    expect(body).toEqual({ ...fixtureJson("vertex.claude.rawPredict.response.json"), id: expect.stringMatching(/^msg_vrtx_/) });
  });

  it("streams Anthropic SSE on streamRawPredict", async () => {
    const res = await call("/anthropic/models/claude-sonnet-5:streamRawPredict", { ...CLAUDE_BODY, stream: true });
    const events = anthropicEvents((await readAll(res)).text);
    expect(events.map((event) => event.event)).toEqual([
      "message_start",
      "content_block_start",
      "content_block_delta",
      "content_block_stop",
      "message_delta",
      "message_stop",
    ]);
    expect(JSON.parse(events[0]!.data).message).toMatchObject({ id: expect.stringMatching(/^msg_vrtx_/), model: "claude-sonnet-5" });
  });

  it("refuses a body without the Vertex anthropic_version", async () => {
    const res = await call("/anthropic/models/claude-opus-4-6:rawPredict", { ...CLAUDE_BODY, anthropic_version: "2023-06-01" });
    expect(res.status).toBe(400);
    expect(((await res.json()) as Json).error.status).toBe("INVALID_ARGUMENT");
  });
});

describe("vertex persona: scripted errors", () => {
  it.each([
    [429, "vertex.error.429.resource_exhausted.json"],
    [400, "vertex.error.400.invalid_argument.json"],
  ])("answers a scripted %i with the recorded body", async (status, file) => {
    const res = await call("/google/models/gemini-2.5-flash:generateContent", GEMINI_BODY, script({ status }));
    expect(res.status).toBe(status);
    expect(await res.json()).toEqual(fixtureJson(file));
  });

  it("answers 503 UNAVAILABLE, and a named error fixture on Claude's route", async () => {
    const unavailable = await call("/google/models/gemini-2.5-flash:streamGenerateContent?alt=sse", GEMINI_BODY, script({ status: 503 }));
    expect(unavailable.status).toBe(503);
    expect(((await unavailable.json()) as Json).error).toMatchObject({ code: 503, status: "UNAVAILABLE" });
    const exhausted = await call(
      "/anthropic/models/claude-opus-4-6:rawPredict",
      CLAUDE_BODY,
      script({ errorFixture: "vertex.error.429.resource_exhausted" }),
    );
    expect(exhausted.status).toBe(429);
    expect(((await exhausted.json()) as Json).error.status).toBe("RESOURCE_EXHAUSTED");
  });

  it("answers an unknown method with Google's 404 and records the persona", async () => {
    const res = await call("/google/models/gemini-2.5-flash:predictLongRunning", GEMINI_BODY);
    expect(res.status).toBe(404);
    expect(mock.app.mock.lastRequest()?.persona).toBe("vertex");
  });
});
