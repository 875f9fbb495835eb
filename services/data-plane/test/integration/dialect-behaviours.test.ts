// The gateway's limits, failures and money behave the same through every
// client dialect: each case below runs for chat completions, Responses and
// Messages, on the path that speaks the dialect natively and on one that
// translates it. Refusals (402, daily cap, per-minute limit, 413, an upstream
// rejection) come in the dialect's own error shape with nothing billed;
// retries and fallbacks are invisible but for the routing headers; a stream
// cut by the idle limit or failed by an upstream error event ends with the
// dialect's failure event after a usage whose cost is the debit; a client
// that leaves is billed once.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { costToNano, type GatewayStack, marker, startStack, type TestProject } from "../harness/gateway-stack";
import { accessPath, catalogueOf, chatModel, price } from "../support/catalogue-file";

interface SseEvent {
  name: string | undefined;
  data: string;
}

/** How one dialect is spoken: its request body, where the cost is, what an error and a stream's ends look like. */
interface Dialect {
  name: string;
  url: string;
  body(model: string, tag: string, stream: boolean): Record<string, unknown>;
  /** The cost in a whole answer. */
  wholeCost(answer: Record<string, unknown>): number;
  /** An error body's type (the dialect's error shape, checked whole). */
  errorType(body: unknown): string;
  /** The cost the stream reported (its final usage), if any. */
  streamCost(events: SseEvent[]): number | undefined;
  /** The stream ended as a complete answer. */
  completed(events: SseEvent[]): boolean;
  /** The stream ended with the dialect's failure event. */
  failed(events: SseEvent[]): boolean;
  /** Produced text in the stream's events. */
  text(events: SseEvent[]): string;
}

const json = (event: SseEvent) => JSON.parse(event.data) as Record<string, any>;

const CHAT: Dialect = {
  name: "chat completions",
  url: "/v1/chat/completions",
  body: (model, tag, stream) => ({ model, stream, messages: [{ role: "user", content: tag }] }),
  wholeCost: (answer) => (answer.usage as { cost: number }).cost,
  errorType(body) {
    expect(body).toEqual({ error: { type: expect.any(String), code: expect.anything(), message: expect.any(String), param: null } });
    return (body as { error: { type: string } }).error.type;
  },
  streamCost: (events) => {
    const usage = events
      .filter((event) => event.data.startsWith("{"))
      .map(json)
      .findLast((chunk) => chunk.usage)?.usage;
    return usage?.cost;
  },
  completed: (events) => events.at(-1)?.data === "[DONE]",
  failed: (events) => events.at(-1) !== undefined && events.at(-1)!.data.startsWith('{"error"'),
  text: (events) =>
    events
      .filter((event) => event.data.startsWith("{"))
      .map((event) => json(event).choices?.[0]?.delta?.content ?? "")
      .join(""),
};

const RESPONSES: Dialect = {
  name: "Responses",
  url: "/v1/responses",
  body: (model, tag, stream) => ({ model, stream, input: tag }),
  wholeCost: (answer) => (answer.usage as { cost: number }).cost,
  errorType: CHAT.errorType,
  streamCost: (events) => {
    const last = events.map(json).findLast((event) => event.response?.usage);
    return last?.response.usage.cost;
  },
  completed: (events) => events.at(-1)?.name === "response.completed",
  failed: (events) => events.at(-1)?.name === "response.failed" || events.at(-1)?.name === "error",
  text: (events) =>
    events
      .filter((event) => event.name === "response.output_text.delta")
      .map((event) => json(event).delta as string)
      .join(""),
};

const MESSAGES: Dialect = {
  name: "Messages",
  url: "/v1/messages",
  body: (model, tag, stream) => ({ model, stream, max_tokens: 1024, messages: [{ role: "user", content: tag }] }),
  wholeCost: (answer) => (answer.usage as { cost: number }).cost,
  errorType(body) {
    // Anthropic's shape; `code` is the gateway's own code, an extra field Anthropic's clients ignore.
    expect(body).toEqual({ type: "error", error: { type: expect.any(String), message: expect.any(String), code: expect.anything() } });
    return (body as { error: { type: string } }).error.type;
  },
  streamCost: (events) => {
    const delta = events
      .filter((event) => event.name === "message_delta")
      .map(json)
      .at(-1);
    return delta?.usage?.cost;
  },
  completed: (events) => events.at(-1)?.name === "message_stop",
  failed: (events) => events.at(-1)?.name === "error",
  text: (events) =>
    events
      .filter((event) => event.name === "content_block_delta")
      .map((event) => json(event).delta?.text ?? "")
      .join(""),
};

const MINI = "openai/gpt-4.1-mini";
const SONNET = "anthropic/claude-sonnet-4";

/** A dialect on one path: the model it asks for and what the mock sees as that path's model. */
interface Row {
  dialect: Dialect;
  model: string;
  /** The body the direct path receives contains this. */
  direct: string;
  /** "native": the direct path speaks the dialect; "translated": it does not. */
  how: "native" | "translated";
}

const ROWS: Row[] = [
  { dialect: CHAT, model: MINI, direct: '"model":"gpt-4.1-mini"', how: "native" },
  { dialect: RESPONSES, model: MINI, direct: '"model":"gpt-4.1-mini"', how: "native" },
  { dialect: RESPONSES, model: SONNET, direct: '"model":"claude-sonnet-4-20250514"', how: "translated" },
  { dialect: MESSAGES, model: SONNET, direct: '"model":"claude-sonnet-4-20250514"', how: "native" },
  { dialect: MESSAGES, model: MINI, direct: '"model":"gpt-4.1-mini"', how: "translated" },
];

/** Each model has its direct path, then OpenRouter. */
const CATALOGUE = catalogueOf([
  chatModel(MINI, [
    accessPath("openai", "gpt-4.1-mini", "OPENAI_API_KEY", price("0.40", "1.60")),
    accessPath("openrouter", MINI, "OPENROUTER_API_KEY", price("0.40", "1.60")),
  ]),
  chatModel(SONNET, [
    accessPath("anthropic", "claude-sonnet-4-20250514", "ANTHROPIC_API_KEY", price("3", "15")),
    accessPath("openrouter", SONNET, "OPENROUTER_API_KEY", price("3", "15")),
  ]),
]);

/** An SSE body's events (comments dropped). */
function events(text: string): SseEvent[] {
  return text
    .split("\n\n")
    .map((block) => block.trim())
    .filter((block) => block !== "" && !block.startsWith(":"))
    .map((block) => {
      const lines = block.split("\n");
      const name = lines.find((line) => line.startsWith("event: "))?.slice(7);
      const data = lines
        .filter((line) => line.startsWith("data: "))
        .map((line) => line.slice(6))
        .join("\n");
      return { name, data };
    });
}

const titled = ROWS.map((row) => [`${row.dialect.name} to ${row.model} (${row.how})`, row] as const);

// One stack for every row: the rows differ only in what they send, and each test uses markers and projects of its own.
let stack: GatewayStack;

beforeAll(async () => {
  stack = await startStack({
    backend: "pglite",
    mockAsProviders: ["openrouter", "anthropic"],
    dataPlaneEnv: {
      STREAM_IDLE_TIMEOUT_MS: "1000",
      UPSTREAM_RETRY_BACKOFF_MS: "20",
      SSE_KEEPALIVE_MS: "200",
      BODY_LIMIT_BYTES: "65536",
      CLIENT_DISCONNECT_DRAIN_MS: "300",
      PATH_HEALTH_HALF_LIFE_MS: "1",
      CIRCUIT_FAILURE_THRESHOLD: "1000",
    },
  });
  await stack.loadCatalogue(CATALOGUE);
});

afterAll(async () => {
  await stack?.stop();
});

describe.each(titled)("%s", (_title, { dialect, model, direct }) => {
  let project: TestProject;

  beforeAll(async () => {
    project = await stack.createProject({ balanceUsd: "5.00" });
  });

  const post = (key: string, body: unknown, signal?: AbortSignal) => stack.post(dialect.url, key, body, 0, signal);

  async function debits(owner: TestProject, requestId: string | null): Promise<bigint[]> {
    return (await stack.ledger(owner.projectId))
      .filter((entry) => entry.request_id === requestId && entry.kind === "debit")
      .map((entry) => -BigInt(entry.amount.nano));
  }

  async function expectRefused(response: Response, status: number, owner: TestProject, tag: string): Promise<unknown> {
    expect(response.status).toBe(status);
    const body = await response.json();
    dialect.errorType(body);
    expect(await stack.mockRequestsWith(tag)).toHaveLength(0);
    expect(await debits(owner, response.headers.get("x-request-id"))).toEqual([]);
    return body;
  }

  it("answers whole and streamed, with usage.cost equal to the one debit", async () => {
    const whole = await post(project.key, dialect.body(model, marker(), false));
    expect(whole.status).toBe(200);
    expect(whole.headers.get("x-service-model")).toBe(model);
    const answer = (await whole.json()) as Record<string, unknown>;
    expect(await debits(project, whole.headers.get("x-request-id"))).toEqual([costToNano(dialect.wholeCost(answer))]);

    const streamed = await post(project.key, dialect.body(model, marker(), true));
    expect(streamed.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const seen = events(await streamed.text());
    expect(dialect.completed(seen)).toBe(true);
    expect(dialect.text(seen).length).toBeGreaterThan(0);
    expect(await debits(project, streamed.headers.get("x-request-id"))).toEqual([costToNano(dialect.streamCost(seen)!)]);
  });

  it("routes auto:<tier> and bare names, and gives a request with a service block its routing trace", async () => {
    const tiered = await post(project.key, { ...dialect.body("auto:economy", marker(), false), service: {} });
    expect(tiered.status).toBe(200);
    const answer = (await tiered.json()) as { service?: { reason: { requested: string; resolved: string; tier: string } } };
    expect(answer.service?.reason).toMatchObject({ requested: "auto:economy", tier: "economy" });
    expect(tiered.headers.get("x-service-model")).toBe(answer.service!.reason.resolved);
    expect(tiered.headers.get("x-service-reason")).toMatch(/^auto:economy -> /);

    const bare = await post(project.key, dialect.body(model.split("/")[1]!, marker(), false));
    expect(bare.status).toBe(200);
    expect(bare.headers.get("x-service-model")).toBe(model);
  });

  it("refuses with 402 in its own shape when the balance cannot cover the call", async () => {
    const broke = await stack.createProject();
    const tag = marker();
    const body = await expectRefused(await post(broke.key, dialect.body(model, tag, false)), 402, broke, tag);
    expect(dialect.errorType(body)).toBe("billing_error");
  });

  it("refuses with 429 and Retry-After at the daily cap", async () => {
    const capped = await stack.createProject({ balanceUsd: "1.00", dailyCapUsd: "0.000001" });
    const tag = marker();
    const response = await post(capped.key, dialect.body(model, tag, true));
    expect(Number(response.headers.get("retry-after"))).toBeGreaterThan(0);
    await expectRefused(response, 429, capped, tag);
  });

  it("refuses with 429 and Retry-After beyond the per-minute limit", async () => {
    const limited = await stack.createProject({ balanceUsd: "1.00" });
    expect((await stack.admin("PATCH", `/admin/projects/${limited.projectId}/limits`, { rpm_limit: 1 })).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 300)); // the limit change reaches the data plane
    expect((await post(limited.key, dialect.body(model, marker(), false))).status).toBe(200);
    const tag = marker();
    const response = await post(limited.key, dialect.body(model, tag, false));
    expect(Number(response.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    const body = await expectRefused(response, 429, limited, tag);
    expect(dialect.errorType(body)).toBe("rate_limit_error");
  });

  it("refuses a service.route or service.allow of more than 32 distinct entries with a short 400, before routing or money (issue 33, item 2)", async () => {
    const broke = await stack.createProject(); // any key: the list is refused before the balance is asked
    const ids = Array.from({ length: 2_000 }, (_, index) => `vendor${index}/model-${index}`);
    for (const list of ["route", "allow"]) {
      const tag = marker();
      const response = await post(broke.key, { ...dialect.body("auto", tag, false), service: { [list]: ids } });
      const body = (await expectRefused(response, 400, broke, tag)) as { error: { code: string; message: string } };
      expect(body.error).toMatchObject({ code: "invalid_service", message: `service.${list} may hold at most 32 distinct entries.` });
    }
  });

  it("refuses a body over the limit with 413 in its own shape", async () => {
    const tag = `${marker()} ${"x".repeat(70_000)}`;
    await expectRefused(await post(project.key, dialect.body(model, tag, false)), 413, project, tag);
  });

  it("passes an upstream's refusal on with its status, in its own shape, nothing billed", async () => {
    const tag = marker();
    await stack.mockScript({ match: tag, times: 0, status: 400 });
    const response = await post(project.key, dialect.body(model, tag, false));
    expect(response.status).toBe(400);
    dialect.errorType(await response.json());
    expect(await stack.mockRequestsWith(tag)).toHaveLength(1);
    expect(await debits(project, response.headers.get("x-request-id"))).toEqual([]);
  });

  it("retries a 503 and falls back to OpenRouter when the direct path keeps failing; billed once", async () => {
    const tag = marker();
    await stack.mockScript({ match: [tag, direct], times: 0, status: 503 });
    const response = await post(project.key, dialect.body(model, tag, false));
    expect(response.status).toBe(200);
    expect(response.headers.get("x-service-reason")).toContain("via openrouter");
    const seen = await stack.mockRequestsWith(tag);
    // OpenRouter's model ids have a vendor prefix; the direct paths' do not.
    expect(seen.map((request) => String(request.body.model).includes("/"))).toEqual([false, false, true]);
    const answer = (await response.json()) as Record<string, unknown>;
    expect(await debits(project, response.headers.get("x-request-id"))).toEqual([costToNano(dialect.wholeCost(answer))]);
  });

  it.each([
    ["cut by the idle limit", "stall-mid-stream"],
    ["failed by an upstream error event", "error-event-mid-stream"],
  ])("ends a stream %s with its failure event after the usage, billed for what was delivered, not retried", async (_how, fault) => {
    const tag = marker();
    await stack.mockScript({ match: tag, fault, chunkDelayMs: 20 });
    const response = await post(project.key, dialect.body(model, tag, true));
    expect(response.status).toBe(200);
    const seen = events(await response.text());
    expect(dialect.failed(seen)).toBe(true);
    expect(dialect.completed(seen)).toBe(false);
    expect(dialect.text(seen).length).toBeGreaterThan(0);
    const cost = dialect.streamCost(seen);
    expect(cost).toBeGreaterThan(0);
    expect(await debits(project, response.headers.get("x-request-id"))).toEqual([costToNano(cost!)]);
    expect(await stack.mockRequestsWith(tag)).toHaveLength(1);
    expect((await stack.balance(project.projectId)).held.nano).toBe("0");
  });

  it("bills a client that leaves mid-stream once, for the prompt and what it was sent", async () => {
    const own = await stack.createProject({ balanceUsd: "1.00" });
    const tag = marker();
    await stack.mockScript({ match: tag, chunkDelayMs: 100 });
    const controller = new AbortController();
    const response = await post(own.key, dialect.body(model, tag, true), controller.signal);
    const reader = response.body!.getReader();
    let received = "";
    while (dialect.text(events(received)).length === 0) {
      const { value } = await reader.read();
      received += new TextDecoder().decode(value);
    }
    controller.abort();
    for (let wait = 0; wait < 50; wait++) {
      const held = (await stack.balance(own.projectId)).held.nano;
      if (held === "0" && (await debits(own, response.headers.get("x-request-id"))).length > 0) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await new Promise((resolve) => setTimeout(resolve, 300));
    const billed = await debits(own, response.headers.get("x-request-id"));
    expect(billed).toHaveLength(1);
    expect(billed[0]).toBeGreaterThan(0n);
    expect((await stack.balance(own.projectId)).held.nano).toBe("0");
  });
});
