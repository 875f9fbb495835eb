// The Vercel AI SDK, unmodified, on the gateway's other two dialects: its
// OpenAI provider's default model (the Responses API) and its Anthropic
// provider (the Messages API), each pointed at the gateway by `baseURL` as
// docs/dialects/ says. Each gets a whole answer, a stream and a tool call on a
// path that speaks the dialect and on one that translates it, and every call
// is debited once, by the usage.cost the gateway wrote into the raw body.
import { createAnthropic } from "@ai-sdk/anthropic";
import { createOpenAI } from "@ai-sdk/openai";
import { generateText, jsonSchema, streamText, tool } from "ai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { costToNano, type GatewayStack, marker, startStack, type TestProject } from "../harness/gateway-stack";

const ANY_INPUT = tool({ description: "A tool", inputSchema: jsonSchema<Record<string, unknown>>({ type: "object", properties: {} }) });
/** The mock answers a request with tools with its recording's own tool call: every recorded tool name is declared. */
const TOOLS = Object.fromEntries(
  ["get_weather", "get_current_weather", "test_tool", "beep", "print", "semantic_scholar_search", "calculator"].map((name) => [
    name,
    ANY_INPUT,
  ]),
);

/** A provider's model factory for one dialect. */
interface Row {
  name: string;
  model: string;
  provider(stack: GatewayStack, key: string): (model: string) => Parameters<typeof generateText>[0]["model"];
  /** The cost in the raw whole body the SDK received. */
  cost(body: unknown): number;
}

const responses = (stack: GatewayStack, key: string) => {
  const openai = createOpenAI({ baseURL: `${stack.url}/v1`, apiKey: key });
  return (model: string) => openai.responses(model);
};
const messages = (stack: GatewayStack, key: string) => {
  const anthropic = createAnthropic({ baseURL: `${stack.url}/v1`, apiKey: key });
  return (model: string) => anthropic(model);
};
const usageCost = (body: unknown) => (body as { usage: { cost: number } }).usage.cost;

const ROWS: Row[] = [
  { name: "openai.responses, OpenAI path (native)", model: "openai/gpt-4.1-mini", provider: responses, cost: usageCost },
  { name: "openai.responses, Anthropic path (translated)", model: "anthropic/claude-sonnet-4", provider: responses, cost: usageCost },
  { name: "anthropic, Anthropic path (native)", model: "anthropic/claude-sonnet-4", provider: messages, cost: usageCost },
  { name: "anthropic, Gemini path (translated)", model: "google/gemini-2.5-flash", provider: messages, cost: usageCost },
];

describe("the Vercel AI SDK on the Responses and Messages dialects", () => {
  let stack: GatewayStack;
  let project: TestProject;

  beforeAll(async () => {
    stack = await startStack({ backend: "pglite", mockAsProviders: ["anthropic", "google"] });
    project = await stack.createProject({ balanceUsd: "5.00" });
  });

  afterAll(async () => {
    await stack?.stop();
  });

  /** The debits added while `call` ran. */
  async function newDebits<T>(call: () => Promise<T>): Promise<{ result: T; debits: bigint[] }> {
    const before = new Set((await stack.ledger(project.projectId)).map((entry) => entry.request_id));
    const result = await call();
    const debits = (await stack.ledger(project.projectId))
      .filter((entry) => !before.has(entry.request_id) && entry.kind === "debit")
      .map((entry) => -BigInt(entry.amount.nano));
    return { result, debits };
  }

  describe.each(ROWS.map((row) => [row.name, row] as const))("%s", (_name, row) => {
    const model = () => row.provider(stack, project.key)(row.model);

    it("generateText: text, and the cost in the body is the one debit", async () => {
      const { result, debits } = await newDebits(() => generateText({ model: model(), prompt: `Say hello ${marker()}`, maxRetries: 0 }));
      expect(result.text.length).toBeGreaterThan(0);
      expect(result.usage.inputTokens).toBeGreaterThan(0);
      expect(debits).toEqual([costToNano(row.cost(result.response.body))]);
    });

    it("streamText: the text arrives in parts, billed once", async () => {
      const { result, debits } = await newDebits(async () => {
        const stream = streamText({ model: model(), prompt: marker(), maxRetries: 0 });
        let parts = 0;
        for await (const part of stream.textStream) if (part.length > 0) parts++;
        return { parts, text: await stream.text, usage: await stream.usage };
      });
      expect(result.parts).toBeGreaterThan(1);
      expect(result.text.length).toBeGreaterThan(0);
      expect(result.usage.outputTokens).toBeGreaterThan(0);
      expect(debits).toHaveLength(1);
      expect(debits[0]).toBeGreaterThan(0n);
    });

    it("a tool call", async () => {
      const { result, debits } = await newDebits(() =>
        generateText({ model: model(), prompt: `Weather in Paris? ${marker()}`, tools: TOOLS, maxRetries: 0 }),
      );
      expect(result.toolCalls.length).toBeGreaterThan(0);
      expect(Object.keys(TOOLS)).toContain(result.toolCalls[0]!.toolName);
      expect(result.finishReason).toBe("tool-calls");
      expect(debits).toEqual([costToNano(row.cost(result.response.body))]);
    });
  });
});
