// Anthropic POST /v1/messages/count_tokens: a deterministic estimate in the
// recorded answer's shape, the Messages persona's auth and version checks.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ANTHROPIC, fixtureJson, script, startMock } from "./helpers";
import type { Json, Mock } from "./helpers";

let mock: Mock;
beforeAll(async () => {
  mock = await startMock();
});
afterAll(() => mock.close());
beforeEach(() => mock.app.mock.reset());

const REQUEST = fixtureJson("anthropic.messages.count_tokens.request.json");

function countTokens(body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${mock.url}/v1/messages/count_tokens`, {
    method: "POST",
    headers: { ...ANTHROPIC, ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

const estimate = (body: Json) =>
  Math.max(1, Math.ceil(JSON.stringify({ system: body.system, messages: body.messages, tools: body.tools }).length / 4));

describe("count_tokens", () => {
  it("answers {input_tokens} (recorded shape) with ceil(chars of system+messages+tools JSON / 4)", async () => {
    const res = await countTokens(REQUEST);
    expect(res.status).toBe(200);
    expect(res.headers.get("request-id")).toMatch(/^req_mock_\d+$/);
    const body = (await res.json()) as Json;
    expect(Object.keys(body)).toEqual(Object.keys(fixtureJson("anthropic.messages.count_tokens.response.json")));
    expect(body).toEqual({ input_tokens: estimate(REQUEST) });
    const entry = mock.app.mock.lastRequest();
    expect(entry?.persona).toBe("anthropic");
    expect(entry?.path).toBe("/v1/messages/count_tokens");
  });

  it("is deterministic and grows with tools and system", async () => {
    const first = (await (await countTokens(REQUEST)).json()) as Json;
    const again = (await (await countTokens(REQUEST)).json()) as Json;
    expect(again).toEqual(first);
    const tools = [{ name: "get_weather", input_schema: { type: "object", properties: { city: { type: "string" } } } }];
    const more = (await (await countTokens({ ...REQUEST, tools })).json()) as Json;
    expect(more.input_tokens).toBe(estimate({ ...REQUEST, tools }));
    expect(more.input_tokens).toBeGreaterThan(first.input_tokens);
    const tiny = (await (await countTokens({ model: "m", messages: [] })).json()) as Json;
    expect(tiny.input_tokens).toBeGreaterThanOrEqual(1);
  });

  it("a script's usage.prompt_tokens overrides the estimate; scripted errors use Anthropic's envelope", async () => {
    const scripted = await countTokens(REQUEST, script({ usage: { prompt_tokens: 1234 } }));
    expect(await scripted.json()).toEqual({ input_tokens: 1234 });
    const failed = await countTokens(REQUEST, script({ status: 529 }));
    expect(failed.status).toBe(529);
    expect(((await failed.json()) as Json).error.type).toBe("overloaded_error");
  });

  it("missing model or messages -> Anthropic 400", async () => {
    for (const body of [{ messages: REQUEST.messages }, { model: "claude-opus-4-6" }, "not json"]) {
      const res = await countTokens(body);
      expect(res.status).toBe(400);
      const error = (await res.json()) as Json;
      expect(error.type).toBe("error");
      expect(error.error.type).toBe("invalid_request_error");
      expect(error.request_id).toMatch(/^req_mock_\d+$/);
    }
  });

  it("the same x-api-key and anthropic-version checks as /v1/messages", async () => {
    const noKey = await countTokens(REQUEST, { "x-api-key": "" });
    expect(noKey.status).toBe(401);
    expect(((await noKey.json()) as Json).error.type).toBe("authentication_error");
    const bearerOnly = await fetch(`${mock.url}/v1/messages/count_tokens`, {
      method: "POST",
      headers: { authorization: "Bearer sk-test", "anthropic-version": "2023-06-01", "content-type": "application/json" },
      body: JSON.stringify(REQUEST),
    });
    expect(bearerOnly.status).toBe(401);
    const noVersion = await countTokens(REQUEST, { "anthropic-version": "" });
    expect(noVersion.status).toBe(400);
    expect(((await noVersion.json()) as Json).error.message).toBe("anthropic-version: header is required");
  });
});
