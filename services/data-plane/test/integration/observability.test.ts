// Operations: both planes' /metrics (on their own ports) after real traffic, one structured log
// line per request carrying the id the client got in x-request-id (and the
// control plane's line for the same id), and no secret or prompt in any log
// line at debug level: the caller's key, the admin and internal tokens, the
// provider key, the Authorization header, message contents.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { marker, startStack, type GatewayStack, type TestProject } from "../harness/gateway-stack";

const PROVIDER_KEY = "upstream-secret-key";

describe("observability", () => {
  let stack: GatewayStack;
  let project: TestProject;
  const prompts: string[] = [];
  let revokedKey = "";

  beforeAll(async () => {
    stack = await startStack({
      backend: "pglite",
      dataPlaneEnv: { LOG_LEVEL: "debug", UPSTREAM_RETRY_BACKOFF_MS: "10" },
      controlPlaneEnv: { LOG_LEVEL: "debug" },
    });
    project = await stack.createProject({ balanceUsd: "2.00" });

    // A representative mix: answers, a stream, a retry, an upstream refusal, a bad key, a revoked key, an embeddings call.
    const chat = (extra: Record<string, unknown> = {}, key = project.key) => {
      const prompt = `secret prompt ${marker()}`;
      prompts.push(prompt);
      return stack.post("/v1/chat/completions", key, { model: "auto", messages: [{ role: "user", content: prompt }], ...extra });
    };
    await (await chat()).text();
    await (await chat({ stream: true })).text();
    const retried = `secret prompt ${marker()}`;
    prompts.push(retried);
    await stack.mockScript({ match: retried, times: 1, status: 503 });
    await (await stack.post("/v1/chat/completions", project.key, { model: "auto", messages: [{ role: "user", content: retried }] })).text();
    const refused = `secret prompt ${marker()}`;
    prompts.push(refused);
    await stack.mockScript({ match: refused, times: 0, status: 400 });
    await (await stack.post("/v1/chat/completions", project.key, { model: "auto", messages: [{ role: "user", content: refused }] })).text();
    await (await chat({}, "sk-not-a-real-key-0123456789")).text();
    await (
      await stack.post("/v1/embeddings", project.key, {
        model: "openai/text-embedding-3-small",
        input: `secret embedding input ${marker()}`,
      })
    ).text();
    const extra = await stack.admin<{ key: string; id: string }>("POST", `/admin/projects/${project.projectId}/keys`, {});
    revokedKey = extra.json.key;
    await (await chat({}, extra.json.key)).text();
    await stack.admin("POST", `/admin/keys/${extra.json.id}/revoke`, {});
    await (await chat({}, extra.json.key)).text();
  });

  afterAll(async () => {
    await stack?.stop();
  });

  const lines = (output: string) =>
    output
      .split("\n")
      .filter((line) => line.startsWith("{"))
      .map((line) => JSON.parse(line) as Record<string, unknown>);

  it("exposes the data plane's metrics after traffic", async () => {
    const text = await (await fetch(`${stack.metricsUrl}/metrics`)).text();
    expect(text).toMatch(
      /^gateway_requests_total\{route="\/v1\/chat\/completions",status="200",model="openai\/gpt-4\.1-mini",access_path="openai"\} [1-9]/m,
    );
    expect(text).toMatch(/^gateway_requests_total\{route="\/v1\/chat\/completions",status="401",model="",access_path=""\} [1-9]/m);
    // Each a sample line (name, labels, value), not just its # HELP: a positive value where traffic must have put one.
    const positive = (series: string) =>
      new RegExp(`^${series.replace(/[{}()[\].+*?^$|\\]/g, "\\$&")} ([1-9][0-9.e+]*|0\\.[0-9]*[1-9][0-9e+-]*)$`, "m");
    for (const series of [
      'gateway_request_duration_seconds_count{route="/v1/chat/completions",stream="false"}',
      'gateway_request_duration_seconds_count{route="/v1/chat/completions",stream="true"}',
      'gateway_upstream_latency_seconds_count{provider="openai"}',
      'gateway_upstream_first_event_seconds_count{provider="openai"}',
      'gateway_overhead_seconds_count{phase="before_upstream"}',
      'gateway_overhead_seconds_count{phase="after_upstream"}',
      'gateway_key_cache_lookups_total{result="hit"}',
      'gateway_key_cache_lookups_total{result="miss"}',
      'gateway_control_plane_call_seconds_count{method="Reserve",outcome="ok"}',
      'gateway_control_plane_call_seconds_count{method="Settle",outcome="ok"}',
      "process_resident_memory_bytes",
    ]) {
      expect(text, series).toMatch(positive(series));
    }
    expect(text).toMatch(/^nodejs_eventloop_lag_seconds [0-9.e+-]+$/m); // may well be 0
    expect(text).toMatch(/^gateway_upstream_retries_total\{provider="openai"\} 1$/m);
    expect(text).toMatch(/^gateway_upstream_attempts_total\{provider="openai",outcome="http_503"\} 1$/m);
    expect(text).toMatch(/^gateway_rate_limit_rejections_total 0$/m);
    expect(text).toMatch(/^gateway_billing_pending 0$/m);
    expect(text).toMatch(/^gateway_draws_under_way 0$/m);
    expect(text).toMatch(/^gateway_draw_journal_circuit_open 0$/m); // no Redis here: no journal, nothing bypassed
    expect(text).toMatch(/^gateway_rate_limit_block_admissions_total \d+$/m);
    // Everything cumulative is a counter, named _total (rate() and increase() apply); labels say access_path, not path.
    for (const name of [
      "gateway_rate_limit_fallback_checks_total",
      "gateway_rate_limit_block_admissions_total",
      "gateway_budget_lease_events_total",
      "gateway_control_plane_fast_failures_total",
      "gateway_upstream_circuit_opens_total",
      "gateway_unbilled_usd_total",
    ])
      expect(text).toMatch(new RegExp(`^# TYPE ${name} counter$`, "m"));
    expect(text).not.toMatch(/^gateway_[a-z_]+\{[^}]*\bpath="/m);
  });

  it("exposes the control plane's metrics after traffic", async () => {
    const text = await (await fetch(`${stack.controlPlaneMetricsUrl}/metrics`)).text();
    expect(text).toMatch(/^gateway_holds_total\{event="reserve",outcome="reserved"\} [1-9]/m);
    expect(text).toMatch(/^gateway_holds_total\{event="settle",outcome="settled"\} [1-9]/m);
    expect(text).toMatch(/^gateway_holds_total\{event="release",outcome="released"\} [1-9]/m);
    // USD, the base unit: the project's $2.00 less what the traffic cost.
    const balance = Number(/^gateway_ledger_balance_usd (\S+)$/m.exec(text)?.[1]);
    expect(balance).toBeGreaterThan(0);
    expect(balance).toBeLessThan(2);
    expect(text).toMatch(/^gateway_ledger_held_usd 0$/m);
    expect(text).toMatch(/^gateway_usage_pending_debits \d+$/m);
    expect(text).toMatch(/^gateway_grpc_server_seconds_count\{method="Reserve",outcome="ok"\} [1-9]/m);
    expect(text).toMatch(/^gateway_holds_expired_total 0$/m);
    for (const name of [
      "gateway_holds_total",
      "gateway_holds_expired_total",
      "gateway_draw_journal_entries_applied_total",
      "gateway_draw_journal_deferrals_total",
      "gateway_money_batches_total",
      "gateway_money_operations_total",
    ])
      expect(text).toMatch(new RegExp(`^# TYPE ${name} counter$`, "m"));
    expect(text).toMatch(/^nodejs_eventloop_lag_seconds [0-9.e-]+$/m);
  });

  it("serves /metrics only on the metrics ports, not on the public data-plane port or the admin port", async () => {
    for (const base of [stack.url, stack.adminUrl]) {
      const response = await fetch(`${base}/metrics`);
      expect(response.status, base).toBe(404);
      expect(await response.text(), base).not.toMatch(/gateway_/);
    }
    for (const base of [stack.metricsUrl, stack.controlPlaneMetricsUrl]) {
      expect(new URL(base).port).not.toBe(new URL(stack.url).port);
      expect(new URL(base).port).not.toBe(new URL(stack.adminUrl).port);
      // The scrape listener has the one route.
      expect((await fetch(`${base}/v1/models`)).status, base).toBe(404);
    }
  });

  it("logs one structured line per request with the id the client got, and the control plane logs the same id", async () => {
    const prompt = `secret prompt ${marker()}`;
    prompts.push(prompt);
    const response = await stack.post("/v1/chat/completions", project.key, {
      model: "auto",
      messages: [{ role: "user", content: prompt }],
    });
    const answer = (await response.json()) as { usage: { prompt_tokens: number; completion_tokens: number; cost: number } };
    const requestId = response.headers.get("x-request-id")!;
    await expect
      .poll(() => lines(stack.dataPlanes[0]!.output()).find((line) => line.reqId === requestId && line.msg === "request completed"))
      .toMatchObject({
        route: "/v1/chat/completions",
        status: 200,
        model: "openai/gpt-4.1-mini",
        path: "openai",
        project: project.projectId,
        key_id: project.keyId,
        attempts: ["ok"],
        outcome: "ok",
        // The billed units by kind and the cost: what the client was told.
        units: { input: answer.usage.prompt_tokens, output: answer.usage.completion_tokens },
        cost_usd: answer.usage.cost,
      });

    const refused = await stack.post("/v1/chat/completions", project.key, {
      model: "nobody/none",
      messages: [{ role: "user", content: "hi" }],
    });
    expect(refused.status).toBe(400);
    const refusedId = refused.headers.get("x-request-id")!;
    await expect
      .poll(() => lines(stack.dataPlanes[0]!.output()).find((line) => line.reqId === refusedId && line.msg === "request completed"))
      .toMatchObject({ status: 400, key_id: project.keyId, outcome: "model_unknown" });
    await expect
      .poll(() =>
        lines(stack.controlPlane.output())
          .filter((line) => line.reqId === requestId)
          .map((line) => line.method),
      )
      .toEqual(expect.arrayContaining(["Reserve", "Settle"]));
  });

  it("echoes a client's x-request-id and logs it, while the ledger keeps the gateway's own id (x-gateway-request-id)", async () => {
    const clientId = `client-${marker().replace(/[^A-Za-z0-9]/g, "")}.1:a`;
    const ask = (headers: Record<string, string>, stream = false) =>
      fetch(`${stack.url}/v1/chat/completions`, {
        method: "POST",
        headers: { authorization: `Bearer ${project.key}`, "content-type": "application/json", ...headers },
        body: JSON.stringify({ model: "auto", stream, messages: [{ role: "user", content: "hi" }] }),
      });
    // The same client id twice: echoed both times, and billed as two requests (it never keys the money).
    const answers = [await ask({ "x-request-id": clientId }), await ask({ "x-request-id": clientId }, true)];
    const gatewayIds: string[] = [];
    for (const answer of answers) {
      await answer.text();
      expect(answer.status).toBe(200);
      expect(answer.headers.get("x-request-id")).toBe(clientId);
      gatewayIds.push(answer.headers.get("x-gateway-request-id")!);
    }
    expect(gatewayIds[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(gatewayIds[1]).not.toBe(gatewayIds[0]);
    const ledger = await stack.ledger(project.projectId);
    for (const id of gatewayIds) expect(ledger.filter((entry) => entry.request_id === id)).toHaveLength(1);
    await expect
      .poll(() => lines(stack.dataPlanes[0]!.output()).find((line) => line.reqId === gatewayIds[0] && line.msg === "request completed"))
      .toMatchObject({ client_request_id: clientId, status: 200 });

    // An id too long or with other characters is not echoed: the gateway's own is.
    for (const unusable of ["x".repeat(129), "has space", "semi;colon"]) {
      const answer = await ask({ "x-request-id": unusable });
      await answer.text();
      expect(answer.headers.get("x-request-id")).toBe(answer.headers.get("x-gateway-request-id"));
    }
  });

  it("never logs a key, token, Authorization header or prompt, at debug level", async () => {
    const extraKeys = (await stack.admin<{ data: { hint: string }[] }>("GET", `/admin/projects/${project.projectId}/keys`)).json;
    expect(extraKeys).toBeTruthy();
    const output = stack.dataPlanes[0]!.output() + stack.controlPlane.output();
    expect(lines(output).length).toBeGreaterThan(10); // the logs are there to be searched
    expect(revokedKey).not.toBe("");
    for (const secret of [
      project.key,
      revokedKey,
      stack.adminToken,
      stack.internalToken,
      PROVIDER_KEY,
      "sk-not-a-real-key-0123456789",
      "Bearer ",
      ...prompts,
      "secret embedding input",
    ]) {
      expect(output.includes(secret), `log output contains ${secret.slice(0, 12)}...`).toBe(false);
    }
  });
});
