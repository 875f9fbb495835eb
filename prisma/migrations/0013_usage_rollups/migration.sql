-- CreateTable
CREATE TABLE "usage_daily" (
    "project_id" TEXT NOT NULL,
    "day" DATE NOT NULL,
    "key_id" TEXT NOT NULL,
    "model" TEXT NOT NULL,
    "access_path" TEXT NOT NULL,
    "requests" BIGINT NOT NULL,
    "input_tokens" BIGINT NOT NULL,
    "output_tokens" BIGINT NOT NULL,
    "cost_nano" BIGINT NOT NULL,
    "parts" JSONB NOT NULL DEFAULT '{}',

    CONSTRAINT "usage_daily_pkey" PRIMARY KEY ("project_id","key_id","day","model","access_path")
);

-- CreateTable
CREATE TABLE "usage_key_totals" (
    "key_id" TEXT NOT NULL,
    "project_id" TEXT NOT NULL,
    "requests" BIGINT NOT NULL,
    "cost_nano" BIGINT NOT NULL,
    "last_used_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "usage_key_totals_pkey" PRIMARY KEY ("key_id")
);

-- CreateTable
CREATE TABLE "usage_pending" (
    "ledger_id" BIGINT NOT NULL,

    CONSTRAINT "usage_pending_pkey" PRIMARY KEY ("ledger_id")
);

-- CreateIndex
CREATE INDEX "usage_key_totals_project_id_idx" ON "usage_key_totals"("project_id");


-- Rollups (issue 37): the usage routes, key spend and the console read usage_daily and usage_key_totals
-- instead of the ledger, whose rows grow with every request. A trigger queues each debit's ledger id in
-- usage_pending in the debit's own transaction; gateway_roll_up_pending moves queued debits into the
-- rollups in one transaction, which the control plane's sweeper calls every round and every read calls
-- first. So the rollups and the queue always equal the ledger, and a read sees every debit committed
-- before it. Rolling up inside each batch instead cost 9 to 80 us per draw; a queue fed by the money
-- function itself would miss the debits of a batch still running the old function while this migration
-- commits. The trigger's CREATE waits for transactions that are writing to the ledger, then holds new
-- ones until this migration commits (after the backfill at its end): every debit is either rolled up
-- below or queued by the trigger. gateway_apply_batch is unchanged.

-- A queue: every row is deleted soon after it is written. The sweeper vacuums it after each round that
-- moved rows; autovacuum, when it comes, by row count rather than by a share of a table that is ~empty.
ALTER TABLE usage_pending SET (autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 10000);

-- Two cost splits ({component: {units, nano}}) added component by component.
-- PL/pgSQL, as gateway_roll_up: a SQL function's statements are planned at every call, these once per session.
CREATE FUNCTION gateway_add_parts(p_a jsonb, p_b jsonb) RETURNS jsonb
LANGUAGE plpgsql IMMUTABLE STRICT AS $$
BEGIN
  RETURN (SELECT COALESCE(jsonb_object_agg(component, jsonb_build_object('units', units, 'nano', nano::text)), '{}'::jsonb)
    FROM (SELECT key AS component, sum(COALESCE((value->>'units')::bigint, 0)) AS units, sum(COALESCE((value->>'nano')::bigint, 0)) AS nano
            FROM (SELECT * FROM jsonb_each(p_a) UNION ALL SELECT * FROM jsonb_each(p_b)) AS both_splits
           GROUP BY key) AS summed);
END
$$;

-- Adds ledger debits (by id) to their rollups: each under its key and under the project's "*" (all keys,
-- and debits without one), per UTC day, model and access path; and to its key's totals.
CREATE FUNCTION gateway_roll_up(p_ids bigint[]) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  WITH debit_rows AS (
    SELECT d.project_id, d.day, k.key_id, COALESCE(d.model, '') AS model, COALESCE(d.access_path, '') AS access_path,
           COALESCE(d.input_tokens, 0) AS input_tokens, COALESCE(d.output_tokens, 0) AS output_tokens,
           -d.amount_nano AS cost_nano, d.cost_parts AS parts
      FROM ledger_entries AS d CROSS JOIN LATERAL (VALUES ('*'), (NULLIF(d.key_id, '*'))) AS k(key_id)
     WHERE d.id = ANY(p_ids) AND d.kind = 'debit' AND k.key_id IS NOT NULL
  ), splits AS (
    SELECT project_id, day, key_id, model, access_path,
           jsonb_object_agg(component, jsonb_build_object('units', units, 'nano', nano::text)) AS parts
      FROM (SELECT r.project_id, r.day, r.key_id, r.model, r.access_path, p.key AS component,
                   sum(COALESCE((p.value->>'units')::bigint, 0)) AS units, sum(COALESCE((p.value->>'nano')::bigint, 0)) AS nano
              FROM debit_rows AS r CROSS JOIN LATERAL jsonb_each(r.parts) AS p
             GROUP BY 1, 2, 3, 4, 5, 6) AS by_component
     GROUP BY 1, 2, 3, 4, 5
  ), totals AS (
    SELECT project_id, day, key_id, model, access_path, count(*) AS requests, sum(input_tokens) AS input_tokens,
           sum(output_tokens) AS output_tokens, sum(cost_nano) AS cost_nano
      FROM debit_rows
     GROUP BY 1, 2, 3, 4, 5
  )
  INSERT INTO usage_daily AS u (project_id, day, key_id, model, access_path, requests, input_tokens, output_tokens, cost_nano, parts)
  SELECT t.project_id, t.day, t.key_id, t.model, t.access_path, t.requests, t.input_tokens, t.output_tokens, t.cost_nano,
         COALESCE(s.parts, '{}')
    FROM totals AS t LEFT JOIN splits AS s USING (project_id, day, key_id, model, access_path)
   ORDER BY t.project_id, t.key_id, t.day, t.model, t.access_path
      ON CONFLICT (project_id, day, key_id, model, access_path) DO UPDATE
     SET requests = u.requests + EXCLUDED.requests, input_tokens = u.input_tokens + EXCLUDED.input_tokens,
         output_tokens = u.output_tokens + EXCLUDED.output_tokens, cost_nano = u.cost_nano + EXCLUDED.cost_nano,
         parts = CASE WHEN EXCLUDED.parts = '{}' THEN u.parts ELSE gateway_add_parts(u.parts, EXCLUDED.parts) END;
  INSERT INTO usage_key_totals AS t (key_id, project_id, requests, cost_nano, last_used_at)
  SELECT key_id, min(project_id), count(*), -sum(amount_nano), max(created_at)
    FROM ledger_entries WHERE id = ANY(p_ids) AND kind = 'debit' AND key_id IS NOT NULL AND key_id <> '*'
   GROUP BY key_id
   ORDER BY key_id
      ON CONFLICT (key_id) DO UPDATE
     SET requests = t.requests + EXCLUDED.requests, cost_nano = t.cost_nano + EXCLUDED.cost_nano,
         last_used_at = GREATEST(t.last_used_at, EXCLUDED.last_used_at);
END
$$;

-- Rolls up the oldest pending debits (at most p_limit) in one transaction; returns how many. A debit
-- another caller is rolling up is waited for, then skipped: after this returns, every debit committed
-- before it began is in the rollups.
CREATE FUNCTION gateway_roll_up_pending(p_limit integer) RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
  v_ids bigint[];
BEGIN
  -- Two statements, not a DELETE joined to its own LIMIT: planned on a queue that looked empty, that
  -- join ran the LIMIT again for every queued row (minutes at 476,000 rows).
  SELECT array_agg(ledger_id) INTO v_ids
    FROM (SELECT ledger_id FROM usage_pending ORDER BY ledger_id LIMIT p_limit FOR UPDATE) AS taken;
  IF v_ids IS NULL THEN
    RETURN 0;
  END IF;
  DELETE FROM usage_pending WHERE ledger_id = ANY(v_ids);
  PERFORM gateway_roll_up(v_ids);
  RETURN cardinality(v_ids);
END
$$;


-- Queues a debit for its rollups, whichever function wrote it.
CREATE FUNCTION gateway_queue_debit() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO usage_pending (ledger_id) VALUES (NEW.id);
  RETURN NULL;
END
$$;

CREATE TRIGGER ledger_entries_debit_queued AFTER INSERT ON ledger_entries
  FOR EACH ROW WHEN (NEW.kind = 'debit') EXECUTE FUNCTION gateway_queue_debit();

-- gateway_update_key now reads a key's spend from the rollups: its source is prisma/functions/gateway_update_key.sql,
-- applied after the migrations.

-- The debits already in the ledger, rolled up once (a project's day at a time; docs/money.md says how long
-- a large ledger takes). last_used_at: the latest debit's time, as key spend read it from the ledger.
SELECT gateway_roll_up(array_agg(id)) FROM ledger_entries WHERE kind = 'debit' GROUP BY project_id, day;
