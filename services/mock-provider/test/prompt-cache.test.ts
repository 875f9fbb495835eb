// Prompt caching through HTTP: cache hits come from the traffic, per provider's rules, in each
// persona's own usage fields; accounts, the controls and the stats.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  type AwsCredentials,
  anthropicEvents,
  bedrockSignedHeaders,
  chat,
  fixtureJson,
  gemini,
  getJson,
  type Json,
  type Mock,
  messages,
  post,
  readAll,
  script,
  sseData,
  startMock,
  vertexAccessToken,
} from "./helpers";

let mock: Mock;
beforeAll(async () => {
  mock = await startMock({ promptCache: true });
});
afterAll(() => mock.close());
beforeEach(() => mock.app.mock.reset());

/** More than 4 KiB of text: more than 1024 tokens by the mock's estimate. */
const LONG = `You are a careful assistant. ${"Answer precisely and cite the policy section you rely on. ".repeat(90)}`;
/** A turn long enough (about 150 tokens) that each one moves the cached prefix by more than 128. */
const turn = (n: number) => `Question ${n}: ${"tell me more about the policy. ".repeat(20)}`;

async function json(res: Response): Promise<Json> {
  expect(res.status).toBe(200);
  return (await res.json()) as Json;
}

const stats = async () => (await getJson(mock, "/_mock/prompt-cache")).body;

describe("OpenAI chat: automatic caching", () => {
  /** The conversation after `turns` user turns (answers in between). */
  const conversation = (turns: number) => [
    { role: "system", content: LONG },
    ...Array.from({ length: turns }, (_, i) => [
      ...(i > 0 ? [{ role: "assistant", content: `Answer ${i}: ${"the policy says so. ".repeat(15)}` }] : []),
      { role: "user", content: turn(i + 1) },
    ]).flat(),
  ];
  const ask = async (turns: number, key = "sk-a") =>
    (await json(await chat(mock, { model: "gpt-4o-mini", messages: conversation(turns) }, { authorization: `Bearer ${key}` }))).usage;

  it("a growing conversation reads its previous turns from turn 2 on, in 128-token steps from 1024", async () => {
    let previous = await ask(1);
    expect(previous.prompt_tokens_details.cached_tokens).toBe(0);
    expect(previous.prompt_tokens).toBeGreaterThanOrEqual(Math.ceil(LONG.length / 4));
    for (let turns = 2; turns <= 5; turns++) {
      const usage = await ask(turns);
      const cached = usage.prompt_tokens_details.cached_tokens;
      expect(cached).toBeGreaterThanOrEqual(1024);
      expect((cached - 1024) % 128).toBe(0);
      // The whole previous prompt is a prefix of this one: all of it but the rounding is read.
      expect(cached).toBeLessThanOrEqual(previous.prompt_tokens);
      expect(cached).toBeGreaterThan(previous.prompt_tokens - 128);
      expect(usage.prompt_tokens).toBeGreaterThan(previous.prompt_tokens);
      expect(usage.total_tokens).toBe(usage.prompt_tokens + usage.completion_tokens);
      previous = usage;
    }
  });

  it("a short prompt never caches", async () => {
    for (let i = 0; i < 3; i++) {
      const usage = (await json(await chat(mock, { model: "gpt-4o-mini", messages: [{ role: "user", content: "Hi" }] }))).usage;
      expect(usage.prompt_tokens_details.cached_tokens).toBe(0);
      expect(usage.prompt_tokens).toBeLessThan(1024);
    }
  });

  it("another account does not see the first one's cache; keys mapped to one account share it", async () => {
    await ask(1, "sk-a");
    expect((await ask(1, "sk-b")).prompt_tokens_details.cached_tokens).toBe(0);
    expect((await ask(1, "sk-a")).prompt_tokens_details.cached_tokens).toBeGreaterThan(0);

    const mapped = await post(mock, "/_mock/prompt-cache/accounts", { "sk-team-1": "team", "sk-team-2": "team" });
    expect(await mapped.json()).toEqual({ ok: true, mapped: 2 });
    await ask(1, "sk-team-1");
    expect((await ask(1, "sk-team-2")).prompt_tokens_details.cached_tokens).toBeGreaterThanOrEqual(1024);
  });

  it("scripted usage wins (and is not counted); disabled, the usage is the recording's", async () => {
    await ask(1);
    const usage = { prompt_tokens: 7, completion_tokens: 3 };
    const scripted = await json(await chat(mock, { model: "gpt-4o-mini", messages: conversation(1) }, script({ usage })));
    expect(scripted.usage).toMatchObject({ prompt_tokens: 7, completion_tokens: 3, total_tokens: 10 });
    expect((await stats()).requests).toBe(1);

    expect(await (await post(mock, "/_mock/prompt-cache", { enabled: false })).json()).toEqual({ ok: true, enabled: false });
    const recorded = await json(await chat(mock, { model: "gpt-4o-mini", messages: conversation(1) }));
    expect(recorded.usage).toEqual(fixtureJson("openai.chat.response.json").usage);
    expect((await stats()).enabled).toBe(false);
  });

  it("the stream's usage chunk reports what the whole answer does in the same state", async () => {
    // Two accounts, the same traffic: turn 1, then turn 2 streamed by one, whole by the other.
    const body = { model: "gpt-4o-mini", messages: conversation(2) };
    await ask(1, "sk-stream");
    await ask(1, "sk-whole");
    const res = await chat(mock, { ...body, stream: true, stream_options: { include_usage: true } }, { authorization: "Bearer sk-stream" });
    const chunks = sseData((await readAll(res)).text)
      .filter((data) => data !== "[DONE]")
      .map((data) => JSON.parse(data) as Json);
    const streamed = chunks.at(-1)!.usage;
    const whole = (await json(await chat(mock, body, { authorization: "Bearer sk-whole" }))).usage;
    expect(streamed.prompt_tokens_details.cached_tokens).toBeGreaterThanOrEqual(1024);
    // The counters agree (the recorded details objects differ in shape between the two recordings).
    const counters = (usage: Json) => [
      usage.prompt_tokens,
      usage.prompt_tokens_details.cached_tokens,
      usage.completion_tokens,
      usage.total_tokens,
    ];
    expect(counters(streamed)).toEqual(counters(whole));
  });
});

describe("Anthropic messages: breakpoints", () => {
  const system = (ttl?: string) => [{ type: "text", text: LONG, cache_control: ttl ? { type: "ephemeral", ttl } : { type: "ephemeral" } }];
  const marked = (text: string) => [{ type: "text", text, cache_control: { type: "ephemeral" } }];
  const turn1 = (ttl?: string) => ({
    model: "claude-sonnet-4-5",
    max_tokens: 100,
    system: system(ttl),
    messages: [{ role: "user", content: marked(turn(1)) }],
  });
  const turn2 = {
    ...turn1(),
    messages: [
      { role: "user", content: turn(1) },
      { role: "assistant", content: "Answer 1." },
      { role: "user", content: marked(turn(2)) },
    ],
  };

  it("turn 1 writes up to the last breakpoint, turn 2 reads it and writes the new turn", async () => {
    const first = (await json(await messages(mock, turn1()))).usage;
    expect(first.cache_read_input_tokens).toBe(0);
    expect(first.cache_creation_input_tokens).toBeGreaterThan(1024);
    // input_tokens excludes reads and writes: nothing follows the last breakpoint.
    expect(first.input_tokens).toBe(0);

    const second = (await json(await messages(mock, turn2))).usage;
    expect(second.cache_read_input_tokens).toBe(first.cache_creation_input_tokens);
    expect(second.cache_creation_input_tokens).toBeGreaterThan(0);
    expect(second.cache_creation_input_tokens).toBeLessThan(first.cache_creation_input_tokens);
    expect(second.cache_creation).toEqual({ ephemeral_5m_input_tokens: second.cache_creation_input_tokens, ephemeral_1h_input_tokens: 0 });

    const stat = await stats();
    expect(stat).toMatchObject({ requests: 2, reads: 1, cachedTokens: second.cache_read_input_tokens });
    expect(stat.writeTokens).toBe(first.cache_creation_input_tokens + second.cache_creation_input_tokens);
    expect(stat.inputTokens).toBe(first.cache_creation_input_tokens + second.cache_read_input_tokens + second.cache_creation_input_tokens);
  });

  it("ttl 1h: the system prompt's write shows as a 1-hour write", async () => {
    const usage = (await json(await messages(mock, turn1("1h")))).usage;
    const { ephemeral_1h_input_tokens: hour, ephemeral_5m_input_tokens: fiveMinutes } = usage.cache_creation;
    expect(hour).toBeGreaterThan(1024);
    expect(fiveMinutes).toBeGreaterThan(0);
    expect(hour + fiveMinutes).toBe(usage.cache_creation_input_tokens);
  });

  it("no cache_control: no caching", async () => {
    const body = { model: "claude-sonnet-4-5", max_tokens: 100, system: LONG, messages: [{ role: "user", content: turn(1) }] };
    await messages(mock, body);
    const usage = (await json(await messages(mock, body))).usage;
    expect(usage).toMatchObject({ cache_read_input_tokens: 0, cache_creation_input_tokens: 0 });
    expect(usage.input_tokens).toBeGreaterThan(1024);
  });

  it("a stream's message_start reports what the whole answer does in the same state", async () => {
    // Two accounts, the same traffic: turn 1, then turn 2 streamed by one, whole by the other.
    await messages(mock, turn1(), { "x-api-key": "sk-ant-stream" });
    await messages(mock, turn1(), { "x-api-key": "sk-ant-whole" });
    const streamed = await messages(mock, { ...turn2, stream: true }, { "x-api-key": "sk-ant-stream" });
    const events = anthropicEvents((await readAll(streamed)).text);
    const start = (JSON.parse(events.find((event) => event.event === "message_start")!.data) as Json).message.usage;
    const whole = (await json(await messages(mock, turn2, { "x-api-key": "sk-ant-whole" }))).usage;
    expect(start.cache_read_input_tokens).toBeGreaterThan(1024);
    expect(start.cache_creation_input_tokens).toBeGreaterThan(0);
    for (const key of ["input_tokens", "cache_read_input_tokens", "cache_creation_input_tokens"]) expect(start[key]).toBe(whole[key]);
    const delta = (JSON.parse(events.find((event) => event.event === "message_delta")!.data) as Json).usage;
    expect(delta.output_tokens).toBe(whole.output_tokens);
  });
});

describe("Gemini generateContent: implicit caching", () => {
  const body = { systemInstruction: { parts: [{ text: LONG }] }, contents: [{ role: "user", parts: [{ text: turn(1) }] }] };

  it("reports cachedContentTokenCount (inside promptTokenCount) on the repeat only", async () => {
    const first = (await json(await gemini(mock, "gemini-2.5-flash:generateContent", body))).usageMetadata;
    expect(first.cachedContentTokenCount).toBeUndefined();
    const again = (await json(await gemini(mock, "gemini-2.5-flash:generateContent", body))).usageMetadata;
    expect(again.cachedContentTokenCount).toBe(first.promptTokenCount);
    expect(again.promptTokenCount).toBe(first.promptTokenCount);
    // Another model has its own cache.
    const other = (await json(await gemini(mock, "gemini-2.5-pro:generateContent", body))).usageMetadata;
    expect(other.cachedContentTokenCount).toBeUndefined();
  });
});

describe("the other personas", () => {
  const system = { role: "system", content: LONG };

  it("Responses: input_tokens_details.cached_tokens", async () => {
    const body = { model: "gpt-4o-mini", instructions: LONG, input: turn(1) };
    await post(mock, "/v1/responses", body);
    const usage = (await json(await post(mock, "/v1/responses", body))).usage;
    expect(usage.input_tokens_details.cached_tokens).toBeGreaterThanOrEqual(1024);
    expect(usage.input_tokens).toBeGreaterThanOrEqual(usage.input_tokens_details.cached_tokens);
  });

  it("Azure (per deployment) and OpenRouter: prompt_tokens_details.cached_tokens", async () => {
    const azure = (deployment: string) =>
      fetch(`${mock.url}/azure/openai/deployments/${deployment}/chat/completions?api-version=2024-10-21`, {
        method: "POST",
        headers: { "api-key": "azure-mock-key", "content-type": "application/json" },
        body: JSON.stringify({ messages: [system, { role: "user", content: "Hi" }] }),
      });
    await azure("gpt-4.1-nano");
    expect((await json(await azure("gpt-4.1-nano"))).usage.prompt_tokens_details.cached_tokens).toBeGreaterThanOrEqual(1024);
    expect((await json(await azure("gpt-4o"))).usage.prompt_tokens_details.cached_tokens).toBe(0);

    const openrouter = () => chat(mock, { model: "openai/gpt-4o-mini", messages: [system, { role: "user", content: "Hi" }] });
    await openrouter();
    expect((await json(await openrouter())).usage.prompt_tokens_details.cached_tokens).toBeGreaterThanOrEqual(1024);
  });

  it("Bedrock: InvokeModel Claude by cache_control, Converse by cachePoint, in Bedrock's fields", async () => {
    const headers = { authorization: "Bearer bedrock-api-key-mock", "content-type": "application/json" };
    const call = (operation: string, body: unknown) =>
      fetch(`${mock.url}/bedrock/model/${encodeURIComponent("anthropic.claude-sonnet-4-20250514-v1:0")}/${operation}`, {
        method: "POST",
        headers,
        body: JSON.stringify(body),
      });
    const invoke = {
      anthropic_version: "bedrock-2023-05-31",
      max_tokens: 50,
      system: [{ type: "text", text: LONG, cache_control: { type: "ephemeral" } }],
      messages: [{ role: "user", content: "Hi" }],
    };
    const written = await call("invoke", invoke);
    expect(written.headers.get("x-amzn-bedrock-cache-write-input-token-count")).toMatch(/^\d{4,}$/);
    const read = await call("invoke", invoke);
    expect(read.headers.get("x-amzn-bedrock-cache-read-input-token-count")).toBe(
      written.headers.get("x-amzn-bedrock-cache-write-input-token-count"),
    );
    expect((await json(read)).usage.input_tokens).toBeGreaterThan(0);

    const converse = {
      system: [{ text: LONG }, { cachePoint: { type: "default" } }],
      messages: [{ role: "user", content: [{ text: "Hi" }] }],
    };
    const first = (await json(await call("converse", converse))).usage;
    expect(first.cacheWriteInputTokens).toBeGreaterThan(1024);
    expect(first.cacheReadInputTokens).toBe(0);
    const second = (await json(await call("converse", converse))).usage;
    expect(second).toMatchObject({
      cacheReadInputTokens: first.cacheWriteInputTokens,
      cacheWriteInputTokens: 0,
      inputTokens: first.inputTokens,
    });
    expect(second.totalTokens).toBe(second.inputTokens + second.outputTokens + second.cacheReadInputTokens);
  });

  it("Vertex: Gemini's implicit cache and Claude's breakpoints", async () => {
    const token = await vertexAccessToken(mock);
    const call = (path: string, body: unknown) =>
      fetch(`${mock.url}/vertex/v1/projects/p1/locations/us-east5/publishers/${path}`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
    const geminiBody = { systemInstruction: { parts: [{ text: LONG }] }, contents: [{ role: "user", parts: [{ text: "Hi" }] }] };
    await call("google/models/gemini-2.5-flash:generateContent", geminiBody);
    const cached = (await json(await call("google/models/gemini-2.5-flash:generateContent", geminiBody))).usageMetadata;
    expect(cached.cachedContentTokenCount).toBeGreaterThanOrEqual(1024);

    const claude = {
      anthropic_version: "vertex-2023-10-16",
      max_tokens: 50,
      system: [{ type: "text", text: LONG, cache_control: { type: "ephemeral" } }],
      messages: [{ role: "user", content: "Hi" }],
    };
    const first = (await json(await call("anthropic/models/claude-sonnet-4-5:rawPredict", claude))).usage;
    const second = (await json(await call("anthropic/models/claude-sonnet-4-5:rawPredict", claude))).usage;
    expect(first.cache_creation_input_tokens).toBeGreaterThan(1024);
    expect(second).toMatchObject({ cache_read_input_tokens: first.cache_creation_input_tokens, cache_creation_input_tokens: 0 });
  });

  it("credentials that rotate keep their account: Azure's Entra tokens, Bedrock's temporary credentials", async () => {
    const body = JSON.stringify({ model: "gpt-4.1-nano", messages: [system, { role: "user", content: "Hi" }] });
    const entraToken = async () =>
      (
        (await (
          await fetch(`${mock.url}/azure/identity/token?api-version=2019-08-01&resource=https%3A%2F%2Fcognitiveservices.azure.com`, {
            headers: { "x-identity-header": "azure-mock-identity-header" },
          })
        ).json()) as Json
      ).access_token as string;
    const azure = async (token: string) =>
      (
        await json(
          await fetch(`${mock.url}/azure/openai/v1/chat/completions`, {
            method: "POST",
            headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
            body,
          }),
        )
      ).usage.prompt_tokens_details.cached_tokens;
    const [first, second] = [await entraToken(), await entraToken()];
    expect(first).not.toBe(second);
    expect(await azure(first)).toBe(0);
    expect(await azure(second)).toBeGreaterThanOrEqual(1024);

    const path = `/bedrock/model/${encodeURIComponent("anthropic.claude-sonnet-4-20250514-v1:0")}/converse`;
    const converse = JSON.stringify({
      system: [{ text: LONG }, { cachePoint: { type: "default" } }],
      messages: [{ role: "user", content: [{ text: "Hi" }] }],
    });
    const signed = async (credentials: AwsCredentials) => {
      const headers = await bedrockSignedHeaders(mock, path, converse, credentials);
      return (await json(await fetch(mock.url + path, { method: "POST", headers, body: converse }))).usage;
    };
    const written = await signed({ accessKeyId: "AKIDMOCKBEDROCK", secretAccessKey: "mock-bedrock-secret-key" });
    const issued = (await getJson(mock, "/bedrock/credentials")).body;
    const read = await signed({ accessKeyId: issued.AccessKeyId, secretAccessKey: issued.SecretAccessKey, sessionToken: issued.Token });
    expect(read.cacheReadInputTokens).toBe(written.cacheWriteInputTokens);
    expect(JSON.stringify(await stats())).not.toContain("AKIDMOCKBEDROCK");
  });

  it("embeddings and count_tokens are not model calls: recorded or estimated as before, not counted", async () => {
    await post(mock, "/v1/embeddings", { model: "text-embedding-3-small", input: LONG });
    await messages(mock, { model: "claude-sonnet-4-5", messages: [{ role: "user", content: LONG }] });
    const counted = await fetch(`${mock.url}/v1/messages/count_tokens`, {
      method: "POST",
      headers: { "x-api-key": "k", "anthropic-version": "2023-06-01", "content-type": "application/json" },
      body: JSON.stringify({ model: "claude-sonnet-4-5", messages: [{ role: "user", content: LONG }] }),
    });
    expect(counted.status).toBe(200);
    // The Messages call above lacks max_tokens: refused by the route, not counted either.
    expect((await stats()).requests).toBe(0);
  });
});

describe("controls and stats", () => {
  it("stats count per account and never show a credential; DELETE and reset clear them", async () => {
    const body = { model: "gpt-4o-mini", messages: [{ role: "system", content: LONG }] };
    await post(mock, "/_mock/prompt-cache/accounts", { "sk-live-secret-1": "prod" });
    await chat(mock, body, { authorization: "Bearer sk-live-secret-1" });
    await chat(mock, body, { authorization: "Bearer sk-live-secret-1" });
    await chat(mock, body, { authorization: "Bearer sk-live-secret-2" });
    const stat = await stats();
    expect(stat).toMatchObject({ enabled: true, requests: 3, reads: 1 });
    expect(stat.byAccount.prod).toMatchObject({ requests: 2, reads: 1 });
    const names = Object.keys(stat.byAccount);
    expect(names).toHaveLength(2);
    expect(names.find((name) => name !== "prod")).toMatch(/^sha256:[0-9a-f]{8}$/);
    expect(JSON.stringify(stat)).not.toContain("sk-live-secret");
    expect(JSON.stringify(mock.app.mock.requests().map((entry) => entry.script ?? null))).not.toContain("cached_tokens");

    expect(await (await fetch(`${mock.url}/_mock/prompt-cache`, { method: "DELETE" })).json()).toEqual({ ok: true });
    expect(await stats()).toMatchObject({ requests: 0, entries: 0, byAccount: {} });
    const afterClear = (await json(await chat(mock, body, { authorization: "Bearer sk-live-secret-1" }))).usage;
    expect(afterClear.prompt_tokens_details.cached_tokens).toBe(0);
    // The mapping survived DELETE; reset drops it, with the entries and counts.
    expect(Object.keys((await stats()).byAccount)).toEqual(["prod"]);
    await post(mock, "/_mock/reset", {});
    expect(await stats()).toMatchObject({ enabled: true, requests: 0, entries: 0 });
  });

  it("switches at runtime; reset restores the option; bad bodies are 400", async () => {
    const off = await startMock();
    try {
      const body = { model: "gpt-4o-mini", messages: [{ role: "system", content: LONG }] };
      expect((await getJson(off, "/_mock/prompt-cache")).body.enabled).toBe(false);
      expect((await post(off, "/_mock/prompt-cache", { enabled: "yes" })).status).toBe(400);
      expect((await post(off, "/_mock/prompt-cache/accounts", { k: 1 })).status).toBe(400);
      await post(off, "/_mock/prompt-cache", { enabled: true });
      await chat(off, body);
      expect((await json(await chat(off, body))).usage.prompt_tokens_details.cached_tokens).toBeGreaterThanOrEqual(1024);
      await post(off, "/_mock/reset", {});
      expect((await getJson(off, "/_mock/prompt-cache")).body).toMatchObject({ enabled: false, requests: 0 });
    } finally {
      await off.close();
    }
  });

  it("a call scripted to fail caches nothing", async () => {
    const body = { model: "gpt-4o-mini", messages: [{ role: "system", content: LONG }] };
    expect((await chat(mock, body, script({ status: 500 }))).status).toBe(500);
    expect((await json(await chat(mock, body))).usage.prompt_tokens_details.cached_tokens).toBe(0);
    expect((await stats()).requests).toBe(1);
  });
});
