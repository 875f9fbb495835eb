// Anthropic persona, failures: auth and anthropic-version, the error envelope
// per status, scripts and faults in Anthropic's wire form, bad bodies.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ANTHROPIC, anthropicEvents, fixtureJson, getJson, messages, readAll, script, servedTranscript, startMock } from "./helpers";
import type { Json, Mock } from "./helpers";

let mock: Mock;
let keyed: Mock;
beforeAll(async () => {
  mock = await startMock();
  keyed = await startMock({ apiKey: "sk-ant-right" });
});
afterAll(async () => {
  await mock.close();
  await keyed.close();
});
beforeEach(() => mock.app.mock.reset());

const BODY = { model: "claude-opus-4-8", max_tokens: 100, messages: [{ role: "user", content: "Hi" }] };
const STREAM = { ...BODY, stream: true };
const EVENTS = anthropicEvents(servedTranscript("anthropic.messages.stream.sse")).length;
const HALF = Math.floor(EVENTS / 2);
const ERROR_FRAME = 'event: error\ndata: {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}\n\n';

/** A recorded error fixture as the mock sends it: the request's own id in request_id. */
function recordedError(name: string, requestId: string): Json {
  return { ...fixtureJson(`${name}.json`), request_id: requestId };
}

async function expectHealthy() {
  const res = await messages(mock, BODY);
  expect(res.status).toBe(200);
  expect(((await res.json()) as Json).type).toBe("message");
}

describe("Anthropic persona: auth and version", () => {
  it("a missing x-api-key is a 401 authentication_error (a bearer token does not count)", async () => {
    const res = await messages(mock, BODY, { "x-api-key": "", authorization: "Bearer sk-test" });
    expect(res.status).toBe(401);
    const requestId = res.headers.get("request-id")!;
    expect(await res.json()).toEqual({
      type: "error",
      error: { type: "authentication_error", message: "x-api-key header is required" },
      request_id: requestId,
    });
  });

  it("with apiKey set, only that key passes; a wrong one gets the recorded 401", async () => {
    const wrong = await messages(keyed, BODY, { "x-api-key": "sk-ant-wrong" });
    expect(wrong.status).toBe(401);
    expect(await wrong.json()).toEqual(recordedError("anthropic.error.401.authentication_error", wrong.headers.get("request-id")!));
    expect((await messages(keyed, BODY, { "x-api-key": "sk-ant-right" })).status).toBe(200);
  });

  it("anthropic-version is required and must be a real version", async () => {
    const missing = await messages(mock, BODY, { "anthropic-version": "" });
    expect(missing.status).toBe(400);
    expect(((await missing.json()) as Json).error).toEqual({
      type: "invalid_request_error",
      message: "anthropic-version: header is required",
    });
    const bogus = await messages(mock, BODY, { "anthropic-version": "2099-01-01" });
    expect(bogus.status).toBe(400);
    expect(((await bogus.json()) as Json).error.type).toBe("invalid_request_error");
  });

  it("rejected calls are logged but consume no script", async () => {
    mock.app.mock.addScript({ match: "Hi", status: 500 });
    await (await messages(mock, BODY, { "anthropic-version": "" })).text();
    await (await messages(mock, BODY, { "x-api-key": "" })).text();
    expect(mock.app.mock.scripts()).toHaveLength(1);
    expect(mock.app.mock.requests().map((r) => [r.persona, r.responseStatus])).toEqual([
      ["anthropic", 400],
      ["anthropic", 401],
    ]);
  });
});

describe("Anthropic persona: error envelopes", () => {
  it.each([
    [400, "anthropic.error.400.invalid_request_error"],
    [403, "anthropic.error.403.permission_error"],
    [404, "anthropic.error.404.not_found_error"],
    [413, "anthropic.error.413.request_too_large"],
    [429, "anthropic.error.429.rate_limit_error"],
    [500, "anthropic.error.500.api_error"],
    [529, "anthropic.error.529.overloaded_error"],
  ])("status %i -> the recorded %s body with this request's request_id", async (status, name) => {
    const res = await messages(mock, STREAM, script({ status }));
    expect(res.status).toBe(status);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    const requestId = res.headers.get("request-id")!;
    expect(requestId).toMatch(/^req_mock_\d+$/);
    expect(await res.json()).toEqual(recordedError(name, requestId));
    // The API tells its SDKs to retry rate limits and server errors.
    expect(res.headers.get("x-should-retry")).toBe(status === 429 || status >= 500 ? "true" : null);
  });

  it("statuses without a recording get the same envelope with the documented type", async () => {
    const cases: [number, string][] = [
      [402, "billing_error"],
      [504, "timeout_error"],
      [503, "api_error"],
      [418, "invalid_request_error"],
    ];
    for (const [status, type] of cases) {
      const res = await messages(mock, BODY, script({ status }));
      expect(res.status).toBe(status);
      const body = (await res.json()) as Json;
      expect(body).toEqual({ type: "error", error: { type, message: expect.any(String) }, request_id: res.headers.get("request-id") });
    }
  });

  it("errorFixture and errorBody work as on the OpenAI persona; script headers win", async () => {
    const named = await messages(
      mock,
      BODY,
      script({ errorFixture: "anthropic.error.529.overloaded_error", headers: { "retry-after": "3", "x-should-retry": "false" } }),
    );
    expect(named.status).toBe(529);
    expect(named.headers.get("retry-after")).toBe("3");
    expect(named.headers.get("x-should-retry")).toBe("false");
    expect(((await named.json()) as Json).error.type).toBe("overloaded_error");
    const verbatim = await messages(mock, BODY, script({ status: 500, errorBody: "canary-anthropic" }));
    expect(verbatim.status).toBe(500);
    expect(await verbatim.text()).toBe("canary-anthropic");
  });

  it("a match script picks out one call by its body", async () => {
    mock.app.mock.addScript({ match: ["mock:anth", '"model":"claude-opus-4-8"'], status: 429 });
    expect((await messages(mock, { ...BODY, model: "claude-haiku", messages: [{ role: "user", content: "mock:anth" }] })).status).toBe(200);
    expect((await messages(mock, { ...BODY, messages: [{ role: "user", content: "mock:anth" }] })).status).toBe(429);
    expect(mock.app.mock.scripts()).toEqual([]);
  });

  it("an invalid x-mock-script header is a 400 in Anthropic's envelope", async () => {
    const res = await messages(mock, BODY, { "x-mock-script": '{"fault":"nope"}' });
    expect(res.status).toBe(400);
    expect(((await res.json()) as Json).error).toEqual({
      type: "invalid_request_error",
      message: expect.stringMatching(/unknown fault "nope"/),
    });
  });
});

describe("Anthropic persona: bad bodies never crash the server", () => {
  it.each([
    ["not JSON", "{{{"],
    ["a JSON array", "[1,2]"],
    ["no model", JSON.stringify({ max_tokens: 1, messages: [] })],
    ["no max_tokens", JSON.stringify({ model: "m", messages: [] })],
    ["no messages", JSON.stringify({ model: "m", max_tokens: 1 })],
    ["an empty body", ""],
  ])("%s -> 400 invalid_request_error", async (_name, raw) => {
    const res = await messages(mock, raw);
    expect(res.status).toBe(400);
    expect(((await res.json()) as Json).error.type).toBe("invalid_request_error");
    await expectHealthy();
  });

  it("unknown paths under /v1/messages answer Anthropic's 404", async () => {
    const res = await fetch(`${mock.url}/v1/messages/batches`, { method: "POST", headers: ANTHROPIC, body: "{}" });
    expect(res.status).toBe(404);
    expect(((await res.json()) as Json).error.type).toBe("not_found_error");
  });
});

describe("Anthropic persona: faults", () => {
  it("error-event-mid-stream sends Anthropic's event: error after half the events, no message_stop", async () => {
    const res = await messages(mock, STREAM, script({ fault: "error-event-mid-stream" }));
    expect(res.status).toBe(200);
    const { text, error } = await readAll(res);
    expect(error).toBeUndefined();
    const events = anthropicEvents(text);
    expect(events).toHaveLength(HALF + 1);
    expect(text.endsWith(ERROR_FRAME)).toBe(true);
    expect(events.map((e) => e.event)).not.toContain("message_stop");
  });

  it("anthropic-error-event-mid-stream is the same frame here", async () => {
    const { text } = await readAll(await messages(mock, STREAM, script({ fault: "anthropic-error-event-mid-stream" })));
    expect(text.endsWith(ERROR_FRAME)).toBe(true);
    expect(anthropicEvents(text)).toHaveLength(HALF + 1);
  });

  it("reset-mid-stream: half the events, then the body fails", async () => {
    const { text, error } = await readAll(await messages(mock, STREAM, script({ fault: "reset-mid-stream" })));
    expect(error).toBeInstanceOf(TypeError);
    expect(anthropicEvents(text)).toHaveLength(HALF);
    await expectHealthy();
  });

  it("malformed-sse: one unparsable data line half-way, then the rest of the stream", async () => {
    const { text } = await readAll(await messages(mock, STREAM, script({ fault: "malformed-sse" })));
    const events = anthropicEvents(text);
    expect(events).toHaveLength(EVENTS + 1);
    const bad = events.findIndex((e) => {
      try {
        JSON.parse(e.data);
        return false;
      } catch {
        return true;
      }
    });
    expect(bad).toBe(HALF);
    expect(events.at(-1)!.event).toBe("message_stop");
  });

  it("stall-mid-stream: half the events, then silence until the client leaves", async () => {
    const controller = new AbortController();
    const res = await messages(mock, STREAM, script({ fault: "stall-mid-stream" }), controller.signal);
    const reader = res.body!.getReader();
    let text = "";
    while (anthropicEvents(text).length < HALF || !text.endsWith("\n\n")) {
      const { done, value } = await reader.read();
      if (done) throw new Error("the stream ended instead of stalling");
      text += new TextDecoder().decode(value);
    }
    expect(anthropicEvents(text)).toHaveLength(HALF);
    const next = await Promise.race([reader.read().then(() => "more"), new Promise((resolve) => setTimeout(() => resolve("silent"), 150))]);
    expect(next).toBe("silent");
    controller.abort();
    await expectHealthy();
  });

  it("reset-before-headers and latency/pacing apply as on the OpenAI persona", async () => {
    await expect(messages(mock, STREAM, script({ fault: "reset-before-headers" }))).rejects.toThrow(TypeError);
    const started = Date.now();
    const { text } = await readAll(await messages(mock, STREAM, script({ latencyMs: 60, chunkDelayMs: 10 })));
    expect(Date.now() - started).toBeGreaterThanOrEqual(60 + 10 * (EVENTS - 1) - 5);
    expect(anthropicEvents(text)).toHaveLength(EVENTS);
    const log = await getJson(mock, "/_mock/requests");
    expect(log.body.requests.map((r: Json) => r.script)).toEqual([{ fault: "reset-before-headers" }, { latencyMs: 60, chunkDelayMs: 10 }]);
  });
});
