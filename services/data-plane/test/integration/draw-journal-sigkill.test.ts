// Data planes killed with SIGKILL under load lose no answered debit (docs/money.md, "A killed data
// plane"). An answer under a budget lease does not wait for its draw to reach the ledger; before the
// draw journal, a data plane killed in that window lost the debits of the answers it had just sent,
// in proportion to its traffic. Now each is in Redis before its answer leaves, and the control plane
// applies a dead data plane's journal before voiding its expired leases. Every answer a client
// received is on the ledger once, at exactly the usage.cost it was told.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startAnswerLoad } from "../harness/answer-load";
import { type GatewayStack, startStack } from "../harness/gateway-stack";

const HOLD_TTL_SECONDS = 3;
const KILLS = 3;
const REDIS_URL = "redis://127.0.0.1:6379";

describe("SIGKILL under load", () => {
  let stack: GatewayStack;

  beforeAll(async () => {
    stack = await startStack({
      backend: "postgresql",
      dataPlanes: KILLS,
      dataPlaneEnv: { REDIS_URL, LEASE_MIN_REQUESTS_PER_SECOND: "5", DEFAULT_RPM_LIMIT: "0" },
      controlPlaneEnv: { REDIS_URL, HOLD_TTL_SECONDS: String(HOLD_TTL_SECONDS), HOLD_SWEEP_INTERVAL_MS: "200" },
    });
  });

  afterAll(async () => {
    await stack?.stop();
  });

  it("loses no answered debit and bills none twice", async () => {
    const project = await stack.createProject({ balanceUsd: "100.00" });
    const run = `sigkill-${Date.now()}`;
    await stack.mockScript({ match: run, times: 0, usage: "random" });
    const answered = new Map<string, bigint>();
    const report: string[] = [];
    for (let victim = 0; victim < KILLS; victim++) {
      const load = startAnswerLoad({ url: stack.dataPlanes[victim]!.ready.url!, key: project.key, concurrency: 32, tag: run });
      // Killed in full flow: once this data plane has answered a few hundred requests (under its lease).
      const started = Date.now();
      while (load.answered.size < 300) {
        if (Date.now() - started > 60_000) throw new Error(`data plane ${victim} answered only ${load.answered.size} in 60 s`);
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      const rate = Math.round((load.answered.size * 1000) / (Date.now() - started));
      expect(await stack.dataPlanes[victim]!.stop("SIGKILL")).toBeNull();
      await load.stop();
      for (const [id, told] of load.answered) answered.set(id, told);
      report.push(`${load.answered.size} answers at ~${rate}/s`);
    }

    // The killed data planes' leases expire (TTL, then the sweep applies their journals and voids them).
    await stack.waitHeldZero(project.projectId, HOLD_TTL_SECONDS * 1000 + 15_000);
    const onLedger = await stack.debitsByRequest(project.projectId); // throws on a request id debited twice
    const lost = [...answered.keys()].filter((id) => !onLedger.has(id));
    const wrong = [...answered].filter(([id, told]) => onLedger.has(id) && onLedger.get(id) !== told);
    console.log(
      `sigkill: ${KILLS} data planes killed (${report.join(", ")}); ${answered.size} answers, ${lost.length} lost, ${wrong.length} billed other than told, ${onLedger.size - answered.size + lost.length} debits of requests whose answer was cut`,
    );
    expect(lost).toEqual([]);
    expect(wrong).toEqual([]);
    const balance = await stack.balance(project.projectId);
    expect(BigInt(balance.balance.nano)).toBe(100_000_000_000n - [...onLedger.values()].reduce((sum, debit) => sum + debit, 0n));
  });
});
