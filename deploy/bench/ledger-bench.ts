// How the database's cost grows with the ledger's history (issue 37): a scratch PostgreSQL database, a real
// control plane on it, projects and keys made through its admin API; the figures at 0 rows; then `--rows`
// synthetic debits over `--days` days and `--projects` projects written by the real write path's SQL
// (ledger-fill.ts), and the same figures again. Figures: a Draw batch's database time per draw and its debits'
// roll-up into the usage rollups, the admin
// usage routes of the busy project over 30 and 365 days, the console's Usage page data, key spend, the ledger
// and holds pages, and table and index bytes per million requests.
//
//   pnpm bench:ledger [--rows 50000000] [--days 400] [--projects 50] [--out deploy/bench/results/ledger.json] [--keep]
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import pg from "pg";
import { repositoryRoot, startService } from "../local/service-process";
import { BENCH_POSTGRES_URL } from "./bench-stack";
import { historyPlan, type ModelPath, writeChunk } from "./ledger-fill";
import { adminApi, ledgerFigures, type LedgerFigures } from "./ledger-figures";
import { writeResults } from "./results-file";

export interface LedgerBenchOptions {
  rows: number;
  days: number;
  projects: number;
  keysPerProject: number;
  /** The busy project's share of the requests (the others share the rest evenly). */
  busyShare: number;
  /** The share of debits drawn from budget leases (the rest are reserved and settled one by one). */
  leasedShare: number;
  /** Requests per statement at most. */
  chunk: number;
  /** Timed repeats of each figure (the median is kept). */
  repeats: number;
  postgresUrl: string;
  keep: boolean;
  log: (line: string) => void;
}

export interface LedgerBenchResults {
  rows: number;
  days: number;
  projects: number;
  commit: string;
  machine: { cpus: number; cpu: string; postgres: string };
  fill_seconds: number;
  draw_us_per_draw: { empty: number; full: number };
  /** The roll-up of those draws' debits into usage_daily and usage_key_totals, µs per debit (null: the sweeper was first). */
  rollup_us_per_debit: { empty: number | null; full: number | null };
  usage_route_ms: { d30: number; d365: number };
  bytes_per_million_requests: number;
  empty: LedgerFigures;
  full: LedgerFigures;
  /** With `keep`: the scratch database, left for inspection. */
  kept_database_url?: string;
  /** Dropping and exporting one partition: null while the ledger is one table. */
  partition: { drop_ms: number | null; export_ms: number | null; note: string };
}

export async function runLedgerBench(options: LedgerBenchOptions): Promise<LedgerBenchResults> {
  const database = `ledger_bench_${randomBytes(4).toString("hex")}`;
  const admin = new pg.Client({ connectionString: options.postgresUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${database}`);
  const databaseUrl = options.postgresUrl.replace(/\/[^/]*$/, `/${database}`);
  const adminToken = randomBytes(16).toString("hex");
  const controlPlane = await startService("control-plane", {
    DATABASE_URL: databaseUrl,
    GATEWAY_INTERNAL_TOKEN: randomBytes(16).toString("hex"),
    GATEWAY_ADMIN_TOKEN: adminToken,
    CONTROL_PLANE_GRPC_PORT: "0",
    CONTROL_PLANE_ADMIN_PORT: "0",
    METRICS_PORT: "0",
  });
  const writers = [new pg.Client({ connectionString: databaseUrl }), new pg.Client({ connectionString: databaseUrl })];
  try {
    await Promise.all(writers.map((client) => client.connect()));
    const api = adminApi(controlPlane.ready.admin!, adminToken);
    const today = new Date().toISOString().slice(0, 10);
    const projects = Array.from({ length: options.projects }, (_, index) => `p${String(index).padStart(3, "0")}`);
    // Draws are timed on projects of their own, leased today: the history's projects keep their cap days in the past.
    const drawProjects = ["drawsa", "drawsb", "drawsc", "drawsd", "drawse"];
    const keys = new Map<string, string[]>();
    for (const projectId of [...projects, ...drawProjects]) {
      await api("POST", "/admin/projects", { id: projectId, name: projectId });
      await api("POST", `/admin/projects/${projectId}/topups`, { amount_usd: "1000000", idempotency_key: "bench" });
      const ids: string[] = [];
      for (let index = 0; index < options.keysPerProject; index++)
        ids.push(((await api("POST", `/admin/projects/${projectId}/keys`, { name: `k${index}` })) as { id: string }).id);
      keys.set(projectId, ids);
    }
    const paths = (
      await writers[0]!.query<ModelPath>(
        "SELECT model_id AS model, provider AS access_path FROM access_paths ORDER BY model_id, position LIMIT 24",
      )
    ).rows;
    const context = { client: writers[0]!, api, projects, drawProjects, keys, paths, today, repeats: options.repeats, log: options.log };

    options.log("figures at 0 rows");
    const empty = await ledgerFigures(context);
    const started = performance.now();
    await fill(options, writers, projects, keys, paths, today);
    const fillSeconds = (performance.now() - started) / 1000;
    await writers[0]!.query("VACUUM ANALYZE ledger_entries");
    await writers[0]!.query("VACUUM ANALYZE holds");
    options.log(`figures at ${options.rows} rows (filled in ${fillSeconds.toFixed(0)} s)`);
    const full = await ledgerFigures(context);

    // Everything that grows with requests: the ledger, the holds and the rollups.
    const bytes = (figures: LedgerFigures) => Object.values(figures.tables).reduce((sum, table) => sum + table.total_bytes, 0);
    return {
      rows: options.rows,
      days: options.days,
      projects: options.projects,
      commit: execFileSync("git", ["rev-parse", "--short", "HEAD"], { cwd: repositoryRoot }).toString().trim(),
      machine: {
        cpus: os.cpus().length,
        cpu: os.cpus()[0]?.model ?? "",
        postgres: (await writers[0]!.query<{ v: string }>("SELECT current_setting('server_version') AS v")).rows[0]!.v,
      },
      fill_seconds: Math.round(fillSeconds),
      draw_us_per_draw: { empty: empty.draw_us_per_draw, full: full.draw_us_per_draw },
      rollup_us_per_debit: { empty: empty.rollup_us_per_debit, full: full.rollup_us_per_debit },
      usage_route_ms: { d30: full.routes_ms.usage_d30, d365: full.routes_ms.usage_d365 },
      // Between the two readings: the history and the first reading's timed draws.
      bytes_per_million_requests: Math.round(((bytes(full) - bytes(empty)) / (options.rows + empty.draws_written)) * 1e6),
      empty,
      full,
      partition: { drop_ms: null, export_ms: null, note: "the ledger is one unpartitioned table: no partition to drop or export" },
      ...(options.keep ? { kept_database_url: databaseUrl } : {}),
    };
  } finally {
    await Promise.all(writers.map((client) => client.end().catch(() => {})));
    await controlPlane.stop();
    if (!options.keep) await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    else options.log(`kept: ${databaseUrl}`);
    await admin.end();
  }
}

/** The history, oldest day first, on two connections (the projects split between them), as PostgreSQL's two cores allow. */
async function fill(
  options: LedgerBenchOptions,
  writers: pg.Client[],
  projects: string[],
  keys: Map<string, string[]>,
  paths: ModelPath[],
  today: string,
): Promise<void> {
  const plan = historyPlan({ ...options, projects, today });
  let done = 0;
  let reported = 0;
  await Promise.all(
    writers.map(async (client, writer) => {
      let part = 0;
      for (const entry of plan) {
        if (projects.indexOf(entry.projectId) % writers.length !== writer) continue;
        for (let offset = 0; offset < entry.requests; offset += options.chunk) {
          const requests = Math.min(options.chunk, entry.requests - offset);
          const leased = Math.max(0, Math.min(requests, entry.leased - offset));
          await writeChunk(
            client,
            { projectId: entry.projectId, day: entry.day, leased, perRequest: requests - leased, prefix: `h${writer}-${part++}` },
            keys.get(entry.projectId)!,
            paths,
          );
          done += requests;
          if (done - reported >= options.rows / 20) {
            reported = done;
            options.log(`  ${done} of ${options.rows} rows`);
          }
        }
      }
    }),
  );
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  const { values } = parseArgs({
    options: {
      rows: { type: "string", default: "50000000" },
      days: { type: "string", default: "400" },
      projects: { type: "string", default: "50" },
      keys: { type: "string", default: "10" },
      "busy-share": { type: "string", default: "0.2" },
      "leased-share": { type: "string", default: "0.5" },
      chunk: { type: "string", default: "5000" },
      repeats: { type: "string", default: "5" },
      keep: { type: "boolean", default: false },
      out: { type: "string", default: path.join(repositoryRoot, "deploy/bench/results/ledger-bench.json") },
    },
  });
  const results = await runLedgerBench({
    rows: Number(values.rows),
    days: Number(values.days),
    projects: Number(values.projects),
    keysPerProject: Number(values.keys),
    busyShare: Number(values["busy-share"]),
    leasedShare: Number(values["leased-share"]),
    chunk: Number(values.chunk),
    repeats: Number(values.repeats),
    postgresUrl: BENCH_POSTGRES_URL,
    keep: values.keep,
    log: (line) => console.log(line),
  });
  console.log(JSON.stringify({ draw_us_per_draw: results.draw_us_per_draw, usage_route_ms: results.usage_route_ms }, null, 2));
  writeResults(values.out, results);
}
