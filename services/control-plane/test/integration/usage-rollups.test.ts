// Usage from rollups (issue 37, docs/money.md "Rollups"): debits written by gateway_apply_batch (settles
// and draws, with and without keys and cost splits, replays, a late settle, over two days) are summed into
// usage_daily and usage_key_totals in their own transaction; the usage route's rows and key spend equal
// what the ledger itself says (the queries they replaced, kept here as the reference); the check finds a
// rollup changed behind the ledger's back; and migration 0013 rolls up a ledger written before it.
import { cpSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LedgerService } from "../../src/billing/ledger-service";
import { ROLLUP_DRIFT_SQL, rollupDrift } from "../../src/billing/rollup-check";
import { ADMIN_TOKEN } from "../../src/changes/audit-log";
import { type Database, openDatabase, withPostgresRunner } from "../../src/database/connect";
import { applyMigrations, migrationsDir } from "../../src/database/migrations";
import { KeyService } from "../../src/keys/key-service";
import { scratchDatabase, type ScratchDatabase } from "../harness/scratch-database";

/** The usage the route answered before rollups, from the ledger itself: the reference. */
async function usageFromLedger(client: pg.Client, projectId: string, from: string, to: string, keyId: string | null) {
  const rows = await client.query<{ day: string; model: string; requests: string; input: string; output: string; cost: string }>(
    `SELECT to_char(day, 'YYYY-MM-DD') AS day, COALESCE(model, '') AS model, count(*) AS requests, COALESCE(sum(input_tokens), 0) AS input,
            COALESCE(sum(output_tokens), 0) AS output, -sum(amount_nano) AS cost
       FROM ledger_entries WHERE project_id = $1 AND kind = 'debit' AND day BETWEEN $2::date AND $3::date AND ($4::text IS NULL OR key_id = $4)
      GROUP BY 1, 2 ORDER BY 1, 2`,
    [projectId, from, to, keyId],
  );
  const parts = await client.query<{ day: string; model: string; component: string; units: string; cost: string }>(
    `SELECT to_char(day, 'YYYY-MM-DD') AS day, COALESCE(model, '') AS model, part.key AS component,
            sum((part.value->>'units')::bigint) AS units, sum((part.value->>'nano')::bigint) AS cost
       FROM ledger_entries, jsonb_each(cost_parts) AS part
      WHERE project_id = $1 AND kind = 'debit' AND day BETWEEN $2::date AND $3::date AND ($4::text IS NULL OR key_id = $4)
      GROUP BY 1, 2, 3`,
    [projectId, from, to, keyId],
  );
  return rows.rows.map((row) => ({
    day: row.day,
    model: row.model,
    requests: Number(row.requests),
    inputTokens: Number(row.input),
    outputTokens: Number(row.output),
    costNano: BigInt(row.cost),
    components: Object.fromEntries(
      parts.rows
        .filter((part) => part.day === row.day && part.model === row.model)
        .map((part) => [part.component, { units: Number(part.units), costNano: BigInt(part.cost) }]),
    ),
  }));
}

/** Writes debits of two days through the real money functions: settles and draws, keys, splits, replays, a late settle. */
async function writeHistory(ledger: LedgerService, projectId: string, setClock: (iso: string) => void): Promise<void> {
  await ledger.topUp(projectId, 1_000_000_000n, "initial", ADMIN_TOKEN);
  for (const [day, offset] of [
    ["2026-11-29", 0],
    ["2026-11-30", 100],
  ] as const) {
    setClock(`${day}T12:00:00Z`);
    for (let index = 0; index < 12; index++) {
      const requestId = `${projectId}-r${offset + index}`;
      const keyId = index % 3 === 0 ? undefined : `${projectId}-key${index % 2}`;
      await ledger.reserve({ requestId, projectId, amountNano: 50_000n, model: `m${index % 2}`, accessPath: "openai", keyId });
      const settle = {
        requestId,
        projectId,
        amountNano: BigInt(1_000 * (index + 1)),
        model: `m${index % 2}`,
        accessPath: index % 4 === 0 ? "openrouter" : "openai",
        inputTokens: 10 * index,
        outputTokens: index,
        ...(index % 5 === 0
          ? {}
          : {
              costParts: {
                input: { units: 10 * index, nano: String(600 * (index + 1)) },
                output: { units: index, nano: String(400 * (index + 1)) },
              },
            }),
      };
      await ledger.settle(settle);
      if (index % 4 === 1) await ledger.settle(settle); // a replay debits nothing again
    }
    const leaseId = `${projectId}-lease-${day}`;
    await ledger.lease({ leaseId, projectId, amountNano: 100_000n, minAmountNano: 1n });
    const draws = Array.from({ length: 6 }, (_, index) => ({
      requestId: `${projectId}-d${offset + index}`,
      leaseId,
      projectId,
      amountNano: BigInt(700 + index),
      holdNano: 2_000n,
      model: "m1",
      accessPath: "anthropic",
      inputTokens: 5,
      outputTokens: index,
      costParts: [{ component: "output", units: index, nano: BigInt(700 + index) }],
      ...(index % 2 === 0 ? { keyId: `${projectId}-key1` } : {}),
    }));
    await ledger.draw(draws);
    await ledger.draw(draws.slice(0, 2)); // replayed draws
    await ledger.release(leaseId, projectId);
  }
  // A settle after its hold expired (a late debit, clamped to what is left) counts like any other.
  await ledger.reserve({ requestId: `${projectId}-late`, projectId, amountNano: 9_000n, model: "m0", accessPath: "openai" });
  setClock("2026-11-30T13:00:00Z");
  await ledger.expireHolds(100);
  await ledger.settle({
    requestId: `${projectId}-late`,
    projectId,
    amountNano: 8_000n,
    model: "m0",
    accessPath: "openai",
    inputTokens: 1,
    outputTokens: 1,
  });
}

describe("usage from rollups", () => {
  let scratch: ScratchDatabase;
  let database: Database;
  let client: pg.Client;
  let clockMs = Date.parse("2026-11-29T12:00:00Z");
  const clock = { now: () => new Date(clockMs) };

  beforeAll(async () => {
    scratch = await scratchDatabase("usage_rollups_test");
    database = await openDatabase({ databaseUrl: scratch.url, dataDir: "" });
    client = new pg.Client({ connectionString: scratch.url });
    await client.connect();
  });

  afterAll(async () => {
    await client?.end();
    await database?.close();
    await scratch?.drop();
  });

  it("answers usage and key spend as the ledger says, rolled up with the debits", async () => {
    const ledger = new LedgerService(database, clock, 60);
    await database.prisma.project.create({ data: { id: "rollups", name: "rollups" } });
    for (const id of ["rollups-key0", "rollups-key1"])
      await database.prisma.apiKey.create({ data: { id, projectId: "rollups", hash: id, hint: "abcd" } });
    await writeHistory(ledger, "rollups", (iso) => {
      clockMs = Date.parse(iso);
    });

    expect(await rollupDrift(database)).toEqual([]);
    const usage = (keyId?: string) => ledger.usage("rollups", "2026-11-01", "2026-11-30", keyId);
    for (const keyId of [undefined, "rollups-key0", "rollups-key1"]) {
      const reference = await usageFromLedger(client, "rollups", "2026-11-01", "2026-11-30", keyId ?? null);
      expect(reference.length, "the history has rows for each key").toBeGreaterThan(1);
      expect((await usage(keyId)).rows).toEqual(reference);
    }
    // One day of the window only.
    expect((await ledger.usage("rollups", "2026-11-30", "2026-11-30")).rows).toEqual(
      await usageFromLedger(client, "rollups", "2026-11-30", "2026-11-30", null),
    );

    const keys = new KeyService(database.prisma, { poll: async () => {} } as never, clock);
    const spend = await keys.spend("rollups");
    const fromLedger = await client.query<{ key_id: string; total: string; today: string; requests: string }>(
      `SELECT key_id, -sum(amount_nano) AS total, COALESCE(-sum(amount_nano) FILTER (WHERE day = '2026-11-30'), 0) AS today, count(*) AS requests
         FROM ledger_entries WHERE project_id = 'rollups' AND kind = 'debit' AND key_id IS NOT NULL GROUP BY key_id ORDER BY key_id`,
    );
    expect(fromLedger.rows).toHaveLength(2);
    for (const row of fromLedger.rows)
      expect(spend.get(row.key_id)).toMatchObject({
        totalNano: BigInt(row.total),
        todayNano: BigInt(row.today),
        requests: Number(row.requests),
      });
    expect((await keys.spend("rollups", "rollups-key1")).size).toBe(1);
  });

  it("finds a rollup that no longer equals its ledger", async () => {
    await client.query(
      "UPDATE usage_daily SET requests = requests + 1 WHERE ctid = (SELECT ctid FROM usage_daily WHERE key_id = '*' LIMIT 1)",
    );
    const drift = await rollupDrift(database);
    expect(drift.map((row) => row.side).sort()).toEqual(["ledger", "rollup"]);
    await client.query(
      "UPDATE usage_daily SET requests = requests - 1 WHERE ctid = (SELECT ctid FROM usage_daily WHERE key_id = '*' LIMIT 1)",
    );
    await client.query(
      `UPDATE usage_daily SET parts = jsonb_set(parts, '{output,nano}', '"1"') WHERE ctid = (SELECT ctid FROM usage_daily WHERE parts ? 'output' LIMIT 1)`,
    );
    expect((await rollupDrift(database)).length).toBeGreaterThan(0);
  });
});

describe("migration 0013 on a ledger written before it", () => {
  let scratch: ScratchDatabase;
  let folder: string;

  afterAll(async () => {
    await scratch?.drop();
    if (folder) rmSync(folder, { recursive: true, force: true });
  });

  it("rolls up every debit already there, equal to the ledger", async () => {
    folder = mkdtempSync(path.join(os.tmpdir(), "migrations-"));
    for (const name of readdirSync(migrationsDir).filter((entry) => entry < "0013"))
      cpSync(path.join(migrationsDir, name), path.join(folder, name), { recursive: true });
    scratch = await scratchDatabase("usage_rollups_migration_test");
    let clockMs = Date.parse("2026-11-29T12:00:00Z");
    const database = await openDatabase({ databaseUrl: scratch.url, dataDir: "", migrationsDir: folder });
    try {
      await database.prisma.$executeRawUnsafe("INSERT INTO projects (id, name) VALUES ('before', 'before')");
      await writeHistory(new LedgerService(database, { now: () => new Date(clockMs) }, 60), "before", (iso) => {
        clockMs = Date.parse(iso);
      });
    } finally {
      await database.close();
    }
    await withPostgresRunner(scratch.url, (runner) => applyMigrations(runner));
    const client = new pg.Client({ connectionString: scratch.url });
    await client.connect();
    try {
      expect((await client.query("SELECT count(*)::int AS n FROM usage_daily")).rows[0].n).toBeGreaterThan(4);
      expect((await client.query(ROLLUP_DRIFT_SQL)).rows).toEqual([]);
    } finally {
      await client.end();
    }
  });
});
