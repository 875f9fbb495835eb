// Graceful lifecycle: on SIGTERM a data plane first reports "draining" on
// /health while it still serves, finishes what is in flight, settles it, and
// exits 0; a control plane ends its subscription streams (data planes keep
// serving from their cached state) and exits 0 without waiting for them.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { marker, startStack, type GatewayStack, type TestProject } from "../harness/gateway-stack";

describe("graceful lifecycle", () => {
  let stack: GatewayStack;
  let project: TestProject;

  beforeAll(async () => {
    stack = await startStack({ backend: "pglite", dataPlanes: 2, dataPlaneEnv: { SHUTDOWN_DELAY_MS: "1500", LOG_LEVEL: "info" } });
    project = await stack.createProject({ balanceUsd: "1.00" });
  });

  afterAll(async () => {
    await stack?.stop();
  });

  it("a data plane on SIGTERM: /health says draining while requests are still served, then in-flight work settles and it exits 0", async () => {
    const slow = marker();
    await stack.mockScript({ match: slow, latencyMs: 2_500 });
    const inFlight = stack.post(
      "/v1/chat/completions",
      project.key,
      { model: "openai/gpt-4.1-mini", messages: [{ role: "user", content: slow }] },
      1,
    );
    await expect.poll(() => stack.mockRequestsWith(slow)).toHaveLength(1);
    const dataPlane = stack.dataPlanes[1]!;
    const exited = dataPlane.stop("SIGTERM", 20_000);

    await expect.poll(async () => (await fetch(`${dataPlane.ready.url}/health`)).status).toBe(503);
    expect(await (await fetch(`${dataPlane.ready.url}/health`)).json()).toEqual({ status: "unavailable", reason: "draining" });
    const during = await stack.post(
      "/v1/chat/completions",
      project.key,
      { model: "openai/gpt-4.1-mini", messages: [{ role: "user", content: marker() }] },
      1,
    );
    expect(during.status).toBe(200); // still served inside the shutdown delay

    const answer = await inFlight;
    expect(answer.status).toBe(200);
    const cost = ((await answer.json()) as { usage: { cost: number } }).usage.cost;
    expect(await exited).toBe(0);
    const debit = (await stack.ledger(project.projectId)).find((entry) => entry.request_id === answer.headers.get("x-request-id"));
    expect(-BigInt(debit!.amount.nano)).toBe(BigInt(Math.round(cost * 1e9)));
    expect((await stack.balance(project.projectId)).held.nano).toBe("0");
    // Its log lines, written in batches, are all out once it has exited (the flush on exit itself: log-destination.test.ts).
    const completed = dataPlane
      .output()
      .split("\n")
      .filter((line) => line.includes('"msg":"request completed"'))
      .map((line) => (JSON.parse(line) as { reqId: string }).reqId);
    expect(completed).toEqual(expect.arrayContaining([answer.headers.get("x-request-id"), during.headers.get("x-request-id")]));
  });

  it("a control plane on SIGTERM ends the subscription streams and exits 0 at once; the data plane keeps serving what it can", async () => {
    const models = () => fetch(`${stack.url}/v1/models`, { headers: { authorization: `Bearer ${project.key}` } });
    expect((await models()).status).toBe(200); // the key is now validated and cached on this data plane
    const started = Date.now();
    expect(await stack.controlPlane.stop("SIGTERM", 20_000)).toBe(0);
    expect(Date.now() - started).toBeLessThan(15_000); // not held open by the data plane's subscription
    expect((await models()).status).toBe(200); // the cached key and catalogue
    await stack.restartControlPlane();
  });
});
