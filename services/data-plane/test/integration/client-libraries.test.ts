// Two more client libraries, unmodified, against the gateway (the official
// `openai` client is in openai-client.test.ts): the Vercel AI SDK with its
// OpenAI provider on the Chat Completions API, and LangChain's ChatOpenAI and
// OpenAIEmbeddings. Each gets a chat completion, a stream, a tool call,
// embeddings and two errors; the tests assert what the caller sees through the
// library, and that the gateway's usage.cost is what the ledger debited.
import { createOpenAI } from "@ai-sdk/openai";
import { ChatOpenAI, OpenAIEmbeddings } from "@langchain/openai";
import { APICallError, embedMany, generateText, jsonSchema, streamText, tool } from "ai";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { costToNano, marker, startStack, type GatewayStack, type TestProject } from "../harness/gateway-stack";

interface RawUsage {
  prompt_tokens: number;
  completion_tokens: number;
  cost: number;
}

// `required` not readonly: the AI SDK's jsonSchema() takes @types/json-schema's JSONSchema7, whose arrays are mutable.
const WEATHER_PARAMETERS = { type: "object" as const, properties: { location: { type: "string" as const } }, required: ["location"] };

describe("client libraries through both planes", () => {
  let stack: GatewayStack;

  beforeAll(async () => {
    stack = await startStack({ backend: "postgresql" });
  });

  afterAll(async () => {
    await stack?.stop();
  });

  /** The ledger amounts written under this request id, in nano-USD. */
  async function debitsFor(project: TestProject, requestId: string | undefined): Promise<bigint[]> {
    expect(requestId).toBeDefined();
    return (await stack.ledger(project.projectId))
      .filter((entry) => entry.request_id === requestId)
      .map((entry) => BigInt(entry.amount.nano));
  }

  /** Runs `call` and returns what it returned and the ledger entries it added (for a library that hides the response headers). */
  async function withNewDebits<T>(project: TestProject, call: () => Promise<T>): Promise<{ result: T; debits: bigint[] }> {
    const before = new Set((await stack.ledger(project.projectId)).map((entry) => entry.request_id));
    const result = await call();
    const debits = (await stack.ledger(project.projectId))
      .filter((entry) => !before.has(entry.request_id))
      .map((entry) => BigInt(entry.amount.nano));
    return { result, debits };
  }

  /** The error message the gateway itself sends for a chat request to this model, to compare with what a library surfaces. */
  async function gatewayErrorMessage(key: string, model: string): Promise<string> {
    const response = await stack.post("/v1/chat/completions", key, { model, messages: [{ role: "user", content: "hi" }] });
    expect(response.status).toBeGreaterThanOrEqual(400);
    return ((await response.json()) as { error: { message: string } }).error.message;
  }

  // @ai-sdk/openai rather than @ai-sdk/openai-compatible: the gateway claims to be OpenAI's API, and
  // this is the AI SDK's own provider for it (strict response schemas, include_usage on every stream).
  // `.chat()` picks the Chat Completions API (the provider's default is the Responses API).
  describe("the Vercel AI SDK (ai + @ai-sdk/openai)", () => {
    let project: TestProject;
    let provider: ReturnType<typeof createOpenAI>;

    beforeAll(async () => {
      project = await stack.createProject({ balanceUsd: "2.00" });
      provider = createOpenAI({ apiKey: project.key, baseURL: `${stack.url}/v1` });
    });

    it("generates text; usage.cost is in the raw response body and matches the ledger", async () => {
      const result = await generateText({ model: provider.chat("auto"), prompt: `Say hello ${marker()}`, maxRetries: 0 });
      expect(result.text).toBe("Hello! How can I assist you today?");
      expect(result.finishReason).toBe("stop");
      // result.usage (even usage.raw) keeps only the fields the provider's OpenAI schema knows; the whole
      // usage, cost included, is in the raw body.
      const raw = (result.response.body as { usage: RawUsage }).usage;
      expect(result.usage.inputTokens).toBe(raw.prompt_tokens);
      expect(result.usage.outputTokens).toBe(raw.completion_tokens);
      expect(raw.cost).toBeGreaterThan(0);
      expect(await debitsFor(project, result.response.headers?.["x-request-id"])).toEqual([-costToNano(raw.cost)]);
    });

    it("streams text from deltas; the raw usage chunk carries usage.cost matching the ledger", async () => {
      const result = streamText({ model: provider.chat("auto:economy"), prompt: marker(), includeRawChunks: true, maxRetries: 0 });
      let text = "";
      let deltas = 0;
      let cost: number | undefined;
      for await (const part of result.fullStream) {
        if (part.type === "error") throw part.error;
        if (part.type === "text-delta") {
          text += part.text;
          deltas++;
        }
        // Raw chunks are the gateway's SSE events as parsed JSON; the last one holds the whole usage.
        if (part.type === "raw") cost = (part.rawValue as { usage?: RawUsage }).usage?.cost ?? cost;
      }
      expect(deltas).toBeGreaterThan(5);
      expect(text.length).toBeGreaterThan(20);
      expect(await result.text).toBe(text);
      expect(await result.finishReason).toBe("stop");
      const usage = await result.usage;
      expect(usage.inputTokens).toBeGreaterThan(0);
      expect(usage.outputTokens).toBeGreaterThan(0);
      expect(cost).toBeGreaterThan(0);
      const { headers } = await result.response;
      expect(await debitsFor(project, headers?.["x-request-id"])).toEqual([-costToNano(cost!)]);
    });

    it("returns a tool call with its parsed input", async () => {
      const result = await generateText({
        model: provider.chat("openai/gpt-4.1"),
        prompt: `What is the weather in Boston? ${marker()}`,
        tools: { get_current_weather: tool({ description: "The weather at a place", inputSchema: jsonSchema(WEATHER_PARAMETERS) }) },
        providerOptions: { openai: { parallelToolCalls: false } },
        maxRetries: 0,
      });
      expect(result.finishReason).toBe("tool-calls");
      expect(result.toolCalls).toHaveLength(1);
      expect(result.toolCalls[0]!.toolName).toBe("get_current_weather");
      expect(result.toolCalls[0]!.input).toEqual({ location: "Boston, MA" });
    });

    it("embeds several values in one call; usage.cost is in the raw response body and matches the ledger", async () => {
      const result = await embedMany({
        model: provider.embedding("openai/text-embedding-3-small"),
        values: ["first", "second"],
        maxRetries: 0,
      });
      expect(result.embeddings).toHaveLength(2);
      expect(result.embeddings[0]!.length).toBeGreaterThan(0);
      const response = result.responses![0]!;
      const raw = (response.body as { usage: RawUsage }).usage;
      expect(result.usage.tokens).toBe(raw.prompt_tokens);
      const cost = raw.cost;
      expect(cost).toBeGreaterThan(0);
      expect(await debitsFor(project, response.headers?.["x-request-id"])).toEqual([-costToNano(cost)]);
    });

    it("surfaces an unknown model as an APICallError (400) with the gateway's message and code", async () => {
      const error = await generateText({ model: provider.chat("gpt-17"), prompt: "hi", maxRetries: 0 }).catch((caught: unknown) => caught);
      expect(APICallError.isInstance(error)).toBe(true);
      const apiError = error as APICallError;
      expect(apiError.statusCode).toBe(400);
      expect(apiError.message).toBe(await gatewayErrorMessage(project.key, "gpt-17"));
      expect((apiError.data as { error: { code: string } }).error.code).toBe("model_unknown");
      expect(apiError.isRetryable).toBe(false);
    });

    it("surfaces an empty balance as an APICallError (402) with code insufficient_credits", async () => {
      const broke = await stack.createProject();
      const poor = createOpenAI({ apiKey: broke.key, baseURL: `${stack.url}/v1` });
      const error = await generateText({ model: poor.chat("auto"), prompt: "hi", maxRetries: 0 }).catch((caught: unknown) => caught);
      expect(APICallError.isInstance(error)).toBe(true);
      const apiError = error as APICallError;
      expect(apiError.statusCode).toBe(402);
      expect(apiError.message).toBe(await gatewayErrorMessage(broke.key, "auto"));
      expect((apiError.data as { error: { code: string } }).error.code).toBe("insufficient_credits");
    });
  });

  // LangChain hides the HTTP response (no headers, so no x-request-id): its ledger checks take the
  // entries a call added. The raw usage, cost included, is in the message's response_metadata.usage.
  describe("LangChain (@langchain/openai + @langchain/core)", () => {
    let project: TestProject;
    const chat = (model: string, key = project.key) =>
      new ChatOpenAI({ model, apiKey: key, configuration: { baseURL: `${stack.url}/v1` }, maxRetries: 0 });

    beforeAll(async () => {
      project = await stack.createProject({ balanceUsd: "2.00" });
    });

    it("invokes a chat model; response_metadata.usage carries usage.cost matching the ledger", async () => {
      const { result: message, debits } = await withNewDebits(project, () => chat("auto").invoke(`Say hello ${marker()}`));
      expect(message.text).toBe("Hello! How can I assist you today?");
      expect(message.response_metadata.finish_reason).toBe("stop");
      const raw = message.response_metadata.usage as RawUsage;
      expect(message.usage_metadata?.input_tokens).toBe(raw.prompt_tokens);
      expect(message.usage_metadata?.output_tokens).toBe(raw.completion_tokens);
      expect(raw.cost).toBeGreaterThan(0);
      expect(debits).toEqual([-costToNano(raw.cost)]);
    });

    it("streams message chunks; the last one carries usage_metadata and usage.cost matching the ledger", async () => {
      const { result, debits } = await withNewDebits(project, async () => {
        let text = "";
        let chunks = 0;
        let usage: { input_tokens: number; output_tokens: number } | undefined;
        let cost: number | undefined;
        for await (const chunk of await chat("auto:economy").stream(marker())) {
          chunks++;
          text += chunk.text;
          usage = chunk.usage_metadata ?? usage;
          cost = (chunk.response_metadata.usage as Partial<RawUsage> | undefined)?.cost ?? cost;
        }
        return { text, chunks, usage, cost };
      });
      expect(result.chunks).toBeGreaterThan(5);
      expect(result.text.length).toBeGreaterThan(20);
      expect(result.usage?.input_tokens).toBeGreaterThan(0);
      expect(result.usage?.output_tokens).toBeGreaterThan(0);
      expect(result.cost).toBeGreaterThan(0);
      expect(debits).toEqual([-costToNano(result.cost!)]);
    });

    it("returns a tool call with its parsed arguments", async () => {
      const model = chat("openai/gpt-4.1").bindTools(
        [
          {
            type: "function",
            function: { name: "get_current_weather", description: "The weather at a place", parameters: WEATHER_PARAMETERS },
          },
        ],
        { parallel_tool_calls: false },
      );
      const message = await model.invoke(`What is the weather in Boston? ${marker()}`);
      expect(message.tool_calls).toHaveLength(1);
      expect(message.tool_calls![0]).toMatchObject({ name: "get_current_weather", args: { location: "Boston, MA" } });
      expect(message.response_metadata.finish_reason).toBe("tool_calls");
    });

    it("embeds documents and a query; each call is one debit", async () => {
      const embeddings = new OpenAIEmbeddings({
        model: "openai/text-embedding-3-small",
        apiKey: project.key,
        configuration: { baseURL: `${stack.url}/v1` },
        maxRetries: 0,
      });
      const documents = await withNewDebits(project, () => embeddings.embedDocuments(["first", "second"]));
      expect(documents.result).toHaveLength(2);
      expect(documents.result[0]!.length).toBeGreaterThan(0);
      expect(documents.debits).toHaveLength(1);
      expect(documents.debits[0]).toBeLessThan(0n);
      const query = await withNewDebits(project, () => embeddings.embedQuery("third"));
      expect(query.result.length).toBeGreaterThan(0);
      expect(query.debits).toHaveLength(1);
    });

    // LangChain rethrows the openai client's error for these statuses: OpenAI.APIError with status, code and message.
    it("surfaces an unknown model as a 400 BadRequestError with the gateway's message and code", async () => {
      const error = (await chat("gpt-17")
        .invoke("hi")
        .catch((caught: unknown) => caught)) as InstanceType<typeof OpenAI.APIError>;
      expect(error).toBeInstanceOf(OpenAI.BadRequestError);
      expect(error.status).toBe(400);
      expect(error.code).toBe("model_unknown");
      expect(error.message).toContain(await gatewayErrorMessage(project.key, "gpt-17"));
    });

    it("surfaces an empty balance as a 402 APIError with code insufficient_credits", async () => {
      const broke = await stack.createProject();
      const error = (await chat("auto", broke.key)
        .invoke("hi")
        .catch((caught: unknown) => caught)) as InstanceType<typeof OpenAI.APIError>;
      expect(error).toBeInstanceOf(OpenAI.APIError);
      expect(error.status).toBe(402);
      expect(error.code).toBe("insufficient_credits");
      expect(error.message).toContain(await gatewayErrorMessage(broke.key, "auto"));
    });
  });
});
