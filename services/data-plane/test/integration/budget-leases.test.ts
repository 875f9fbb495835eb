// Budget leases end to end (docs/money.md): a busy project's requests are
// served without a hold each, billed by draws exactly as settles would bill
// them, the lease goes back when idle (reduced at once to what requests still
// in flight set aside, released after them), and a data plane killed while serving
// under a lease loses no money (the lease expires; only what was drawn is on
// the ledger).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { costToNano, startStack, type GatewayStack, type Hold } from "../harness/gateway-stack";
import { sseData } from "../support/sse-data";

const HOLD_TTL_SECONDS = 3;

describe("budget leases", () => {
  let stack: GatewayStack;

  beforeAll(async () => {
    stack = await startStack({
      backend: "postgresql",
      dataPlanes: 2,
      dataPlaneEnv: { LEASE_MIN_REQUESTS_PER_SECOND: "5", LEASE_IDLE_MS: "500", LEASE_MAX_AGE_MS: "2000", DEFAULT_RPM_LIMIT: "0" },
      controlPlaneEnv: { HOLD_TTL_SECONDS: String(HOLD_TTL_SECONDS), HOLD_SWEEP_INTERVAL_MS: "200" },
    });
  });

  afterAll(async () => {
    await stack?.stop();
  });

  async function allHolds(projectId: string): Promise<Hold[]> {
    const lists = await Promise.all(
      (["active", "settled", "released", "expired", "refused"] as const).map((status) => stack.holds(projectId, status)),
    );
    return lists.flat();
  }

  /** One request; what the client was told it cost (the usage chunk of a stream, usage.cost otherwise). */
  async function call(projectKey: string, tag: string, stream: boolean, dataPlane: number): Promise<{ requestId: string; told: bigint }> {
    const response = await stack.post(
      "/v1/chat/completions",
      projectKey,
      {
        model: "openai/gpt-4.1-mini",
        max_tokens: 64,
        stream,
        ...(stream ? { stream_options: { include_usage: true } } : {}),
        messages: [{ role: "user", content: tag }],
      },
      dataPlane,
    );
    expect(response.status).toBe(200);
    const requestId = response.headers.get("x-request-id")!;
    if (!stream) return { requestId, told: costToNano(((await response.json()) as { usage: { cost: number } }).usage.cost) };
    const events = sseData(await response.text());
    expect(events.at(-1)).toBe("[DONE]");
    const usage = events
      .slice(0, -1)
      .map((event) => JSON.parse(event) as { usage?: { cost: number } })
      .find((chunk) => chunk.usage)!.usage!;
    return { requestId, told: costToNano(usage.cost) };
  }

  it("a busy project is served under leases: no hold per request, one debit each equal to what the client was told, and the lease goes back when idle", async () => {
    const project = await stack.createProject({ balanceUsd: "10.00" });
    const run = `lease-${Date.now()}`;
    await stack.mockScript({ match: run, times: 0, usage: "random" });
    const answers: { requestId: string; told: bigint }[] = [];
    // 8 at a time, 120 in all, on one data plane: well past 5 requests per second.
    for (let batch = 0; batch < 15; batch++) {
      answers.push(
        ...(await Promise.all(Array.from({ length: 8 }, (_, index) => call(project.key, `${run}-${batch}-${index}`, index % 2 === 0, 0)))),
      );
    }

    const holds = await allHolds(project.projectId);
    const leases = holds.filter((hold) => hold.lease);
    const perRequest = new Set(holds.filter((hold) => !hold.lease).map((hold) => hold.request_id));
    const leased = answers.filter((answer) => !perRequest.has(answer.requestId));
    expect(leases.length).toBeGreaterThan(0);
    expect(leased.length).toBeGreaterThan(answers.length / 2); // most of the run needed no reserve round trip

    const debits = (await stack.ledger(project.projectId)).filter((entry) => entry.kind === "debit");
    expect(new Map(debits.map((entry) => [entry.request_id, -BigInt(entry.amount.nano)]))).toEqual(
      new Map(answers.map((answer) => [answer.requestId, answer.told])),
    );
    expect(answers.every((answer) => answer.told > 0n)).toBe(true);
    expect((await stack.mockRequestsWith(run)).length).toBe(answers.length);

    // Idle for LEASE_IDLE_MS: every lease is given back; what was drawn is what the leased requests were told.
    await stack.waitHeldZero(project.projectId, 3_000);
    const closedLeases = (await allHolds(project.projectId)).filter((hold) => hold.lease);
    expect(closedLeases.every((lease) => lease.status === "released")).toBe(true);
    const drawn = closedLeases.reduce((sum, lease) => sum + BigInt(lease.debited?.nano ?? "0"), 0n);
    expect(drawn).toBe(leased.reduce((sum, answer) => sum + answer.told, 0n));
    const balance = await stack.balance(project.projectId);
    expect(BigInt(balance.balance.nano)).toBe(10_000_000_000n - answers.reduce((sum, answer) => sum + answer.told, 0n));

    // Operators see it: leases and leased requests on the data plane, leases and draws on the control plane.
    const dataPlaneMetrics = await (await fetch(`${stack.dataPlanes[0]!.ready.metrics}/metrics`)).text();
    expect(Number(/^gateway_budget_lease_events_total\{event="granted"\} (\d+)$/m.exec(dataPlaneMetrics)?.[1])).toBeGreaterThanOrEqual(
      leases.length,
    );
    expect(Number(/^gateway_budget_lease_events_total\{event="leased_request"\} (\d+)$/m.exec(dataPlaneMetrics)?.[1])).toBe(leased.length);
    expect(dataPlaneMetrics).toMatch(/^gateway_budget_leases_open 0$/m);
    expect(dataPlaneMetrics).toMatch(/^gateway_draws_under_way 0$/m);
    expect(dataPlaneMetrics).toMatch(/^gateway_control_plane_call_seconds_count\{method="Draw",outcome="ok"\} [1-9]/m);
    const controlPlaneMetrics = await (await fetch(`${stack.controlPlaneMetricsUrl}/metrics`)).text();
    expect(controlPlaneMetrics).toMatch(/^gateway_holds_total\{event="lease",outcome="granted"\} [1-9]/m);
    expect(controlPlaneMetrics).toMatch(/^gateway_holds_total\{event="draw",outcome="settled"\} [1-9]/m);
  });

  it("a lease retired under a long stream keeps only what the stream set aside, and the stream's draw is still billed in full", async () => {
    const project = await stack.createProject({ balanceUsd: "10.00" });
    const run = `lease-reduce-${Date.now()}`;
    await stack.mockScript({ match: `${run}-long`, times: 0, chunkDelayMs: 100, usage: "random" });
    await stack.mockScript({ match: run, times: 0, usage: "random" });
    const served: { requestId: string; told: bigint }[] = [];
    for (let index = 0; index < 20; index++) served.push(await call(project.key, `${run}-warm-${index}`, false, 0));
    const [leaseBefore] = (await stack.holds(project.projectId, "active")).filter((hold) => hold.lease);
    expect(leaseBefore).toBeDefined();

    // One long stream under the lease; then nothing more: idle for LEASE_IDLE_MS, the lease retires.
    const long = await stack.post(
      "/v1/chat/completions",
      project.key,
      {
        model: "openai/gpt-4.1-mini",
        max_tokens: 64,
        stream: true,
        stream_options: { include_usage: true },
        messages: [{ role: "user", content: `${run}-long` }],
      },
      0,
    );
    expect(long.status).toBe(200);
    const reader = long.body!.getReader();
    expect((await reader.read()).value?.length).toBeGreaterThan(0);
    const activeIds = (await stack.holds(project.projectId, "active")).map((hold) => hold.request_id);
    expect(activeIds).toEqual([leaseBefore!.request_id]); // the stream is under the lease: no hold of its own
    let reduced: Hold | undefined;
    for (const until = Date.now() + 3_000; Date.now() < until && !reduced; await new Promise((resolve) => setTimeout(resolve, 50))) {
      reduced = (await stack.holds(project.projectId, "active")).find(
        (hold) => hold.request_id === leaseBefore!.request_id && BigInt(hold.amount.nano) < BigInt(leaseBefore!.amount.nano) / 8n,
      );
    }
    // Sized for 64 requests like the warm-up ones, it now keeps one's worst case: the stream's.
    expect(reduced, "the retired lease was reduced while its stream was in flight").toBeDefined();
    expect(BigInt(reduced!.amount.nano)).toBeGreaterThan(0n);
    expect((await stack.balance(project.projectId)).held.nano).toBe(reduced!.amount.nano);

    const decoder = new TextDecoder();
    let text = "";
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) text += decoder.decode(chunk.value, { stream: true });
    const usage = sseData(text)
      .slice(0, -1)
      .map((event) => JSON.parse(event) as { usage?: { cost: number } })
      .find((chunk) => chunk.usage)!.usage!;
    served.push({ requestId: long.headers.get("x-request-id")!, told: costToNano(usage.cost) });

    // Drawn in full from what the lease kept, then the lease is released.
    await stack.waitHeldZero(project.projectId, 3_000);
    expect((await allHolds(project.projectId)).find((hold) => hold.request_id === leaseBefore!.request_id)!.status).toBe("released");
    const debits = (await stack.ledger(project.projectId)).filter((entry) => entry.kind === "debit");
    expect(new Map(debits.map((entry) => [entry.request_id, -BigInt(entry.amount.nano)]))).toEqual(
      new Map(served.map((answer) => [answer.requestId, answer.told])),
    );
  });

  it("a data plane killed while serving under a lease loses no money: the lease expires and only what was drawn is on the ledger", async () => {
    const project = await stack.createProject({ balanceUsd: "10.00" });
    const VICTIM = 1;
    const run = `lease-kill-${Date.now()}`;
    await stack.mockScript({ match: `${run}-long`, times: 0, chunkDelayMs: 250, usage: "random" });
    await stack.mockScript({ match: run, times: 0, usage: "random" });
    // Make the project busy on the victim: it takes a lease.
    const served: { requestId: string; told: bigint }[] = [];
    for (let index = 0; index < 20; index++) served.push(await call(project.key, `${run}-warm-${index}`, false, VICTIM));
    expect((await stack.holds(project.projectId, "active")).filter((hold) => hold.lease)).toHaveLength(1);

    // Long streams under that lease, then SIGKILL while they flow.
    const victims = await Promise.all(
      Array.from({ length: 4 }, (_, index) =>
        stack.post(
          "/v1/chat/completions",
          project.key,
          { model: "openai/gpt-4.1-mini", max_tokens: 400, stream: true, messages: [{ role: "user", content: `${run}-long-${index}` }] },
          VICTIM,
        ),
      ),
    );
    for (const response of victims) {
      expect(response.status).toBe(200);
      expect((await response.body!.getReader().read()).value?.length).toBeGreaterThan(0);
    }
    // The warm answers' draws land within the draw interval and a round trip (docs/money.md: a data plane
    // killed inside that window loses those debits, by design); this test is about the cut streams.
    const drawDeadline = Date.now() + 3_000;
    while ((await stack.ledger(project.projectId)).filter((entry) => entry.kind === "debit").length < served.length) {
      if (Date.now() > drawDeadline) throw new Error("the warm answers' draws did not land within 3 s");
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    const victimIds = victims.map((response) => response.headers.get("x-request-id")!);
    const activeIds = (await stack.holds(project.projectId, "active")).map((hold) => hold.request_id);
    for (const id of victimIds) expect(activeIds).not.toContain(id); // no hold of their own: under the lease
    expect(await stack.dataPlanes[VICTIM]!.stop("SIGKILL")).toBeNull();

    // The lease expires within the TTL (plus the sweep); nobody drew for the cut streams.
    await stack.waitHeldZero(project.projectId, HOLD_TTL_SECONDS * 1000 + 5_000);
    const leases = (await allHolds(project.projectId)).filter((hold) => hold.lease);
    expect(leases.some((lease) => lease.status === "expired")).toBe(true);
    const debits = (await stack.ledger(project.projectId)).filter((entry) => entry.kind === "debit");
    expect(new Map(debits.map((entry) => [entry.request_id, -BigInt(entry.amount.nano)]))).toEqual(
      new Map(served.map((answer) => [answer.requestId, answer.told])),
    );
    const balance = await stack.balance(project.projectId);
    expect(balance.held.nano).toBe("0");
    expect(BigInt(balance.balance.nano)).toBe(10_000_000_000n - served.reduce((sum, answer) => sum + answer.told, 0n));

    // The other data plane serves the project on.
    expect((await call(project.key, `${run}-after`, false, 0)).told).toBeGreaterThan(0n);
  });
});
