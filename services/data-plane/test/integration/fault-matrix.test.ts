// The fault matrix (docs/resilience.md): every upstream fault the mock
// provider can script, driven through the control plane and a data plane,
// asserting what the client sees (status, body shape, how a stream ends), the
// routing trace, the attempts the mock received (which model, which access
// path) and the ledger. A canary string in every upstream error body and
// header must never reach a client or a line of the gateway's logs.
//
// The catalogue gives openai/gpt-4.1-mini two access paths (OpenAI direct,
// then OpenRouter), and google/gemini-2.5-flash (OpenRouter) is the balanced
// tier's second candidate; both providers point at the mock, and the body's
// `model` tells them apart ("gpt-4.1-mini" direct, "openai/gpt-4.1-mini"
// through OpenRouter).
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LOG_FLUSH_MS } from "../../src/log-destination";
import { marker, startStack, type GatewayStack, type TestProject } from "../harness/gateway-stack";
import { sseData } from "../support/sse-data";

const CANARY = `canary-${randomBytes(8).toString("hex")}`;
const CANARY_BODY = JSON.stringify({
  error: { message: `upstream detail ${CANARY} https://internal.example/${CANARY}`, type: "server_error", code: null },
});
const CANARY_HEADERS = { "x-upstream-debug": CANARY, "x-request-id": `req-${CANARY}` };
/** What only the direct OpenAI path's body contains. */
const DIRECT = '"model":"gpt-4.1-mini"';
const MINI = "openai/gpt-4.1-mini";
const GEMINI = "google/gemini-2.5-flash";

interface Attempt {
  model: string;
  path: string;
  outcome: string;
}

interface Seen {
  status: number;
  headers: Headers;
  text: string;
  ms: number;
}

function testCatalogue(): unknown {
  const file = JSON.parse(
    readFileSync(new URL("../../../control-plane/src/catalogue/default-catalogue.json", import.meta.url), "utf8"),
  ) as {
    models: { id: string; paths: Record<string, unknown>[] }[];
  };
  const mini = file.models.find((model) => model.id === MINI)!;
  mini.paths.push({ ...mini.paths[0], provider: "openrouter", upstream_model: MINI, credentials: "OPENROUTER_API_KEY" });
  return file;
}

describe("fault matrix", () => {
  let stack: GatewayStack;
  let project: TestProject;
  /** Every answer a client received in this suite, for the canary check. */
  const answers: Seen[] = [];

  async function post(body: Record<string, unknown>): Promise<Seen> {
    const started = Date.now();
    const response = await stack.post("/v1/chat/completions", project.key, body);
    const seen = { status: response.status, headers: response.headers, text: await response.text(), ms: Date.now() - started };
    answers.push(seen);
    return seen;
  }

  const ask = (tag: string, extra: Record<string, unknown> = {}) =>
    post({ model: "auto", service: {}, messages: [{ role: "user", content: tag }], ...extra });

  /** The models the mock received for this tag, in order ("gpt-4.1-mini" = direct, "openai/gpt-4.1-mini" = via OpenRouter). */
  async function mockSaw(tag: string): Promise<string[]> {
    return (await stack.mockRequestsWith(tag)).map((request) => String(request.body.model));
  }

  async function debits(seen: Seen): Promise<{ nano: bigint; model: string | null; access_path?: string | null }[]> {
    const entries = (await stack.ledger(project.projectId)).filter((entry) => entry.request_id === seen.headers.get("x-request-id"));
    return entries.map((entry) => ({
      nano: -BigInt(entry.amount.nano),
      model: entry.model,
      access_path: (entry as { access_path?: string | null }).access_path,
    }));
  }

  const trace = (seen: Seen) =>
    (JSON.parse(seen.text) as { service: { reason: { attempts: Attempt[]; resolved: string; path: string } } }).service.reason;
  const outcomes = (seen: Seen) => trace(seen).attempts.map((attempt) => `${attempt.outcome} ${attempt.model} ${attempt.path}`);
  const costNano = (seen: Seen) => BigInt(Math.round((JSON.parse(seen.text) as { usage: { cost: number } }).usage.cost * 1e9));

  function expectError(seen: Seen, status: number, type: string): void {
    expect(seen.status).toBe(status);
    expect(JSON.parse(seen.text)).toEqual({ error: { type, code: status, message: expect.any(String), param: null } });
  }

  beforeAll(async () => {
    stack = await startStack({
      backend: "pglite",
      dataPlaneEnv: {
        LOG_LEVEL: "debug", // the canary must not appear at any level
        // Four fast failed attempts must end before the first keep-alive commits a stream's headers
        // (200 ms was too little on a loaded machine); the slow cases' delays below are set against these.
        STREAM_IDLE_TIMEOUT_MS: "2000",
        UPSTREAM_HEADERS_TIMEOUT_MS: "1000",
        UPSTREAM_RETRY_BACKOFF_MS: "50",
        UPSTREAM_RETRY_WAIT_BUDGET_MS: "2000",
        SSE_KEEPALIVE_MS: "400",
        // The matrix fails the same paths again and again: each case must start from healthy paths,
        // so errors are forgotten at once and circuits never open (they have their own suite).
        PATH_HEALTH_HALF_LIFE_MS: "1",
        CIRCUIT_FAILURE_THRESHOLD: "1000",
      },
      controlPlaneEnv: { LOG_LEVEL: "debug" },
      mockAsProviders: ["openrouter"],
    });
    await stack.loadCatalogue(testCatalogue());
    project = await stack.createProject({ balanceUsd: "5.00" });
  });

  afterAll(async () => {
    await stack?.stop();
  });

  describe("before the first byte: retried, then the next path, then the next model", () => {
    it.each([
      ["429 with Retry-After", { status: 429, headers: { "retry-after": "1", ...CANARY_HEADERS } }, "http_429"],
      ["429 without Retry-After", { status: 429, headers: CANARY_HEADERS }, "http_429"],
      ["500", { status: 500, headers: CANARY_HEADERS }, "http_500"],
      ["502", { status: 502, headers: CANARY_HEADERS }, "http_502"],
      ["503", { status: 503, headers: CANARY_HEADERS }, "http_503"],
      ["a connection reset before headers", { fault: "reset-before-headers" }, "unreachable"],
      ["a first byte slower than the headers timeout", { latencyMs: 1500 }, "timeout"],
    ] as [string, { status?: number; headers?: Record<string, string>; fault?: string; latencyMs?: number }, string][])(
      "%s once: retried on the same path, answered, billed once",
      async (_name, script, outcome) => {
        const tag = marker();
        await stack.mockScript({ match: tag, times: 1, ...script, ...(script.status ? { errorBody: CANARY_BODY } : {}) });
        const seen = await ask(tag);
        expect(seen.status).toBe(200);
        expect(outcomes(seen)).toEqual([`${outcome} ${MINI} openai`, `ok ${MINI} openai`]);
        expect(await mockSaw(tag)).toEqual(["gpt-4.1-mini", "gpt-4.1-mini"]);
        expect(seen.headers.get("x-service-reason")).toMatch(/, 2 attempts$/);
        expect(await debits(seen)).toEqual([{ nano: costNano(seen), model: MINI, access_path: "openai" }]);
        if (script.headers?.["retry-after"] === "1") {
          const [first, second] = await stack.mockRequestsWith(tag);
          expect(second!.receivedAt - first!.receivedAt).toBeGreaterThanOrEqual(1000); // the upstream's Retry-After was honoured
        }
      },
    );

    it("a direct path that keeps failing: retried once, then the same model through OpenRouter", async () => {
      const tag = marker();
      await stack.mockScript({ match: [tag, DIRECT], times: 0, status: 503, errorBody: CANARY_BODY, headers: CANARY_HEADERS });
      const seen = await ask(tag);
      expect(seen.status).toBe(200);
      expect(outcomes(seen)).toEqual([`http_503 ${MINI} openai`, `http_503 ${MINI} openai`, `ok ${MINI} openrouter`]);
      expect(await mockSaw(tag)).toEqual(["gpt-4.1-mini", "gpt-4.1-mini", MINI]);
      expect(seen.headers.get("x-service-model")).toBe(MINI);
      expect(trace(seen).path).toBe("openrouter");
      expect(await debits(seen)).toEqual([{ nano: costNano(seen), model: MINI, access_path: "openrouter" }]);
    });

    it("a model that fails on every path: the next candidate answers and is billed at its own price", async () => {
      const tag = marker();
      await stack.mockScript({ match: [tag, "gpt-4.1-mini"], times: 0, status: 502, errorBody: CANARY_BODY, headers: CANARY_HEADERS });
      const seen = await ask(tag);
      expect(seen.status).toBe(200);
      expect(outcomes(seen)).toEqual([
        `http_502 ${MINI} openai`,
        `http_502 ${MINI} openai`,
        `http_502 ${MINI} openrouter`,
        `ok ${GEMINI} openrouter`,
      ]);
      expect(await mockSaw(tag)).toEqual(["gpt-4.1-mini", "gpt-4.1-mini", MINI, GEMINI]);
      expect(seen.headers.get("x-service-model")).toBe(GEMINI);
      expect(trace(seen).resolved).toBe(GEMINI);
      const usage = (JSON.parse(seen.text) as { usage: { prompt_tokens: number; completion_tokens: number } }).usage;
      // Gemini 2.5 Flash through OpenRouter: $0.30 / $2.50 per million tokens.
      const expected =
        (BigInt(usage.prompt_tokens) * 300_000_000n + BigInt(usage.completion_tokens) * 2_500_000_000n + 999_999n) / 1_000_000n;
      expect(await debits(seen)).toEqual([{ nano: expected, model: GEMINI, access_path: "openrouter" }]);
      expect(costNano(seen)).toBe(expected);
    });

    it("route pinned: retries and path switches only, never another model", async () => {
      const tag = marker();
      await stack.mockScript({ match: [tag, "gpt-4.1-mini"], times: 0, status: 502, errorBody: CANARY_BODY, headers: CANARY_HEADERS });
      const seen = await ask(tag, { service: { route: "pinned" } });
      expectError(seen, 502, "upstream_error");
      expect(await mockSaw(tag)).toEqual(["gpt-4.1-mini", "gpt-4.1-mini", MINI]);
      expect(await debits(seen)).toEqual([]);
    });

    it("every attempt unreachable: 504 after the attempt limit, nothing billed, nothing held", async () => {
      const tag = marker();
      await stack.mockScript({ match: tag, times: 0, fault: "reset-before-headers" });
      const seen = await ask(tag);
      expectError(seen, 504, "upstream_error");
      expect(seen.headers.get("x-service-reason")).toBeNull(); // error answers carry no routing headers
      expect(await mockSaw(tag)).toEqual(["gpt-4.1-mini", "gpt-4.1-mini", MINI, GEMINI]);
      expect(await debits(seen)).toEqual([]);
      expect((await stack.balance(project.projectId)).held.nano).toBe("0");
    });

    it("a Retry-After beyond the wait budget: no wait, the next path at once; the last failure is answered with it", async () => {
      const tag = marker();
      await stack.mockScript({
        match: tag,
        times: 0,
        status: 429,
        headers: { "retry-after": "30", ...CANARY_HEADERS },
        errorBody: CANARY_BODY,
      });
      const seen = await ask(tag);
      expectError(seen, 429, "rate_limit_error");
      expect(seen.headers.get("retry-after")).toBe("30");
      expect(await mockSaw(tag)).toEqual(["gpt-4.1-mini", MINI, GEMINI]);
      expect(seen.ms).toBeLessThan(30_000);
      expect(await debits(seen)).toEqual([]);
    });

    it("a client that leaves during a retry's wait: nothing more goes upstream, nothing is billed or held", async () => {
      const tag = marker();
      await stack.mockScript({
        match: tag,
        times: 0,
        status: 503,
        headers: { "retry-after": "2", ...CANARY_HEADERS },
        errorBody: CANARY_BODY,
      });
      const aborted = new AbortController();
      const request = stack.post(
        "/v1/chat/completions",
        project.key,
        { model: "auto", messages: [{ role: "user", content: tag }] },
        0,
        aborted.signal,
      );
      await expect.poll(() => mockSaw(tag)).toHaveLength(1);
      aborted.abort();
      await request.catch(() => undefined);
      await new Promise((resolve) => setTimeout(resolve, 2500)); // past the Retry-After the retry would have waited for
      expect(await mockSaw(tag)).toHaveLength(1);
      const entries = (await stack.ledger(project.projectId)).filter((entry) => JSON.stringify(entry).includes(tag));
      expect(entries).toEqual([]);
      expect((await stack.balance(project.projectId)).held.nano).toBe("0");
    });

    it("an upstream redirect (307) on every path: 502 upstream_error, never the 3xx nor its Location", async () => {
      const tag = marker();
      await stack.mockScript({
        match: tag,
        times: 0,
        status: 307,
        headers: { location: `https://internal.example/${CANARY}`, ...CANARY_HEADERS },
      });
      const seen = await ask(tag);
      expectError(seen, 502, "upstream_error");
      expect(seen.headers.get("location")).toBeNull();
      expect(await mockSaw(tag)).toEqual(["gpt-4.1-mini", MINI, GEMINI]); // the path's fault: no same-path retry, the next path
      expect(await debits(seen)).toEqual([]);
      expect((await stack.balance(project.projectId)).held.nano).toBe("0");
    });

    it("a non-transient refusal (400) returns at once, normalized, after one attempt", async () => {
      const tag = marker();
      await stack.mockScript({ match: tag, times: 0, status: 400, errorBody: CANARY_BODY, headers: CANARY_HEADERS });
      const seen = await ask(tag);
      expectError(seen, 400, "upstream_rejected");
      expect(await mockSaw(tag)).toEqual(["gpt-4.1-mini"]);
      expect(await debits(seen)).toEqual([]);
    });

    it("embeddings: a 503 once is retried the same way", async () => {
      const tag = marker();
      await stack.mockScript({ match: tag, times: 1, status: 503, errorBody: CANARY_BODY, headers: CANARY_HEADERS });
      const response = await stack.post("/v1/embeddings", project.key, { model: "openai/text-embedding-3-small", input: tag });
      const seen = { status: response.status, headers: response.headers, text: await response.text(), ms: 0 };
      answers.push(seen);
      expect(seen.status).toBe(200);
      expect(await mockSaw(tag)).toEqual(["text-embedding-3-small", "text-embedding-3-small"]);
      expect(await debits(seen)).toEqual([{ nano: costNano(seen), model: "openai/text-embedding-3-small", access_path: "openai" }]);
    });

    it("a non-streamed body cut half-way: nothing reached the client, so it is retried; billed once", async () => {
      const tag = marker();
      await stack.mockScript({ match: tag, times: 1, fault: "reset-mid-stream" });
      const seen = await ask(tag);
      expect(seen.status).toBe(200);
      expect(outcomes(seen)).toEqual([`body_unreadable ${MINI} openai`, `ok ${MINI} openai`]);
      expect(await debits(seen)).toEqual([{ nano: costNano(seen), model: MINI, access_path: "openai" }]);
    });
  });

  describe("streams", () => {
    interface Streamed {
      seen: Seen;
      events: string[];
      comments: number;
      commentsBeforeFirstEvent: number;
    }

    async function stream(tag: string, extra: Record<string, unknown> = {}): Promise<Streamed> {
      const seen = await post({ model: "auto", stream: true, messages: [{ role: "user", content: tag }], ...extra });
      const blocks = seen.text.split("\n\n").map((block) => block.trim());
      const firstData = blocks.findIndex((block) => block.startsWith("data: "));
      const isComment = (block: string) => block.startsWith(":");
      return {
        seen,
        events: sseData(seen.text),
        comments: blocks.filter(isComment).length,
        commentsBeforeFirstEvent: blocks.slice(0, firstData === -1 ? blocks.length : firstData).filter(isComment).length,
      };
    }

    const parse = (data: string) =>
      JSON.parse(data) as { choices?: { delta?: { content?: string } }[]; usage?: { cost: number }; error?: unknown };

    async function expectCutAfterContent(result: Streamed, tag: string): Promise<void> {
      expect(result.seen.status).toBe(200);
      expect(result.events).not.toContain("[DONE]");
      expect(parse(result.events.at(-1)!).error).toEqual({ type: "upstream_error", code: 502, message: expect.any(String), param: null });
      const chunks = result.events.slice(0, -1).map(parse);
      expect(chunks.some((chunk) => (chunk.choices?.[0]?.delta?.content ?? "").length > 0)).toBe(true);
      const billed = BigInt(Math.round(chunks.at(-1)!.usage!.cost * 1e9)); // the usage chunk before the error event
      expect(billed).toBeGreaterThan(0n);
      expect(await debits(result.seen)).toEqual([{ nano: billed, model: MINI, access_path: "openai" }]);
      expect(await mockSaw(tag)).toHaveLength(1); // no retry once content reached the client
      expect((await stack.balance(project.projectId)).held.nano).toBe("0");
    }

    it.each([
      ["a connection reset mid-stream", "reset-mid-stream"],
      ["an OpenAI error event mid-stream", "error-event-mid-stream"],
      ["an Anthropic `event: error` mid-stream", "anthropic-error-event-mid-stream"],
    ])("%s: content, a usage chunk for it, one error event, no [DONE], billed once", async (_name, fault) => {
      const tag = marker();
      await stack.mockScript({ match: tag, fault, chunkDelayMs: 20 });
      await expectCutAfterContent(await stream(tag), tag);
    });

    it("a stall mid-stream: keep-alive comments while waiting, cut at the idle limit, then the same honest ending", async () => {
      const tag = marker();
      await stack.mockScript({ match: tag, fault: "stall-mid-stream", chunkDelayMs: 20 });
      const result = await stream(tag);
      expect(result.seen.ms).toBeLessThan(10_000); // cut near the 2 s idle limit, not left hanging
      expect(result.comments).toBeGreaterThanOrEqual(2); // 2 s idle limit, a comment every 400 ms
      await expectCutAfterContent(result, tag);
    });

    it("malformed SSE mid-stream: counted and logged; the content it held is lost, so the stream ends as broken, billed for what was delivered", async () => {
      const tag = marker();
      await stack.mockScript({ match: tag, fault: "malformed-sse", chunkDelayMs: 20 });
      const result = await stream(tag);
      expect(result.seen.text).not.toContain("malformed");
      await expectCutAfterContent(result, tag);
      const metrics = await (await fetch(`${stack.metricsUrl}/metrics`)).text();
      expect(metrics).toMatch(/^gateway_upstream_malformed_events_total\{provider="openai",content_lost="true"\} [1-9]/m);
      // The data plane writes its log lines in batches.
      await new Promise((resolve) => setTimeout(resolve, 3 * LOG_FLUSH_MS));
      const logged = stack.dataPlanes[0]!.output()
        .split("\n")
        .filter((line) => line.includes("malformed upstream SSE event"));
      expect(logged.some((line) => line.includes(result.seen.headers.get("x-request-id")!))).toBe(true);
    });

    it("a slow first byte: keep-alive comments before the first event, then the whole stream", async () => {
      const tag = marker();
      await stack.mockScript({ match: tag, firstChunkDelayMs: 1100 });
      const result = await stream(tag);
      expect(result.seen.status).toBe(200);
      expect(result.commentsBeforeFirstEvent).toBeGreaterThanOrEqual(2);
      expect(result.events.at(-1)).toBe("[DONE]");
      expect(await mockSaw(tag)).toHaveLength(1);
    });

    it("a stream that stalls before its first event: cut at the idle limit and retried, as nothing reached the client", async () => {
      const tag = marker();
      await stack.mockScript({ match: tag, times: 1, firstChunkDelayMs: 3000 });
      const result = await stream(tag);
      expect(result.seen.status).toBe(200);
      expect(result.events.at(-1)).toBe("[DONE]");
      expect(await mockSaw(tag)).toEqual(["gpt-4.1-mini", "gpt-4.1-mini"]);
      expect(result.commentsBeforeFirstEvent).toBeGreaterThanOrEqual(2);
      expect(await debits(result.seen)).toHaveLength(1);
      // Its headers went out with the first keep-alive comment, during the first attempt: they say so,
      // and the last JSON event (the usage chunk) carries their final values.
      expect(result.seen.headers.get("x-service-reason")).toBe(`auto -> ${MINI} via openai, 1 attempt so far`);
      expect((JSON.parse(result.events.at(-2)!) as { service: unknown }).service).toEqual({
        "x-service-model": MINI,
        "x-service-reason": `auto -> ${MINI} via openai, 2 attempts`,
      });
    });

    it("a 503 once before the first byte: retried, the client sees one clean stream", async () => {
      const tag = marker();
      await stack.mockScript({ match: tag, times: 1, status: 503, errorBody: CANARY_BODY, headers: CANARY_HEADERS });
      const result = await stream(tag);
      expect(result.seen.status).toBe(200);
      expect(result.events.at(-1)).toBe("[DONE]");
      expect(result.events.filter((data) => data.includes('"error"'))).toEqual([]);
      expect(await mockSaw(tag)).toHaveLength(2);
    });

    it("failures before the first byte, fast: the HTTP status and JSON error body, not a stream", async () => {
      const tag = marker();
      await stack.mockScript({ match: tag, times: 0, status: 503, errorBody: CANARY_BODY, headers: CANARY_HEADERS });
      const result = await stream(tag);
      expectError(result.seen, 503, "upstream_error");
      expect(result.seen.headers.get("content-type")).toMatch(/^application\/json/);
      expect(await mockSaw(tag)).toHaveLength(4);
      expect(await debits(result.seen)).toEqual([]);
    });

    it("failures after keep-alive comments went out: one error event with the upstream's status, no [DONE], nothing billed", async () => {
      const tag = marker();
      await stack.mockScript({ match: tag, times: 0, status: 503, latencyMs: 650, errorBody: CANARY_BODY, headers: CANARY_HEADERS });
      const result = await stream(tag);
      expect(result.seen.status).toBe(200);
      expect(result.commentsBeforeFirstEvent).toBeGreaterThanOrEqual(1);
      expect(result.events).toHaveLength(1);
      // The headers went out during the first attempt and say so; the error event says how it ended.
      expect(result.seen.headers.get("x-service-reason")).toMatch(/, 1 attempt so far$/);
      expect(JSON.parse(result.events[0]!)).toEqual({
        error: { type: "upstream_error", code: 503, message: expect.any(String), param: null },
        service: { "x-service-model": GEMINI, "x-service-reason": `auto -> ${GEMINI} via openrouter, 4 attempts` },
      });
      expect(await mockSaw(tag)).toHaveLength(4);
      expect(await debits(result.seen)).toEqual([]);
      expect((await stack.balance(project.projectId)).held.nano).toBe("0");
    });
  });

  it("the canary in upstream error bodies and headers never reached a client or a log line", async () => {
    expect(answers.length).toBeGreaterThan(15);
    // The mock did send it in error bodies: the checks below could not pass by accident.
    const sent = (await stack.mockRequests()).filter((request) =>
      JSON.stringify(request.responseBody ?? request.responseText ?? "").includes(CANARY),
    );
    expect(sent.length).toBeGreaterThan(10);
    for (const seen of answers) {
      expect(seen.text).not.toContain(CANARY);
      expect(JSON.stringify([...seen.headers])).not.toContain(CANARY);
    }
    // The data plane writes its log lines in batches: wait until the last requests' lines are out.
    await new Promise((resolve) => setTimeout(resolve, 3 * LOG_FLUSH_MS));
    expect(stack.dataPlanes[0]!.output()).toContain(answers.at(-1)!.headers.get("x-request-id")!);
    expect(stack.dataPlanes[0]!.output()).not.toContain(CANARY);
    expect(stack.controlPlane.output()).not.toContain(CANARY);
  });
});

describe("circuit breaker per access path", () => {
  let stack: GatewayStack;
  let project: TestProject;
  const NANO_DIRECT = '"model":"gpt-4.1-nano"';

  beforeAll(async () => {
    stack = await startStack({
      backend: "pglite",
      // One project's failures open the path's circuit here; the multi-project rule has its own suite below.
      dataPlaneEnv: {
        CIRCUIT_FAILURE_THRESHOLD: "3",
        CIRCUIT_COOLDOWN_MS: "1500",
        UPSTREAM_RETRY_BACKOFF_MS: "10",
        CIRCUIT_MIN_PROJECTS: "1",
      },
    });
    project = await stack.createProject({ balanceUsd: "1.00" });
  });

  afterAll(async () => {
    await stack?.stop();
  });

  const ask = (model: string) =>
    stack.post("/v1/chat/completions", project.key, { model, messages: [{ role: "user", content: marker() }] });
  const nanoCalls = async () => (await stack.mockRequests()).filter((request) => request.body.model === "gpt-4.1-nano").length;

  async function circuits(): Promise<{ path: string; state: string; consecutive_failures: number; opens: number }[]> {
    return (await stack.dataPlaneHealth<{ circuits: never[] }>()).detail.circuits;
  }

  async function circuitMetric(): Promise<string | undefined> {
    const text = await (await fetch(`${stack.metricsUrl}/metrics`)).text();
    return /^gateway_upstream_circuit_state\{access_path="openai\/gpt-4\.1-nano"\} (\d+)$/m.exec(text)?.[1];
  }

  it("opens after consecutive failures, skips the path while open, lets a probe through after the cool-down, and closes on its success", async () => {
    await stack.mockScript({ match: NANO_DIRECT, times: 3, status: 503 });
    expect((await ask("openai/gpt-4.1-nano")).status).toBe(503); // two failures: the attempt and its retry
    expect(await circuits()).toEqual([]);
    expect((await ask("openai/gpt-4.1-nano")).status).toBe(503); // the third opens the circuit: no retry into it
    expect(await nanoCalls()).toBe(3);
    expect(await circuits()).toEqual([
      { path: "openai/gpt-4.1-nano", state: "open", consecutive_failures: 3, opens: 1, retry_in_ms: expect.any(Number), projects_open: 1 },
    ]);
    expect(await circuitMetric()).toBe("2");

    // Open: the path is not called at all.
    const skipped = await ask("openai/gpt-4.1-nano");
    expect(skipped.status).toBe(504);
    expect(await nanoCalls()).toBe(3);
    // Routing demotes it: the economy tier answers with its other model at once.
    const routed = await ask("auto:economy");
    expect(routed.status).toBe(200);
    expect(routed.headers.get("x-service-model")).toBe("openai/gpt-4o-mini");
    expect(routed.headers.get("x-service-reason")).toMatch(/, 1 attempt$/);

    // After the cool-down one probe goes through; the upstream has recovered, so the circuit closes.
    await new Promise((resolve) => setTimeout(resolve, 1600));
    expect((await circuits())[0]?.state).toBe("half_open");
    expect(await circuitMetric()).toBe("1");
    const probe = await ask("openai/gpt-4.1-nano");
    expect(probe.status).toBe(200);
    expect(await nanoCalls()).toBe(4);
    expect(await circuits()).toEqual([]);
    expect(await circuitMetric()).toBe("0");
  });
});

describe("circuit breaker: one project's failures do not close a path to the others", () => {
  let stack: GatewayStack;
  const NANO = "openai/gpt-4.1-nano";

  beforeAll(async () => {
    stack = await startStack({
      backend: "pglite",
      // The default CIRCUIT_MIN_PROJECTS (2); a long cool-down so nothing half-opens during the test.
      dataPlaneEnv: { CIRCUIT_FAILURE_THRESHOLD: "3", CIRCUIT_COOLDOWN_MS: "600000", UPSTREAM_RETRY_BACKOFF_MS: "10" },
    });
  });

  afterAll(async () => {
    await stack?.stop();
  });

  const ask = (project: TestProject, content: string) =>
    stack.post("/v1/chat/completions", project.key, { model: NANO, messages: [{ role: "user", content }] });
  const nanoCalls = async () => (await stack.mockRequests()).filter((request) => request.body.model === "gpt-4.1-nano").length;

  async function circuits(): Promise<{ path: string; state: string; projects_open: number }[]> {
    return (await stack.dataPlaneHealth<{ circuits: never[] }>()).detail.circuits;
  }

  async function metric(name: string): Promise<string | undefined> {
    const text = await (await fetch(`${stack.metricsUrl}/metrics`)).text();
    return new RegExp(`^${name}\\{access_path="openai/gpt-4\\.1-nano"\\} (\\d+)$`, "m").exec(text)?.[1];
  }

  it("opens a circuit for the failing project alone; failures from a second project open it for everyone", async () => {
    const [failing, other, third, fourth] = await Promise.all([0, 1, 2, 3].map(() => stack.createProject({ balanceUsd: "1.00" })));
    // The upstream fails every call carrying the first project's content (say, a prompt it chokes on).
    const poison = `poison-${marker()}`;
    await stack.mockScript({ match: poison, times: 0, status: 503 });
    for (let i = 0; i < 2; i++) expect((await ask(failing!, poison)).status).toBe(503);
    expect(await nanoCalls()).toBe(3); // the first call and its retry, then the third failure opens the circuit
    const skipped = await ask(failing!, poison);
    expect(skipped.status).toBe(504);
    expect(await nanoCalls()).toBe(3);
    expect(await circuits()).toEqual([expect.objectContaining({ path: NANO, state: "closed", projects_open: 1 })]);
    expect(await metric("gateway_upstream_circuit_state")).toBe("0");
    expect(await metric("gateway_upstream_project_circuits_open")).toBe("1");

    // Another project's calls still reach the path, and are answered.
    const answered = await ask(other!, marker());
    expect(answered.status).toBe(200);
    expect(answered.headers.get("x-service-reason")).toMatch(/, 1 attempt$/);
    expect(await nanoCalls()).toBe(4);

    // When the consecutive failures come from two projects, the path is down for everyone: its circuit opens.
    const outage = `outage-${marker()}`;
    await stack.mockScript({ match: outage, times: 0, status: 503 });
    expect((await ask(other!, outage)).status).toBe(503); // two failures (the attempt and its retry), one project
    expect(await metric("gateway_upstream_circuit_state")).toBe("0");
    expect((await ask(third!, outage)).status).toBe(503); // the third failure, from a second project
    expect(await circuits()).toEqual([expect.objectContaining({ path: NANO, state: "open" })]);
    expect(await metric("gateway_upstream_circuit_state")).toBe("2");
    const callsBefore = await nanoCalls();
    expect((await ask(fourth!, marker())).status).toBe(504);
    expect(await nanoCalls()).toBe(callsBefore);
  });
});
