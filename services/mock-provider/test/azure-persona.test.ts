// The Azure OpenAI persona: auth (api-key, Entra ID stand-in tokens), the
// deployments and v1 URL forms, Azure's answer shape (content-filter verdicts,
// the stream's announcement chunk, headers) and scripted failures.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fixtureJson, fixtureText, type Json, type Mock, readAll, script, sseData, startMock, USER } from "./helpers";

const KEY = { "api-key": "azure-mock-key", "content-type": "application/json" };
const DEPLOYMENT_CHAT = "/azure/openai/deployments/gpt-4.1-nano/chat/completions?api-version=2024-10-21";

let mock: Mock;
beforeAll(async () => {
  mock = await startMock();
});
afterAll(() => mock.close());

const call = (path: string, body: unknown, headers: Record<string, string> = KEY) =>
  fetch(mock.url + path, { method: "POST", headers, body: JSON.stringify(body) });
const token = async (header = "azure-mock-identity-header") =>
  fetch(`${mock.url}/azure/identity/token?api-version=2019-08-01&resource=https%3A%2F%2Fcognitiveservices.azure.com`, {
    headers: { "x-identity-header": header },
  });
const chunksOf = (text: string): Json[] =>
  sseData(text)
    .filter((data) => data !== "[DONE]")
    .map((data) => JSON.parse(data) as Json);

describe("auth", () => {
  it("accepts the resource's api-key and refuses another with Azure's recorded 401", async () => {
    expect((await call(DEPLOYMENT_CHAT, { messages: USER })).status).toBe(200);
    const refused = await call(DEPLOYMENT_CHAT, { messages: USER }, { ...KEY, "api-key": "wrong" });
    expect(refused.status).toBe(401);
    expect(await refused.json()).toEqual(fixtureJson("azure.error.401.invalid_key.json"));
    expect((await call(DEPLOYMENT_CHAT, { messages: USER }, { "content-type": "application/json" })).status).toBe(401);
  });

  it("takes its key from MockProviderOptions.apiKey when set", async () => {
    const own = await startMock({ apiKey: "operator-key" });
    try {
      const send = (key: string) =>
        fetch(own.url + DEPLOYMENT_CHAT, { method: "POST", headers: { ...KEY, "api-key": key }, body: JSON.stringify({ messages: USER }) });
      expect((await send("operator-key")).status).toBe(200);
      expect((await send("azure-mock-key")).status).toBe(401);
    } finally {
      await own.close();
    }
  });

  it("issues Entra ID stand-in tokens in App Service's shape and accepts them as bearers, counting them", async () => {
    const before = ((await (await fetch(`${mock.url}/_mock/azure/tokens`)).json()) as Json).issued as number;
    const issued = (await (await token()).json()) as Json;
    expect(issued).toMatchObject({ resource: "https://cognitiveservices.azure.com", token_type: "Bearer" });
    expect(Number(issued.expires_on)).toBeGreaterThan(Date.now() / 1000 + 3000);
    const bearer = { authorization: `Bearer ${issued.access_token}`, "content-type": "application/json" };
    expect((await call(DEPLOYMENT_CHAT, { messages: USER }, bearer)).status).toBe(200);
    expect(((await (await fetch(`${mock.url}/_mock/azure/tokens`)).json()) as Json).issued).toBe(before + 1);
    const unknown = await call(DEPLOYMENT_CHAT, { messages: USER }, { ...bearer, authorization: "Bearer made-up" });
    expect(unknown.status).toBe(401);
    expect(((await unknown.json()) as Json).error.code).toBe("401");
  });

  it("refuses a token request without the identity header", async () => {
    expect((await token("wrong")).status).toBe(401);
  });

  it("accepts the key as a bearer on the v1 form only", async () => {
    const bearer = { authorization: "Bearer azure-mock-key", "content-type": "application/json" };
    expect((await call("/azure/openai/v1/chat/completions", { model: "gpt-4o-mini", messages: USER }, bearer)).status).toBe(200);
    expect((await call(DEPLOYMENT_CHAT, { messages: USER }, bearer)).status).toBe(401);
  });
});

describe("the deployments form", () => {
  it("answers with the deployment's model version, Azure's verdicts and headers", async () => {
    const res = await call(DEPLOYMENT_CHAT, { messages: USER });
    const body = (await res.json()) as Json;
    expect(body.model).toBe("gpt-4.1-nano-2025-04-14");
    expect(body.prompt_filter_results).toEqual(fixtureJson("azure.chat.response.json").prompt_filter_results);
    expect(body.choices[0].content_filter_results).toEqual(fixtureJson("azure.chat.response.json").choices[0].content_filter_results);
    expect(Object.keys(body)).toEqual([...Object.keys(body)].sort());
    expect(res.headers.get("apim-request-id")).toMatch(/^req_mock_\d+$/);
    expect(res.headers.get("x-ms-region")).toBe("East US");
    expect(res.headers.get("x-ratelimit-remaining-tokens")).toBe("99000");
  });

  it("needs an api-version", async () => {
    const res = await call("/azure/openai/deployments/gpt-4.1-nano/chat/completions", { messages: USER });
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ error: { code: "404", message: "Resource not found" } });
  });

  it("answers an unknown deployment with the recorded DeploymentNotFound, consuming no script", async () => {
    const res = await call(
      "/azure/openai/deployments/nope/chat/completions?api-version=2024-10-21",
      { messages: USER },
      { ...KEY, ...script({ status: 500 }) },
    );
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual(fixtureJson("azure.error.404.deployment_not_found.json"));
  });

  it("serves embeddings", async () => {
    const res = await call("/azure/openai/deployments/text-embedding-3-small/embeddings?api-version=2024-10-21", {
      input: ["this is a test"],
    });
    const body = (await res.json()) as Json;
    expect(body).toMatchObject({ object: "list", model: "text-embedding-3-small", usage: { prompt_tokens: 4, total_tokens: 4 } });
    expect(body.data).toHaveLength(1);
  });
});

describe("the v1 form", () => {
  it("serves chat and embeddings with the deployment as model, and refuses an unknown one", async () => {
    const res = await call("/azure/openai/v1/chat/completions", { model: "gpt-4o", messages: USER });
    expect(((await res.json()) as Json).model).toBe("gpt-4o-2024-08-06");
    expect((await call("/azure/openai/v1/embeddings", { model: "text-embedding-3-small", input: "a" })).status).toBe(200);
    expect((await call("/azure/openai/v1/chat/completions", { model: "gpt-9", messages: USER })).status).toBe(404);
  });

  it("serves the Responses API", async () => {
    const body = (await (await call("/azure/openai/v1/responses", { model: "gpt-4.1", input: "Hi" })).json()) as Json;
    expect(body).toMatchObject({ object: "response", model: "gpt-4.1-2025-04-14" });
    const stream = await call("/azure/openai/v1/responses", { model: "gpt-4.1", input: "Hi", stream: true });
    expect((await readAll(stream)).text).toContain("event: response.completed");
  });
});

describe("streams", () => {
  it("open with the recorded announcement chunk, then chunks with verdicts, usage and [DONE]", async () => {
    const res = await call(DEPLOYMENT_CHAT, { messages: USER, stream: true, stream_options: { include_usage: true } });
    expect(res.headers.get("content-type")).toContain("text/event-stream");
    const { text } = await readAll(res);
    expect(sseData(text).at(-1)).toBe("[DONE]");
    const chunks = chunksOf(text);
    expect(chunks[0]).toEqual(JSON.parse(sseData(fixtureText("azure.chat.stream.sse"))[0]!));
    expect(chunks[1]!.choices[0].content_filter_results).toEqual({}); // the role chunk
    const content = chunks.filter((chunk) => chunk.choices[0]?.delta?.content);
    expect(content.length).toBeGreaterThan(0);
    for (const chunk of content) expect(chunk.choices[0].content_filter_results.hate).toEqual({ filtered: false, severity: "safe" });
    expect(chunks.at(-1)).toMatchObject({ choices: [], usage: { prompt_tokens: expect.any(Number) } });
    expect(chunks.at(-2)!.choices[0].finish_reason).toBe("stop");
  });

  it("honour scripted usage", async () => {
    const res = await call(
      DEPLOYMENT_CHAT,
      { messages: USER, stream: true, stream_options: { include_usage: true } },
      { ...KEY, ...script({ usage: { prompt_tokens: 7, completion_tokens: 3 } }) },
    );
    expect(chunksOf((await readAll(res)).text).at(-1)!.usage).toMatchObject({ prompt_tokens: 7, completion_tokens: 3, total_tokens: 10 });
  });
});

describe("content filter", () => {
  it("refuses a prompt with the recorded 400 when scripted", async () => {
    const res = await call(DEPLOYMENT_CHAT, { messages: USER }, { ...KEY, ...script({ errorFixture: "azure.error.400.content_filter" }) });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual(fixtureJson("azure.error.400.content_filter.json"));
  });

  it("cuts a stream with finish_reason content_filter (fault content-filter-mid-stream)", async () => {
    const res = await call(
      DEPLOYMENT_CHAT,
      { messages: USER, stream: true },
      { ...KEY, ...script({ fault: "content-filter-mid-stream" }) },
    );
    const { text } = await readAll(res);
    const chunks = chunksOf(text);
    const last = chunks.at(-1)!.choices[0];
    expect(last).toMatchObject({ finish_reason: "content_filter", delta: {} });
    expect(last.content_filter_results.sexual).toEqual({ filtered: true, severity: "medium" });
    expect(chunks.filter((chunk) => chunk.choices[0]?.finish_reason)).toHaveLength(1);
    expect(sseData(text).at(-1)).toBe("[DONE]");
  });

  it("cuts a whole answer the same way", async () => {
    const body = (await (
      await call(DEPLOYMENT_CHAT, { messages: USER }, { ...KEY, ...script({ fault: "content-filter-mid-stream" }) })
    ).json()) as Json;
    expect(body.choices[0].finish_reason).toBe("content_filter");
    expect(body.choices[0].content_filter_results.sexual.filtered).toBe(true);
  });
});

describe("scripted errors", () => {
  it("a 429 in Azure's envelope with Retry-After", async () => {
    const res = await call(DEPLOYMENT_CHAT, { messages: USER }, { ...KEY, ...script({ status: 429 }) });
    expect(res.status).toBe(429);
    expect(res.headers.get("retry-after")).toBe("1");
    expect(res.headers.get("retry-after-ms")).toBe("1000");
    expect(((await res.json()) as Json).error.code).toBe("429");
  });

  it("the recorded 429 and a 500 by status", async () => {
    const recorded = await call(DEPLOYMENT_CHAT, { messages: USER }, { ...KEY, ...script({ errorFixture: "azure.error.429.rate_limit" }) });
    expect(await recorded.json()).toEqual(fixtureJson("azure.error.429.rate_limit.json"));
    const failed = await call(DEPLOYMENT_CHAT, { messages: USER }, { ...KEY, ...script({ status: 500 }) });
    expect(failed.status).toBe(500);
    expect(((await failed.json()) as Json).error.code).toBe("500");
  });

  it("a fault mid-stream as on the OpenAI persona", async () => {
    const res = await call(DEPLOYMENT_CHAT, { messages: USER, stream: true }, { ...KEY, ...script({ fault: "error-event-mid-stream" }) });
    const { text } = await readAll(res);
    expect(JSON.parse(sseData(text).at(-1)!).error).toBeDefined();
  });
});
