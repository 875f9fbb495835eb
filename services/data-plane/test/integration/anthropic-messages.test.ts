// The official `@anthropic-ai/sdk` client, unmodified, against the gateway's
// Anthropic Messages dialect: messages.create, messages.stream, a tool-use
// round trip and countTokens, on every kind of access path of the mock
// provider (Anthropic natively, OpenAI, Gemini and OpenRouter translated),
// each answer's usage.cost equal to its ledger debit; and the gateway's errors
// arriving as the SDK's own error classes.
import Anthropic, { APIError, AuthenticationError, BadRequestError, InternalServerError, RateLimitError } from "@anthropic-ai/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { costToNano, marker, startStack, type GatewayStack, type TestProject } from "../harness/gateway-stack";
import { accessPath, catalogueOf, chatModel, price } from "../support/catalogue-file";

interface PathRow {
  path: string;
  /** A catalogue model whose first access path is this one. */
  model: string;
  persona: string;
  /** The stop_reason of the mock's recorded plain answer on this path, whole and streamed. */
  plainStop: string;
  streamStop: string;
  /** The answer's cache fields for the usage scripted below (USAGE): each vendor reports what it can. */
  cache: { input: number; read: number; creation: number };
}

/**
 * Scripted on every plain answer. Anthropic counts uncached input apart (input 60, reads 20, writes
 * 10); OpenAI counts reads inside prompt_tokens and reports no writes (input 60 - 20); OpenRouter
 * counts both inside (input 60 - 20 - 10); Gemini counts its cached content inside promptTokenCount
 * and has no writes (input 60 - 20).
 */
const USAGE = { prompt_tokens: 60, completion_tokens: 15, cached_tokens: 20, cache_creation_tokens: 10 };

const ROWS: PathRow[] = [
  {
    path: "anthropic (native)",
    model: "anthropic/claude-sonnet-4",
    persona: "anthropic",
    plainStop: "end_turn",
    streamStop: "end_turn",
    cache: { input: 60, read: 20, creation: 10 },
  },
  {
    path: "openai",
    model: "openai/gpt-4.1-mini",
    persona: "openai",
    plainStop: "end_turn",
    streamStop: "end_turn",
    cache: { input: 40, read: 20, creation: 0 },
  },
  // The recorded whole Gemini answer stopped at its max tokens.
  {
    path: "gemini",
    model: "google/gemini-2.5-flash",
    persona: "gemini",
    plainStop: "max_tokens",
    streamStop: "end_turn",
    cache: { input: 40, read: 20, creation: 0 },
  },
  {
    path: "openrouter",
    model: "meta-llama/llama-4-maverick",
    persona: "openrouter",
    plainStop: "end_turn",
    streamStop: "end_turn",
    cache: { input: 30, read: 20, creation: 10 },
  },
];

const CATALOGUE = catalogueOf([
  chatModel("anthropic/claude-sonnet-4", [accessPath("anthropic", "claude-sonnet-4-20250514", "ANTHROPIC_API_KEY", price("3", "15"))]),
  chatModel("openai/gpt-4.1-mini", [accessPath("openai", "gpt-4.1-mini", "OPENAI_API_KEY", price("0.40", "1.60"))]),
  chatModel("google/gemini-2.5-flash", [accessPath("google", "gemini-2.5-flash", "GOOGLE_API_KEY", price("0.30", "2.50"))]),
  chatModel("meta-llama/llama-4-maverick", [
    accessPath("openrouter", "meta-llama/llama-4-maverick", "OPENROUTER_API_KEY", price("0.15", "0.60")),
  ]),
]);

/** A small body limit, so the 413 case sends little. */
const BODY_LIMIT_BYTES = 64 * 1024;

const WEATHER_TOOL = {
  name: "get_weather",
  description: "Weather in a city",
  input_schema: { type: "object" as const, properties: { city: { type: "string" } }, required: ["city"] },
};

describe("the official @anthropic-ai/sdk client through the gateway", () => {
  let stack: GatewayStack;
  let project: TestProject;
  let client: Anthropic;

  beforeAll(async () => {
    stack = await startStack({
      backend: "postgresql",
      mockAsProviders: ["openrouter", "anthropic", "google"],
      dataPlaneEnv: { BODY_LIMIT_BYTES: String(BODY_LIMIT_BYTES) },
    });
    await stack.loadCatalogue(CATALOGUE);
    project = await stack.createProject({ balanceUsd: "20.00" });
    client = new Anthropic({ apiKey: project.key, baseURL: stack.url, maxRetries: 0 });
  });

  afterAll(async () => {
    await stack?.stop();
  });

  async function debits(requestId: string | null | undefined): Promise<bigint[]> {
    expect(requestId).toBeTruthy();
    return (await stack.ledger(project.projectId))
      .filter((entry) => entry.request_id === requestId)
      .map((entry) => -BigInt(entry.amount.nano));
  }

  const costOf = (usage: Anthropic.Usage) => (usage as unknown as { cost: number }).cost;

  async function personasFor(tag: string): Promise<string[]> {
    return (await stack.mockRequestsWith(tag)).map((request) => String((request as { persona?: string }).persona));
  }

  describe.each(ROWS)("$path", (row) => {
    it("messages.create: a message with text, usage with cache fields, cost on the ledger", async () => {
      const tag = marker();
      await stack.mockScript({ match: tag, usage: USAGE });
      const { data, response } = await client.messages
        .create({ model: row.model, max_tokens: 256, messages: [{ role: "user", content: `Tell me about Paris ${tag}` }] })
        .withResponse();
      expect(data.type).toBe("message");
      expect(data.id).toMatch(/^msg_/);
      expect(data.role).toBe("assistant");
      expect(data.content[0]!.type).toBe("text");
      expect((data.content[0] as Anthropic.TextBlock).text.length).toBeGreaterThan(0);
      expect(data.stop_reason).toBe(row.plainStop);
      expect(data.usage.input_tokens).toBe(row.cache.input);
      expect(data.usage.output_tokens).toBe(USAGE.completion_tokens);
      expect(data.usage.cache_read_input_tokens).toBe(row.cache.read);
      expect(data.usage.cache_creation_input_tokens).toBe(row.cache.creation);
      expect(costOf(data.usage)).toBeGreaterThan(0);
      expect(response.headers.get("x-service-model")).toBe(row.model);
      expect(await debits(response.headers.get("x-request-id"))).toEqual([costToNano(costOf(data.usage))]);
      expect(await personasFor(tag)).toEqual([row.persona]);
    });

    // The SDK's finalMessage() keeps only the usage fields it knows: `cost` is read from the message_delta event.
    it("messages.stream: events in Anthropic's order, finalMessage() with the usage, cost on the ledger", async () => {
      const tag = marker();
      await stack.mockScript({ match: tag, usage: USAGE });
      const stream = client.messages.stream({ model: row.model, max_tokens: 256, messages: [{ role: "user", content: `Paris ${tag}` }] });
      const events: string[] = [];
      let text = "";
      let cost: number | undefined;
      stream.on("streamEvent", (event) => {
        events.push(event.type);
        if (event.type === "message_delta") cost = costOf(event.usage as unknown as Anthropic.Usage);
      });
      stream.on("text", (delta) => {
        text += delta;
      });
      const message = await stream.finalMessage();
      const { response } = await stream.withResponse();
      expect(events[0]).toBe("message_start");
      expect(events).toContain("content_block_start");
      expect(events).toContain("content_block_delta");
      expect(events.slice(-2)).toEqual(["message_delta", "message_stop"]);
      expect(text.length).toBeGreaterThan(0);
      expect((message.content[0] as Anthropic.TextBlock).text).toBe(text);
      expect(message.stop_reason).toBe(row.streamStop);
      expect(message.usage.input_tokens).toBe(row.cache.input);
      expect(message.usage.output_tokens).toBe(USAGE.completion_tokens);
      expect(message.usage.cache_read_input_tokens).toBe(row.cache.read);
      expect(message.usage.cache_creation_input_tokens).toBe(row.cache.creation);
      expect(cost).toBeGreaterThan(0);
      expect(await debits(response.headers.get("x-request-id"))).toEqual([costToNano(cost!)]);
      expect(await personasFor(tag)).toEqual([row.persona]);
    });

    it.each([false, true])(
      "a tool-use round trip (streamed: %s): tool_use with parsed input, then text after the tool_result",
      async (streamed) => {
        const first: Anthropic.MessageCreateParamsNonStreaming = {
          model: row.model,
          max_tokens: 512,
          tools: [WEATHER_TOOL],
          tool_choice: { type: "auto", disable_parallel_tool_use: true },
          messages: [{ role: "user", content: `What is the weather in Paris? ${marker()}` }],
        };
        let cost: number | undefined;
        const { data: asked, response } = streamed
          ? await (async () => {
              const stream = client.messages.stream(first);
              stream.on("streamEvent", (event) => {
                if (event.type === "message_delta") cost = costOf(event.usage as unknown as Anthropic.Usage);
              });
              const message = await stream.finalMessage();
              return { data: message, response: (await stream.withResponse()).response };
            })()
          : await client.messages.create(first).withResponse();
        expect(asked.stop_reason).toBe("tool_use");
        const toolUse = asked.content.find((block): block is Anthropic.ToolUseBlock => block.type === "tool_use")!;
        expect(toolUse.name.length).toBeGreaterThan(0); // the mock answers with its recording's tool
        expect(toolUse.input).toBeTypeOf("object");
        expect(Object.keys(toolUse.input as object).length).toBeGreaterThan(0);
        expect(await debits(response.headers.get("x-request-id"))).toEqual([costToNano(streamed ? cost! : costOf(asked.usage))]);

        // The follow-up keeps its tools (Anthropic refuses tool_use/tool_result without them); every
        // persona answers in text when the last turn hands tool results back.
        const answered = await client.messages.create({
          model: row.model,
          max_tokens: 512,
          tools: [WEATHER_TOOL],
          messages: [
            ...first.messages,
            { role: "assistant", content: asked.content.filter((block) => block.type === "text" || block.type === "tool_use") },
            { role: "user", content: [{ type: "tool_result", tool_use_id: toolUse.id, content: "18 degrees, sunny" }] },
          ],
        });
        expect(answered.content.some((block) => block.type === "text")).toBe(true);
        expect(answered.stop_reason).not.toBe("tool_use");
      },
    );

    it("countTokens: forwarded to Anthropic, estimated elsewhere; not billed", async () => {
      const before = (await stack.ledger(project.projectId)).length;
      const tag = marker();
      const { data, response } = await client.messages
        .countTokens({ model: row.model, messages: [{ role: "user", content: `How many tokens is this? ${tag}` }] })
        .withResponse();
      expect(data.input_tokens).toBeGreaterThan(0);
      // Only the Anthropic path asks its upstream; the others are the gateway's own estimate.
      const asked = (await stack.mockRequestsWith(tag)).map((request) => request.path);
      expect(asked).toEqual(row.persona === "anthropic" ? ["/v1/messages/count_tokens"] : []);
      expect(response.headers.get("x-service-estimate")).toBe(row.persona === "anthropic" ? null : "true");
      expect((await stack.ledger(project.projectId)).length).toBe(before);
    });
  });

  describe("cache tokens end to end", () => {
    /** The call's one debit: it must equal usage.cost, and its recorded input tokens count cache reads and writes. */
    async function debitOf(
      requestId: string | null,
      cost: number,
    ): Promise<{ input: number | null | undefined; output: number | null | undefined }> {
      const entries = (await stack.ledger(project.projectId)).filter((entry) => entry.request_id === requestId);
      expect(entries.map((entry) => -BigInt(entry.amount.nano))).toEqual([costToNano(cost)]);
      return { input: entries[0]!.input_tokens, output: entries[0]!.output_tokens };
    }
    const ask = (model: string, tag: string) => ({
      model,
      max_tokens: 64,
      messages: [{ role: "user" as const, content: `Cached ${tag}` }],
    });

    it("native Anthropic, whole: cache reads and writes as scripted, recorded input = uncached + reads + writes", async () => {
      const tag = marker();
      await stack.mockScript({
        match: tag,
        usage: { prompt_tokens: 40, completion_tokens: 12, cached_tokens: 300, cache_creation_tokens: 50 },
      });
      const { data, response } = await client.messages.create(ask("anthropic/claude-sonnet-4", tag)).withResponse();
      expect(data.usage).toMatchObject({
        input_tokens: 40,
        cache_read_input_tokens: 300,
        cache_creation_input_tokens: 50,
        output_tokens: 12,
      });
      expect(await debitOf(response.headers.get("x-request-id"), costOf(data.usage))).toEqual({ input: 390, output: 12 });
    });

    it("native Anthropic, streamed: the final message_delta carries the same cache counts", async () => {
      const tag = marker();
      await stack.mockScript({
        match: tag,
        usage: { prompt_tokens: 40, completion_tokens: 12, cached_tokens: 300, cache_creation_tokens: 50 },
      });
      const stream = client.messages.stream(ask("anthropic/claude-sonnet-4", tag));
      let delta: Record<string, unknown> | undefined;
      stream.on("streamEvent", (event) => {
        if (event.type === "message_delta") delta = event.usage as unknown as Record<string, unknown>;
      });
      const message = await stream.finalMessage();
      const { response } = await stream.withResponse();
      expect(delta).toMatchObject({ cache_read_input_tokens: 300, cache_creation_input_tokens: 50, output_tokens: 12 });
      expect(message.usage).toMatchObject({ input_tokens: 40, cache_read_input_tokens: 300, cache_creation_input_tokens: 50 });
      expect(await debitOf(response.headers.get("x-request-id"), delta!.cost as number)).toEqual({ input: 390, output: 12 });
    });

    it.each([false, true])("translated OpenAI (streamed: %s): cached tokens are cache reads, input_tokens the rest", async (streamed) => {
      const tag = marker();
      await stack.mockScript({ match: tag, usage: { prompt_tokens: 500, completion_tokens: 20, cached_tokens: 200 } });
      let usage: Record<string, unknown>;
      let requestId: string | null;
      if (streamed) {
        const stream = client.messages.stream(ask("openai/gpt-4.1-mini", tag));
        stream.on("streamEvent", (event) => {
          if (event.type === "message_delta") usage = event.usage as unknown as Record<string, unknown>;
        });
        await stream.finalMessage();
        requestId = (await stream.withResponse()).response.headers.get("x-request-id");
      } else {
        const { data, response } = await client.messages.create(ask("openai/gpt-4.1-mini", tag)).withResponse();
        usage = data.usage as unknown as Record<string, unknown>;
        requestId = response.headers.get("x-request-id");
      }
      expect(usage!).toMatchObject({ input_tokens: 300, cache_read_input_tokens: 200, cache_creation_input_tokens: 0, output_tokens: 20 });
      expect(await debitOf(requestId!, usage!.cost as number)).toEqual({ input: 500, output: 20 });
    });
  });

  describe("countTokens refused as messages.create would be (issue 33, item 5)", () => {
    /** A count for the Anthropic path (forwarded with the operator's key) and for an estimated one. */
    const counts = (owner: TestProject, tag: string) =>
      ["anthropic/claude-sonnet-4", "openai/gpt-4.1-mini"].map((model) =>
        stack.post("/v1/messages/count_tokens", owner.key, { model, messages: [{ role: "user", content: `Count me ${tag}` }] }),
      );

    it("an empty balance: 402 billing_error, like the call; nothing sent upstream, nothing held", async () => {
      const broke = await stack.createProject();
      const tag = marker();
      const created = await stack.post("/v1/messages", broke.key, {
        model: "anthropic/claude-sonnet-4",
        max_tokens: 16,
        messages: [{ role: "user", content: `Count me ${tag}` }],
      });
      expect(created.status).toBe(402);
      for (const response of await Promise.all(counts(broke, tag))) {
        expect(response.status).toBe(402);
        expect(await response.json()).toMatchObject({ type: "error", error: { type: "billing_error", code: "insufficient_credits" } });
      }
      expect(await stack.mockRequestsWith(tag)).toEqual([]);
      expect(await stack.holds(broke.projectId, "refused")).toHaveLength(1); // the call's own refusal; the counts placed none
    });

    /** USD text for an amount of nano-USD, all nine decimals. */
    const usd = (nano: bigint) => `${nano / 1_000_000_000n}.${(nano % 1_000_000_000n).toString().padStart(9, "0")}`;

    /** A call of `key`'s that is answered, and what it debited. */
    async function spend(owner: TestProject, key: string): Promise<bigint> {
      const response = await stack.post("/v1/messages", key, {
        model: "openai/gpt-4.1-mini",
        max_tokens: 16,
        messages: [{ role: "user", content: marker() }],
      });
      expect(response.status).toBe(200);
      const entries = await stack.ledger(owner.projectId);
      return -BigInt(entries.find((entry) => entry.request_id === response.headers.get("x-request-id"))!.amount.nano);
    }

    it("the daily cap reached: 429 with Retry-After, like the call; nothing sent upstream", async () => {
      const capped = await stack.createProject({ balanceUsd: "1.00" });
      const spentToday = await spend(capped, capped.key);
      // The cap set to what was spent today: reached.
      expect((await stack.admin("PATCH", `/admin/projects/${capped.projectId}/limits`, { daily_cap_usd: usd(spentToday) })).status).toBe(
        200,
      );
      const tag = marker();
      const call = await stack.post("/v1/messages", capped.key, {
        model: "auto",
        max_tokens: 16,
        messages: [{ role: "user", content: tag }],
      });
      expect(call.status).toBe(429);
      for (const response of await Promise.all(counts(capped, tag))) {
        expect(response.status).toBe(429);
        expect(Number(response.headers.get("retry-after"))).toBeGreaterThan(0);
        expect(await response.json()).toMatchObject({ error: { type: "rate_limit_error", code: "spend_cap_exceeded" } });
      }
      expect(await stack.mockRequestsWith(tag)).toEqual([]);
    });

    it("a key whose budget is spent: 402 key_budget_exceeded, while the project's other keys still count", async () => {
      const owner = await stack.createProject({ balanceUsd: "1.00" });
      const spender = await stack.issueKey(owner.projectId, { name: "spender" });
      const spent = await spend(owner, spender.key);
      // Its budget set to what it has spent: nothing left (a limit set later starts from the ledger).
      expect((await stack.admin("PATCH", `/admin/keys/${spender.keyId}`, { budget_usd: usd(spent) })).status).toBe(200);
      const tag = marker();
      const call = await stack.post("/v1/messages", spender.key, {
        model: "auto",
        max_tokens: 16,
        messages: [{ role: "user", content: tag }],
      });
      expect(call.status).toBe(402);
      for (const response of await Promise.all(counts({ ...owner, key: spender.key }, tag))) {
        expect(response.status).toBe(402);
        expect(await response.json()).toMatchObject({ error: { code: "key_budget_exceeded" } });
      }
      expect(await stack.mockRequestsWith(tag)).toEqual([]);
      for (const response of await Promise.all(counts(owner, marker()))) expect(response.status).toBe(200);
    });

    it("the per-minute limit: counts take from it as calls do, and are refused past it", async () => {
      const limited = await stack.createProject({ balanceUsd: "1.00" });
      await stack.admin("PATCH", `/admin/projects/${limited.projectId}/limits`, { rpm_limit: 1 });
      const count = () =>
        stack.post("/v1/messages/count_tokens", limited.key, { model: "openai/gpt-4.1-mini", messages: [{ role: "user", content: "x" }] });
      // The limit reaches the data plane with the project-changed event: ask until it is enforced.
      let refused: Response | undefined;
      for (let attempt = 0; attempt < 20 && !refused; attempt++) {
        const response = await count();
        if (response.status === 429) refused = response;
      }
      expect(refused).toBeDefined();
      expect(await refused!.json()).toMatchObject({ error: { type: "rate_limit_error", code: "rate_limit_exceeded" } });
    });
  });

  describe("errors as the SDK's own classes", () => {
    it("a bad key: AuthenticationError (401, authentication_error)", async () => {
      const bad = new Anthropic({ apiKey: "sk-not-a-key", baseURL: stack.url, maxRetries: 0 });
      const error = await bad.messages
        .create({ model: "auto", max_tokens: 16, messages: [{ role: "user", content: "hi" }] })
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(AuthenticationError);
      expect((error as APIError).error).toMatchObject({ type: "error", error: { type: "authentication_error", code: "invalid_api_key" } });
    });

    it("an empty balance: APIError with status 402 (billing_error)", async () => {
      const broke = await stack.createProject();
      const poor = new Anthropic({ apiKey: broke.key, baseURL: stack.url, maxRetries: 0 });
      const error = await poor.messages
        .create({ model: "auto", max_tokens: 16, messages: [{ role: "user", content: "hi" }] })
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(APIError);
      expect((error as APIError).status).toBe(402);
      expect((error as APIError).error).toMatchObject({ error: { type: "billing_error", code: "insufficient_credits" } });
    });

    it("the per-minute limit: RateLimitError with Retry-After", async () => {
      const limited = await stack.createProject({ balanceUsd: "1.00" });
      await stack.admin("PATCH", `/admin/projects/${limited.projectId}/limits`, { rpm_limit: 1 });
      const limitedClient = new Anthropic({ apiKey: limited.key, baseURL: stack.url, maxRetries: 0 });
      const ask = () =>
        limitedClient.messages.create({ model: "openai/gpt-4.1-mini", max_tokens: 16, messages: [{ role: "user", content: marker() }] });
      // The limit reaches the data plane with the project-changed event: ask until it is enforced.
      let error: unknown;
      for (let attempt = 0; attempt < 20 && !error; attempt++)
        error = await ask().then(
          () => undefined,
          (caught: unknown) => caught,
        );
      expect(error).toBeInstanceOf(RateLimitError);
      expect(Number((error as RateLimitError).headers?.get("retry-after"))).toBeGreaterThanOrEqual(1);
      expect((error as APIError).error).toMatchObject({ error: { type: "rate_limit_error", code: "rate_limit_exceeded" } });
    });

    it("a body over BODY_LIMIT_BYTES: APIError with status 413 (request_too_large)", async () => {
      const error = await client.messages
        .create({ model: "openai/gpt-4.1-mini", max_tokens: 16, messages: [{ role: "user", content: "x".repeat(BODY_LIMIT_BYTES + 1) }] })
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(APIError);
      expect((error as APIError).status).toBe(413);
      expect((error as APIError).error).toMatchObject({ type: "error", error: { type: "request_too_large", code: "body_too_large" } });
    });

    it("an upstream overload on the only path: InternalServerError with status 529 (overloaded_error)", async () => {
      const tag = marker();
      // times: 0 fails every attempt, the engine's retries included.
      await stack.mockScript({ match: tag, times: 0, status: 529 });
      const error = await client.messages
        .create({ model: "anthropic/claude-sonnet-4", max_tokens: 16, messages: [{ role: "user", content: `Busy? ${tag}` }] })
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(InternalServerError);
      expect((error as APIError).status).toBe(529);
      expect((error as APIError).error).toMatchObject({ type: "error", error: { type: "overloaded_error" } });
      expect((await personasFor(tag)).every((persona) => persona === "anthropic")).toBe(true);
    });

    it("a server tool: BadRequestError saying the gateway serves client tools only, nothing sent upstream", async () => {
      const tag = marker();
      const error = await client.messages
        .create({
          model: "anthropic/claude-sonnet-4",
          max_tokens: 16,
          tools: [{ type: "web_search_20250305", name: "web_search" }],
          messages: [{ role: "user", content: `Search ${tag}` }],
        })
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(BadRequestError);
      expect((error as APIError).error).toMatchObject({ error: { type: "invalid_request_error", code: "unsupported_input" } });
      expect((error as BadRequestError).message).toContain("The gateway serves client tools only");
      expect(await stack.mockRequestsWith(tag)).toEqual([]);
    });

    it("a body without max_tokens: BadRequestError (invalid_request_error)", async () => {
      const error = await client.messages
        .create({ model: "auto", messages: [{ role: "user", content: "hi" }] } as unknown as Anthropic.MessageCreateParamsNonStreaming)
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(BadRequestError);
      expect((error as APIError).error).toMatchObject({ error: { type: "invalid_request_error", message: "max_tokens: Field required." } });
    });
  });
});
