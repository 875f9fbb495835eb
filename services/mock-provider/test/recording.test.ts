import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { chat, getJson, startMock, USER } from "./helpers";
import type { Json, Mock } from "./helpers";

let mock: Mock;
beforeAll(async () => {
  mock = await startMock();
});
afterAll(() => mock.close());
beforeEach(async () => {
  const res = await fetch(`${mock.url}/_mock/reset`, { method: "POST" });
  expect(res.status).toBe(200);
});

describe("request log", () => {
  it("records method, path, lowercased headers, parsed body, time and the response sent", async () => {
    const before = Date.now();
    const body = { model: "gpt-x", messages: USER, temperature: 0.3 };
    const res = await fetch(`${mock.url}/v1/chat/completions?trace=1`, {
      method: "POST",
      headers: { Authorization: "Bearer sk-rec", "Content-Type": "application/json", "X-Custom-Thing": "Yes" },
      body: JSON.stringify(body),
    });
    const received = (await res.json()) as Json;

    const { status, body: log } = await getJson(mock, "/_mock/requests");
    expect(status).toBe(200);
    expect(log.requests).toHaveLength(1);
    const [entry] = log.requests;
    expect(entry.index).toBe(0);
    expect(entry.method).toBe("POST");
    expect(entry.path).toBe("/v1/chat/completions");
    expect(entry.url).toBe("/v1/chat/completions?trace=1");
    expect(entry.headers["x-custom-thing"]).toBe("Yes");
    expect(entry.headers.authorization).toBe("Bearer sk-rec");
    expect(entry.body).toEqual(body);
    expect(entry.receivedAt).toBeGreaterThanOrEqual(before);
    expect(entry.receivedAt).toBeLessThanOrEqual(Date.now());
    expect(entry.responseStatus).toBe(200);
    expect(entry.responseBody).toEqual(received);
  });

  it("filters with ?since= and serves the last entry", async () => {
    for (const model of ["a", "b", "c"]) await (await chat(mock, { model, messages: USER })).text();
    const since = await getJson(mock, "/_mock/requests?since=1");
    expect(since.body.requests.map((r: Json) => r.body.model)).toEqual(["b", "c"]);
    const last = await getJson(mock, "/_mock/requests/last");
    expect(last.status).toBe(200);
    expect(last.body.body.model).toBe("c");
    expect(last.body.index).toBe(2);
    expect((await getJson(mock, "/_mock/requests?since=-1")).status).toBe(400);
  });

  it("404s on /last when nothing was recorded, and reset empties the log", async () => {
    await (await chat(mock, { model: "a", messages: USER })).text();
    expect((await getJson(mock, "/_mock/requests")).body.requests).toHaveLength(1);
    await fetch(`${mock.url}/_mock/reset`, { method: "POST" });
    expect((await getJson(mock, "/_mock/requests")).body.requests).toEqual([]);
    expect((await getJson(mock, "/_mock/requests/last")).status).toBe(404);
  });

  it("does not record control calls", async () => {
    await getJson(mock, "/_mock/health");
    await getJson(mock, "/_mock/scripts");
    expect((await getJson(mock, "/_mock/requests")).body.requests).toEqual([]);
  });

  it("reports health", async () => {
    expect(await getJson(mock, "/_mock/health")).toEqual({ status: 200, body: { status: "ok" } });
  });
});

describe("scripted requests in the log", () => {
  it("records every attempt a reset-before-headers fault cut, with the script that applied", async () => {
    mock.app.mock.addScript({ match: ["mock:attempts", '"model":"gpt-4.1-mini"'], times: 2, fault: "reset-before-headers" });
    const body = { model: "gpt-4.1-mini", messages: [{ role: "user", content: "mock:attempts" }] };
    await expect(chat(mock, body)).rejects.toThrow();
    await expect(chat(mock, { ...body, stream: true })).rejects.toThrow();
    expect((await chat(mock, body)).status).toBe(200);

    const { body: log } = await getJson(mock, "/_mock/requests");
    expect(log.requests).toHaveLength(3);
    const [first, second, third] = log.requests as [Json, Json, Json];
    for (const cut of [first, second]) {
      expect(cut.path).toBe("/v1/chat/completions");
      expect(cut.script).toEqual({ fault: "reset-before-headers" });
      expect(cut).not.toHaveProperty("responseStatus");
      expect(cut.responseText).toBe("");
    }
    expect(second.body.stream).toBe(true);
    expect(third).not.toHaveProperty("script");
    expect(third.responseStatus).toBe(200);
  });

  it("shows the merged script (all layers) for a header-scripted error", async () => {
    await (
      await chat(mock, { model: "m", messages: USER }, { "x-mock-script": JSON.stringify({ status: 503, errorBody: "x", latencyMs: 1 }) })
    ).text();
    const last = await getJson(mock, "/_mock/requests/last");
    expect(last.body.script).toEqual({ status: 503, errorBody: "x", latencyMs: 1 });
    expect(last.body.responseStatus).toBe(503);
    expect(last.body.responseText).toBe("x");
  });
});

describe("log capacity", () => {
  it("drops the oldest entries beyond the cap, keeping indexes", async () => {
    const small = await startMock({ maxRecordedRequests: 3 });
    try {
      for (let i = 0; i < 5; i++) await (await chat(small, { model: `m${i}`, messages: USER })).text();
      const log = small.app.mock.requests();
      expect(log.map((r) => r.index)).toEqual([2, 3, 4]);
      expect(log.map((r) => (r.body as Json).model)).toEqual(["m2", "m3", "m4"]);
    } finally {
      await small.close();
    }
  });
});
