// The official `openai` npm client, unmodified, against the gateway: chat,
// streamed chat, tools, structured output, embeddings, and the error cases
// it must surface as typed API errors.
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { costToNano, marker, startStack, type GatewayStack, type TestProject } from "../harness/gateway-stack";

describe("the official openai client through both planes", () => {
  let stack: GatewayStack;
  let project: TestProject;
  let client: OpenAI;

  beforeAll(async () => {
    // Short keep-alive so a slow first byte shows the client reading past SSE comments.
    stack = await startStack({ backend: "postgresql", dataPlaneEnv: { SSE_KEEPALIVE_MS: "100" } });
    project = await stack.createProject({ balanceUsd: "2.00" });
    client = new OpenAI({ apiKey: project.key, baseURL: `${stack.url}/v1`, maxRetries: 0 });
  });

  afterAll(async () => {
    await stack?.stop();
  });

  async function debitFor(requestId: string | null): Promise<bigint[]> {
    return (await stack.ledger(project.projectId))
      .filter((entry) => entry.request_id === requestId)
      .map((entry) => BigInt(entry.amount.nano));
  }

  it("creates a chat completion with usage.cost matching the ledger", async () => {
    const { data, response } = await client.chat.completions
      .create({ model: "auto", messages: [{ role: "user", content: `Say hello ${marker()}` }] })
      .withResponse();
    expect(data.choices[0]!.message.content).toBe("Hello! How can I assist you today?");
    const cost = (data.usage as unknown as { cost: number }).cost;
    expect(cost).toBeGreaterThan(0);
    expect(await debitFor(response.headers.get("x-request-id"))).toEqual([-costToNano(cost)]);
  });

  it("streams a chat completion; the last chunk carries usage.cost matching the ledger", async () => {
    const { data: stream, response } = await client.chat.completions
      .create({ model: "auto:economy", stream: true, messages: [{ role: "user", content: marker() }] })
      .withResponse();
    let text = "";
    let cost: number | undefined;
    let chunks = 0;
    for await (const chunk of stream) {
      chunks++;
      text += chunk.choices[0]?.delta.content ?? "";
      if (chunk.usage) cost = (chunk.usage as unknown as { cost: number }).cost;
    }
    expect(chunks).toBeGreaterThan(5);
    expect(text.length).toBeGreaterThan(20);
    expect(cost).toBeDefined();
    expect(response.headers.get("x-service-model")).toBe("openai/gpt-4.1-nano");
    expect(await debitFor(response.headers.get("x-request-id"))).toEqual([-costToNano(cost!)]);
  });

  it("returns tool calls", async () => {
    const completion = await client.chat.completions.create({
      model: "openai/gpt-4.1",
      messages: [{ role: "user", content: `What is the weather in Boston? ${marker()}` }],
      tools: [
        {
          type: "function",
          function: { name: "get_current_weather", parameters: { type: "object", properties: { location: { type: "string" } } } },
        },
      ],
      parallel_tool_calls: false,
    });
    const call = completion.choices[0]!.message.tool_calls![0]!;
    expect(call.type).toBe("function");
    expect((call as { function: { name: string } }).function.name).toBe("get_current_weather");
    expect(completion.choices[0]!.finish_reason).toBe("tool_calls");
  });

  it("returns structured output for a json_schema response_format", async () => {
    const completion = await client.chat.completions.create({
      model: "auto",
      messages: [{ role: "user", content: marker() }],
      response_format: { type: "json_schema", json_schema: { name: "answer", schema: { type: "object" }, strict: true } },
    });
    expect(() => JSON.parse(completion.choices[0]!.message.content!)).not.toThrow();
  });

  it("creates embeddings with usage.cost", async () => {
    const result = await client.embeddings.create({ model: "auto", input: ["first", "second"] });
    expect(result.data).toHaveLength(2);
    expect(result.data[0]!.embedding.length).toBeGreaterThan(0);
    expect((result.usage as unknown as { cost: number }).cost).toBeGreaterThan(0);
  });

  it("creates base64 embeddings the client decodes", async () => {
    const result = await client.embeddings.create({ model: "openai/text-embedding-3-small", input: "x", encoding_format: "base64" });
    expect(typeof result.data[0]!.embedding).toBe("string");
  });

  it("lists models with the aliases first", async () => {
    const ids: string[] = [];
    for await (const model of client.models.list()) ids.push(model.id);
    expect(ids.slice(0, 4)).toEqual(["auto", "auto:economy", "auto:balanced", "auto:quality"]);
    expect(ids).toContain("openai/text-embedding-3-small");
  });

  it("retrieves one model by its id, slash included, and an unknown one as NotFoundError", async () => {
    const model = await client.models.retrieve("openai/gpt-4.1-mini");
    expect(model).toMatchObject({ id: "openai/gpt-4.1-mini", object: "model", owned_by: "openai" });
    expect((await client.models.retrieve("auto")).id).toBe("auto");
    const error = (await client.models.retrieve("openai/gpt-17").catch((caught: unknown) => caught)) as InstanceType<
      typeof OpenAI.APIError
    >;
    expect(error).toBeInstanceOf(OpenAI.NotFoundError);
    expect(error.code).toBe("model_not_found");
  });

  it("surfaces a bad key as AuthenticationError (401)", async () => {
    const stranger = new OpenAI({
      apiKey: "sk_nobody_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
      baseURL: `${stack.url}/v1`,
      maxRetries: 0,
    });
    const error = await stranger.chat.completions
      .create({ model: "auto", messages: [{ role: "user", content: "hi" }] })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.AuthenticationError);
    expect((error as InstanceType<typeof OpenAI.APIError>).code).toBe("invalid_api_key");
    expect((error as InstanceType<typeof OpenAI.APIError>).type).toBe("authentication_error");
  });

  it("surfaces an empty balance as a 402 APIError with code insufficient_credits", async () => {
    const broke = await stack.createProject();
    const poor = new OpenAI({ apiKey: broke.key, baseURL: `${stack.url}/v1`, maxRetries: 0 });
    const error = (await poor.chat.completions
      .create({ model: "auto", messages: [{ role: "user", content: "hi" }] })
      .catch((caught: unknown) => caught)) as InstanceType<typeof OpenAI.APIError>;
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect(error.status).toBe(402);
    expect(error.code).toBe("insufficient_credits");
  });

  it("surfaces an unknown model as BadRequestError with code model_unknown", async () => {
    const error = (await client.chat.completions
      .create({ model: "gpt-17", messages: [{ role: "user", content: "hi" }] })
      .catch((caught: unknown) => caught)) as InstanceType<typeof OpenAI.APIError>;
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect(error.code).toBe("model_unknown");
  });

  it("surfaces an upstream outage as InternalServerError with the upstream status as code", async () => {
    const tag = marker();
    await stack.mockScript({ match: tag, times: 0, status: 502 });
    const error = (await client.chat.completions
      .create({ model: "auto", messages: [{ role: "user", content: tag }] })
      .catch((caught: unknown) => caught)) as InstanceType<typeof OpenAI.APIError>;
    expect(error).toBeInstanceOf(OpenAI.InternalServerError);
    expect(error.status).toBe(502);
    expect(error.code).toBe(502);
    expect(error.type).toBe("upstream_error");
  });

  it("streams past keep-alive comments sent while the first byte is slow", async () => {
    const tag = marker();
    await stack.mockScript({ match: tag, firstChunkDelayMs: 600 });
    const stream = await client.chat.completions.create({
      model: "auto:economy",
      stream: true,
      messages: [{ role: "user", content: tag }],
    });
    let text = "";
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? "";
    expect(text.length).toBeGreaterThan(20);
  });

  it("raises an APIError when a stream fails after content, instead of ending as if it had succeeded", async () => {
    const tag = marker();
    await stack.mockScript({ match: tag, fault: "error-event-mid-stream" });
    const stream = await client.chat.completions.create({
      model: "auto:economy",
      stream: true,
      messages: [{ role: "user", content: tag }],
    });
    let text = "";
    const error = await (async () => {
      for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? "";
    })().catch((caught: unknown) => caught);
    expect(text.length).toBeGreaterThan(0);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect((error as InstanceType<typeof OpenAI.APIError>).message).toContain("The upstream provider failed during the stream.");
  });
});
