// A daily cap lowered mid-day (docs/money.md, "A cap lowered mid-day"): what was held stays held and
// is billed in full, nothing new is admitted while the day's committed spend (debits + holds) is at or
// above the new cap, and the day's debits end at most at the larger of the new cap and what the day
// had committed when the cap was lowered, never above it.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LedgerService } from "../../src/billing/ledger-service";
import { openDatabase, type Database } from "../../src/database/connect";
import { scratchDatabase, type ScratchDatabase } from "../harness/scratch-database";
import { ADMIN_TOKEN } from "../../src/changes/audit-log";

const USD = 1_000_000_000n;
const cents = (count: number): bigint => (BigInt(count) * USD) / 100n;

describe("a daily cap lowered mid-day", () => {
  let database: Database;
  let ledger: LedgerService;
  let scratch: ScratchDatabase;
  const now = new Date(Date.UTC(2026, 10, 25, 12, 0));

  beforeAll(async () => {
    scratch = await scratchDatabase(`lowered_cap_${process.pid}`);
    database = await openDatabase({ databaseUrl: scratch.url, dataDir: "" });
    ledger = new LedgerService(database, { now: () => now }, 900);
  });

  afterAll(async () => {
    await database?.close();
    await scratch?.drop();
  });

  async function project(id: string, capCents: number): Promise<void> {
    await database.prisma.project.create({ data: { id, name: id, dailyCapNano: cents(capCents) } });
    await ledger.topUp(id, 100n * USD, "initial", ADMIN_TOKEN);
  }

  const setCap = (id: string, capCents: number) =>
    database.prisma.project.update({ where: { id }, data: { dailyCapNano: cents(capCents) } });
  const reserve = (projectId: string, requestId: string, amount: bigint) =>
    ledger.reserve({ requestId, projectId, amountNano: amount, model: "m", accessPath: "openai" });
  const settle = (projectId: string, requestId: string, amount: bigint) =>
    ledger.settle({ requestId, projectId, amountNano: amount, model: "m", accessPath: "openai", inputTokens: 1, outputTokens: 1 });
  const draw = (projectId: string, leaseId: string, requestId: string, amount: bigint) =>
    ledger.draw([
      {
        requestId,
        leaseId,
        projectId,
        amountNano: amount,
        holdNano: amount,
        model: "m",
        accessPath: "openai",
        inputTokens: 1,
        outputTokens: 1,
      },
    ]);

  it("bills what was held in full, admits nothing new while the day is at or above the new cap, and ends at what was committed", async () => {
    await project("capdown", 100);
    expect((await reserve("capdown", "before", cents(10))).outcome).toBe("reserved");
    expect(await settle("capdown", "before", cents(10))).toMatchObject({ debitedNano: cents(10) });
    expect((await reserve("capdown", "a", cents(30))).outcome).toBe("reserved");
    expect((await reserve("capdown", "b", cents(20))).outcome).toBe("reserved");
    const lease = await ledger.lease({ leaseId: "lease-1", projectId: "capdown", amountNano: cents(5), minAmountNano: 1n });
    expect(lease.amountNano).toBe(cents(5));
    // Committed today: 10 debited + 30 + 20 + 5 held = 65 cents. The cap goes from $1.00 to $0.30.
    const committedAtChange = cents(65);
    await setCap("capdown", 30);

    // Nothing new is admitted: no reserve, no smaller reserve, no lease.
    expect((await reserve("capdown", "new-1", 1n)).outcome).toBe("spend_cap_exceeded");
    expect(
      (
        await ledger.reserve({
          requestId: "new-2",
          projectId: "capdown",
          amountNano: cents(5),
          minAmountNano: 1n,
          model: "m",
          accessPath: "openai",
        })
      ).outcome,
    ).toBe("spend_cap_exceeded");
    expect((await ledger.lease({ leaseId: "lease-2", projectId: "capdown", amountNano: cents(5), minAmountNano: 1n })).granted).toBe(false);

    // What was held stays held and is billed in full, above the new cap.
    expect(await settle("capdown", "a", cents(30))).toMatchObject({ debitedNano: cents(30) });
    expect((await draw("capdown", "lease-1", "leased-1", cents(5)))[0]).toMatchObject({ outcome: "settled", debitedNano: cents(5) });
    expect((await reserve("capdown", "new-3", 1n)).outcome).toBe("spend_cap_exceeded");
    // A hold billed below its amount gives the rest back; the day is still above the new cap.
    expect(await settle("capdown", "b", cents(2))).toMatchObject({ debitedNano: cents(2) });
    expect((await reserve("capdown", "new-4", 1n)).outcome).toBe("spend_cap_exceeded");

    const spent = (await ledger.balance("capdown")).spentTodayNano;
    expect(spent).toBe(cents(47)); // 10 + 30 + 5 + 2: above the new cap by what was held, not more
    expect(spent).toBeGreaterThan(cents(30));
    expect(spent).toBeLessThanOrEqual(committedAtChange);
  });

  it("admits again once the day's committed spend falls below the new cap, and only up to it", async () => {
    await project("capdown2", 100);
    expect((await reserve("capdown2", "a-2", cents(40))).outcome).toBe("reserved");
    await setCap("capdown2", 20);
    expect((await reserve("capdown2", "new-1-2", cents(1))).outcome).toBe("spend_cap_exceeded");
    // The held request turns out cheap: 5 cents. The day has 15 cents of room under the new cap.
    expect(await settle("capdown2", "a-2", cents(5))).toMatchObject({ debitedNano: cents(5) });
    expect((await reserve("capdown2", "too-big-2", cents(16))).outcome).toBe("spend_cap_exceeded");
    expect((await reserve("capdown2", "fits-2", cents(15))).outcome).toBe("reserved");
    expect(await settle("capdown2", "fits-2", cents(15))).toMatchObject({ debitedNano: cents(15) });
    expect((await ledger.balance("capdown2")).spentTodayNano).toBe(cents(20)); // exactly the new cap
  });
});
