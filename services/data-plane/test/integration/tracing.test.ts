// Tracing end to end (docs/tracing.md): the real stack, its data plane the production bundle, exporting
// OTLP/HTTP JSON to an in-test receiver. A request carrying a client's traceparent gives one trace: the
// data plane's server span under the client's span, its auth, limit, reserve (or lease), attempt and
// settle (or draw) spans, the control plane's spans under the data plane's, and the upstream request
// carrying the attempt's traceparent. With tracing off nothing is exported and nothing is sent upstream.
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { marker, startStack, type GatewayStack, type TestProject } from "../harness/gateway-stack";
import { OtlpReceiver, type ReceivedSpan } from "../support/otlp-receiver";

const DATA_PLANE = "gateway-data-plane";
const CONTROL_PLANE = "gateway-control-plane";
const MODEL = "openai/gpt-4.1-mini";

/** A client's own span: a fresh trace id and span id, as its traceparent. */
function clientSpan(): { traceId: string; spanId: string; traceparent: string } {
  const traceId = randomBytes(16).toString("hex");
  const spanId = randomBytes(8).toString("hex");
  return { traceId, spanId, traceparent: `00-${traceId}-${spanId}-01` };
}

async function chat(stack: GatewayStack, key: string, traceparent: string, content: string, stream = false) {
  const response = await fetch(`${stack.url}/v1/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${key}`, traceparent },
    body: JSON.stringify({ model: MODEL, stream, messages: [{ role: "user", content }] }),
  });
  await response.text();
  expect(response.status).toBe(200);
  return response.headers.get("x-gateway-request-id")!;
}

const logLines = (output: string) =>
  output
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as Record<string, unknown>);

/** The data plane's log line for the request, once written (lines are written in batches). */
async function logLine(stack: GatewayStack, requestId: string): Promise<Record<string, unknown>> {
  let line: Record<string, unknown> | undefined;
  await expect
    .poll(
      () => {
        line = logLines(stack.dataPlanes[0]!.output()).find((entry) => entry.reqId === requestId && entry.msg === "request completed");
        return line !== undefined;
      },
      { timeout: 5000, interval: 50 },
    )
    .toBe(true);
  return line!;
}

/** The one span of `service` named `name` in `spans`. */
function only(spans: ReceivedSpan[], service: string, name: string): ReceivedSpan {
  const found = spans.filter((span) => span.service === service && span.name === name);
  expect(
    found.map((span) => span.name),
    `${service} ${name}`,
  ).toEqual([name]);
  return found[0]!;
}

describe("tracing on", () => {
  let receiver: OtlpReceiver;
  let stack: GatewayStack;

  beforeAll(async () => {
    receiver = await OtlpReceiver.start();
    const otel = {
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "http/json",
      OTEL_BSP_SCHEDULE_DELAY: "100",
    };
    stack = await startStack({
      backend: "pglite",
      productionDataPlane: true,
      // Three requests a second make a project busy: the burst below takes a budget lease.
      dataPlaneEnv: { ...otel, LOG_LEVEL: "info", UPSTREAM_RETRY_BACKOFF_MS: "10", LEASE_MIN_REQUESTS_PER_SECOND: "3" },
      controlPlaneEnv: otel,
    });
  });

  afterAll(async () => {
    await stack?.stop();
    await receiver?.close();
  });

  /** The trace's spans once the data plane's server span and the control plane's `lastCall` span have arrived. */
  async function traceOf(traceId: string, lastCall: string): Promise<ReceivedSpan[]> {
    await expect
      .poll(
        () => {
          const spans = receiver.trace(traceId);
          return (
            spans.some((span) => span.service === DATA_PLANE && span.kind === 2) &&
            spans.some((span) => span.service === CONTROL_PLANE && span.name === `gateway.v1.ControlPlane/${lastCall}`)
          );
        },
        { timeout: 15_000, interval: 100 },
      )
      .toBe(true);
    return receiver.trace(traceId);
  }

  it("links a request's spans to the client's traceparent, the control plane's spans and the upstream request", async () => {
    const project: TestProject = await stack.createProject({ balanceUsd: "1.00" });
    const client = clientSpan();
    const tag = marker();
    const requestId = await chat(stack, project.key, client.traceparent, `hello ${tag}`);
    const spans = await traceOf(client.traceId, "Settle");

    const server = only(spans, DATA_PLANE, "POST /v1/chat/completions");
    expect(server.parentSpanId).toBe(client.spanId);
    expect(server.kind).toBe(2);
    expect(server.attributes).toMatchObject({ "http.response.status_code": 200, "gateway.request_id": requestId });
    const auth = only(spans, DATA_PLANE, "auth");
    const limit = only(spans, DATA_PLANE, "limit");
    const reserve = only(spans, DATA_PLANE, "reserve");
    const attempt = only(spans, DATA_PLANE, "attempt");
    const settle = only(spans, DATA_PLANE, "settle");
    for (const child of [auth, limit, reserve, attempt, settle]) expect(child.parentSpanId, child.name).toBe(server.spanId);
    expect(auth.attributes["gateway.key_cache"]).toBe("miss");
    expect(limit.attributes["gateway.rate_limit.allowed"]).toBe(true);
    expect(attempt.kind).toBe(3);
    expect(attempt.attributes).toMatchObject({
      "gen_ai.provider.name": "openai",
      "gen_ai.request.model": MODEL,
      "gateway.upstream_model": "gpt-4.1-mini",
      "http.response.status_code": 200,
      "gateway.attempt.number": 1,
      "gateway.attempt.retry": false,
      "gateway.attempt.outcome": "ok",
    });
    expect(settle.attributes["gateway.money.outcome"]).toBe("SETTLED");

    // The control plane's server spans, each under the data-plane span that made the call.
    expect(only(spans, CONTROL_PLANE, "gateway.v1.ControlPlane/ValidateKey").parentSpanId).toBe(auth.spanId);
    const reserved = only(spans, CONTROL_PLANE, "gateway.v1.ControlPlane/Reserve");
    expect(reserved.parentSpanId).toBe(reserve.spanId);
    expect(reserved.attributes).toMatchObject({ "rpc.system": "grpc", "rpc.method": "Reserve", "gateway.request_id": requestId });
    expect(only(spans, CONTROL_PLANE, "gateway.v1.ControlPlane/Settle").parentSpanId).toBe(settle.spanId);

    // The upstream request carried the attempt's span as its parent.
    const [upstream] = await stack.mockRequestsWith(tag);
    expect(upstream!.headers.traceparent).toBe(`00-${client.traceId}-${attempt.spanId}-01`);

    // The request's log line names the trace and the server span.
    expect(await logLine(stack, requestId)).toMatchObject({ trace_id: client.traceId, span_id: server.spanId });
  });

  it("marks a stream's first token on its attempt", async () => {
    const project = await stack.createProject({ balanceUsd: "1.00" });
    const client = clientSpan();
    await chat(stack, project.key, client.traceparent, `stream ${marker()}`, true);
    const attempt = only(await traceOf(client.traceId, "Settle"), DATA_PLANE, "attempt");
    expect(attempt.events.map((event) => event.name)).toContain("first_token");
  });

  it("gives each attempt of a retried call its own span, the retry naming its reason", async () => {
    const project = await stack.createProject({ balanceUsd: "1.00" });
    const client = clientSpan();
    const tag = marker();
    await stack.mockScript({ match: tag, times: 1, status: 503 });
    await chat(stack, project.key, client.traceparent, `retried ${tag}`);
    const spans = await traceOf(client.traceId, "Settle");
    const attempts = spans
      .filter((span) => span.service === DATA_PLANE && span.name === "attempt")
      .sort((a, b) => Number(a.attributes["gateway.attempt.number"]) - Number(b.attributes["gateway.attempt.number"]));
    expect(attempts).toHaveLength(2);
    expect(attempts[0]!.attributes).toMatchObject({ "http.response.status_code": 503, "gateway.attempt.outcome": "http_503" });
    expect(attempts[0]!.status).toBe(2);
    expect(attempts[1]!.attributes).toMatchObject({
      "gateway.attempt.number": 2,
      "gateway.attempt.retry": true,
      "gateway.attempt.retry_reason": "http_503",
      "gateway.attempt.outcome": "ok",
    });
    // Each attempt's traceparent went upstream with it.
    const upstream = await stack.mockRequestsWith(tag);
    expect(upstream.map((request) => request.headers.traceparent)).toEqual(
      attempts.map((attempt) => `00-${client.traceId}-${attempt.spanId}-01`),
    );
  });

  it("traces a busy project's lease and draws: each draw reaches the control plane's Draw span, as its parent or a link", async () => {
    const project = await stack.createProject({ balanceUsd: "1.00" });
    const clients = Array.from({ length: 8 }, clientSpan);
    await Promise.all(clients.map((client) => chat(stack, project.key, client.traceparent, `burst ${marker()}`)));
    await expect
      .poll(() => clients.filter((client) => receiver.trace(client.traceId).some((span) => span.name === "draw")).length, {
        timeout: 15_000,
        interval: 100,
      })
      .toBeGreaterThan(0);
    const spans = clients.flatMap((client) => receiver.trace(client.traceId));
    expect(spans.some((span) => span.service === DATA_PLANE && span.name === "lease")).toBe(true);
    // The Lease call is traced under the request whose reserve asked for it.
    const leaseCall = receiver.spans.find(
      (span) => span.name === "gateway.v1.ControlPlane/Lease" && clients.some((c) => c.traceId === span.traceId),
    );
    expect(leaseCall).toBeDefined();
    expect(spans.find((span) => span.spanId === leaseCall!.parentSpanId)?.name).toMatch(/^(reserve|lease)$/);

    const draws = spans.filter((span) => span.service === DATA_PLANE && span.name === "draw");
    await expect
      .poll(
        () => {
          const drawCalls = receiver.spans.filter((span) => span.name === "gateway.v1.ControlPlane/Draw");
          const reached = new Set(drawCalls.flatMap((call) => [call.parentSpanId, ...call.links.map((link) => link.spanId)]));
          return draws.filter((draw) => !reached.has(draw.spanId)).map((draw) => draw.spanId);
        },
        { timeout: 15_000, interval: 100 },
      )
      .toEqual([]);
  });
});

describe("tracing off", () => {
  let receiver: OtlpReceiver;
  let stack: GatewayStack;

  beforeAll(async () => {
    receiver = await OtlpReceiver.start();
    // An endpoint is set, but the exporter is "none": off, as OTEL_TRACES_EXPORTER says.
    const otel = { OTEL_TRACES_EXPORTER: "none", OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_BSP_SCHEDULE_DELAY: "100" };
    stack = await startStack({ backend: "pglite", dataPlaneEnv: { ...otel, LOG_LEVEL: "info" }, controlPlaneEnv: otel });
  });

  afterAll(async () => {
    await stack?.stop();
    await receiver?.close();
  });

  it("exports nothing and sends no traceparent upstream; the log line still names the client's trace", async () => {
    const project = await stack.createProject({ balanceUsd: "1.00" });
    const client = clientSpan();
    const tag = marker();
    const requestId = await chat(stack, project.key, client.traceparent, `untraced ${tag}`);
    const [upstream] = await stack.mockRequestsWith(tag);
    expect(upstream!.headers.traceparent).toBeUndefined();
    const line = await logLine(stack, requestId);
    expect(line.trace_id).toBe(client.traceId);
    expect(line.span_id).toBeUndefined();
    // Stopped, a tracing process would flush what it buffered: nothing arrives.
    await stack.stop();
    expect(receiver.requests).toBe(0);
  });
});
