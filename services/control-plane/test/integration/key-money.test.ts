// A key's own money limits in the ledger (docs/keys.md): its total budget and daily cap bound every
// hold of its requests, within the project's money; settles, releases and expiry keep its counters
// exact; a limit set on a key that has spent starts from the ledger; a rotation moves limits and
// counters to the successor, and both keys' requests count there; expiry and revocation.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LedgerService } from "../../src/billing/ledger-service";
import { ChangeFeed, type Change } from "../../src/changes/change-feed";
import { openDatabase, type Database } from "../../src/database/connect";
import { KeyService, spendOf } from "../../src/keys/key-service";
import { scratchDatabase, type ScratchDatabase } from "../harness/scratch-database";
import { ADMIN_TOKEN } from "../../src/changes/audit-log";

const USD = 1_000_000_000n;
const cents = (count: number): bigint => (BigInt(count) * USD) / 100n;

describe("a key's own budget, daily cap, expiry and rotation in the ledger", () => {
  let database: Database;
  let ledger: LedgerService;
  let keys: KeyService;
  let changes: ChangeFeed;
  let scratch: ScratchDatabase;
  const seen: Change[] = [];
  let now = new Date(Date.UTC(2026, 10, 25, 12, 0));
  const clock = { now: () => now };

  beforeAll(async () => {
    scratch = await scratchDatabase(`key_money_${process.pid}`);
    database = await openDatabase({ databaseUrl: scratch.url, dataDir: "" });
    ledger = new LedgerService(database, clock, 900);
    changes = new ChangeFeed(database, 60_000, (error) => {
      throw error;
    });
    await changes.start();
    changes.subscribe((change) => seen.push(change));
    keys = new KeyService(database.prisma, changes, clock);
  });

  afterAll(async () => {
    await changes?.stop();
    await database?.close();
    await scratch?.drop();
  });

  async function project(id: string, balanceCents = 10_000): Promise<void> {
    await database.prisma.project.create({ data: { id, name: id } });
    await ledger.topUp(id, cents(balanceCents), "initial", ADMIN_TOKEN);
  }

  const reserve = (projectId: string, keyId: string, requestId: string, amount: bigint, minAmount = 0n) =>
    ledger.reserve({ requestId, projectId, keyId, amountNano: amount, minAmountNano: minAmount, model: "m", accessPath: "openai" });
  const settle = (projectId: string, requestId: string, amount: bigint) =>
    ledger.settle({ requestId, projectId, amountNano: amount, model: "m", accessPath: "openai", inputTokens: 1, outputTokens: 1 });
  const counters = async (keyId: string) => {
    const key = await keys.get(keyId);
    return { spent: key.spentNano, held: key.heldNano, capUsed: key.capUsedNano };
  };

  it("refuses a hold beyond the key's budget (402 key_budget_exceeded), counts settles, releases and expiries exactly", async () => {
    await project("kbudget");
    const { record: key } = await keys.issue("kbudget", { name: "ci", budgetNano: cents(50) }, ADMIN_TOKEN);
    expect((await reserve("kbudget", key.id, "b1", cents(30))).outcome).toBe("reserved");
    expect((await reserve("kbudget", key.id, "b2", cents(30))).outcome).toBe("key_budget_exceeded");
    // A capped answer: the hold is what fits the key's budget.
    const smaller = await reserve("kbudget", key.id, "b3", cents(30), cents(5));
    expect(smaller).toMatchObject({ outcome: "reserved", reservedNano: cents(20) });
    expect(await counters(key.id)).toEqual({ spent: 0n, held: cents(50), capUsed: cents(50) });

    await settle("kbudget", "b1", cents(12)); // 18 cents of b1's hold come back to the key
    await ledger.release("b3", "kbudget");
    expect(await counters(key.id)).toEqual({ spent: cents(12), held: 0n, capUsed: cents(12) });

    expect((await reserve("kbudget", key.id, "b4", cents(38))).outcome).toBe("reserved");
    expect((await reserve("kbudget", key.id, "b5", 1n)).outcome).toBe("key_budget_exceeded");
    // The hold expires (its data plane died): its amount is the key's again.
    now = new Date(now.getTime() + 901_000);
    expect(await ledger.expireHolds(100, now)).toBe(1);
    expect(await counters(key.id)).toEqual({ spent: cents(12), held: 0n, capUsed: cents(12) });
    // A late settle of the expired hold takes at most what the key's budget has left.
    expect((await reserve("kbudget", key.id, "b6", cents(30))).outcome).toBe("reserved");
    expect(await settle("kbudget", "b4", cents(38))).toMatchObject({ debitedNano: cents(8) });
    expect(await counters(key.id)).toEqual({ spent: cents(20), held: cents(30), capUsed: cents(50) });

    // Another key of the project, and the project, are not bound by this key's budget.
    const { record: other } = await keys.issue("kbudget", {}, ADMIN_TOKEN);
    expect((await reserve("kbudget", other.id, "o1", cents(500))).outcome).toBe("reserved");
    // Every debit carries its key; the budget never went over.
    const entries = await database.prisma.ledgerEntry.findMany({ where: { projectId: "kbudget", kind: "debit" } });
    expect(entries.every((entry) => entry.keyId === key.id)).toBe(true);
    expect(-entries.reduce((sum, entry) => sum + entry.amountNano, 0n)).toBeLessThanOrEqual(cents(50));
  });

  it("refuses beyond the key's daily cap with key_spend_cap_exceeded and Retry-After, and starts again the next day", async () => {
    await project("kcap");
    const { record: key } = await keys.issue("kcap", { dailyCapNano: cents(10) }, ADMIN_TOKEN);
    expect((await reserve("kcap", key.id, "c1", cents(8))).outcome).toBe("reserved");
    const refused = await reserve("kcap", key.id, "c2", cents(3));
    expect(refused.outcome).toBe("key_spend_cap_exceeded");
    expect(refused.retryAfterSeconds).toBeGreaterThan(0);
    await settle("kcap", "c1", cents(8));
    const nextDay = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1, 0, 5));
    now = nextDay;
    expect((await reserve("kcap", key.id, "c3", cents(10))).outcome).toBe("reserved");
    expect((await reserve("kcap", key.id, "c4", 1n)).outcome).toBe("key_spend_cap_exceeded");
    // The project's own refusal comes first: it holds for every key of the project.
    await database.prisma.project.update({ where: { id: "kcap" }, data: { dailyCapNano: cents(10) } });
    expect((await reserve("kcap", key.id, "c5", 1n)).outcome).toBe("spend_cap_exceeded");
  });

  it("starts a limit set later from the key's ledger, and moves limits and counters to a rotated key's successor", async () => {
    await project("krotate");
    const { record: key } = await keys.issue("krotate", { name: "app" }, ADMIN_TOKEN);
    // Spent before it had a budget: untracked, then counted from the ledger when the budget is set.
    expect((await reserve("krotate", key.id, "r1", cents(40))).outcome).toBe("reserved");
    await settle("krotate", "r1", cents(25));
    expect((await reserve("krotate", key.id, "r2", cents(10))).outcome).toBe("reserved"); // in flight at the change
    seen.length = 0;
    const limited = await keys.update(key.id, { budgetNano: cents(60), rpmLimit: 30 }, ADMIN_TOKEN);
    expect(limited).toMatchObject({ budgetNano: cents(60), rpmLimit: 30, spentNano: cents(25), heldNano: 0n });
    expect(seen).toContainEqual({ kind: "key_changed", projectId: "krotate", keyId: key.id });
    await settle("krotate", "r2", cents(10)); // admitted before the budget: counted as spent when it lands
    expect(await counters(key.id)).toMatchObject({ spent: cents(35), held: 0n });
    expect((await reserve("krotate", key.id, "r3", cents(20))).outcome).toBe("reserved");

    const rotated = await keys.rotate(key.id, 3600, ADMIN_TOKEN);
    expect(rotated.key).toMatch(/^sk_krotate_/);
    expect(rotated.record).toMatchObject({ name: "app", budgetNano: cents(60), rpmLimit: 30, spentNano: cents(35), heldNano: cents(20) });
    expect(rotated.previous).toMatchObject({ replacedBy: rotated.record.id, spentNano: 0n, heldNano: 0n });
    expect(rotated.previous.expiresAt?.getTime()).toBe(now.getTime() + 3_600_000);
    // Both keys validate in the grace period; both answer the successor's limits.
    const oldKeyValidation = await database.prisma.apiKey.findUnique({ where: { id: key.id } });
    expect(oldKeyValidation?.revokedAt).toBeNull();
    const successor = await keys.validate(rotated.key);
    expect(successor.key).toMatchObject({ limitsKeyId: rotated.record.id, moneyLimits: true, rpmLimit: 30 });

    // The old key's hold settles on the successor's counters; the old key's new requests count there too.
    await settle("krotate", "r3", cents(20));
    expect(await counters(rotated.record.id)).toMatchObject({ spent: cents(55), held: 0n });
    expect((await reserve("krotate", key.id, "r4", cents(6))).outcome).toBe("key_budget_exceeded");
    expect((await reserve("krotate", rotated.record.id, "r5", cents(5))).outcome).toBe("reserved");
    expect((await reserve("krotate", key.id, "r6", 1n)).outcome).toBe("key_budget_exceeded");
    await expect(keys.rotate(key.id, 60, ADMIN_TOKEN)).rejects.toMatchObject({ code: "conflict" });
    await expect(keys.update(key.id, { budgetNano: cents(1) }, ADMIN_TOKEN)).rejects.toMatchObject({ code: "conflict" });

    // After the grace the old key is invalid at once, and the sweep revokes it and tells the data planes.
    now = new Date(now.getTime() + 3_600_000);
    seen.length = 0;
    expect(await keys.revokeExpired(now)).toBe(1);
    expect((await keys.get(key.id)).revokedAt?.getTime()).toBe(now.getTime());
    expect(seen).toContainEqual({ kind: "key_revoked", projectId: "krotate", keyId: key.id });
    expect(await keys.revokeExpired(now)).toBe(0);

    // Usage and spend per key, from the ledger.
    const spend = await keys.spend("krotate");
    expect(spendOf(spend, key.id)).toMatchObject({ totalNano: cents(55), requests: 3 });
    expect(spendOf(spend, rotated.record.id)).toMatchObject({ totalNano: 0n, requests: 0 });
    const usage = await ledger.usage("krotate", "2026-11-01", "2026-12-31", key.id);
    expect(usage.rows.reduce((sum, row) => sum + row.costNano, 0n)).toBe(cents(55));
  });

  it("answers a spend check as a 1 nano-USD reserve would, for the key's own budget and cap too, and places nothing (issue 33, item 5)", async () => {
    await project("kcheck");
    const { record: budgeted } = await keys.issue("kcheck", { name: "b", budgetNano: cents(10) }, ADMIN_TOKEN);
    const { record: capped } = await keys.issue("kcheck", { name: "c", dailyCapNano: cents(10) }, ADMIN_TOKEN);
    expect(await ledger.checkSpend("kcheck", budgeted.id)).toMatchObject({ outcome: "reserved", reservedNano: 0n });
    expect(await counters(budgeted.id)).toEqual({ spent: 0n, held: 0n, capUsed: 0n });

    expect((await reserve("kcheck", budgeted.id, "kc1", cents(10))).outcome).toBe("reserved");
    expect((await ledger.checkSpend("kcheck", budgeted.id)).outcome).toBe("key_budget_exceeded");
    await settle("kcheck", "kc1", cents(10));
    expect((await ledger.checkSpend("kcheck", budgeted.id)).outcome).toBe("key_budget_exceeded");

    expect((await reserve("kcheck", capped.id, "kc2", cents(10))).outcome).toBe("reserved");
    await settle("kcheck", "kc2", cents(10));
    const refused = await ledger.checkSpend("kcheck", capped.id);
    expect(refused.outcome).toBe("key_spend_cap_exceeded");
    expect(refused.retryAfterSeconds).toBeGreaterThan(0);

    // The project itself still has money: its other keys pass.
    expect((await ledger.checkSpend("kcheck")).outcome).toBe("reserved");
    expect(await counters(budgeted.id)).toEqual({ spent: cents(10), held: 0n, capUsed: cents(10) });
    expect(await counters(capped.id)).toEqual({ spent: cents(10), held: 0n, capUsed: cents(10) });
    const holds = await database.query("SELECT request_id FROM holds WHERE project_id = 'kcheck' ORDER BY request_id", []);
    expect(holds.map((row) => row.request_id)).toEqual(["kc1", "kc2"]);
  });

  it("refuses an expiry in the past, and a key past its expiry does not validate", async () => {
    await project("kexpiry");
    await expect(keys.issue("kexpiry", { expiresAt: new Date(now.getTime() - 1) }, ADMIN_TOKEN)).rejects.toMatchObject({
      code: "invalid_request",
    });
    const issued = await keys.issue("kexpiry", { expiresAt: new Date(now.getTime() + 1000) }, ADMIN_TOKEN);
    expect((await keys.validate(issued.key)).valid).toBe(true);
    expect((await keys.validate(issued.key)).key?.expiresAt?.getTime()).toBe(now.getTime() + 1000);
    now = new Date(now.getTime() + 1000);
    expect((await keys.validate(issued.key)).valid).toBe(false);
  });
});
