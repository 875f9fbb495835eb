// The daily spend cap across midnight UTC. The control plane runs with its
// clock shifted (GATEWAY_CLOCK_OFFSET_MS) so that its midnight falls during
// the test: a hold placed before midnight and settled after counts against
// the day it was placed, the cap resets once at midnight, never twice, and a
// refusal's Retry-After counts down to that midnight.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { marker, startStack, type GatewayStack, type TestProject } from "../harness/gateway-stack";

const COST = 5_000n; // 10 input tokens at $0.10/M + 10 output tokens at $0.40/M (gpt-4.1-nano)

describe("daily spend cap across midnight UTC", () => {
  let stack: GatewayStack;
  let project: TestProject;
  let offsetMs: number;
  const tag = marker();

  const controlPlaneNow = () => Date.now() + offsetMs;
  const nextMidnight = (moment: number) => {
    const date = new Date(moment);
    return Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate() + 1);
  };
  const waitUntilControlPlaneTime = async (target: number) => {
    while (controlPlaneNow() < target) await new Promise((resolve) => setTimeout(resolve, Math.min(200, target - controlPlaneNow())));
  };
  const chat = (suffix: string) =>
    stack.post("/v1/chat/completions", project.key, {
      model: "openai/gpt-4.1-nano",
      max_tokens: 10,
      messages: [{ role: "user", content: `${tag} ${suffix}` }],
    });

  beforeAll(async () => {
    stack = await startStack({ backend: "postgresql" });
    project = await stack.createProject({ balanceUsd: "1.00" });
    // Only now, with the stack up however long that took on a loaded machine, the control plane starts
    // again with its clock 25 s before a midnight: the steps below need 14 s of it. A restart slower
    // than the margin is tried again with a fresh offset.
    for (let attempt = 0; ; attempt++) {
      const realNow = Date.now();
      offsetMs = nextMidnight(realNow) - 25_000 - realNow;
      await stack.controlPlane.stop();
      await stack.restartControlPlane({ GATEWAY_CLOCK_OFFSET_MS: String(offsetMs) });
      if (nextMidnight(controlPlaneNow()) - controlPlaneNow() >= 14_000 || attempt === 2) break;
    }
  }, 180_000);

  afterAll(async () => {
    await stack?.stop();
  });

  it("counts a hold against the day it was placed, resets once at midnight, and refuses with Retry-After to midnight", async () => {
    const midnight = nextMidnight(controlPlaneNow());
    const dayBefore = new Date(midnight - 1).toISOString().slice(0, 10);
    const dayAfter = new Date(midnight).toISOString().slice(0, 10);
    await waitUntilControlPlaneTime(midnight - 12_000);
    // B answers 2 s after midnight; every request reports 10 input and 10 output tokens.
    // (The mock applies the first matching script, so B's comes first.)
    await stack.mockScript({
      match: `${tag} B`,
      latencyMs: midnight - controlPlaneNow() + 2_000,
      usage: { prompt_tokens: 10, completion_tokens: 10 },
    });
    await stack.mockScript({ match: tag, times: 0, usage: { prompt_tokens: 10, completion_tokens: 10 } });

    // A: placed and settled before midnight.
    const first = await chat("A");
    expect(first.status).toBe(200);
    const hold = BigInt(
      (await stack.admin<{ data: { amount: { nano: string } }[] }>("GET", `/admin/projects/${project.projectId}/holds?status=settled`)).json
        .data[0]!.amount.nano,
    );
    // The cap fits A's cost plus one more hold, but not two; after midnight, one more cost and a hold, but not two costs and a hold.
    const cap = COST + hold + COST / 2n;
    await stack.admin("PATCH", `/admin/projects/${project.projectId}/limits`, { daily_cap_usd: (Number(cap) / 1e9).toFixed(9) });

    // B: placed before midnight, answered (and settled) after it.
    const slow = chat("B");
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await stack.balance(project.projectId)).held.nano).toBe(hold.toString());

    // C: before midnight, over the cap: refused, Retry-After = seconds to the control plane's midnight.
    const refused = await chat("C");
    expect(refused.status).toBe(429);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe("spend_cap_exceeded");
    const expectedRetry = Math.ceil((midnight - controlPlaneNow()) / 1000);
    expect(Math.abs(Number(refused.headers.get("retry-after")) - expectedRetry)).toBeLessThanOrEqual(1);
    expect(await stack.mockRequestsWith(`${tag} C`)).toHaveLength(0);

    // D: just after midnight, while B is still in flight: a new day, a fresh cap.
    await waitUntilControlPlaneTime(midnight + 300);
    expect((await chat("D")).status).toBe(200);
    expect((await slow).status).toBe(200); // B settles now, after midnight

    // E fits the new day's cap; F does not: the cap was reset once, not again by B's late settle.
    expect((await chat("E")).status).toBe(200);
    const overCap = await chat("F");
    expect(overCap.status).toBe(429);
    expect(Number(overCap.headers.get("retry-after"))).toBeGreaterThan(86_000);

    const usage = await stack.admin<{ data: { day: string; requests: number; cost: { nano: string } }[] }>(
      "GET",
      `/admin/projects/${project.projectId}/usage?from=${dayBefore}&to=${dayAfter}`,
    );
    expect(usage.json.data.map((row) => [row.day, row.requests, row.cost.nano])).toEqual([
      [dayBefore, 2, (2n * COST).toString()], // A and B: B was placed before midnight
      [dayAfter, 2, (2n * COST).toString()], // D and E
    ]);
    const balance = await stack.balance(project.projectId);
    expect(balance.held.nano).toBe("0");
    expect(BigInt(balance.balance.nano)).toBe(1_000_000_000n - 4n * COST);
  });
});
