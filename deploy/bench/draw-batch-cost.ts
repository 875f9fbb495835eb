// PostgreSQL CPU per draw (issue 22, docs/money.md "Budget leases"): Draw calls of realistic size (150 draws of
// one lease each) through the real LedgerService and MoneyBatcher into gateway_apply_batch, on a scratch
// database of the machine's PostgreSQL, reading the CPU of the one backend that applies them (and of every
// postgres process: WAL writer, checkpointer, ...) from /proc. Rounds alternate two definitions of
// gateway_apply_batch on the same database: "before", the one of BENCH_BEFORE (default migration 0007, the
// definition before 0010), and "after", the latest migration's (what openDatabase applied).
//
//   tsx deploy/bench/draw-batch-cost.ts
//   BENCH_ROUNDS=6 BENCH_CALLS=200 BENCH_DRAWS=150 tsx deploy/bench/draw-batch-cost.ts
import { readFileSync } from "node:fs";
import path from "node:path";
import pg from "pg";
import { LedgerService } from "../../services/control-plane/src/billing/ledger-service";
import { ADMIN_TOKEN } from "../../services/control-plane/src/changes/audit-log";
import { openDatabase } from "../../services/control-plane/src/database/connect";
import { migrationsDir, readMigrations } from "../../services/control-plane/src/database/migrations";
import { cpuSeconds, pidsNamed } from "./process-stats";

const rounds = Number(process.env.BENCH_ROUNDS ?? 6);
const calls = Number(process.env.BENCH_CALLS ?? 200); // Draw calls per round and definition
const drawsPerCall = Number(process.env.BENCH_DRAWS ?? 150);
const beforeFile = process.env.BENCH_BEFORE ?? path.join(migrationsDir, "0007_key_controls/migration.sql");
const adminUrl = process.env.BENCH_POSTGRES_URL ?? "postgresql://postgres@127.0.0.1:5432/test";

/** The last CREATE OR REPLACE FUNCTION gateway_apply_batch statement of a migration's SQL. */
function applyBatchDefinition(sql: string): string {
  const start = sql.lastIndexOf("CREATE OR REPLACE FUNCTION gateway_apply_batch");
  const body = sql.indexOf("AS $$", start);
  const end = sql.indexOf("\n$$;", body);
  if (start < 0 || body < 0 || end < 0) throw new Error("no gateway_apply_batch definition");
  return sql.slice(start, end + 4);
}

const before = applyBatchDefinition(readFileSync(beforeFile, "utf8"));
const latest = readMigrations()
  .map((migration) => migration.sql)
  .filter((sql) => sql.includes("CREATE OR REPLACE FUNCTION gateway_apply_batch"))
  .at(-1)!;
const after = applyBatchDefinition(latest);

const name = `draw_batch_bench_${process.pid}`;
const admin = new pg.Client({ connectionString: adminUrl });
await admin.connect();
await admin.query(`DROP DATABASE IF EXISTS ${name}`);
await admin.query(`CREATE DATABASE ${name}`);
const url = adminUrl.replace(/\/[^/]*$/, `/${name}`);

const database = await openDatabase({ databaseUrl: url, dataDir: "" });
// The money batches go through one connection of their own, so its backend's CPU is theirs.
const client = new pg.Client({ connectionString: url });
await client.connect();
const backend = Number((await client.query<{ pid: number }>("SELECT pg_backend_pid() AS pid")).rows[0]!.pid);
const ledger = new LedgerService(
  { prisma: database.prisma, query: async (sql, params) => (await client.query(sql, params)).rows },
  { now: () => new Date() },
  600,
);

const projectId = "bench";
await database.prisma.project.create({ data: { id: projectId, name: "draw bench" } });
await ledger.topUp(projectId, 10n ** 15n, "bench", ADMIN_TOKEN);

const postgresCpu = () => pidsNamed(["postgres"]).reduce((sum, pid) => sum + cpuSeconds(pid), 0);
const results: Record<string, { backend: number[]; all: number[]; batches: number; draws: number }> = {
  before: { backend: [], all: [], batches: 0, draws: 0 },
  after: { backend: [], all: [], batches: 0, draws: 0 },
};
let requests = 0;

async function measure(label: "before" | "after", definition: string, round: number): Promise<void> {
  await client.query(definition);
  const leaseId = `lease-${label}-${round}`;
  const lease = await ledger.lease({ leaseId, projectId, amountNano: 10n ** 13n, minAmountNano: 1n });
  if (!lease.granted) throw new Error("lease refused");
  // One warm-up call (plan caches of the new definition), not measured.
  const call = () =>
    Array.from({ length: drawsPerCall }, () => ({
      requestId: `req-${requests++}`,
      leaseId,
      projectId,
      amountNano: 123_456n,
      holdNano: 200_000n,
      model: "openai/gpt-4.1-mini",
      accessPath: "openai",
      inputTokens: 120,
      outputTokens: 48,
      keyId: "key-bench",
      costParts: [
        { component: "input", units: 120, nano: 48_000n },
        { component: "output", units: 48, nano: 75_456n },
      ],
    }));
  await ledger.draw(call());
  const batches = ledger.batcher.batches;
  const backendBefore = cpuSeconds(backend);
  const allBefore = postgresCpu();
  for (let index = 0; index < calls; index++) {
    const answers = await ledger.draw(call());
    const wrong = answers.find((answer) => answer.outcome !== "settled" || answer.debitedNano !== 123_456n);
    if (wrong) throw new Error(`a draw did not debit: ${JSON.stringify(wrong, (_, v) => (typeof v === "bigint" ? String(v) : v))}`);
  }
  const draws = calls * drawsPerCall;
  results[label]!.backend.push(((cpuSeconds(backend) - backendBefore) / draws) * 1e6);
  results[label]!.all.push(((postgresCpu() - allBefore) / draws) * 1e6);
  results[label]!.batches += ledger.batcher.batches - batches;
  results[label]!.draws += draws;
  console.log(
    `round ${round} ${label.padEnd(6)} backend ${results[label]!.backend.at(-1)!.toFixed(1)} µs/draw, all postgres ${results[label]!.all.at(-1)!.toFixed(1)} µs/draw`,
  );
}

try {
  for (let round = 1; round <= rounds; round++) {
    // Alternate which goes first, so neither always runs on the larger tables.
    if (round % 2) {
      await measure("before", before, round);
      await measure("after", after, round);
    } else {
      await measure("after", after, round);
      await measure("before", before, round);
    }
  }
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  for (const label of ["before", "after"] as const) {
    const result = results[label]!;
    console.log(
      `${label.padEnd(6)} median backend ${median(result.backend).toFixed(1)} µs/draw (${result.backend.map((v) => v.toFixed(1)).join(", ")}), ` +
        `all postgres ${median(result.all).toFixed(1)} µs/draw; ${(result.draws / result.batches).toFixed(1)} draws per batch`,
    );
  }
} finally {
  await client.end();
  await database.close();
  await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await admin.end();
}
