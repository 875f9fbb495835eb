// Gemini persona, failures: API key by header or ?key=, the Google error
// envelope per status, faults in Gemini's wire form (SSE and JSON array), bad bodies.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { CONTENTS, fixtureJson, fixtureText, gemini, geminiSseData, readAll, script, startMock } from "./helpers";
import type { Json, Mock } from "./helpers";

let mock: Mock;
let keyed: Mock;
beforeAll(async () => {
  mock = await startMock();
  keyed = await startMock({ apiKey: "g-right" });
});
afterAll(async () => {
  await mock.close();
  await keyed.close();
});
beforeEach(() => mock.app.mock.reset());

const BODY = { contents: CONTENTS };
const GENERATE = "gemini-2.5-flash:generateContent";
const SSE = "gemini-2.5-flash:streamGenerateContent?alt=sse";
const EVENTS = geminiSseData(fixtureText("gemini.streamGenerateContent.sse")).length;
const HALF = Math.floor(EVENTS / 2);
const KEY = { "x-goog-api-key": "g" };

async function expectHealthy() {
  const res = await gemini(mock, GENERATE, BODY);
  expect(res.status).toBe(200);
  expect(((await res.json()) as Json).candidates).toHaveLength(1);
}

describe("Gemini persona: API key", () => {
  it("no key at all -> 403 PERMISSION_DENIED", async () => {
    const res = await gemini(mock, GENERATE, BODY, {});
    expect(res.status).toBe(403);
    expect(((await res.json()) as Json).error).toMatchObject({ code: 403, status: "PERMISSION_DENIED" });
  });

  it("with apiKey set: the header or ?key= must match; a wrong key gets the recorded 400 API_KEY_INVALID", async () => {
    expect((await gemini(keyed, GENERATE, BODY, { "x-goog-api-key": "g-right" })).status).toBe(200);
    expect((await gemini(keyed, `${GENERATE}?key=g-right`, BODY, {})).status).toBe(200);
    for (const [target, headers] of [
      [GENERATE, { "x-goog-api-key": "nope" }],
      [`${GENERATE}?key=nope`, {}],
    ] as const) {
      const res = await gemini(keyed, target, BODY, headers);
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual(fixtureJson("gemini.error.400.api_key_invalid.json"));
    }
  });

  it("rejected calls are logged but consume no script", async () => {
    mock.app.mock.addScript({ match: "sky", status: 500 });
    await (await gemini(mock, GENERATE, BODY, {})).text();
    expect(mock.app.mock.scripts()).toHaveLength(1);
    expect(mock.app.mock.lastRequest()).toMatchObject({ persona: "gemini", responseStatus: 403 });
  });
});

describe("Gemini persona: error envelopes", () => {
  it.each([
    [400, "INVALID_ARGUMENT"],
    [403, "PERMISSION_DENIED"],
    [404, "NOT_FOUND"],
    [500, "INTERNAL"],
    [503, "UNAVAILABLE"],
    [504, "DEADLINE_EXCEEDED"],
    [502, "UNKNOWN"],
  ])("status %i -> {error:{code, message, status: %s}}, also for stream requests", async (status, name) => {
    for (const target of [GENERATE, SSE]) {
      const res = await gemini(mock, target, BODY, { ...KEY, ...script({ status }) });
      expect(res.status).toBe(status);
      expect(res.headers.get("content-type")).toMatch(/^application\/json/);
      expect(await res.json()).toEqual({ error: { code: status, message: expect.any(String), status: name } });
    }
  });

  it("429 sends the recorded RESOURCE_EXHAUSTED body; errorFixture/errorBody/headers work", async () => {
    const limited = await gemini(mock, GENERATE, BODY, { ...KEY, ...script({ status: 429, headers: { "retry-after": "20" } }) });
    expect(limited.headers.get("retry-after")).toBe("20");
    expect(await limited.json()).toEqual(fixtureJson("gemini.error.429.resource_exhausted.json"));
    const named = await gemini(mock, GENERATE, BODY, { ...KEY, ...script({ errorFixture: "gemini.error.404.not_found" }) });
    expect(named.status).toBe(404);
    expect(await named.json()).toEqual(fixtureJson("gemini.error.404.not_found.json"));
    const verbatim = await gemini(mock, GENERATE, BODY, { ...KEY, ...script({ status: 503, errorBody: "canary-gemini" }) });
    expect(await verbatim.text()).toBe("canary-gemini");
  });

  it("an unknown method or path is a Google 404 that consumes no script", async () => {
    mock.app.mock.addScript({ match: "sky", status: 500 });
    for (const target of ["gemini-2.5-flash:countTokens", "gemini-2.5-flash"]) {
      const res = await gemini(mock, target, BODY);
      expect(res.status).toBe(404);
      expect(((await res.json()) as Json).error).toMatchObject({ code: 404, status: "NOT_FOUND" });
    }
    expect(mock.app.mock.scripts()).toHaveLength(1);
  });
});

describe("Gemini persona: bad bodies never crash the server", () => {
  it.each([
    ["not JSON", "{nope"],
    ["an array", "[]"],
    ["no contents", "{}"],
    ["empty contents", JSON.stringify({ contents: [] })],
    ["an empty body", ""],
  ])("%s -> 400 INVALID_ARGUMENT", async (_name, raw) => {
    for (const target of [GENERATE, SSE]) {
      const res = await gemini(mock, target, raw);
      expect(res.status).toBe(400);
      expect(((await res.json()) as Json).error).toMatchObject({ code: 400, status: "INVALID_ARGUMENT" });
    }
    await expectHealthy();
  });
});

describe("Gemini persona: faults", () => {
  it("error-event-mid-stream (SSE): half the events, then a chunk with a top-level Google error, then the end", async () => {
    const res = await gemini(mock, SSE, BODY, { ...KEY, ...script({ fault: "error-event-mid-stream" }) });
    expect(res.status).toBe(200);
    const { text, error } = await readAll(res);
    expect(error).toBeUndefined();
    const data = geminiSseData(text).map((d) => JSON.parse(d) as Json);
    expect(data).toHaveLength(HALF + 1);
    expect(data.at(-1)).toEqual({ error: { code: 500, message: expect.any(String), status: "INTERNAL" } });
    expect(text.endsWith("\r\n\r\n")).toBe(true);
  });

  it("error-event-mid-stream (JSON array): the error object closes the array", async () => {
    const res = await gemini(mock, "gemini-2.5-flash:streamGenerateContent", BODY, {
      ...KEY,
      ...script({ fault: "error-event-mid-stream" }),
    });
    const array = (await res.json()) as Json[];
    expect(array).toHaveLength(HALF + 1);
    expect(array.at(-1)!.error).toMatchObject({ code: 500, status: "INTERNAL" });
  });

  it("reset-mid-stream: half the events, then the body fails (SSE and array)", async () => {
    const sse = await readAll(await gemini(mock, SSE, BODY, { ...KEY, ...script({ fault: "reset-mid-stream" }) }));
    expect(sse.error).toBeInstanceOf(TypeError);
    expect(geminiSseData(sse.text)).toHaveLength(HALF);
    const array = await readAll(
      await gemini(mock, "gemini-2.5-flash:streamGenerateContent", BODY, { ...KEY, ...script({ fault: "reset-mid-stream" }) }),
    );
    expect(array.error).toBeInstanceOf(TypeError);
    expect(() => JSON.parse(array.text)).toThrow();
    await expectHealthy();
  });

  it("malformed-sse: one unparsable event half-way, then the rest", async () => {
    const { text } = await readAll(await gemini(mock, SSE, BODY, { ...KEY, ...script({ fault: "malformed-sse" }) }));
    const data = geminiSseData(text);
    expect(data).toHaveLength(EVENTS + 1);
    expect(() => JSON.parse(data[HALF]!)).toThrow();
    expect(JSON.parse(data.at(-1)!).candidates[0].finishReason).toBe("STOP");
  });

  it("reset-before-headers, latency and pacing apply", async () => {
    await expect(gemini(mock, SSE, BODY, { ...KEY, ...script({ fault: "reset-before-headers" }) })).rejects.toThrow(TypeError);
    const started = Date.now();
    const { text } = await readAll(await gemini(mock, SSE, BODY, { ...KEY, ...script({ latencyMs: 40, chunkDelayMs: 5 }) }));
    expect(Date.now() - started).toBeGreaterThanOrEqual(40 + 5 * (EVENTS - 1) - 5);
    expect(geminiSseData(text)).toHaveLength(EVENTS);
    await expectHealthy();
  });
});
