// The official `@anthropic-ai/sdk` client, unmodified, against the gateway's
// Anthropic Messages dialect: messages.create, messages.stream, a tool-use
// round trip and countTokens, on every kind of access path of the mock
// provider (Anthropic natively, OpenAI, Gemini and OpenRouter translated),
// each answer's usage.cost equal to its ledger debit; and the gateway's errors
// arriving as the SDK's own error classes.
import Anthropic, { APIError, AuthenticationError, BadRequestError, RateLimitError } from "@anthropic-ai/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { costToNano, marker, startStack, type GatewayStack, type TestProject } from "../harness/gateway-stack";

interface PathRow {
  path: string;
  /** A catalogue model whose first access path is this one. */
  model: string;
  persona: string;
  /** The stop_reason of the mock's recorded plain answer on this path, whole and streamed. */
  plainStop: string;
  streamStop: string;
}

const ROWS: PathRow[] = [
  { path: "anthropic (native)", model: "anthropic/claude-sonnet-4", persona: "anthropic", plainStop: "end_turn", streamStop: "end_turn" },
  { path: "openai", model: "openai/gpt-4.1-mini", persona: "openai", plainStop: "end_turn", streamStop: "end_turn" },
  // The recorded whole Gemini answer stopped at its max tokens.
  { path: "gemini", model: "google/gemini-2.5-flash", persona: "gemini", plainStop: "max_tokens", streamStop: "end_turn" },
  { path: "openrouter", model: "meta-llama/llama-4-maverick", persona: "openrouter", plainStop: "end_turn", streamStop: "end_turn" },
];

const price = (input: string, output: string) => ({ input_per_m: input, output_per_m: output, verified: true, source: "test" });
const accessPath = (provider: string, upstream: string, credentials: string, cost: ReturnType<typeof price>) => ({
  provider,
  upstream_model: upstream,
  credentials,
  price: cost,
});
const chatModel = (id: string, paths: unknown[]) => ({
  id,
  tiers: ["economy", "balanced", "quality"],
  purposes: ["chat"],
  owned_by: id.split("/")[0],
  created: 1_700_000_000,
  context_length: 200_000,
  max_output_tokens: 8_192,
  input_modalities: ["text", "image"],
  output_modalities: ["text"],
  capabilities: { tools: true, json_schema: true },
  paths,
});

const CATALOGUE = {
  version: 1,
  defaults: { embeddings: "openai/text-embedding-3-small" },
  models: [
    chatModel("anthropic/claude-sonnet-4", [accessPath("anthropic", "claude-sonnet-4-20250514", "ANTHROPIC_API_KEY", price("3", "15"))]),
    chatModel("openai/gpt-4.1-mini", [accessPath("openai", "gpt-4.1-mini", "OPENAI_API_KEY", price("0.40", "1.60"))]),
    chatModel("google/gemini-2.5-flash", [accessPath("google", "gemini-2.5-flash", "GOOGLE_API_KEY", price("0.30", "2.50"))]),
    chatModel("meta-llama/llama-4-maverick", [
      accessPath("openrouter", "meta-llama/llama-4-maverick", "OPENROUTER_API_KEY", price("0.15", "0.60")),
    ]),
    {
      id: "openai/text-embedding-3-small",
      owned_by: "openai",
      created: 1_700_000_000,
      context_length: 8_192,
      max_output_tokens: 0,
      input_modalities: ["text"],
      output_modalities: ["embeddings"],
      capabilities: { embeddings: true },
      paths: [accessPath("openai", "text-embedding-3-small", "OPENAI_API_KEY", price("0.02", "0"))],
    },
  ],
};

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
    stack = await startStack({ backend: "postgresql", mockAsProviders: ["openrouter", "anthropic", "google"] });
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
      const { data, response } = await client.messages
        .create({ model: row.model, max_tokens: 256, messages: [{ role: "user", content: `Tell me about Paris ${tag}` }] })
        .withResponse();
      expect(data.type).toBe("message");
      expect(data.id).toMatch(/^msg_/);
      expect(data.role).toBe("assistant");
      expect(data.content[0]!.type).toBe("text");
      expect((data.content[0] as Anthropic.TextBlock).text.length).toBeGreaterThan(0);
      expect(data.stop_reason).toBe(row.plainStop);
      expect(data.usage.input_tokens).toBeGreaterThan(0);
      expect(data.usage.output_tokens).toBeGreaterThan(0);
      expect(data.usage.cache_read_input_tokens).toBeTypeOf("number");
      expect(data.usage.cache_creation_input_tokens).toBeTypeOf("number");
      expect(costOf(data.usage)).toBeGreaterThan(0);
      expect(response.headers.get("x-service-model")).toBe(row.model);
      expect(await debits(response.headers.get("x-request-id"))).toEqual([costToNano(costOf(data.usage))]);
      expect(await personasFor(tag)).toEqual([row.persona]);
    });

    // The SDK's finalMessage() keeps only the usage fields it knows: `cost` is read from the message_delta event.
    it("messages.stream: events in Anthropic's order, finalMessage() with the usage, cost on the ledger", async () => {
      const tag = marker();
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
      expect(message.usage.input_tokens).toBeGreaterThan(0);
      expect(message.usage.output_tokens).toBeGreaterThan(0);
      expect(message.usage.cache_read_input_tokens).toBeTypeOf("number");
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

        // The mocks answer a request that declares tools with a tool call, so the follow-up carries none.
        const answered = await client.messages.create({
          model: row.model,
          max_tokens: 512,
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

    it("a body without max_tokens: BadRequestError (invalid_request_error)", async () => {
      const error = await client.messages
        .create({ model: "auto", messages: [{ role: "user", content: "hi" }] } as unknown as Anthropic.MessageCreateParamsNonStreaming)
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(BadRequestError);
      expect((error as APIError).error).toMatchObject({ error: { type: "invalid_request_error", message: "max_tokens: Field required." } });
    });
  });
});
