// Streams whose headers went out with a keep-alive, before their first event
// (decision 0007): X-Service-Reason says "so far", and the last JSON event
// carries the headers' final values in `service`. Unmodified client libraries
// read these streams as any other: the official openai client (chat and
// Responses), Anthropic's, and the Vercel AI SDK.
import { createOpenAI } from "@ai-sdk/openai";
import Anthropic from "@anthropic-ai/sdk";
import { streamText } from "ai";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { marker, startStack, type GatewayStack, type TestProject } from "../harness/gateway-stack";

/** The first event comes this long after the upstream's headers: far past the keep-alive below, even on a loaded machine. */
const FIRST_EVENT_DELAY_MS = 2000;
const KEEPALIVE_MS = 100;

interface Service {
  "x-service-model": string;
  "x-service-reason": string;
}

describe("stream headers sent before the first event", () => {
  let stack: GatewayStack;
  let project: TestProject;

  beforeAll(async () => {
    stack = await startStack({
      backend: "postgresql",
      dataPlaneEnv: { SSE_KEEPALIVE_MS: String(KEEPALIVE_MS) },
      mockAsProviders: ["anthropic"],
    });
    project = await stack.createProject({ balanceUsd: "1.00" });
  });

  afterAll(async () => {
    await stack?.stop();
  });

  /** A tag whose answer is a stream with a slow first event. */
  async function slowTag(): Promise<string> {
    const tag = marker();
    await stack.mockScript({ match: tag, firstChunkDelayMs: FIRST_EVENT_DELAY_MS });
    return tag;
  }

  const openai = () => new OpenAI({ apiKey: project.key, baseURL: `${stack.url}/v1`, maxRetries: 0 });

  it("chat through the openai client: the header says so far, the usage chunk carries the final values", async () => {
    const tag = await slowTag();
    const { data: stream, response } = await openai()
      .chat.completions.create({ model: "openai/gpt-4.1-mini", stream: true, messages: [{ role: "user", content: tag }] })
      .withResponse();
    // (0 when the keep-alive came while the hold was still being placed.)
    expect(response.headers.get("x-service-reason")).toMatch(/^openai\/gpt-4\.1-mini via openai, [01] attempts? so far$/);
    let text = "";
    let last: Record<string, unknown> | undefined;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta?.content ?? "";
      last = chunk as unknown as Record<string, unknown>;
    }
    expect(text.length).toBeGreaterThan(0);
    expect(last?.service).toEqual({
      "x-service-model": "openai/gpt-4.1-mini",
      "x-service-reason": "openai/gpt-4.1-mini via openai, 1 attempt",
    } satisfies Service);
  });

  it("Responses through the openai client: the terminal event carries the final values", async () => {
    const tag = await slowTag();
    const events: Record<string, unknown>[] = [];
    const stream = await openai().responses.create({ model: "openai/gpt-4.1-mini", stream: true, input: tag });
    for await (const event of stream) events.push(event as unknown as Record<string, unknown>);
    expect(events.at(-1)?.type).toBe("response.completed");
    expect((events.at(-1)?.service as Service | undefined)?.["x-service-reason"]).toBe("openai/gpt-4.1-mini via openai, 1 attempt");
  });

  it("Messages through Anthropic's client: message_stop carries the final values; the message is whole", async () => {
    const tag = await slowTag();
    const client = new Anthropic({ apiKey: project.key, baseURL: stack.url, maxRetries: 0 });
    const stream = client.messages.stream({
      model: "anthropic/claude-sonnet-4",
      max_tokens: 100,
      messages: [{ role: "user", content: tag }],
    });
    const events: Record<string, unknown>[] = [];
    for await (const event of stream) events.push(event as unknown as Record<string, unknown>);
    const message = await stream.finalMessage();
    expect(message.content.length).toBeGreaterThan(0);
    expect(events.at(-1)?.type).toBe("message_stop");
    expect((events.at(-1)?.service as Service | undefined)?.["x-service-reason"]).toBe(
      "anthropic/claude-sonnet-4 via anthropic, 1 attempt",
    );
  });

  it("chat through the Vercel AI SDK: the text and usage as in any stream", async () => {
    const tag = await slowTag();
    const provider = createOpenAI({ apiKey: project.key, baseURL: `${stack.url}/v1` });
    const result = streamText({ model: provider.chat("openai/gpt-4.1-mini"), prompt: tag, maxRetries: 0 });
    expect((await result.text).length).toBeGreaterThan(0);
    expect((await result.usage).outputTokens).toBeGreaterThan(0);
    expect((await result.response).headers?.["x-service-reason"]).toMatch(/, 1 attempt so far$/);
  });
});
