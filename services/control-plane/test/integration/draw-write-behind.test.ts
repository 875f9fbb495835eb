// Migration 0010 keeps a lease's hold row in gateway_apply_batch's variables across a run of draws of
// that lease and writes it once (issue 22: PostgreSQL's CPU per draw). Its answers and every row it
// writes must be what 0007's definition gave. Two checks, each against both definitions (0007's: a
// database migrated up to 0009, as main's; and the latest):
//   - a batch worked out by hand: several draws of one lease, replays, a lease released mid-batch and
//     drawn from after, an expired lease drawn from, an unknown lease, a draw past what a lease holds;
//   - random mixed batches (reserve, settle, release, reduce, renew, lease, runs of draws of several
//     leases and projects, replays, journal draws, draws naming another project, key budgets, daily
//     caps, expiry sweeps between batches) applied to two databases alike: the same answers, the same
//     projects, holds, ledger entries (ids included) and key counters after every batch.
import { cpSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import fc from "fast-check";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { withPostgresRunner } from "../../src/database/connect";
import { applyMigrations, migrationsDir } from "../../src/database/migrations";
import { scratchDatabase, type ScratchDatabase } from "../harness/scratch-database";

/** The migrations before 0010 (main's schema), in a folder of their own. */
const before = (() => {
  const folder = mkdtempSync(path.join(os.tmpdir(), "migrations-"));
  for (const name of readdirSync(migrationsDir).filter((entry) => entry < "0010"))
    cpSync(path.join(migrationsDir, name), path.join(folder, name), { recursive: true });
  return folder;
})();

const DEFINITIONS = ["0007", "latest"] as const;
type Definition = (typeof DEFINITIONS)[number];

type Op = Record<string, string | number>;

interface Lane {
  scratch: ScratchDatabase;
  client: pg.Client;
}

async function openLane(name: string, definition: Definition): Promise<Lane> {
  const scratch = await scratchDatabase(name);
  await withPostgresRunner(scratch.url, (runner) => applyMigrations(runner, definition === "0007" ? before : migrationsDir));
  const client = new pg.Client({ connectionString: scratch.url });
  await client.connect();
  return { scratch, client };
}

const apply = async (lane: Lane, ops: Op[]): Promise<unknown[]> =>
  (await lane.client.query<{ results: unknown[] }>("SELECT gateway_apply_batch($1::jsonb) AS results", [JSON.stringify(ops)])).rows[0]!
    .results;

/** Every money row, as JSON text (closed_at and created_at are now(): only whether closed_at is set). */
async function state(lane: Lane): Promise<string> {
  const { rows } = await lane.client.query<{ state: unknown }>(`
    SELECT jsonb_build_object(
      'projects', (SELECT jsonb_agg(to_jsonb(p) - 'created_at' ORDER BY id) FROM projects p),
      'holds', (SELECT jsonb_agg(to_jsonb(h) - 'created_at' - 'closed_at' || jsonb_build_object('closed', closed_at IS NOT NULL)
                                 ORDER BY request_id) FROM holds h),
      'ledger', (SELECT jsonb_agg(to_jsonb(l) - 'created_at' ORDER BY id) FROM ledger_entries l),
      'keys', (SELECT jsonb_agg(to_jsonb(k) - 'created_at' ORDER BY id) FROM api_keys k)) AS state`);
  return JSON.stringify(rows[0]!.state);
}

const DAY = "2026-11-25";
const at = (seconds: number, micros = 0) =>
  new Date(Date.UTC(2026, 10, 25, 12, 0, seconds)).toISOString().replace("Z", `${String(micros).padStart(3, "0")}Z`);
const draw = (request: string, lease: string, amount: number, hold: number, expires: string, project = "hand"): Op => ({
  op: "draw",
  request_id: request,
  lease_id: lease,
  project_id: project,
  amount: String(amount),
  hold: String(hold),
  expires_at: expires,
  model: "m",
  access_path: "openai",
  input_tokens: 10,
  output_tokens: 5,
});

afterAll(() => rmSync(before, { recursive: true, force: true })); // after every describe below

describe.each(DEFINITIONS)("draws of one lease in one batch (%s's gateway_apply_batch)", (definition) => {
  let lane: Lane;

  beforeAll(async () => {
    lane = await openLane(`draw_hand_${definition}_${process.pid}`, definition);
  });

  afterAll(async () => {
    await lane?.client.end();
    await lane?.scratch.drop();
  });

  it("debits, answers replays with the first debit, and leaves the lease row and the balance as worked out by hand", async () => {
    const { client } = lane;
    await client.query("INSERT INTO projects (id, name) VALUES ('hand', 'hand')");
    await client.query(`SELECT gateway_topup('hand', 8000000, 'initial', '${DAY}')`);
    const lease = (id: string, amount: number, expires: string): Op => ({
      op: "lease",
      request_id: id,
      project_id: "hand",
      amount: String(amount),
      min_amount: "1",
      share: 8,
      day: DAY,
      expires_at: expires,
    });
    // 8,000,000 available: L1 gets 1,000,000 (1/8), L2 500,000, L3 200,000; L3 then expires.
    expect(await apply(lane, [lease("L1", 1_000_000, at(600)), lease("L2", 500_000, at(600)), lease("L3", 200_000, at(10))])).toEqual([
      { outcome: "reserved", available: "7000000", reserved: "1000000" },
      { outcome: "reserved", available: "6500000", reserved: "500000" },
      { outcome: "reserved", available: "6300000", reserved: "200000" },
    ]);
    await client.query(`SELECT gateway_expire_holds('${at(60)}', 100)`);

    const results = await apply(lane, [
      draw("d1", "L1", 100_000, 200_000, at(700)), // L1 1,000,000 -> 900,000
      draw("d2", "L1", 250_000, 200_000, at(701, 600)), // at most its hold: 200,000 (50,000 unbilled); L1 700,000
      draw("d1", "L1", 999, 999, at(900)), // a replay: the first debit, nothing moves (not even the expiry)
      draw("d3", "L1", 0, 100_000, at(650)), // nothing to debit; an earlier expiry moves nothing
      draw("d4", "L2", 50_000, 100_000, at(702)), // another lease: L2 500,000 -> 450,000
      draw("d5", "L1", 80_000, 100_000, "1970-01-01T00:00:00.000Z"), // from a journal: L1 620,000, expiry kept
      { op: "release", request_id: "L1", project_id: "hand" }, // L1 gives its 620,000 back mid-batch
      draw("d6", "L1", 70_000, 100_000, at(800)), // a released lease: debits like a late settle, expiry kept
      draw("d7", "L1", 30_000, 30_000, at(800)),
      draw("d2", "L1", 1, 1, at(900)), // a replay after the release
      draw("d8", "nope", 10_000, 10_000, at(800)), // no such lease
      draw("d9", "L2", 600_000, 600_000, at(703, 400)), // more than L2 holds: its 450,000 (150,000 unbilled)
      draw("d10", "L3", 40_000, 50_000, at(800)), // the expired lease: a late debit
      draw("d10", "L3", 40_000, 50_000, at(800)),
    ]);
    const settled = (debited: number) => ({ outcome: "settled", debited: String(debited) });
    expect(results).toEqual([
      settled(100_000),
      settled(200_000),
      settled(100_000),
      settled(0),
      settled(50_000),
      settled(80_000),
      { outcome: "released" },
      settled(70_000),
      settled(30_000),
      settled(200_000),
      { outcome: "unknown_request", debited: "0" },
      settled(450_000),
      settled(40_000),
      settled(40_000),
    ]);

    const { rows: holds } = await client.query(
      `SELECT request_id, status::text, amount_nano::text, debited_nano::text, unbilled_nano::text,
              to_char(expires_at AT TIME ZONE 'UTC', 'HH24:MI:SS.MS') AS expires, closed_at IS NOT NULL AS closed
         FROM holds ORDER BY request_id`,
    );
    expect(holds).toEqual([
      // 100,000 + 200,000 + 0 + 80,000 active, then 70,000 + 30,000 released; expires_at 12:11:41.0006 rounded to ms.
      {
        request_id: "L1",
        status: "released",
        amount_nano: "620000",
        debited_nano: "480000",
        unbilled_nano: "50000",
        expires: "12:11:41.001",
        closed: true,
      },
      {
        request_id: "L2",
        status: "active",
        amount_nano: "0",
        debited_nano: "500000",
        unbilled_nano: "150000",
        expires: "12:11:43.000",
        closed: false,
      },
      {
        request_id: "L3",
        status: "expired",
        amount_nano: "200000",
        debited_nano: "40000",
        unbilled_nano: "0",
        expires: "12:00:10.000",
        closed: true,
      },
    ]);
    const { rows: ledger } = await client.query(
      "SELECT id::int, request_id, amount_nano::text, kind::text FROM ledger_entries WHERE kind = 'debit' ORDER BY id",
    );
    expect(ledger.map((row) => [row.request_id, row.amount_nano])).toEqual([
      ["d1", "-100000"],
      ["d2", "-200000"],
      ["d3", "0"],
      ["d4", "-50000"],
      ["d5", "-80000"],
      ["d6", "-70000"],
      ["d7", "-30000"],
      ["d9", "-450000"],
      ["d10", "-40000"],
    ]);
    expect(ledger.map((row) => row.id)).toEqual([2, 3, 4, 5, 6, 7, 8, 9, 10]); // the top-up is 1; no id skipped
    const { rows: projects } = await client.query(
      "SELECT balance_nano::text, held_nano::text, cap_day::text, cap_used_nano::text FROM projects WHERE id = 'hand'",
    );
    // 8,000,000 - 1,020,000 debited; nothing held (L2 drawn to 0); the day: 1,020,000 debited + 0 held.
    expect(projects).toEqual([{ balance_nano: "6980000", held_nano: "0", cap_day: DAY, cap_used_nano: "1020000" }]);
  });
});

// Random batches, the same on both definitions.
const PROJECTS = ["pa", "pb", "pc"];
const LEASES = 3; // per project
const REQUESTS = 6; // reserve/settle ids per project
const DRAWS = 40; // draw ids per project: replays come often

const opArbitrary = fc.oneof(
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant("reserve" as const),
      p: fc.nat(2),
      r: fc.nat(REQUESTS - 1),
      amount: fc.nat(5_000),
      min: fc.nat(2_000),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant("settle" as const), p: fc.nat(2), r: fc.nat(REQUESTS - 1), amount: fc.nat(8_000) }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("release" as const), p: fc.nat(2), r: fc.nat(REQUESTS - 1) }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant("lease" as const),
      p: fc.nat(2),
      l: fc.nat(LEASES - 1),
      amount: fc.nat(30_000),
      min: fc.nat(1_500),
    }),
  },
  {
    weight: 8,
    arbitrary: fc.record({
      kind: fc.constant("draws" as const),
      p: fc.nat(2),
      l: fc.nat(LEASES - 1),
      // A run of draws of one lease, as a data plane's Draw call sends them.
      draws: fc.array(
        fc.record({
          d: fc.nat(DRAWS - 1),
          amount: fc.nat(3_000),
          hold: fc.nat(2_500),
          expires: fc.oneof(fc.nat(2_000), fc.constant(-1)), // -1: from a journal (the epoch)
          micros: fc.nat(999),
          otherProject: fc.nat(20), // 0: names another project, 1: none
          key: fc.nat(2),
        }),
        { minLength: 1, maxLength: 30 },
      ),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant("releaseLease" as const), p: fc.nat(2), l: fc.nat(LEASES - 1), keep: fc.nat(8_000) }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant("renew" as const),
      p: fc.nat(2),
      l: fc.nat(LEASES - 1),
      lease: fc.boolean(),
      at: fc.nat(2_000),
    }),
  },
);

const batchArbitrary = fc.record({
  ops: fc.array(opArbitrary, { minLength: 1, maxLength: 25 }),
  sorted: fc.boolean(), // the batcher sorts by project; a batch unsorted must give the same answers too
  sweepAt: fc.option(fc.nat(2_000), { nil: null }), // an expiry sweep after the batch
  topUp: fc.option(fc.record({ p: fc.nat(2), amount: fc.integer({ min: 1, max: 40_000 }) }), { nil: null }),
});

type RandomOp = typeof opArbitrary extends fc.Arbitrary<infer T> ? T : never;

function toOps(run: string, ops: RandomOp[], sorted: boolean): Op[] {
  const out: Op[] = [];
  for (const op of ops) {
    const p = `${run}${PROJECTS[op.p]}`;
    switch (op.kind) {
      case "reserve":
        out.push({
          op: "reserve",
          request_id: `${p}-r${op.r}`,
          project_id: p,
          amount: String(op.amount),
          min_amount: String(Math.min(op.min, op.amount)),
          day: DAY,
          expires_at: at(300),
          model: "m",
          access_path: "openai",
          key_id: `${p}-k${op.r % 3}`,
        });
        break;
      case "settle":
        out.push({
          op: "settle",
          request_id: `${p}-r${op.r}`,
          project_id: p,
          amount: String(op.amount),
          model: "m",
          access_path: "openai",
          input_tokens: 1,
          output_tokens: 1,
        });
        break;
      case "release":
        out.push({ op: "release", request_id: `${p}-r${op.r}`, project_id: p });
        break;
      case "lease":
        out.push({
          op: "lease",
          request_id: `${p}-L${op.l}`,
          project_id: p,
          amount: String(op.amount),
          min_amount: String(op.min),
          share: 8,
          day: DAY,
          expires_at: at(300),
        });
        break;
      case "releaseLease":
        out.push({ op: "release", request_id: `${p}-L${op.l}`, project_id: p, ...(op.keep ? { keep: String(op.keep) } : {}) });
        break;
      case "renew":
        out.push({ op: "renew", request_id: op.lease ? `${p}-L${op.l}` : `${p}-r${op.l}`, project_id: p, expires_at: at(op.at) });
        break;
      case "draws":
        for (const d of op.draws) {
          // Mostly the lease's own project; sometimes another project's id, or none.
          const project = d.otherProject === 0 ? `${run}${PROJECTS[(op.p + 1) % 3]}` : d.otherProject === 1 ? "" : p;
          const expires = d.expires === -1 ? "1970-01-01T00:00:00.000Z" : at(d.expires, d.micros);
          out.push({ ...draw(`${p}-d${d.d}`, `${p}-L${op.l}`, d.amount, d.hold, expires, project), key_id: `${p}-k${d.key}` });
        }
        break;
    }
  }
  if (sorted) out.sort((a, b) => (a.project_id! < b.project_id! ? -1 : a.project_id! > b.project_id! ? 1 : 0));
  return out;
}

describe("random mixed batches on 0007's and the latest gateway_apply_batch", () => {
  const lanes: Partial<Record<Definition, Lane>> = {};

  beforeAll(async () => {
    for (const definition of DEFINITIONS) lanes[definition] = await openLane(`draw_diff_${definition}_${process.pid}`, definition);
    const written = (lane: Lane) => lane.client.query("SELECT 1 FROM pg_proc WHERE proname = 'gateway_write_back_lease'");
    expect((await written(lanes["0007"]!)).rowCount, "main's definition on one side").toBe(0);
    expect((await written(lanes.latest!)).rowCount, "0010's on the other").toBe(1);
  });

  afterAll(async () => {
    for (const lane of Object.values(lanes)) {
      await lane?.client.end();
      await lane?.scratch.drop();
    }
  });

  it("gives the same answers and leaves the same rows", async () => {
    let run = 0;
    let draws = 0;
    let cachedRuns = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(batchArbitrary, { minLength: 5, maxLength: 30 }), fc.nat(2), async (batches, capKind) => {
        run++;
        const prefix = `x${run}`;
        for (const lane of Object.values(lanes) as Lane[]) {
          for (const [index, name] of PROJECTS.entries()) {
            const id = `${prefix}${name}`;
            // Caps: none, one that binds, one that binds on some projects only; key_limits on project b.
            const cap = capKind === 0 ? null : capKind === 1 || index === 2 ? 25_000 : null;
            await lane.client.query("INSERT INTO projects (id, name, daily_cap_nano) VALUES ($1, $1, $2)", [id, cap]);
            await lane.client.query(`SELECT gateway_topup($1, 60000, 'initial', '${DAY}')`, [id]);
            for (let key = 0; key < 3; key++)
              await lane.client.query("INSERT INTO api_keys (id, project_id, hash, hint) VALUES ($1, $2, $1, 'h')", [`${id}-k${key}`, id]);
          }
          // Keys of project b gain a budget and a cap after their leases may exist (gateway_update_key):
          // their draws are then charged to the key.
          await lane.client.query(`SELECT gateway_update_key($1, '{"budget_nano": 9000}', '${DAY}')`, [`${prefix}pb-k1`]);
          await lane.client.query(`SELECT gateway_update_key($1, '{"daily_cap_nano": 7000}', '${DAY}')`, [`${prefix}pb-k2`]);
        }
        for (const [batchIndex, batch] of batches.entries()) {
          const ops = toOps(prefix, batch.ops, batch.sorted);
          const answers: unknown[][] = [];
          for (const lane of Object.values(lanes) as Lane[]) answers.push(await apply(lane, ops));
          expect(answers[1], "the same answers").toEqual(answers[0]);
          for (let index = 0; index < ops.length; index++) {
            if (ops[index]!.op !== "draw") continue;
            draws++;
            if (index > 0 && ops[index - 1]!.op === "draw" && ops[index - 1]!.lease_id === ops[index]!.lease_id) cachedRuns++;
          }
          for (const lane of Object.values(lanes) as Lane[]) {
            if (batch.topUp)
              await lane.client.query(`SELECT gateway_topup($1, $2, $3, '${DAY}')`, [
                `${prefix}${PROJECTS[batch.topUp.p]}`,
                batch.topUp.amount,
                `topup${batchIndex}`,
              ]);
            if (batch.sweepAt !== null) await lane.client.query("SELECT gateway_expire_holds($1, 1000)", [at(batch.sweepAt)]);
          }
          const states = await Promise.all((Object.values(lanes) as Lane[]).map(state));
          expect(states[1], "the same rows").toBe(states[0]);
        }
      }),
      { numRuns: 40, seed: Number(process.env.PROPERTY_SEED ?? Date.now() % 2 ** 31), endOnFailure: true },
    );
    expect(draws, "draws applied").toBeGreaterThan(5_000);
    expect(cachedRuns, "draws following a draw of the same lease").toBeGreaterThan(2_000);
  }, 600_000);
});
