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
import { KEY_SPEND_SQL, USAGE_SQL } from "../../src/billing/usage-rollups";
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

    // Written debits wait in the queue until a read (or the sweeper) rolls them up.
    const queued = await client.query<{ pending: number; rolled: number }>(
      "SELECT (SELECT count(*)::int FROM usage_pending) AS pending, (SELECT count(*)::int FROM usage_daily) AS rolled",
    );
    expect(queued.rows[0]).toEqual({ pending: 37, rolled: 0 });
    // The sweeper's round moves them (replays wrote no debit) and vacuums the queue behind it.
    expect(await ledger.rollUpPending()).toBe(37);
    const vacuumed = await client.query("SELECT last_vacuum FROM pg_stat_user_tables WHERE relname = 'usage_pending'");
    expect(vacuumed.rows[0].last_vacuum).not.toBeNull();
    expect(await rollupDrift(database)).toEqual([]);
    expect((await client.query("SELECT count(*)::int AS n FROM usage_pending")).rows[0].n).toBe(0);
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

  it("queues a debit whichever writer inserts it (the trigger, not the money function)", async () => {
    await client.query(
      `INSERT INTO ledger_entries (project_id, kind, amount_nano, request_id, day, model, access_path, input_tokens, output_tokens, key_id)
       VALUES ('rollups', 'debit', -123, 'rollups-direct', '2026-11-30', 'm9', 'openai', 3, 4, 'rollups-key0')`,
    );
    expect((await client.query("SELECT count(*)::int AS n FROM usage_pending")).rows[0].n).toBe(1);
    expect(await rollupDrift(database)).toEqual([]);
    const row = (await new LedgerService(database, clock, 60).usage("rollups", "2026-11-30", "2026-11-30", "rollups-key0")).rows.find(
      (usage) => usage.model === "m9",
    );
    expect(row).toMatchObject({ requests: 1, inputTokens: 3, outputTokens: 4, costNano: 123n });
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

/** Rows the plan's scans of `relation` read (kept or filtered out), over all their loops, and whether any read the whole table. */
function scansOf(plan: PlanNode, relation: string): { rowsRead: number; sequential: boolean } {
  let rowsRead = 0;
  let sequential = false;
  const visit = (node: PlanNode) => {
    if (node["Relation Name"] === relation) {
      const removed = (node["Rows Removed by Filter"] ?? 0) + (node["Rows Removed by Index Recheck"] ?? 0);
      rowsRead += (node["Actual Rows"] + removed) * node["Actual Loops"];
      sequential ||= node["Node Type"] === "Seq Scan";
    }
    for (const child of node.Plans ?? []) visit(child);
  };
  visit(plan);
  return { rowsRead, sequential };
}

interface PlanNode {
  "Node Type": string;
  "Relation Name"?: string;
  "Actual Rows": number;
  "Actual Loops": number;
  "Rows Removed by Filter"?: number;
  "Rows Removed by Index Recheck"?: number;
  Plans?: PlanNode[];
}

describe("the rollup reads at a realistic size (EXPLAIN)", () => {
  let scratch: ScratchDatabase;
  let client: pg.Client;
  const PROJECTS = 20;
  const KEYS = 6;
  const DAYS = 400;
  const MODELS = 4;

  beforeAll(async () => {
    scratch = await scratchDatabase("usage_rollups_explain_test");
    const database = await openDatabase({ databaseUrl: scratch.url, dataDir: "" });
    await database.close();
    client = new pg.Client({ connectionString: scratch.url });
    await client.connect();
    // 20 projects, 6 keys each (and "*"), 400 days, 4 models: 224,000 rows, as a year of a busy deployment's rollups.
    await client.query(`INSERT INTO projects (id, name) SELECT 'x' || p, 'x' FROM generate_series(0, ${PROJECTS - 1}) AS p`);
    await client.query(
      `INSERT INTO usage_daily (project_id, key_id, day, model, access_path, requests, input_tokens, output_tokens, cost_nano, parts)
       SELECT 'x' || p, CASE WHEN k = 0 THEN '*' ELSE 'x' || p || '-k' || k END, current_date - d, 'm' || m, 'openai', 10, 100, 10, 1000,
              '{"input": {"units": 100, "nano": "600"}, "output": {"units": 10, "nano": "400"}}'
         FROM generate_series(0, ${PROJECTS - 1}) AS p, generate_series(0, ${KEYS}) AS k, generate_series(0, ${DAYS - 1}) AS d,
              generate_series(0, ${MODELS - 1}) AS m`,
    );
    await client.query(
      `INSERT INTO usage_key_totals (key_id, project_id, requests, cost_nano, last_used_at)
       SELECT 'x' || p || '-k' || k, 'x' || p, 16000, 1600000, now() FROM generate_series(0, ${PROJECTS - 1}) AS p, generate_series(1, ${KEYS}) AS k`,
    );
    // And the keys of 1,000 more projects: key totals are one row per key of the deployment.
    await client.query("INSERT INTO projects (id, name) SELECT 'y' || p, 'y' FROM generate_series(0, 999) AS p");
    await client.query(
      `INSERT INTO usage_key_totals (key_id, project_id, requests, cost_nano, last_used_at)
       SELECT 'y' || p || '-k' || k, 'y' || p, 1, 1, now() FROM generate_series(0, 999) AS p, generate_series(1, 20) AS k`,
    );
    await client.query("ANALYZE usage_daily");
    await client.query("ANALYZE usage_key_totals");
  }, 120_000);

  afterAll(async () => {
    await client?.end();
    await scratch?.drop();
  });

  const explain = async (sql: string, params: unknown[]) =>
    (await client.query<{ "QUERY PLAN": { Plan: PlanNode }[] }>(`EXPLAIN (ANALYZE, FORMAT JSON) ${sql}`, params)).rows[0]!["QUERY PLAN"][0]!
      .Plan;
  const today = new Date().toISOString().slice(0, 10);
  const daysAgo = (days: number) => new Date(Date.now() - days * 86_400_000).toISOString().slice(0, 10);

  it("a project's or a key's usage over 30 or 365 days reads its days' rows, not the table's", async () => {
    for (const key of ["*", "x3-k2"])
      for (const days of [30, 365]) {
        const scans = scansOf(await explain(USAGE_SQL, ["x3", key, daysAgo(days - 1), today]), "usage_daily");
        expect(scans, `${key}, ${days} days`).toEqual({ rowsRead: days * MODELS, sequential: false });
      }
  });

  it("the keys' spend reads each key's totals and today's rows, whatever the days behind them", async () => {
    const plan = await explain(KEY_SPEND_SQL, ["x3", today, null]);
    expect(scansOf(plan, "usage_key_totals")).toEqual({ rowsRead: KEYS, sequential: false });
    expect(scansOf(plan, "usage_daily")).toEqual({ rowsRead: KEYS * MODELS, sequential: false });
    const one = await explain(KEY_SPEND_SQL, ["x3", today, "x3-k1"]);
    expect(scansOf(one, "usage_daily").rowsRead).toBe(MODELS);
  });
});
