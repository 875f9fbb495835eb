// The per-minute limit across replicas: two data planes share one Redis
// (the test's own, so it can stop it mid-run); neither may admit more than
// the project's limit together, and losing Redis never stops the gateway nor
// lets them admit the limit afresh.
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startStack, type GatewayStack, type TestProject } from "../harness/gateway-stack";
import { startOwnRedis, type OwnRedis } from "../harness/redis-server";

async function fire(stack: GatewayStack, key: string, count: number, concurrency: number, marker = "rate"): Promise<number[]> {
  const statuses: number[] = [];
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const index = next++;
      const response = await stack.post(
        "/v1/chat/completions",
        key,
        { model: "auto", max_tokens: 20, messages: [{ role: "user", content: `${marker}-r${index}` }] },
        index % 2,
      );
      await response.arrayBuffer();
      statuses.push(response.status);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return statuses;
}

describe("requests per minute across two data planes on one Redis", () => {
  let redis: OwnRedis;
  let stack: GatewayStack;
  let project: TestProject;

  beforeAll(async () => {
    redis = await startOwnRedis();
    stack = await startStack({ backend: "postgresql", dataPlanes: 2, dataPlaneEnv: { REDIS_URL: redis.url, DEFAULT_RPM_LIMIT: "600" } });
    project = await stack.createProject({ balanceUsd: "100.00" });
  });

  afterAll(async () => {
    await stack?.stop();
    await redis?.stop();
  });

  it("admits at most 600 of 1,500 requests in a minute, refusing the rest with 429 rate_limit_exceeded", async () => {
    const started = Date.now();
    const run = `rate-${Date.now()}`;
    const statuses = await fire(stack, project.key, 1500, 24, run);
    expect(Date.now() - started).toBeLessThan(60_000); // all within one window
    const admitted = statuses.filter((status) => status === 200).length;
    const refused = statuses.filter((status) => status === 429).length;
    expect(admitted + refused).toBe(1500);
    expect(admitted).toBeLessThanOrEqual(600);
    expect(admitted).toBeGreaterThanOrEqual(590); // the limit is not undercounted either
    const rejections = await Promise.all(
      stack.dataPlanes.map(async (dataPlane) =>
        Number(/^gateway_rate_limit_rejections_total (\d+)$/m.exec(await (await fetch(`${dataPlane.ready.metrics}/metrics`)).text())?.[1]),
      ),
    );
    expect(rejections[0]! + rejections[1]!).toBe(refused);
    // A refused request went nowhere: not upstream, and nothing billed or held for it.
    expect((await stack.mockRequestsWith(run)).length).toBe(admitted);
    expect((await stack.ledger(project.projectId)).filter((entry) => entry.kind === "debit")).toHaveLength(admitted);
    console.log(`rate limit: ${admitted} admitted, ${refused} refused of 1500 in ${Date.now() - started} ms`);
  });

  it("keeps answering with a local share of the limit when Redis goes away mid-run", async () => {
    const fresh = await stack.createProject({ balanceUsd: "100.00" });
    const before = await fire(stack, fresh.key, 40, 4);
    expect(before.every((status) => status === 200)).toBe(true);

    await redis.stop();
    const during = await fire(stack, fresh.key, 400, 8);
    expect(during.every((status) => status === 200 || status === 429)).toBe(true);
    // Each replica alone admits at most its share (600 / 2) per minute.
    expect(during.filter((status) => status === 200).length).toBeLessThanOrEqual(600);
    expect(during.filter((status) => status === 200).length).toBeGreaterThan(0);
    for (const dataPlane of stack.dataPlanes) {
      const health = await fetch(`${dataPlane.ready.metrics}/health`);
      expect(health.status).toBe(200);
      const detail = ((await health.json()) as { detail: { rate_limit: string } }).detail;
      expect(detail.rate_limit).toMatch(/^local fallback/);
      const metrics = await (await fetch(`${dataPlane.ready.metrics}/metrics`)).text();
      expect(metrics).toMatch(/^gateway_rate_limit_shared 0$/m);
      expect(Number(/^gateway_rate_limit_fallback_checks_total (\d+)$/m.exec(metrics)?.[1])).toBeGreaterThan(0);
    }
    // Money never depended on Redis: every admitted request is on the ledger exactly once.
    const debits = (await stack.ledger(fresh.projectId)).filter((entry) => entry.kind === "debit");
    expect(debits.length).toBe(before.length + during.filter((status) => status === 200).length);
    // A busy project is served under budget leases: they go back once idle (docs/money.md).
    await stack.waitHeldZero(fresh.projectId, 6_000);

    redis = await startOwnRedis(redis.port);
    let mode = "";
    for (let attempt = 0; attempt < 50 && mode !== "redis"; attempt++) {
      await fire(stack, fresh.key, 2, 1);
      mode = (await stack.dataPlaneHealth<{ rate_limit: string }>()).detail.rate_limit;
      if (mode !== "redis") await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(mode).toBe("redis");
  });

  it("does not admit the limit a second time in the minute Redis dies: each data plane's local window holds what it admitted", async () => {
    const limited = await stack.createProject({ balanceUsd: "100.00" });
    expect((await stack.admin("PATCH", `/admin/projects/${limited.projectId}/limits`, { rpm_limit: 60 })).status).toBe(200);
    // Both data planes are in Redis, and each has read that at a heartbeat since (every 5 s): their local share is 60 / 2.
    const admin = new Redis(redis.url);
    try {
      await expect.poll(() => admin.zcard("gateway:ratelimit:replicas"), { timeout: 15_000 }).toBe(2);
    } finally {
      admin.disconnect();
    }
    await new Promise((resolve) => setTimeout(resolve, 7_000));

    const before = await fire(stack, limited.key, 60, 2, "died-before"); // 30 to each data plane
    const admittedBefore = before.filter((status) => status === 200).length;
    expect(admittedBefore).toBeGreaterThanOrEqual(58);
    await redis.stop();
    const after = await fire(stack, limited.key, 60, 2, "died-after");
    expect(after.every((status) => status === 200 || status === 429)).toBe(true);
    // Unseeded, each data plane admitted its share (30) again: 120 in the minute.
    expect(admittedBefore + after.filter((status) => status === 200).length).toBeLessThanOrEqual(60);
  });
});
