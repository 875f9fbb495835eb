// The ledger benchmark's figures at one size of history (ledger-bench.ts): Draw batches as MoneyBatcher
// sends them (100 draws, most from one busy lease, sorted by project) timed at the database, the admin
// routes an operator and the console read timed at the route, and the ledger's and holds' bytes.
import type pg from "pg";
import type { ModelPath } from "./ledger-fill";

export interface FiguresContext {
  client: pg.Client;
  api: AdminApi;
  /** The history's projects; the first is the busy one. */
  projects: string[];
  /** Projects whose leases the timed draws debit. */
  drawProjects: string[];
  keys: Map<string, string[]>;
  paths: ModelPath[];
  today: string;
  repeats: number;
  log: (line: string) => void;
}

interface TableBytes {
  /** The planner's estimate (reltuples) after the last ANALYZE: 0 before the first. */
  rows_estimated: number;
  heap_bytes: number;
  index_bytes: number;
  total_bytes: number;
}

export interface LedgerFigures {
  /** Median over the repeats of a Draw batch's time per draw (20 batches of 100 a repeat). */
  draw_us_per_draw: number;
  draw_us_repeats: number[];
  /**
   * The roll-up of the timed draws' debits (gateway_roll_up_pending, as the sweeper and every read run it), µs
   * per debit moved; null when the sweeper had moved them first.
   */
  rollup_us_per_debit: number | null;
  /** Ledger rows the timed draws wrote (after the bytes were read). */
  draws_written: number;
  /** Medians at the route, ms (after one untimed call each). */
  routes_ms: {
    usage_d30: number;
    usage_d365: number;
    /** The console's Usage page as it opens: the project's month so far. */
    usage_month_to_date: number;
    key_usage_d30: number;
    key_usage_d365: number;
    /** The keys page: every key of the busy project with its spend. */
    project_keys: number;
    /** One key with its spend. */
    one_key: number;
    ledger_page: number;
    settled_holds_page: number;
    balance: number;
  };
  tables: { ledger_entries: TableBytes; holds: TableBytes; usage_daily: TableBytes; usage_key_totals: TableBytes };
}

const DRAWS_PER_BATCH = 100;
const BATCHES_PER_REPEAT = 20;
/** Of a batch's draws, this many from the busy draw project's lease; the rest evenly from the others'. */
const BUSY_DRAWS = 60;

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const round = (value: number, digits = 1) => Math.round(value * 10 ** digits) / 10 ** digits;
const dayBefore = (day: string, days: number) => new Date(Date.parse(`${day}T00:00:00Z`) - days * 86_400_000).toISOString().slice(0, 10);

export async function ledgerFigures(context: FiguresContext): Promise<LedgerFigures> {
  // The bytes first: the timed draws below add rows of their own (draws_written).
  const tables = {
    ledger_entries: await tableBytes(context.client, "ledger_entries"),
    holds: await tableBytes(context.client, "holds"),
    usage_daily: await tableBytes(context.client, "usage_daily"),
    usage_key_totals: await tableBytes(context.client, "usage_key_totals"),
  };
  const draws = await drawRepeats(context);
  const rollUp = await rollUpMicros(context.client);
  const { api, projects, keys, today, repeats } = context;
  const busy = projects[0]!;
  const key = keys.get(busy)![0]!;
  const timed = async (route: string) => {
    await api("GET", route);
    const times: number[] = [];
    for (let repeat = 0; repeat < repeats; repeat++) {
      const started = performance.now();
      await api("GET", route);
      times.push(performance.now() - started);
    }
    return round(median(times));
  };
  const window = (days: number) => `from=${dayBefore(today, days - 1)}&to=${today}`;
  const quiet = projects[Math.floor(projects.length / 2)] ?? busy;
  return {
    draw_us_per_draw: round(median(draws)),
    draw_us_repeats: draws.map((value) => round(value)),
    routes_ms: {
      usage_d30: await timed(`/admin/projects/${busy}/usage?${window(30)}`),
      usage_d365: await timed(`/admin/projects/${busy}/usage?${window(365)}`),
      usage_month_to_date: await timed(`/admin/projects/${busy}/usage`),
      key_usage_d30: await timed(`/admin/keys/${key}/usage?${window(30)}`),
      key_usage_d365: await timed(`/admin/keys/${key}/usage?${window(365)}`),
      project_keys: await timed(`/admin/projects/${busy}/keys`),
      one_key: await timed(`/admin/keys/${key}`),
      ledger_page: await timed(`/admin/projects/${busy}/ledger?limit=100`),
      settled_holds_page: await timed(`/admin/projects/${quiet}/holds?status=settled&limit=100`),
      balance: await timed(`/admin/projects/${busy}/balance`),
    },
    draws_written: (context.repeats * BATCHES_PER_REPEAT + 1) * DRAWS_PER_BATCH,
    rollup_us_per_debit: rollUp,
    tables,
  };
}

/** µs per draw of each repeat: BATCHES_PER_REPEAT Draw batches, each one gateway_apply_batch call as MoneyBatcher makes it. */
async function drawRepeats(context: FiguresContext): Promise<number[]> {
  const { client, drawProjects, keys, paths, today } = context;
  const run = Math.random().toString(36).slice(2, 8);
  const expires = new Date(Date.now() + 3_600_000).toISOString();
  const leases = drawProjects.map((projectId) => ({ projectId, leaseId: `bench-lease-${run}-${projectId}` }));
  await applyBatch(
    client,
    leases.map(({ projectId, leaseId }) => ({
      op: "lease",
      request_id: leaseId,
      project_id: projectId,
      amount: "100000000000",
      share: "1",
      day: today,
      expires_at: expires,
    })),
  );
  let serial = 0;
  const batch = () =>
    leases.flatMap(({ projectId, leaseId }, index) => {
      const count = index === 0 ? BUSY_DRAWS : (DRAWS_PER_BATCH - BUSY_DRAWS) / (leases.length - 1);
      return Array.from({ length: count }, () => {
        const number = serial++;
        const path = paths[number % paths.length]!;
        return {
          op: "draw",
          project_id: projectId,
          request_id: `bench-draw-${run}-${number}`,
          lease_id: leaseId,
          amount: "12000",
          hold: "20000",
          model: path.model,
          access_path: path.access_path,
          input_tokens: 2000,
          output_tokens: 400,
          cost_parts: { input: { units: 2000, nano: "6000" }, output: { units: 400, nano: "6000" } },
          key_id: keys.get(projectId)![number % keys.get(projectId)!.length],
          expires_at: expires,
        };
      });
    });
  await applyBatch(client, batch()); // warm-up
  const repeats: number[] = [];
  for (let repeat = 0; repeat < context.repeats; repeat++) {
    let micros = 0;
    for (let index = 0; index < BATCHES_PER_REPEAT; index++) {
      const ops = batch();
      const started = performance.now();
      await applyBatch(client, ops);
      micros += (performance.now() - started) * 1000;
    }
    repeats.push(micros / (BATCHES_PER_REPEAT * DRAWS_PER_BATCH));
  }
  await applyBatch(
    client,
    leases.map(({ projectId, leaseId }) => ({ op: "release", request_id: leaseId, project_id: projectId })),
  );
  return repeats;
}

/** Rolls up what is pending now (the timed draws, unless the sweeper was quicker): µs per debit moved. */
async function rollUpMicros(client: pg.Client): Promise<number | null> {
  let moved = 0;
  const started = performance.now();
  for (;;) {
    const { rows } = await client.query<{ moved: number }>("SELECT gateway_roll_up_pending(10000) AS moved");
    moved += rows[0]!.moved;
    if (rows[0]!.moved < 10_000) break;
  }
  return moved === 0 ? null : round(((performance.now() - started) * 1000) / moved);
}

async function applyBatch(client: pg.Client, ops: object[]): Promise<void> {
  const { rows } = await client.query<{ results: { outcome: string }[] }>("SELECT gateway_apply_batch($1::jsonb) AS results", [
    JSON.stringify(ops),
  ]);
  const wrong = rows[0]!.results.find((result) => !["reserved", "settled", "released"].includes(result.outcome));
  if (wrong) throw new Error(`a timed batch was not applied as written: ${JSON.stringify(wrong)}`);
}

/** A table's rows (the planner's estimate) and bytes, its partitions included when it has any. */
async function tableBytes(client: pg.Client, table: string): Promise<TableBytes> {
  const { rows } = await client.query<{ rows: string; heap: string; indexes: string; total: string }>(
    `SELECT sum(greatest(c.reltuples, 0))::bigint AS rows, sum(pg_relation_size(t.relid))::bigint AS heap,
            sum(pg_indexes_size(t.relid))::bigint AS indexes, sum(pg_total_relation_size(t.relid))::bigint AS total
       FROM (SELECT relid FROM pg_partition_tree($1::regclass) UNION SELECT $1::regclass) AS t JOIN pg_class AS c ON c.oid = t.relid`,
    [table],
  );
  const row = rows[0]!;
  return {
    rows_estimated: Number(row.rows),
    heap_bytes: Number(row.heap),
    index_bytes: Number(row.indexes),
    total_bytes: Number(row.total),
  };
}

/** The control plane's admin API: a JSON answer, or a thrown error naming the call. */
export type AdminApi = (method: string, route: string, body?: unknown) => Promise<unknown>;

export function adminApi(baseUrl: string, token: string): AdminApi {
  return async (method, route, body) => {
    const response = await fetch(`${baseUrl}${route}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    if (!response.ok) throw new Error(`${method} ${route}: ${response.status} ${await response.text()}`);
    return response.json();
  };
}
