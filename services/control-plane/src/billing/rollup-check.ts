// Whether the rollups equal the ledger (docs/money.md, "Rollups"): each usage_daily row, its cost split
// included, against the debits it sums, and each key's totals against its debits. Empty when they agree.
// A full scan of the ledger: for tests, and for an operator after a restore, never on a request's path.
// Debits still queued in usage_pending are rolled up first, as every read does.
import type { Database } from "../database/connect";
import { rollUpPending } from "./usage-rollups";

export interface RollupDrift {
  /** Which side has the row the other lacks (or holds with other sums). */
  side: "ledger" | "rollup";
  row: string;
}

/** The comparison alone, over a plain connection too (nothing pending: after a migration, a restore). */
export const ROLLUP_DRIFT_SQL = `
WITH debits AS (
  SELECT l.project_id, l.day, k.key_id, COALESCE(l.model, '') AS model, COALESCE(l.access_path, '') AS access_path,
         l.input_tokens, l.output_tokens, -l.amount_nano AS cost_nano, l.cost_parts
    FROM ledger_entries AS l CROSS JOIN LATERAL (VALUES ('*'), (NULLIF(l.key_id, '*'))) AS k(key_id)
   WHERE l.kind = 'debit' AND k.key_id IS NOT NULL
), ledger_days AS (
  SELECT project_id, day, key_id, model, access_path, count(*) AS requests, sum(COALESCE(input_tokens, 0)) AS input_tokens,
         sum(COALESCE(output_tokens, 0)) AS output_tokens, sum(cost_nano) AS cost_nano
    FROM debits GROUP BY 1, 2, 3, 4, 5
), rollup_days AS (
  SELECT project_id, day, key_id, model, access_path, requests, input_tokens, output_tokens, cost_nano FROM usage_daily
), ledger_parts AS (
  SELECT d.project_id, d.day, d.key_id, d.model, d.access_path, p.key AS component,
         sum(COALESCE((p.value->>'units')::bigint, 0)) AS units, sum(COALESCE((p.value->>'nano')::bigint, 0)) AS nano
    FROM debits AS d CROSS JOIN LATERAL jsonb_each(d.cost_parts) AS p GROUP BY 1, 2, 3, 4, 5, 6
), rollup_parts AS (
  SELECT u.project_id, u.day, u.key_id, u.model, u.access_path, p.key AS component, (p.value->>'units')::bigint AS units,
         (p.value->>'nano')::bigint AS nano
    FROM usage_daily AS u CROSS JOIN LATERAL jsonb_each(u.parts) AS p
), ledger_keys AS (
  SELECT key_id, project_id, count(*) AS requests, -sum(amount_nano) AS cost_nano
    FROM ledger_entries WHERE kind = 'debit' AND key_id IS NOT NULL AND key_id <> '*' GROUP BY 1, 2
), rollup_keys AS (
  SELECT key_id, project_id, requests, cost_nano FROM usage_key_totals
)
SELECT 'ledger' AS side, row_to_json(x)::text AS row FROM (SELECT * FROM ledger_days EXCEPT SELECT * FROM rollup_days) AS x
UNION ALL SELECT 'rollup', row_to_json(x)::text FROM (SELECT * FROM rollup_days EXCEPT SELECT * FROM ledger_days) AS x
UNION ALL SELECT 'ledger', row_to_json(x)::text FROM (SELECT * FROM ledger_parts EXCEPT SELECT * FROM rollup_parts) AS x
UNION ALL SELECT 'rollup', row_to_json(x)::text FROM (SELECT * FROM rollup_parts EXCEPT SELECT * FROM ledger_parts) AS x
UNION ALL SELECT 'ledger', row_to_json(x)::text FROM (SELECT * FROM ledger_keys EXCEPT SELECT * FROM rollup_keys) AS x
UNION ALL SELECT 'rollup', row_to_json(x)::text FROM (SELECT * FROM rollup_keys EXCEPT SELECT * FROM ledger_keys) AS x`;

/** The rows where the rollups and the ledger disagree (none: they are equal to the nano), once the pending debits are rolled up as a read does. */
export async function rollupDrift(database: Pick<Database, "prisma">): Promise<RollupDrift[]> {
  await rollUpPending(database.prisma);
  return database.prisma.$queryRawUnsafe<RollupDrift[]>(ROLLUP_DRIFT_SQL);
}
