import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fixtureJson, getJson, startMock, USER } from "./helpers";
import type { Mock } from "./helpers";

const body = JSON.stringify({ model: "m", messages: USER });
const invalidKey = fixtureJson("openai.error.401.invalid_api_key.json");

function call(mock: Mock, authorization?: string) {
  return fetch(`${mock.url}/v1/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", ...(authorization === undefined ? {} : { authorization }) },
    body,
  });
}

describe("auth with a configured key", () => {
  let mock: Mock;
  beforeAll(async () => {
    mock = await startMock({ apiKey: "sk-right" });
  });
  afterAll(() => mock.close());

  it("accepts the exact key", async () => {
    expect((await call(mock, "Bearer sk-right")).status).toBe(200);
  });

  it("answers a wrong key, a missing header or another scheme with the recorded 401 body", async () => {
    for (const header of ["Bearer sk-wrong", undefined, "Basic c2stcmlnaHQ=", "Bearer "]) {
      const res = await call(mock, header);
      expect(res.status).toBe(401);
      expect(await res.json()).toEqual(invalidKey);
    }
    // Rejected calls are recorded too: the gateway's behaviour towards them is under test.
    const last = mock.app.mock.lastRequest()!;
    expect(last.responseStatus).toBe(401);
    expect(last.responseBody).toEqual(invalidKey);
  });

  it("does not consume match scripts on rejected calls", async () => {
    mock.app.mock.addScript({ match: '"m"', status: 500 });
    expect((await call(mock, "Bearer nope")).status).toBe(401);
    expect((await call(mock, "Bearer sk-right")).status).toBe(500);
  });

  it("leaves /_mock open", async () => {
    expect((await getJson(mock, "/_mock/health")).status).toBe(200);
  });
});

describe("auth without a configured key", () => {
  let mock: Mock;
  beforeAll(async () => {
    mock = await startMock();
  });
  afterAll(() => mock.close());

  it("accepts any bearer token but still requires one", async () => {
    expect((await call(mock, "Bearer anything-at-all")).status).toBe(200);
    const missing = await call(mock);
    expect(missing.status).toBe(401);
    expect(await missing.json()).toEqual(invalidKey);
  });
});
