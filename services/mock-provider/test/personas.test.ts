// Every persona on one server: the log tells them apart, and scripts (default,
// match with times, header) apply to all of them the same way.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { CONTENTS, chat, gemini, getJson, messages, script, startMock, USER } from "./helpers";
import type { Json, Mock } from "./helpers";

let mock: Mock;
beforeAll(async () => {
  mock = await startMock();
});
afterAll(() => mock.close());
beforeEach(() => mock.app.mock.reset());

const TAG = "mock:persona-tag";
const calls = {
  openai: () => chat(mock, { model: "gpt-4.1-mini", messages: [{ role: "user", content: TAG }] }),
  openrouter: () => chat(mock, { model: "openai/gpt-4.1-mini", messages: [{ role: "user", content: TAG }] }),
  anthropic: () => messages(mock, { model: "claude-sonnet-4-5", max_tokens: 10, messages: [{ role: "user", content: TAG }] }),
  gemini: () => gemini(mock, "gemini-2.5-flash:generateContent", { contents: [{ role: "user", parts: [{ text: TAG }] }] }),
};

describe("personas share the log and the scripts", () => {
  it("the log names each persona and path", async () => {
    for (const call of Object.values(calls)) expect((await call()).status).toBe(200);
    const { body } = await getJson(mock, "/_mock/requests");
    expect(body.requests.map((r: Json) => [r.persona, r.path])).toEqual([
      ["openai", "/v1/chat/completions"],
      ["openrouter", "/v1/chat/completions"],
      ["anthropic", "/v1/messages"],
      ["gemini", "/v1beta/models/gemini-2.5-flash:generateContent"],
    ]);
  });

  it("a match script with times counts calls across personas, each answering in its own envelope", async () => {
    mock.app.mock.addScript({ match: TAG, times: 4, status: 429, headers: { "retry-after": "1" } });
    const bodies: Json[] = [];
    for (const call of Object.values(calls)) {
      const res = await call();
      expect(res.status).toBe(429);
      expect(res.headers.get("retry-after")).toBe("1");
      bodies.push((await res.json()) as Json);
    }
    expect(bodies[0]!.error.code).toBe("rate_limit_exceeded");
    expect(bodies[1]!.error.code).toBe(429);
    expect(bodies[2]!.error.type).toBe("rate_limit_error");
    expect(bodies[3]!.error.status).toBe("RESOURCE_EXHAUSTED");
    expect(mock.app.mock.scripts()).toEqual([]);
    expect((await calls.anthropic()).status).toBe(200);
  });

  it("the default script applies to every persona; a header script overrides it", async () => {
    mock.app.mock.setDefaultScript({ status: 503 });
    for (const call of Object.values(calls)) expect((await call()).status).toBe(503);
    expect((await messages(mock, { model: "m", max_tokens: 1, messages: USER }, script({ status: 200 }))).status).toBe(200);
    expect(
      (await gemini(mock, "m:generateContent", { contents: CONTENTS }, { "x-goog-api-key": "k", ...script({ status: 200 }) })).status,
    ).toBe(200);
  });
});
