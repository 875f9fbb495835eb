// The rollups' reads for the usage routes and key spend (docs/money.md, "Rollups"), as SQL of their own so
// that the tests run EXPLAIN on exactly what the routes run (usage-rollups.test.ts): each reads index ranges
// of usage_daily (project, key or "*", days) and usage_key_totals, bounded by days, models and keys, never by
// requests. A read first rolls up the debits still pending, so it sees every debit committed before it.
import type { PrismaClient } from "../generated/prisma/client";

/** Pending debits rolled up per transaction: a second of a busy deployment's debits. */
const ROLL_UP_LIMIT = 10_000;

/** Moves every pending debit into the rollups; returns how many. Reads call it first, the sweeper every few seconds. */
export async function rollUpPending(prisma: Pick<PrismaClient, "$queryRaw">): Promise<number> {
  let total = 0;
  for (;;) {
    const rows = await prisma.$queryRaw<{ moved: number }[]>`SELECT gateway_roll_up_pending(${ROLL_UP_LIMIT}::int) AS moved`;
    const moved = rows[0]?.moved ?? 0;
    total += moved;
    if (moved < ROLL_UP_LIMIT) return total;
  }
}

/**
 * $1 project, $2 key id or "*" (all keys), $3 first day, $4 last day: the window's rollup rows (one per day,
 * model and access path), ordered by day and model so that a reader adds a day and model's paths as they come.
 */
export const USAGE_SQL = `
  SELECT day, model, requests, input_tokens, output_tokens, cost_nano AS cost, parts
    FROM usage_daily
   WHERE project_id = $1 AND key_id = $2 AND day BETWEEN $3::date AND $4::date
   ORDER BY day, model`;

/**
 * $1 project, $2 today, $3 one key id or null (every key): each key's totals and today's cost. Today's rows
 * of a key are one index range (project, key, day) per key, whatever the history.
 */
export const KEY_SPEND_SQL = `
  SELECT t.key_id, t.cost_nano AS total, d.today, t.requests, t.last_used_at AS last_used
    FROM usage_key_totals AS t
    CROSS JOIN LATERAL (SELECT sum(cost_nano)::bigint AS today FROM usage_daily AS u
                         WHERE u.project_id = t.project_id AND u.key_id = t.key_id AND u.day = $2::date) AS d
   WHERE t.project_id = $1 AND ($3::text IS NULL OR t.key_id = $3)`;
