import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { chat, fixtureJson, getJson, script, startMock, USER } from "./helpers";
import type { Json, Mock } from "./helpers";

let mock: Mock;
beforeAll(async () => {
  mock = await startMock();
});
afterAll(() => mock.close());
beforeEach(() => mock.app.mock.reset());

function control(path: string, method: string, body?: unknown) {
  return fetch(mock.url + path, {
    method,
    ...(body === undefined ? {} : { headers: { "content-type": "application/json" }, body: JSON.stringify(body) }),
  });
}

const withMarker = (marker: string) => [{ role: "user", content: `hello ${marker}` }];

describe("header script", () => {
  it("sends the named error fixture with its status and extra headers", async () => {
    const res = await chat(
      mock,
      { model: "m", messages: USER },
      script({ status: 429, errorFixture: "openai.error.429.rate_limit_exceeded", headers: { "Retry-After": "7" } }),
    );
    expect(res.status).toBe(429);
    expect(res.headers.get("retry-after")).toBe("7");
    expect(await res.json()).toEqual(fixtureJson("openai.error.429.rate_limit_exceeded.json"));
    const entry = mock.app.mock.lastRequest()!;
    expect(entry.responseStatus).toBe(429);
    expect(entry.script).toEqual({ status: 429, errorFixture: "openai.error.429.rate_limit_exceeded", headers: { "retry-after": "7" } });
  });

  it("infers the status from the fixture name", async () => {
    const res = await chat(mock, { model: "m", messages: USER }, script({ errorFixture: "openai.error.400.context_length_exceeded" }));
    expect(res.status).toBe(400);
    expect(((await res.json()) as Json).error.code).toBe("context_length_exceeded");
    const quota = await chat(mock, { model: "m", messages: USER }, script({ errorFixture: "openai.error.429.insufficient_quota.json" }));
    expect(quota.status).toBe(429);
    expect(await quota.json()).toEqual(fixtureJson("openai.error.429.insufficient_quota.json"));
  });

  it("uses a default OpenAI-style body matching the status", async () => {
    const res = await chat(mock, { model: "m", messages: USER, stream: true }, script({ status: 503 }));
    expect(res.status).toBe(503);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    const body = (await res.json()) as Json;
    expect(body).toEqual({ error: { message: expect.any(String), type: "server_error", param: null, code: null } });
  });

  it("overrides usage with fixed numbers (total recomputed, details kept)", async () => {
    const res = await chat(mock, { model: "m", messages: USER }, script({ usage: { prompt_tokens: 3, completion_tokens: 4 } }));
    const body = (await res.json()) as Json;
    expect(body.usage).toEqual({
      ...fixtureJson("openai.chat.response.json").usage,
      prompt_tokens: 3,
      completion_tokens: 4,
      total_tokens: 7,
    });
  });

  it("rejects an invalid script with a 400 that names the problem", async () => {
    const typo = await chat(mock, { model: "m", messages: USER }, script({ fault: "reset-before-header" }));
    expect(typo.status).toBe(400);
    expect(((await typo.json()) as Json).error.message).toMatch(/unknown fault "reset-before-header"/);
    const unknownField = await chat(mock, { model: "m", messages: USER }, script({ statuss: 500 }));
    expect(((await unknownField.json()) as Json).error.message).toMatch(/unknown script field "statuss"/);
    const notJson = await chat(mock, { model: "m", messages: USER }, { "x-mock-script": "{oops" });
    expect(notJson.status).toBe(400);
  });
});

describe("errorBody", () => {
  const CANARY = "canary-7f3a9c";

  it("is sent verbatim as application/json with the status, and logged as text when not JSON", async () => {
    const errorBody = `upstream exploded: ${CANARY} <html>`;
    const res = await chat(
      mock,
      { model: "m", messages: USER },
      script({ status: 502, errorBody, headers: { "x-upstream-secret": CANARY } }),
    );
    expect(res.status).toBe(502);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    expect(res.headers.get("x-upstream-secret")).toBe(CANARY);
    expect(await res.text()).toBe(errorBody);
    const entry = mock.app.mock.lastRequest()!;
    expect(entry.responseStatus).toBe(502);
    expect(entry.responseText).toBe(errorBody);
    expect(entry.responseBody).toBeUndefined();
    expect(entry.script).toEqual({ status: 502, errorBody, headers: { "x-upstream-secret": CANARY } });
  });

  it("keeps a JSON body byte for byte and logs it parsed", async () => {
    const errorBody = `{ "error" : { "message": "key sk-${CANARY} leaked", "type": "server_error" } }`;
    const res = await chat(mock, { model: "m", messages: USER, stream: true }, script({ status: 500, errorBody }));
    expect(res.status).toBe(500);
    expect(await res.text()).toBe(errorBody);
    const entry = mock.app.mock.lastRequest()!;
    expect(entry.responseBody).toEqual(JSON.parse(errorBody));
    expect(entry.responseText).toBeUndefined();
  });

  it("replaces an error fixture's body, whose status still applies", async () => {
    const res = await chat(
      mock,
      { model: "m", messages: USER },
      script({ errorFixture: "openai.error.429.rate_limit_exceeded", errorBody: CANARY }),
    );
    expect(res.status).toBe(429);
    expect(await res.text()).toBe(CANARY);
  });

  it("works from a match script, e.g. on embeddings", async () => {
    mock.app.mock.addScript({ match: CANARY, status: 503, errorBody: `{"error":"${CANARY}"}` });
    const res = await fetch(`${mock.url}/v1/embeddings`, {
      method: "POST",
      headers: { authorization: "Bearer sk-test", "content-type": "application/json" },
      body: JSON.stringify({ model: "text-embedding-3-small", input: CANARY }),
    });
    expect(res.status).toBe(503);
    expect(await res.text()).toBe(`{"error":"${CANARY}"}`);
  });

  it("is ignored when a later layer makes the merged status a success", async () => {
    mock.app.mock.addScript({ match: "mock:ok", status: 500, errorBody: CANARY });
    const res = await chat(mock, { model: "m", messages: withMarker("mock:ok") }, script({ status: 200 }));
    expect(res.status).toBe(200);
    expect(((await res.json()) as Json).object).toBe("chat.completion");
  });

  it("is rejected without an error status in the same script, or when not a string", async () => {
    const cases: [unknown, RegExp][] = [
      [{ errorBody: CANARY }, /errorBody needs an error status/],
      [{ status: 200, errorBody: CANARY }, /errorBody needs an error status/],
      [{ status: 299, errorFixture: "openai.error.429.rate_limit_exceeded", errorBody: CANARY }, /errorBody needs an error status/],
      [{ status: 500, errorBody: { error: CANARY } }, /errorBody must be a string/],
    ];
    for (const [value, message] of cases) {
      const res = await chat(mock, { model: "m", messages: USER }, script(value));
      expect(res.status).toBe(400);
      expect(((await res.json()) as Json).error.message).toMatch(message);
    }
    const queued = await control("/_mock/scripts", "POST", { match: "mock:x", errorBody: CANARY });
    expect(queued.status).toBe(400);
    expect(((await queued.json()) as Json).error.message).toMatch(/errorBody needs an error status/);
    expect(() => mock.app.mock.setDefaultScript({ errorBody: CANARY })).toThrow(/errorBody needs an error status/);
  });
});

describe("match scripts", () => {
  it("apply to requests whose body contains the marker, `times` times", async () => {
    const add = await control("/_mock/scripts", "POST", { match: "mock:abc123", times: 2, status: 500 });
    expect(add.status).toBe(200);

    expect((await chat(mock, { model: "m", messages: USER })).status).toBe(200); // no marker: untouched
    expect((await getJson(mock, "/_mock/scripts")).body.scripts[0].times).toBe(2);
    expect((await chat(mock, { model: "m", messages: withMarker("mock:abc123") })).status).toBe(500);
    expect((await getJson(mock, "/_mock/scripts")).body.scripts[0].times).toBe(1);
    expect((await chat(mock, { model: "m", messages: withMarker("mock:abc123") })).status).toBe(500);
    expect((await getJson(mock, "/_mock/scripts")).body.scripts).toEqual([]);
    expect((await chat(mock, { model: "m", messages: withMarker("mock:abc123") })).status).toBe(200);
  });

  it("default to once; first match wins; times 0 is unlimited", async () => {
    await control("/_mock/scripts", "POST", { match: "mock:k", status: 502 });
    await control("/_mock/scripts", "POST", { match: "mock:k", times: 0, status: 504 });
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await chat(mock, { model: "m", messages: withMarker("mock:k") })).status);
    expect(statuses).toEqual([502, 504, 504, 504]);
    expect(mock.app.mock.scripts()).toEqual([{ match: "mock:k", times: 0, status: 504 }]);
  });

  it("are cleared by DELETE /_mock/scripts", async () => {
    await control("/_mock/scripts", "POST", { match: "mock:z", times: 0, status: 500 });
    expect((await control("/_mock/scripts", "DELETE")).status).toBe(200);
    expect((await chat(mock, { model: "m", messages: withMarker("mock:z") })).status).toBe(200);
  });

  it("rejects a script without a match string", async () => {
    const res = await control("/_mock/scripts", "POST", { status: 500 });
    expect(res.status).toBe(400);
    expect(((await res.json()) as Json).error.message).toMatch(/match/);
  });

  it("with a match list, apply only to bodies containing every string", async () => {
    const add = await control("/_mock/scripts", "POST", { match: ["mock:path", '"model":"gpt-4.1-mini"'], times: 0, status: 503 });
    expect(add.status).toBe(200);
    // Same marker, other model: another access path, untouched.
    expect((await chat(mock, { model: "gpt-4o", messages: withMarker("mock:path") })).status).toBe(200);
    // Right model without the marker: untouched.
    expect((await chat(mock, { model: "gpt-4.1-mini", messages: USER })).status).toBe(200);
    expect((await chat(mock, { model: "gpt-4.1-mini", messages: withMarker("mock:path") })).status).toBe(503);
    expect((await getJson(mock, "/_mock/scripts")).body.scripts).toEqual([
      { match: ["mock:path", '"model":"gpt-4.1-mini"'], times: 0, status: 503 },
    ]);
  });

  it("with a match list, keep the queue semantics (times, first match wins)", async () => {
    mock.app.mock.addScript({ match: ["mock:q", "alpha"], times: 2, status: 502 });
    mock.app.mock.addScript({ match: "mock:q", status: 504 });
    const statuses: number[] = [];
    for (const word of ["beta", "alpha", "alpha", "alpha"]) {
      statuses.push((await chat(mock, { model: "m", messages: withMarker(`mock:q ${word}`) })).status);
    }
    // beta skips the list script and takes the plain one; alpha uses the list script twice, then nothing is left.
    expect(statuses).toEqual([504, 502, 502, 200]);
    expect(mock.app.mock.scripts()).toEqual([]);
  });

  it("with a path, apply only to requests whose URL holds it too", async () => {
    mock.app.mock.addScript({ match: "mock:where", path: "/v1/responses", times: 0, status: 503 });
    expect((await chat(mock, { model: "m", messages: withMarker("mock:where") })).status).toBe(200);
    mock.app.mock.addScript({ match: "mock:where", path: "/chat/completions", status: 502 });
    expect((await chat(mock, { model: "m", messages: withMarker("mock:where") })).status).toBe(502);
    expect(mock.app.mock.scripts()).toEqual([{ match: "mock:where", path: "/v1/responses", times: 0, status: 503 }]);
    const bad = await control("/_mock/scripts", "POST", { match: "mock:where", path: "", status: 500 });
    expect(bad.status).toBe(400);
  });

  it("with a credential, apply only to requests that presented that key", async () => {
    mock.app.mock.addScript({ match: "mock:key", credential: "sk-one", times: 0, status: 429 });
    const as = (key: string) => chat(mock, { model: "m", messages: withMarker("mock:key") }, { authorization: `Bearer ${key}` });
    expect((await as("sk-two")).status).toBe(200);
    expect((await as("sk-one")).status).toBe(429);
    expect((await as("sk-one")).status).toBe(429);
    const bad = await control("/_mock/scripts", "POST", { match: "mock:key", credential: 7, status: 500 });
    expect(bad.status).toBe(400);
  });

  it("queue a copy: changing the caller's match list afterwards changes nothing", async () => {
    const match = ["mock:copy"];
    mock.app.mock.addScript({ match, status: 500 });
    match.push("never-sent");
    mock.app.mock.scripts()[0]!.match = "mock:other";
    expect((await chat(mock, { model: "m", messages: withMarker("mock:copy") })).status).toBe(500);
  });

  it("reject an empty match, an empty list, or a list with a non-string or empty entry", async () => {
    for (const match of ["", [], ["mock:a", ""], ["mock:a", 7], { all: ["mock:a"] }]) {
      const res = await control("/_mock/scripts", "POST", { match, status: 500 });
      expect(res.status).toBe(400);
      expect(((await res.json()) as Json).error).toMatchObject({
        code: "invalid_mock_script",
        message: "mock-provider: match must be a non-empty string or a non-empty array of non-empty strings",
      });
    }
    expect(() => mock.app.mock.addScript({ match: [], status: 500 })).toThrow(/non-empty array/);
    expect(mock.app.mock.scripts()).toEqual([]);
  });

  it("layer under the header script (header wins field by field, headers merge)", async () => {
    mock.app.mock.addScript({ match: "mock:layer", status: 500, headers: { "x-a": "1" } });
    const res = await chat(mock, { model: "m", messages: withMarker("mock:layer") }, script({ status: 429, headers: { "x-b": "2" } }));
    expect(res.status).toBe(429);
    expect(res.headers.get("x-a")).toBe("1");
    expect(res.headers.get("x-b")).toBe("2");
  });
});

describe("default script", () => {
  it("applies to every request until reset", async () => {
    expect((await control("/_mock/default-script", "POST", { usage: { prompt_tokens: 1, completion_tokens: 2 } })).status).toBe(200);
    for (let i = 0; i < 2; i++) {
      const body = (await (await chat(mock, { model: "m", messages: USER })).json()) as Json;
      expect(body.usage.total_tokens).toBe(3);
    }
    await control("/_mock/reset", "POST");
    const body = (await (await chat(mock, { model: "m", messages: USER })).json()) as Json;
    expect(body.usage.total_tokens).toBe(29);
  });

  it("can come from buildMockProvider options and survives reset", async () => {
    const other = await startMock({ defaultScript: { usage: "random", headers: { "x-default": "yes" } } });
    try {
      other.app.mock.reset();
      const res = await chat(other, { model: "m", messages: USER });
      expect(res.headers.get("x-default")).toBe("yes");
      const { usage } = (await res.json()) as Json;
      expect(usage.prompt_tokens).toBeGreaterThanOrEqual(1);
      expect(usage.prompt_tokens).toBeLessThanOrEqual(200);
      expect(usage.completion_tokens).toBeLessThanOrEqual(400);
      expect(usage.total_tokens).toBe(usage.prompt_tokens + usage.completion_tokens);
    } finally {
      await other.close();
    }
  });

  it("validates options at build time", async () => {
    await expect(startMock({ defaultScript: { fault: "nope" as never } })).rejects.toThrow(/unknown fault/);
  });
});
