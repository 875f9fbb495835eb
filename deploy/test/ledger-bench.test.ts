// The ledger benchmark (pnpm bench:ledger) at a small size: its history is what it says (every row written
// by gateway_apply_batch, as many as asked, spread as planned, balances equal to their ledgers), and its
// results file carries the figures other tools read.
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { BENCH_POSTGRES_URL } from "../bench/bench-stack";
import { type LedgerBenchResults, runLedgerBench } from "../bench/ledger-bench";
import { historyPlan } from "../bench/ledger-fill";

describe("the ledger benchmark's plan", () => {
  it("adds up to the rows asked, oldest day first, the busy project at its share, each day's leased part as asked", () => {
    const projects = ["p000", "p001", "p002", "p003", "p004"];
    const plan = historyPlan({ rows: 10_001, days: 7, projects, busyShare: 0.2, leasedShare: 0.5, today: "2026-11-30" });
    expect(plan.reduce((sum, entry) => sum + entry.requests, 0)).toBe(10_001);
    expect(plan[0]!.day).toBe("2026-11-23");
    expect(plan.at(-1)!.day).toBe("2026-11-29");
    expect([...plan.map((entry) => entry.day)].sort()).toEqual(plan.map((entry) => entry.day));
    const busy = plan.filter((entry) => entry.projectId === "p000").reduce((sum, entry) => sum + entry.requests, 0);
    expect(busy).toBeGreaterThanOrEqual(1_995);
    expect(busy).toBeLessThanOrEqual(2_006);
    for (const entry of plan) expect(Math.abs(entry.leased - entry.requests / 2)).toBeLessThanOrEqual(0.5);
  });
});

describe("pnpm bench:ledger at a small size", () => {
  const admin = new pg.Client({ connectionString: BENCH_POSTGRES_URL });
  let results: LedgerBenchResults;
  let database: pg.Client | undefined;

  afterAll(async () => {
    await database?.end();
    if (results?.kept_database_url) {
      await admin.connect();
      await admin.query(`DROP DATABASE IF EXISTS ${new URL(results.kept_database_url).pathname.slice(1)} WITH (FORCE)`);
      await admin.end();
    }
  });

  it("writes the history through the money function and reports each figure at 0 rows and at the size asked", async () => {
    results = await runLedgerBench({
      rows: 3_000,
      days: 12,
      projects: 3,
      keysPerProject: 2,
      busyShare: 0.5,
      leasedShare: 0.5,
      chunk: 400,
      repeats: 1,
      postgresUrl: BENCH_POSTGRES_URL,
      keep: true,
      log: () => {},
    });
    database = new pg.Client({ connectionString: results.kept_database_url });
    await database.connect();
    const history = await database.query<{ project_id: string; debits: string; days: string; keyed: string; split: string }>(
      `SELECT project_id, count(*) AS debits, count(DISTINCT day) AS days, count(key_id) AS keyed, count(cost_parts) AS split
         FROM ledger_entries WHERE kind = 'debit' AND project_id LIKE 'p%' GROUP BY project_id ORDER BY project_id`,
    );
    expect(history.rows.map((row) => row.project_id)).toEqual(["p000", "p001", "p002"]);
    expect(history.rows.reduce((sum, row) => sum + Number(row.debits), 0)).toBe(3_000);
    expect(Number(history.rows[0]!.debits)).toBe(1_500);
    for (const row of history.rows)
      expect([Number(row.days), Number(row.keyed), Number(row.split)]).toEqual([12, Number(row.debits), Number(row.debits)]);
    // Half drawn from leases (one hold per chunk), half reserved and settled (a hold each).
    const holds = await database.query<{ lease: boolean; status: string; count: string }>(
      "SELECT lease, status, count(*) FROM holds WHERE project_id LIKE 'p%' GROUP BY lease, status ORDER BY lease, status",
    );
    expect(holds.rows.map((row) => [row.lease, row.status])).toEqual([
      [false, "settled"],
      [true, "released"],
    ]);
    const plan = historyPlan({
      rows: 3_000,
      days: 12,
      projects: ["p000", "p001", "p002"],
      busyShare: 0.5,
      leasedShare: 0.5,
      today: "2026-11-30",
    });
    const leased = plan.reduce((sum, entry) => sum + entry.leased, 0);
    expect(leased).toBeGreaterThan(1_400);
    expect(Number(holds.rows[0]!.count)).toBe(3_000 - leased);
    expect(Number(holds.rows[1]!.count)).toBe(plan.filter((entry) => entry.leased > 0).length);
    // Every balance is its ledger's sum, and nothing is held after the run.
    const drift = await database.query(
      `SELECT p.id FROM projects p LEFT JOIN ledger_entries l ON l.project_id = p.id
        GROUP BY p.id, p.balance_nano, p.held_nano HAVING p.balance_nano <> coalesce(sum(l.amount_nano), 0) OR p.held_nano <> 0`,
    );
    expect(drift.rows).toEqual([]);

    expect(results.rows).toBe(3_000);
    for (const figures of [results.empty, results.full]) {
      expect(figures.draw_us_per_draw).toBeGreaterThan(0);
      for (const [route, ms] of Object.entries(figures.routes_ms)) expect([route, ms > 0]).toEqual([route, true]);
    }
    expect(results.draw_us_per_draw).toEqual({ empty: results.empty.draw_us_per_draw, full: results.full.draw_us_per_draw });
    expect(results.usage_route_ms).toEqual({ d30: results.full.routes_ms.usage_d30, d365: results.full.routes_ms.usage_d365 });
    // A debit and its share of a hold take hundreds of bytes, not tens, nor tens of thousands.
    expect(results.bytes_per_million_requests).toBeGreaterThan(200e6);
    expect(results.bytes_per_million_requests).toBeLessThan(5_000e6);
  });
});
