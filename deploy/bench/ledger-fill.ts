// The ledger benchmark's synthetic history (ledger-bench.ts), written by the real write path's SQL: every
// debit goes through gateway_apply_batch, the function MoneyBatcher calls, as a budget lease and its draws or
// as a per-request reserve and settle. The operations are built inside PostgreSQL (one statement per project,
// day and chunk) so that the client ships no JSON. Days go oldest first: a project's cap day never moves back.
import type pg from "pg";

/** A catalogue model and one of its access paths: what a debit names. */
export interface ModelPath {
  model: string;
  access_path: string;
}

export interface HistoryChunk {
  projectId: string;
  /** UTC day, YYYY-MM-DD: the day each debit counts against (its hold's). */
  day: string;
  /** Debits drawn from one budget lease (released at the chunk's end). */
  leased: number;
  /** Debits each with its own hold, reserved and settled. */
  perRequest: number;
  /** Request ids are this prefix and a number: unique across the run. */
  prefix: string;
}

/**
 * One chunk of history in one transaction: the lease, its draws and its release, then a reserve and a
 * settle per request. Tokens, cache reads and the cost split vary with the request's number; the cost is
 * $3/M input, $0.30/M cached input and $15/M output, its parts summing to it as the data plane's do.
 */
const CHUNK_SQL = `
WITH req AS (
  SELECT g,
         50 + (g * 7919) % 4001 AS input_tokens,
         10 + (g * 104729) % 801 AS output_tokens,
         CASE WHEN g % 10 < 3 THEN (50 + (g * 7919) % 4001) / 2 ELSE 0 END AS cached_tokens,
         $5::text[] AS keys, $6::jsonb AS paths
    FROM generate_series(1, $3::int + $4::int) AS g
), priced AS (
  SELECT g, input_tokens, output_tokens, cached_tokens,
         keys[1 + g % cardinality(keys)] AS key_id, paths->(g % jsonb_array_length(paths)::int) AS path,
         (input_tokens - cached_tokens) * 3 AS input_nano, cached_tokens * 3 / 10 AS cached_nano, output_tokens * 15 AS output_nano
    FROM req
), ops AS (
  SELECT 0 AS ord, jsonb_build_object('op', 'lease', 'request_id', $7 || '-lease', 'project_id', $1::text,
         'amount', '100000000000', 'share', '1', 'day', $2::text, 'expires_at', $8::text) AS op
   WHERE $3::int > 0
  UNION ALL
  SELECT CASE WHEN g <= $3::int THEN g ELSE 2 * g END AS ord, jsonb_build_object(
           'op', CASE WHEN g <= $3::int THEN 'draw' ELSE 'settle' END,
           'request_id', $7 || '-' || g, 'project_id', $1::text, 'lease_id', CASE WHEN g <= $3::int THEN $7 || '-lease' END,
           'amount', (input_nano + cached_nano + output_nano)::text, 'hold', (input_nano + cached_nano + output_nano)::text,
           'model', path->>'model', 'access_path', path->>'access_path', 'key_id', key_id, 'expires_at', $8::text,
           'input_tokens', input_tokens, 'output_tokens', output_tokens,
           'cost_parts', jsonb_strip_nulls(jsonb_build_object(
             'input', jsonb_build_object('units', input_tokens - cached_tokens, 'nano', input_nano::text),
             'cached_input', CASE WHEN cached_tokens > 0 THEN jsonb_build_object('units', cached_tokens, 'nano', cached_nano::text) END,
             'output', jsonb_build_object('units', output_tokens, 'nano', output_nano::text))))
    FROM priced
  UNION ALL
  SELECT $3::int + 1, jsonb_build_object('op', 'release', 'request_id', $7 || '-lease', 'project_id', $1::text)
   WHERE $3::int > 0
  UNION ALL
  SELECT 2 * g - 1, jsonb_build_object('op', 'reserve', 'request_id', $7 || '-' || g, 'project_id', $1::text,
         'amount', (2 * (input_nano + cached_nano + output_nano))::text, 'day', $2::text, 'expires_at', $8::text,
         'model', path->>'model', 'access_path', path->>'access_path', 'key_id', key_id)
    FROM priced WHERE g > $3::int
)
SELECT gateway_apply_batch(jsonb_agg(op ORDER BY ord)) AS results FROM ops`;

/** Writes one chunk; throws unless every operation did what the history needs (a refusal would be a lost row). */
export async function writeChunk(client: pg.ClientBase, chunk: HistoryChunk, keys: string[], paths: ModelPath[]): Promise<void> {
  const expires = new Date(Date.now() + 86_400_000).toISOString();
  const { rows } = await client.query<{ results: { outcome: string }[] }>(CHUNK_SQL, [
    chunk.projectId,
    chunk.day,
    chunk.leased,
    chunk.perRequest,
    keys,
    JSON.stringify(paths),
    chunk.prefix,
    expires,
  ]);
  const wrong = rows[0]!.results.filter((result) => !["reserved", "settled", "released"].includes(result.outcome));
  if (wrong.length > 0)
    throw new Error(`${chunk.projectId} ${chunk.day}: ${wrong.length} operations failed, first ${JSON.stringify(wrong[0])}`);
}

/** The requests of each project and day: the busy project takes `busyShare` of them, the others the rest evenly. */
export function historyPlan(options: {
  rows: number;
  days: number;
  projects: string[];
  busyShare: number;
  leasedShare: number;
  today: string;
}) {
  const { rows, days, projects, busyShare, leasedShare } = options;
  const perDay = rows / days;
  const shares = projects.map((_, index) => (index === 0 ? busyShare : (1 - busyShare) / (projects.length - 1)));
  const todayMs = Date.parse(`${options.today}T00:00:00Z`);
  const plan: { projectId: string; day: string; requests: number; leased: number }[] = [];
  let written = 0;
  for (let dayIndex = 0; dayIndex < days; dayIndex++) {
    const day = new Date(todayMs - (days - dayIndex) * 86_400_000).toISOString().slice(0, 10);
    for (const [index, projectId] of projects.entries()) {
      // Cumulative rounding: the plan adds up to exactly `rows`.
      const target = Math.round(perDay * (dayIndex + shares.slice(0, index + 1).reduce((sum, share) => sum + share, 0)));
      const requests = Math.max(0, Math.min(rows, target) - written);
      written += requests;
      if (requests > 0) plan.push({ projectId, day, requests, leased: Math.round(requests * leasedShare) });
    }
  }
  return plan;
}
