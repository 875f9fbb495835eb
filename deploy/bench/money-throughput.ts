// Money throughput of the control plane for ONE busy project: reserve + settle
// pairs through the real LedgerService (group commit, PL/pgSQL functions) on
// PGlite and on PostgreSQL, sequential and with many calls in flight. Requests
// carry their API key, as the data plane sends them; BENCH_KEY_BUDGET_USD gives
// that key a budget (its money is then counted too: docs/keys.md).
//
//   pnpm bench:money                 (PostgreSQL at BENCH_POSTGRES_URL, default the machine's)
//   BENCH_REQUESTS=4000 BENCH_CONCURRENCY=256 pnpm bench:money
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { LedgerService } from "../../services/control-plane/src/billing/ledger-service";
import { openDatabase } from "../../services/control-plane/src/database/connect";
import { ADMIN_TOKEN } from "../../services/control-plane/src/changes/audit-log";

const requests = Number(process.env.BENCH_REQUESTS ?? 2000);
const concurrencies = (process.env.BENCH_CONCURRENCY ?? "1,64,256").split(",").map(Number);
const adminUrl = process.env.BENCH_POSTGRES_URL ?? "postgresql://postgres@127.0.0.1:5432/test";
const keyBudgetNano = process.env.BENCH_KEY_BUDGET_USD ? BigInt(Math.round(Number(process.env.BENCH_KEY_BUDGET_USD) * 1e9)) : null;

async function withScratchDatabase<T>(work: (url: string) => Promise<T>): Promise<T> {
  const name = `gateway_bench_${process.pid}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${name}`);
  await admin.query(`CREATE DATABASE ${name}`);
  try {
    return await work(adminUrl.replace(/\/[^/]*$/, `/${name}`));
  } finally {
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  }
}

async function run(label: string, databaseUrl: string | undefined): Promise<void> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "bench-pglite-"));
  const database = await openDatabase({ databaseUrl, dataDir });
  const ledger = new LedgerService(database, { now: () => new Date() }, 600);
  try {
    for (const concurrency of concurrencies) {
      const projectId = `bench${concurrency}x${Date.now().toString(36)}`;
      await database.prisma.project.create({ data: { id: projectId, name: "bench" } });
      await ledger.topUp(projectId, 10n ** 15n, "bench", ADMIN_TOKEN);
      const keyId = `key_${projectId}`;
      await database.prisma.apiKey.create({ data: { id: keyId, projectId, hash: keyId, hint: "bnch", budgetNano: keyBudgetNano } });
      await database.prisma.$executeRaw`SELECT gateway_key_issued(${keyId})`;
      const batchesBefore = ledger.batcher.batches;
      let next = 0;
      const started = performance.now();
      await Promise.all(
        Array.from({ length: concurrency }, async () => {
          while (next < requests) {
            const requestId = `${projectId}-${next++}`;
            await ledger.reserve({ requestId, projectId, keyId, amountNano: 10_000n, model: "m", accessPath: "p" });
            await ledger.settle({
              requestId,
              projectId,
              amountNano: 4_000n,
              model: "m",
              accessPath: "p",
              inputTokens: 10,
              outputTokens: 5,
            });
          }
        }),
      );
      const seconds = (performance.now() - started) / 1000;
      const batches = ledger.batcher.batches - batchesBefore;
      console.log(
        `${label.padEnd(10)} concurrency ${String(concurrency).padStart(4)}: ${(requests / seconds).toFixed(0).padStart(6)} requests/s (reserve+settle), ${((2 * requests) / batches).toFixed(1)} operations per batch`,
      );
    }
  } finally {
    await database.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await run("pglite", undefined);
await withScratchDatabase((url) => run("postgresql", url));
