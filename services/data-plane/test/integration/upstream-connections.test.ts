// Connections to a provider: none are capped by default (HTTP/1.1 carries one call per connection, so a
// cap queues every call beyond it, and a long stream holds its connection for minutes); with a cap
// (UPSTREAM_MAX_CONNECTIONS), a call still waiting for a connection when its client leaves never
// reached the provider, and is not billed. What bounds a replica's calls is DATA_PLANE_MAX_IN_FLIGHT.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { marker, startStack, type GatewayStack, type TestProject } from "../harness/gateway-stack";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function chat(stack: GatewayStack, project: TestProject, tag: string, signal?: AbortSignal): Promise<Response> {
  return fetch(`${stack.url}/v1/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${project.key}` },
    // A small max_tokens keeps each hold small: 300 of them fit the balance.
    body: JSON.stringify({ model: "openai/gpt-4.1-mini", max_tokens: 16, messages: [{ role: "user", content: tag }] }),
    signal,
  });
}

describe("upstream connections, no cap (the default)", () => {
  let stack: GatewayStack;

  beforeAll(async () => {
    stack = await startStack({ backend: "postgresql" });
  });

  afterAll(async () => {
    await stack?.stop();
  });

  it("300 calls to one provider are all in flight at once", async () => {
    const project = await stack.createProject({ balanceUsd: "10.00" });
    const tag = marker();
    const latencyMs = 4_000;
    await stack.mockScript({ match: tag, times: 0, latencyMs }); // times 0: every call matching the tag
    const responses = await Promise.all(Array.from({ length: 300 }, () => chat(stack, project, tag)));
    expect(responses.map((response) => response.status)).toEqual(responses.map(() => 200));
    const arrivals = (await stack.mockRequestsWith(tag)).map((request) => request.receivedAt);
    expect(arrivals).toHaveLength(300);
    // With a cap of 256 (as before), the 257th call would reach the mock only once a first one was answered.
    expect(Math.max(...arrivals) - Math.min(...arrivals)).toBeLessThan(latencyMs);
  });
});

describe("upstream connections capped at 1", () => {
  let stack: GatewayStack;

  beforeAll(async () => {
    stack = await startStack({
      backend: "postgresql",
      dataPlaneEnv: { UPSTREAM_MAX_CONNECTIONS: "1", CLIENT_DISCONNECT_DRAIN_MS: "200" },
    });
  });

  afterAll(async () => {
    await stack?.stop();
  });

  it("a call waiting for the connection when its client leaves is released, not billed; the call ahead of it is billed", async () => {
    const ahead = await stack.createProject({ balanceUsd: "1.00" });
    const waiting = await stack.createProject({ balanceUsd: "1.00" });
    const aheadTag = marker();
    const waitingTag = marker();
    await stack.mockScript({ match: aheadTag, latencyMs: 2_500 });
    const first = chat(stack, ahead, aheadTag);
    await sleep(300); // the first call holds the one connection
    const controller = new AbortController();
    const second = chat(stack, waiting, waitingTag, controller.signal).catch(() => undefined);
    await sleep(300); // queued behind it, its hold placed
    controller.abort();
    await second;
    expect((await first).status).toBe(200);
    await stack.waitHeldZero(waiting.projectId, 10_000);
    await stack.waitHeldZero(ahead.projectId, 10_000);
    await stack.drawsLanded();
    expect(await stack.mockRequestsWith(waitingTag)).toEqual([]);
    expect((await stack.ledger(waiting.projectId)).filter((entry) => entry.kind === "debit")).toEqual([]);
    expect((await stack.ledger(ahead.projectId)).filter((entry) => entry.kind === "debit")).toHaveLength(1);
  });
});

describe("model calls in flight capped at 2 (DATA_PLANE_MAX_IN_FLIGHT)", () => {
  let stack: GatewayStack;

  beforeAll(async () => {
    stack = await startStack({ backend: "postgresql", dataPlaneEnv: { DATA_PLANE_MAX_IN_FLIGHT: "2" } });
  });

  afterAll(async () => {
    await stack?.stop();
  });

  it("refuses the third call at once with 503 overloaded and Retry-After, takes calls again once one ended", async () => {
    const project = await stack.createProject({ balanceUsd: "1.00" });
    const slowTag = marker();
    await stack.mockScript({ match: slowTag, times: 2, latencyMs: 1_500 });
    const slow = [chat(stack, project, slowTag), chat(stack, project, slowTag)];
    await sleep(400); // both are in flight
    const refused = await chat(stack, project, marker());
    expect(refused.status).toBe(503);
    expect(refused.headers.get("retry-after")).toBe("1");
    expect(await refused.json()).toMatchObject({ error: { type: "service_unavailable", code: "overloaded" } });
    expect((await Promise.all(slow)).map((response) => response.status)).toEqual([200, 200]);
    expect((await chat(stack, project, marker())).status).toBe(200);
    // The refused call held nothing and was billed nothing: two debits for the two slow calls, one for the last.
    await stack.waitHeldZero(project.projectId, 10_000);
    await stack.drawsLanded();
    expect((await stack.ledger(project.projectId)).filter((entry) => entry.kind === "debit")).toHaveLength(3);
  });
});
