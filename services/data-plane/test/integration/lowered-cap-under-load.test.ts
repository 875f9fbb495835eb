// A daily cap lowered under load, end to end (docs/money.md, "A cap lowered mid-day"): a busy
// project served under budget leases has its cap lowered below what the day already committed.
// Requests are then refused (429), every request already admitted is billed in full at the
// usage.cost its client was told, and the day ends at most at what was committed after the change:
// above the new cap by what was held, never more.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startAnswerLoad } from "../harness/answer-load";
import { type GatewayStack, startStack } from "../harness/gateway-stack";

describe("a daily cap lowered under load", () => {
  let stack: GatewayStack;

  beforeAll(async () => {
    stack = await startStack({
      backend: "postgresql",
      dataPlaneEnv: { LEASE_MIN_REQUESTS_PER_SECOND: "5", LEASE_IDLE_MS: "300", DEFAULT_RPM_LIMIT: "0" },
    });
  });

  afterAll(async () => {
    await stack?.stop();
  });

  const spentToday = async (projectId: string) =>
    BigInt((await stack.admin<{ spent_today: { nano: string } }>("GET", `/admin/projects/${projectId}/balance`)).json.spent_today.nano);

  it("refuses new requests, bills the admitted ones in full, and ends within what was committed", async () => {
    const project = await stack.createProject({ balanceUsd: "100.00", dailyCapUsd: "5.00" });
    const run = `cap-down-${Date.now()}`;
    const load = startAnswerLoad({ url: stack.url, key: project.key, concurrency: 16, tag: run });
    const deadline = Date.now() + 60_000;
    while (load.answered.size < 100) {
      if (Date.now() > deadline) throw new Error(`only ${load.answered.size} answers in 60 s`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    // The new cap: half of what the day has debited so far (debits only grow; what is held, leases
    // included, comes on top).
    const { json } = await stack.admin<{ balance: { nano: string } }>("GET", `/admin/projects/${project.projectId}/balance`);
    const debitedBefore = 100_000_000_000n - BigInt(json.balance.nano); // a balance is its top-up minus its debits
    const NEW_CAP = debitedBefore / 2n;
    const usd = `${NEW_CAP / 1_000_000_000n}.${(NEW_CAP % 1_000_000_000n).toString().padStart(9, "0")}`;
    const lowered = await stack.admin("PATCH", `/admin/projects/${project.projectId}/limits`, { daily_cap_usd: usd });
    expect(lowered.status).toBe(200);
    // Committed (debits + holds, leases included) right after the change: nothing can raise it above this again.
    const committedAfterChange = await spentToday(project.projectId);
    expect(committedAfterChange).toBeGreaterThan(NEW_CAP);
    const refusedBefore = load.failed;
    const refusalDeadline = Date.now() + 30_000;
    while (load.failed < refusedBefore + 50) {
      if (Date.now() > refusalDeadline) throw new Error("requests were not refused after the cap was lowered");
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    await load.stop();

    await stack.waitHeldZero(project.projectId, 15_000);
    const debits = await stack.debitsByRequest(project.projectId);
    const spent = [...debits.values()].reduce((sum, debit) => sum + debit, 0n);
    expect(await spentToday(project.projectId)).toBe(spent);
    // Above the new cap (what was admitted is billed), within what was committed.
    expect(spent).toBeGreaterThan(NEW_CAP);
    expect(spent).toBeLessThanOrEqual(committedAfterChange);
    // Every answer is on the ledger at what its client was told: nothing served unbilled.
    for (const [requestId, told] of load.answered) expect(debits.get(requestId), requestId).toBe(told);
    // And nothing new is admitted now: the day is still above the new cap.
    const refused = await stack.post("/v1/chat/completions", project.key, {
      model: "openai/gpt-4.1-mini",
      max_tokens: 16,
      messages: [{ role: "user", content: `${run} after` }],
    });
    expect(refused.status).toBe(429);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe("spend_cap_exceeded");
  });
});
