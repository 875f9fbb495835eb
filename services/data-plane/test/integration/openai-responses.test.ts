// The OpenAI Responses API (POST /v1/responses) through both planes, with the
// official `openai` client, unmodified: create, stream, structured output and
// a function-tool round trip on each translated path of the mock (Anthropic,
// Gemini, OpenRouter), usage.cost equal to the ledger debit each time; and the
// 400s and 404s for what needs stored responses. A path that speaks the
// Responses API natively is one more row.
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { costToNano, marker, startStack, type GatewayStack, type TestProject } from "../harness/gateway-stack";
import { accessPath, catalogueOf, chatModel, price } from "../support/catalogue-file";

interface Row {
  path: string;
  /** The catalogue model whose only access path goes through this provider. */
  model: string;
  /** How the mock's request log names the persona that must have answered. */
  persona: string;
}

const ROWS: Row[] = [
  { path: "openai (native pass-through)", model: "openai/gpt-4.1-mini", persona: "openai" },
  { path: "anthropic (translated)", model: "anthropic/claude-sonnet-4", persona: "anthropic" },
  { path: "gemini (translated)", model: "google/gemini-2.5-flash", persona: "gemini" },
  { path: "openrouter (translated)", model: "meta-llama/llama-4-maverick", persona: "openrouter" },
];

const CATALOGUE = catalogueOf([
  chatModel("openai/gpt-4.1-mini", [accessPath("openai", "gpt-4.1-mini", "OPENAI_API_KEY", price("0.40", "1.60"))]),
  chatModel("anthropic/claude-sonnet-4", [accessPath("anthropic", "claude-sonnet-4-20250514", "ANTHROPIC_API_KEY", price("3", "15"))]),
  chatModel("google/gemini-2.5-flash", [accessPath("google", "gemini-2.5-flash", "GOOGLE_API_KEY", price("0.30", "2.50"))]),
  chatModel("meta-llama/llama-4-maverick", [
    accessPath("openrouter", "meta-llama/llama-4-maverick", "OPENROUTER_API_KEY", price("0.15", "0.60")),
  ]),
]);

const WEATHER_TOOL = {
  type: "function" as const,
  name: "get_weather",
  description: "Weather in a city",
  parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"], additionalProperties: false },
  strict: true,
};

type Usage = { input_tokens: number; output_tokens: number; total_tokens: number; cost: number };
const costOf = (response: { usage?: unknown }) => (response.usage as Usage).cost;

describe("the Responses API with the official openai client", () => {
  let stack: GatewayStack;
  let project: TestProject;
  let client: OpenAI;

  beforeAll(async () => {
    stack = await startStack({ backend: "postgresql", mockAsProviders: ["openrouter", "anthropic", "google"] });
    await stack.loadCatalogue(CATALOGUE);
    project = await stack.createProject({ balanceUsd: "20.00" });
    client = new OpenAI({ apiKey: project.key, baseURL: `${stack.url}/v1`, maxRetries: 0 });
  });

  afterAll(async () => {
    await stack?.stop();
  });

  /** The ledger debits (positive nano-USD) written under a request id. */
  async function debits(requestId: string | null): Promise<bigint[]> {
    expect(requestId).toBeTruthy();
    return (await stack.ledger(project.projectId))
      .filter((entry) => entry.request_id === requestId)
      .map((entry) => -BigInt(entry.amount.nano));
  }

  /** Runs `call`, returning its result and the debits it added (for the stream helper, which hides the response headers). */
  async function withNewDebits<T>(call: () => Promise<T>): Promise<{ result: T; added: bigint[] }> {
    const before = new Set((await stack.ledger(project.projectId)).map((entry) => entry.request_id));
    const result = await call();
    const added = (await stack.ledger(project.projectId))
      .filter((entry) => !before.has(entry.request_id))
      .map((entry) => -BigInt(entry.amount.nano));
    return { result, added };
  }

  async function personasFor(tag: string): Promise<string[]> {
    return (await stack.mockRequestsWith(tag)).map((request) => String((request as { persona?: string }).persona));
  }

  describe.each(ROWS)("$path", (row) => {
    it("responses.create: a response with output_text, usage.cost on the ledger, answered by its own persona", async () => {
      const tag = marker();
      const { data, response } = await client.responses
        .create({ model: row.model, input: `Tell me about Paris ${tag}`, instructions: "Be brief." })
        .withResponse();
      expect(data.object).toBe("response");
      expect(data.id).toMatch(/^resp_/);
      expect(data).toMatchObject({ status: "completed", incomplete_details: null });
      expect(data.output_text.length).toBeGreaterThan(0);
      expect(data.usage!.input_tokens).toBeGreaterThan(0);
      expect(data.usage!.total_tokens).toBe(data.usage!.input_tokens + data.usage!.output_tokens);
      expect(response.headers.get("x-service-model")).toBe(row.model);
      expect(await debits(response.headers.get("x-request-id"))).toEqual([costToNano(costOf(data))]);
      expect(await personasFor(tag)).toEqual([row.persona]);
    });

    it("responses.create with stream: true: the event sequence, numbered, ending with usage.cost on the ledger", async () => {
      const tag = marker();
      const { data: stream, response } = await client.responses
        .create({ model: row.model, input: `Tell me about Paris ${tag}`, stream: true })
        .withResponse();
      const types: string[] = [];
      const numbers: number[] = [];
      let text = "";
      let final: OpenAI.Responses.Response | undefined;
      for await (const event of stream) {
        types.push(event.type);
        numbers.push(event.sequence_number);
        if (event.type === "response.output_text.delta") text += event.delta;
        if (event.type === "response.completed" || event.type === "response.incomplete") final = event.response;
      }
      expect(numbers).toEqual(numbers.map((_, index) => index));
      expect(types.slice(0, 4)).toEqual([
        "response.created",
        "response.in_progress",
        "response.output_item.added",
        "response.content_part.added",
      ]);
      expect(types.at(-1)).toBe("response.completed");
      expect(text.length).toBeGreaterThan(0);
      expect(final!.output_text ?? (final!.output[0] as { content: { text: string }[] }).content[0]!.text).toBe(text);
      expect(await debits(response.headers.get("x-request-id"))).toEqual([costToNano(costOf(final!))]);
      expect(await personasFor(tag)).toEqual([row.persona]);
    });

    it("responses.stream: text deltas, and a final response whose usage.cost is on the ledger", async () => {
      const tag = marker();
      const { result, added } = await withNewDebits(async () => {
        const stream = client.responses.stream({ model: row.model, input: `Tell me about Paris ${tag}` });
        let text = "";
        stream.on("response.output_text.delta", (event) => {
          text += event.delta;
        });
        const final = await stream.finalResponse();
        return { text, final };
      });
      expect(result.text.length).toBeGreaterThan(0);
      expect(result.final.output_text).toBe(result.text);
      expect(added).toEqual([costToNano(costOf(result.final))]);
    });

    it("structured output: text.format json_schema gives output_text that parses as JSON", async () => {
      const { data, response } = await client.responses
        .create({
          model: row.model,
          input: [{ role: "user", content: [{ type: "input_text", text: `Name a city ${marker()}` }] }],
          text: {
            format: {
              type: "json_schema",
              name: "city",
              strict: true,
              schema: { type: "object", properties: { name: { type: "string" } }, required: ["name"], additionalProperties: false },
            },
          },
        })
        .withResponse();
      expect(typeof JSON.parse(data.output_text)).toBe("object");
      expect(await debits(response.headers.get("x-request-id"))).toEqual([costToNano(costOf(data))]);
    });

    it("a function-tool round trip: function_call, then function_call_output sent back, then a text answer", async () => {
      const tag = marker();
      const question = { role: "user" as const, content: `What is the weather in Paris? ${tag}` };
      const { data: first, response: firstHttp } = await client.responses
        .create({ model: row.model, input: [question], tools: [WEATHER_TOOL], parallel_tool_calls: false })
        .withResponse();
      const calls = first.output.filter((item) => item.type === "function_call");
      expect(calls.length).toBeGreaterThanOrEqual(1);
      const call = calls[0]!;
      // The mock replays recorded calls: the name is the recording's, not necessarily the tool offered.
      expect(call).toMatchObject({ type: "function_call", status: "completed" });
      expect(call.name.length).toBeGreaterThan(0);
      expect(call.call_id.length).toBeGreaterThan(0);
      expect(typeof JSON.parse(call.arguments)).toBe("object");
      expect(await debits(firstHttp.headers.get("x-request-id"))).toEqual([costToNano(costOf(first))]);

      // The client sends the whole conversation back (the gateway stores nothing), the model's output items included.
      const { data: second, response: secondHttp } = await client.responses
        .create({
          model: row.model,
          input: [
            question,
            ...first.output,
            ...calls.map((one) => ({ type: "function_call_output" as const, call_id: one.call_id, output: '{"temperature_c":21}' })),
          ] as OpenAI.Responses.ResponseInputItem[],
        })
        .withResponse();
      expect(second.output.some((item) => item.type === "function_call")).toBe(false);
      expect(second.output_text.length).toBeGreaterThan(0);
      expect(await debits(secondHttp.headers.get("x-request-id"))).toEqual([costToNano(costOf(second))]);
      const toolResult = (await stack.mockRequestsWith(tag)).at(-1)!;
      expect(JSON.stringify(toolResult.body)).toContain("temperature_c");
    });

    it("streams a function call as an item with argument deltas", async () => {
      const { result, added } = await withNewDebits(async () => {
        const stream = client.responses.stream({
          model: row.model,
          input: `What is the weather in Paris? ${marker()}`,
          tools: [WEATHER_TOOL],
          parallel_tool_calls: false,
        });
        let argumentsText = "";
        stream.on("response.function_call_arguments.delta", (event) => {
          argumentsText += event.delta;
        });
        const final = await stream.finalResponse();
        return { argumentsText, final };
      });
      const call = result.final.output.find((item) => item.type === "function_call");
      expect(call).toMatchObject({ type: "function_call", arguments: result.argumentsText });
      expect(typeof JSON.parse(result.argumentsText)).toBe("object");
      expect(added).toEqual([costToNano(costOf(result.final))]);
    });
  });

  describe("cached tokens, end to end", () => {
    // Each persona writes the scripted figures in its vendor's own meaning: OpenAI's input_tokens include
    // the cached ones, Anthropic's input_tokens exclude them (cache_read_input_tokens come on top).
    const usage = { prompt_tokens: 1_200, completion_tokens: 40, cached_tokens: 1_024 };
    it.each<[string, string, number]>([
      ["the native OpenAI path", "openai/gpt-4.1-mini", 1_200],
      ["a translated path (Anthropic)", "anthropic/claude-sonnet-4", 1_200 + 1_024],
    ])("reports cached_tokens on %s, input_tokens the whole input, the debit equal to usage.cost", async (_path, model, input) => {
      for (const stream of [false, true]) {
        const tag = marker();
        await stack.mockScript({ match: tag, times: 1, usage });
        const { result, added } = await withNewDebits(async () => {
          if (!stream) return client.responses.create({ model, input: `Tell me about Paris ${tag}` });
          return client.responses.stream({ model, input: `Tell me about Paris ${tag}` }).finalResponse();
        });
        expect(result.usage).toMatchObject({ input_tokens: input, input_tokens_details: { cached_tokens: 1_024 }, output_tokens: 40 });
        expect(result.usage!.total_tokens).toBe(input + 40);
        expect(added).toEqual([costToNano(costOf(result))]);
      }
    });
  });

  it("answers a length finish as an incomplete response, reason max_output_tokens", async () => {
    // The mock's recorded plain Gemini answer (not streamed) stopped at its token limit.
    const data = await client.responses.create({ model: "google/gemini-2.5-flash", input: `Tell me about Paris ${marker()}` });
    expect(data).toMatchObject({ status: "incomplete", incomplete_details: { reason: "max_output_tokens" } });
    expect(data.output_text.length).toBeGreaterThan(0);
  });

  describe("what needs stored responses", () => {
    const storage = "The gateway stores no responses or conversations: send the full input with every request.";

    it.each<[string, Record<string, unknown>, string]>([
      ["previous_response_id", { previous_response_id: "resp_123" }, `previous_response_id is not supported. ${storage}`],
      ["conversation", { conversation: "conv_123" }, `conversation is not supported. ${storage}`],
      ["background", { background: true }, "background is not supported: the gateway stores no responses to poll. Stream instead."],
    ])("refuses %s with a 400 in OpenAI's shape", async (_case, extra, message) => {
      const error = (await client.responses
        .create({ model: "anthropic/claude-sonnet-4", input: "hi", ...extra })
        .catch((caught: unknown) => caught)) as InstanceType<typeof OpenAI.APIError>;
      expect(error).toBeInstanceOf(OpenAI.BadRequestError);
      expect(error.code).toBe("invalid_request");
      expect(error.type).toBe("invalid_request_error");
      expect(error.message).toContain(message);
    });

    it("accepts store: true and sends nothing upstream that asks to store", async () => {
      const tag = marker();
      const data = await client.responses.create({ model: "anthropic/claude-sonnet-4", input: `hi ${tag}`, store: true });
      expect((data as unknown as { store: boolean }).store).toBe(false);
      expect(JSON.stringify((await stack.mockRequestsWith(tag))[0]!.body)).not.toContain("store");
    });

    it.each<[string, (client: OpenAI) => Promise<unknown>]>([
      ["retrieve", (openai) => openai.responses.retrieve("resp_123")],
      ["delete", (openai) => openai.responses.delete("resp_123")],
      ["inputItems.list", (openai) => openai.responses.inputItems.list("resp_123")],
      ["cancel", (openai) => openai.responses.cancel("resp_123")],
    ])("answers responses.%s with a 404 saying nothing is stored", async (_case, call) => {
      const error = (await call(client).catch((caught: unknown) => caught)) as InstanceType<typeof OpenAI.APIError>;
      expect(error).toBeInstanceOf(OpenAI.NotFoundError);
      expect(error.code).toBe("not_found");
      expect(error.message).toContain('No response "resp_123": the gateway stores no responses');
    });

    it("needs a key for the stored-response routes too", async () => {
      const response = await fetch(`${stack.url}/v1/responses/resp_123`);
      expect(response.status).toBe(401);
    });

    it.each(["openai/gpt-4.1-mini", "anthropic/claude-sonnet-4"])(
      "refuses a hosted tool on every path (%s), the pass-through included, before anything goes upstream",
      async (model) => {
        const tag = marker();
        const error = (await client.responses
          .create({ model, input: `news today? ${tag}`, tools: [{ type: "web_search" }] })
          .catch((caught: unknown) => caught)) as InstanceType<typeof OpenAI.APIError>;
        expect(error).toBeInstanceOf(OpenAI.BadRequestError);
        expect(error.code).toBe("unsupported_input");
        expect(error.message).toContain("tools[0] is a web_search tool: the gateway serves function tools only");
        expect(await stack.mockRequestsWith(tag)).toEqual([]);
      },
    );
  });
});
