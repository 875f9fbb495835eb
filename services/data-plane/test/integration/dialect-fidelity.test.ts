// Same-dialect fidelity: a client whose dialect the upstream speaks gets the
// upstream's answer as the upstream wrote it (here the mock provider replaying
// its recordings), except `usage.cost`. A stream is compared byte for byte,
// event by event, with the text the mock sent: only the event carrying the
// final usage differs, by its cost. A whole answer is the same JSON document
// (keys, their order, values) as the mock's compact body, serialized compactly
// by the gateway (an upstream's indentation is not kept).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { costToNano, type GatewayStack, marker, startStack, type TestProject } from "../harness/gateway-stack";

interface Row {
  name: string;
  url: string;
  headers(key: string): Record<string, string>;
  body(tag: string, stream: boolean, tools: boolean): Record<string, unknown>;
  /** Where the cost is in a whole answer, and in the stream event that carries the final usage. */
  usageOf(answer: Record<string, any>): Record<string, unknown> | undefined;
  /** Counts the final usage of a stream gains when the upstream's lacks them (Anthropic's message_delta carries only output_tokens in older recordings). */
  completedUsage?: string[];
}

const WEATHER = {
  name: "get_weather",
  description: "Weather in a city",
  schema: { type: "object", properties: { city: { type: "string" } } },
};

const ROWS: Row[] = [
  {
    name: "chat completions to OpenAI",
    url: "/v1/chat/completions",
    headers: (key) => ({ authorization: `Bearer ${key}` }),
    body: (tag, stream, tools) => ({
      model: "openai/gpt-4.1-mini",
      stream,
      ...(stream ? { stream_options: { include_usage: true } } : {}),
      messages: [{ role: "user", content: tag }],
      ...(tools
        ? { tools: [{ type: "function", function: { name: WEATHER.name, description: WEATHER.description, parameters: WEATHER.schema } }] }
        : {}),
    }),
    usageOf: (answer) => answer.usage,
  },
  {
    name: "Responses to OpenAI",
    url: "/v1/responses",
    headers: (key) => ({ authorization: `Bearer ${key}` }),
    body: (tag, stream, tools) => ({
      model: "openai/gpt-4.1-mini",
      stream,
      input: tag,
      ...(tools ? { tools: [{ type: "function", name: WEATHER.name, description: WEATHER.description, parameters: WEATHER.schema }] } : {}),
    }),
    usageOf: (answer) => (answer.object === "response" ? answer.usage : answer.response?.usage),
  },
  {
    name: "Messages to Anthropic",
    url: "/v1/messages",
    headers: (key) => ({ "x-api-key": key, "anthropic-version": "2023-06-01" }),
    body: (tag, stream, tools) => ({
      model: "anthropic/claude-sonnet-4",
      max_tokens: 1024,
      stream,
      messages: [{ role: "user", content: tag }],
      ...(tools ? { tools: [{ name: WEATHER.name, description: WEATHER.description, input_schema: WEATHER.schema }] } : {}),
    }),
    usageOf: (answer) => (answer.type === "message_delta" || answer.type === "message" ? answer.usage : undefined),
    completedUsage: ["input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens"],
  },
];

/** The frames of an SSE body, keep-alive comments dropped. */
const frames = (text: string) =>
  text
    .split("\n\n")
    .filter((frame) => frame.trim() !== "" && !frame.startsWith(":"))
    .map((frame) => `${frame}\n\n`);

const dataOf = (frame: string) =>
  frame
    .split("\n")
    .filter((line) => line.startsWith("data: "))
    .map((line) => line.slice(6))
    .join("\n");

// One stack for every row: each row has its own project, each call its own marker.
let stack: GatewayStack;

beforeAll(async () => {
  stack = await startStack({ backend: "pglite", mockAsProviders: ["anthropic"] });
});

afterAll(async () => {
  await stack?.stop();
});

describe.each(ROWS.map((row) => [row.name, row] as const))("%s", (_name, row) => {
  let project: TestProject;

  beforeAll(async () => {
    project = await stack.createProject({ balanceUsd: "5.00" });
  });

  async function call(tag: string, stream: boolean, tools: boolean) {
    const response = await fetch(`${stack.url}${row.url}`, {
      method: "POST",
      headers: { "content-type": "application/json", ...row.headers(project.key) },
      body: JSON.stringify(row.body(tag, stream, tools)),
    });
    expect(response.status).toBe(200);
    const text = await response.text();
    const [sent] = await stack.mockRequestsWith(tag);
    const debits = (await stack.ledger(project.projectId))
      .filter((entry) => entry.request_id === response.headers.get("x-request-id") && entry.kind === "debit")
      .map((entry) => -BigInt(entry.amount.nano));
    return { text, upstream: sent!, debits };
  }

  it.each([
    ["text", false],
    ["a tool call", true],
  ])("a whole answer (%s) is the upstream's body plus usage.cost, the debit", async (_case, tools) => {
    const { text, upstream, debits } = await call(marker(), false, tools);
    const answer = JSON.parse(text) as Record<string, any>;
    const usage = row.usageOf(answer)!;
    expect(debits).toEqual([costToNano(usage.cost as number)]);
    delete usage.cost;
    expect(JSON.stringify(answer)).toBe(JSON.stringify(upstream.responseBody));
  });

  it.each([
    ["text", false],
    ["a tool call", true],
  ])("a stream (%s) is the upstream's events as written; only the final usage gains its cost", async (_case, tools) => {
    const { text, upstream, debits } = await call(marker(), true, tools);
    const relayed = frames(text);
    const original = frames(upstream.responseText!);
    expect(relayed).toHaveLength(original.length);
    const differing = relayed.flatMap((frame, index) => (frame === original[index] ? [] : [index]));
    expect(differing).toHaveLength(1);
    const [index] = differing as [number];
    const withCost = JSON.parse(dataOf(relayed[index]!)) as Record<string, any>;
    const usage = row.usageOf(withCost)!;
    expect(debits).toEqual([costToNano(usage.cost as number)]);
    delete usage.cost;
    const upstreamEvent = JSON.parse(dataOf(original[index]!)) as Record<string, any>;
    for (const count of row.completedUsage ?? []) {
      if (row.usageOf(upstreamEvent)![count] !== undefined) continue;
      expect(usage[count]).toEqual(expect.any(Number));
      delete usage[count];
    }
    expect(withCost).toEqual(upstreamEvent);
    const eventName = (frame: string) => frame.split("\n").find((line) => line.startsWith("event: "));
    expect(eventName(relayed[index]!)).toBe(eventName(original[index]!));
  });
});
