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

-- AddForeignKey
ALTER TABLE "usage_daily" ADD CONSTRAINT "usage_daily_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "usage_key_totals" ADD CONSTRAINT "usage_key_totals_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- Rollups (issue 37): the usage routes, key spend and the console read usage_daily and usage_key_totals
-- instead of the ledger, whose rows grow with every request. gateway_apply_batch, the only writer of
-- debits, adds the ledger ids of the debits it writes to usage_pending in their transaction (one insert
-- per batch); gateway_roll_up_pending moves them into the rollups, in one transaction each, which the
-- control plane's sweeper calls every few seconds and every read calls first. So the rollups and the
-- pending debits always equal the ledger, and every read sees every debit committed before it. Rolling
-- up inside each batch instead cost 9 to 80 us per draw (one rollup row per key, model and path of the
-- batch); from the queue, a second's debits share their rows. Everything else in the batch is as in 0010.
-- gateway_update_key reads a key's spend from the rollups instead of summing its ledger.

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

CREATE OR REPLACE FUNCTION gateway_apply_batch(p_ops jsonb) RETURNS jsonb
LANGUAGE plpgsql AS $$
DECLARE
  v_op jsonb;
  v_results jsonb[] := '{}';
  v_project projects%ROWTYPE;
  v_loaded boolean := false;
  v_project_id text;
  v_request_id text;
  v_hold holds%ROWTYPE;
  v_amount bigint;
  v_min bigint;
  v_needed bigint;
  v_day date;
  v_cap_used bigint;
  v_available bigint;
  v_refusal text;
  v_limit bigint;
  v_debit bigint;
  v_was_active boolean;
  v_is_lease boolean;
  v_key api_keys%ROWTYPE;
  v_key_tracked boolean;
  v_key_cap_used bigint;
  v_key_budget_room bigint;
  v_key_cap_room bigint;
  -- v_hold is a lease drawn from by the previous operation, with the draws not yet written to its row.
  v_lease_pending boolean := false;
  v_cached boolean;
  -- The ledger ids of the batch's debits: queued for their rollups when the batch ends.
  v_debit_id bigint;
  v_debits bigint[] := '{}';
BEGIN
  FOR v_op IN SELECT value FROM jsonb_array_elements(p_ops) LOOP
    v_request_id := v_op->>'request_id';
    v_project_id := NULLIF(v_op->>'project_id', '');

    -- Another draw of the same lease, in the same project: v_hold is its current row (nothing else in
    -- the batch touched it since; every other writer of holds waits for the project's lock). Anything
    -- else: the pending draws are written first, so everything below reads the row as before.
    v_cached := COALESCE(v_lease_pending AND v_op->>'op' = 'draw' AND v_op->>'lease_id' = v_hold.request_id
                         AND v_project.id = v_hold.project_id AND (v_project_id IS NULL OR v_project_id = v_project.id), false);
    IF v_lease_pending AND NOT v_cached THEN
      PERFORM gateway_write_back_lease(v_hold);
      v_lease_pending := false;
    END IF;

    -- Lock the caller's project (batches arrive sorted by it).
    IF v_project_id IS NOT NULL AND (NOT v_loaded OR v_project.id <> v_project_id) THEN
      IF v_loaded THEN
        PERFORM gateway_write_back(v_project);
      END IF;
      SELECT * INTO v_project FROM projects WHERE id = v_project_id FOR UPDATE;
      v_loaded := FOUND;
    END IF;

    IF v_op->>'op' NOT IN ('reserve', 'lease') AND NOT v_cached THEN
      -- Settle, release and draw act on the hold's own project (a draw: its
      -- lease's): read the hold under that project's lock. A hold whose reserve
      -- has not committed yet is simply not found (unknown_request).
      SELECT * INTO v_hold FROM holds WHERE request_id = COALESCE(v_op->>'lease_id', v_request_id);
      IF FOUND AND (NOT v_loaded OR v_hold.project_id <> v_project.id) THEN
        IF v_loaded THEN
          PERFORM gateway_write_back(v_project);
        END IF;
        SELECT * INTO v_project FROM projects WHERE id = v_hold.project_id FOR UPDATE;
        v_loaded := FOUND;
        SELECT * INTO v_hold FROM holds WHERE request_id = COALESCE(v_op->>'lease_id', v_request_id);
      END IF;
    END IF;

    CASE v_op->>'op'
      WHEN 'reserve', 'lease' THEN
        v_is_lease := v_op->>'op' = 'lease';
        v_amount := (v_op->>'amount')::bigint;
        IF NOT v_loaded OR v_project.id <> v_project_id OR v_project_id IS NULL THEN
          v_results := array_append(v_results, jsonb_build_object('outcome', 'unknown_project', 'available', '0'));
          CONTINUE;
        END IF;
        SELECT * INTO v_hold FROM holds WHERE request_id = v_request_id;
        IF FOUND THEN
          v_results := array_append(v_results, jsonb_build_object(
            'outcome', CASE WHEN v_hold.status = 'refused' THEN v_hold.refusal
                            WHEN v_is_lease AND v_hold.status <> 'active' THEN 'lease_closed' ELSE 'reserved' END,
            'available', '0', 'reserved', CASE WHEN v_hold.status = 'refused' THEN '0' ELSE v_hold.amount_nano::text END));
          CONTINUE;
        END IF;
        v_min := COALESCE((v_op->>'min_amount')::bigint, 0);
        -- A control plane whose clock lags never moves the cap day backwards.
        v_day := GREATEST((v_op->>'day')::date, COALESCE(v_project.cap_day, (v_op->>'day')::date));
        v_cap_used := CASE WHEN v_project.cap_day = v_day THEN v_project.cap_used_nano ELSE 0 END;
        v_available := v_project.balance_nano - v_project.held_nano;
        IF v_project.daily_cap_nano IS NOT NULL THEN
          v_available := LEAST(v_available, v_project.daily_cap_nano - v_cap_used);
        END IF;
        -- The key's own budget and cap, when it has one (its successor's after a rotation), bound it too.
        -- Only a project one of whose keys has money terms looks its keys up (projects.key_limits).
        v_key := CASE WHEN v_project.key_limits THEN gateway_limits_key(v_op->>'key_id') END;
        v_key_tracked := COALESCE(NOT v_is_lease AND v_key.project_id = v_project.id AND gateway_key_tracked(v_key), false);
        v_key_budget_room := NULL;
        v_key_cap_room := NULL;
        IF v_key_tracked THEN
          v_key_cap_used := CASE WHEN v_key.cap_day = v_day THEN v_key.cap_used_nano ELSE 0 END;
          IF v_key.budget_nano IS NOT NULL THEN
            v_key_budget_room := v_key.budget_nano - v_key.spent_nano - v_key.held_nano;
            v_available := LEAST(v_available, v_key_budget_room);
          END IF;
          IF v_key.daily_cap_nano IS NOT NULL THEN
            v_key_cap_room := v_key.daily_cap_nano - v_key_cap_used;
            v_available := LEAST(v_available, v_key_cap_room);
          END IF;
        END IF;
        v_refusal := NULL;
        IF v_is_lease THEN
          v_amount := LEAST(v_amount, GREATEST(v_available, 0) / GREATEST((v_op->>'share')::bigint, 1));
          IF v_amount < GREATEST(v_min, 1) THEN
            v_results := array_append(v_results, jsonb_build_object('outcome',
              CASE WHEN (v_project.balance_nano - v_project.held_nano) / GREATEST((v_op->>'share')::bigint, 1) < GREATEST(v_min, 1)
                   THEN 'insufficient_credits' ELSE 'spend_cap_exceeded' END, 'available', GREATEST(v_available, 0)::text));
            CONTINUE;
          END IF;
        END IF;
        IF v_available < v_amount AND v_min > 0 AND v_available >= v_min THEN
          v_amount := v_available; -- the caller accepts a smaller answer: hold what fits
        END IF;
        v_needed := CASE WHEN v_min > 0 THEN LEAST(v_min, v_amount) ELSE v_amount END;
        IF v_available < v_amount THEN
          -- The project's refusals first: they hold for all of its keys.
          v_refusal := CASE WHEN v_project.balance_nano - v_project.held_nano < v_needed THEN 'insufficient_credits'
                            WHEN v_project.daily_cap_nano - v_cap_used < v_needed THEN 'spend_cap_exceeded'
                            WHEN v_key_budget_room < v_needed THEN 'key_budget_exceeded'
                            WHEN v_key_cap_room < v_needed THEN 'key_spend_cap_exceeded'
                            ELSE 'spend_cap_exceeded' END;
        END IF;
        INSERT INTO holds (request_id, project_id, amount_nano, day, status, expires_at, closed_at, model, access_path, refusal, lease, key_id, key_held)
        VALUES (v_request_id, v_project.id, v_amount, v_day, CASE WHEN v_refusal IS NULL THEN 'active' ELSE 'refused' END::hold_status,
                (v_op->>'expires_at')::timestamptz, CASE WHEN v_refusal IS NULL THEN NULL ELSE now() END,
                v_op->>'model', v_op->>'access_path', v_refusal, v_is_lease, v_op->>'key_id', v_key_tracked AND v_refusal IS NULL);
        IF v_refusal IS NULL THEN
          IF v_key_tracked THEN
            UPDATE api_keys SET held_nano = held_nano + v_amount, cap_day = v_day, cap_used_nano = v_key_cap_used + v_amount
             WHERE id = v_key.id;
          END IF;
          v_project.held_nano := v_project.held_nano + v_amount;
          v_project.cap_day := v_day;
          v_project.cap_used_nano := v_cap_used + v_amount;
          v_results := array_append(v_results, jsonb_build_object('outcome', 'reserved', 'available', (v_available - v_amount)::text, 'reserved', v_amount::text));
        ELSE
          v_results := array_append(v_results, jsonb_build_object('outcome', v_refusal, 'available', GREATEST(v_available, 0)::text));
        END IF;

      WHEN 'settle' THEN
        IF v_hold.request_id IS DISTINCT FROM v_request_id OR v_hold.status = 'refused' OR v_hold.lease THEN
          v_results := array_append(v_results, jsonb_build_object('outcome', 'unknown_request', 'debited', '0'));
          CONTINUE;
        ELSIF v_hold.status = 'settled' THEN
          v_results := array_append(v_results, jsonb_build_object('outcome', 'settled', 'debited', v_hold.debited_nano::text));
          CONTINUE;
        ELSIF v_hold.status = 'released' THEN
          v_results := array_append(v_results, jsonb_build_object('outcome', 'already_released', 'debited', '0'));
          CONTINUE;
        END IF;
        v_amount := GREATEST((v_op->>'amount')::bigint, 0);
        v_was_active := v_hold.status = 'active';
        -- Never more than the worst case the hold was sized for.
        v_limit := v_hold.amount_nano;
        IF NOT v_was_active THEN
          -- Expired: its amount went back to the balance (and the key's) and may be held by others now.
          v_limit := LEAST(v_limit, gateway_late_room(v_project, v_hold),
                           CASE WHEN v_project.key_limits THEN gateway_key_late_room(v_hold.key_id, v_hold.day) END);
        END IF;
        v_debit := LEAST(v_amount, GREATEST(v_limit, 0));
        INSERT INTO ledger_entries (project_id, kind, amount_nano, request_id, day, model, access_path, input_tokens, output_tokens, cost_parts, key_id)
        VALUES (v_hold.project_id, 'debit', -v_debit, v_request_id, v_hold.day,
                COALESCE(v_op->>'model', v_hold.model), COALESCE(v_op->>'access_path', v_hold.access_path),
                (v_op->>'input_tokens')::integer, (v_op->>'output_tokens')::integer, v_op->'cost_parts', v_hold.key_id)
        RETURNING id INTO v_debit_id;
        v_debits := array_append(v_debits, v_debit_id);
        IF v_project.key_limits THEN
          PERFORM gateway_key_charge(v_hold.key_id, v_hold.day, v_debit,
                                     CASE WHEN v_hold.key_held AND v_was_active THEN v_hold.amount_nano ELSE 0 END);
        END IF;
        v_project.balance_nano := v_project.balance_nano - v_debit;
        IF v_was_active THEN
          v_project.held_nano := v_project.held_nano - v_hold.amount_nano;
        END IF;
        IF v_project.cap_day = v_hold.day THEN
          v_project.cap_used_nano := v_project.cap_used_nano + v_debit - CASE WHEN v_was_active THEN v_hold.amount_nano ELSE 0 END;
        END IF;
        UPDATE holds SET status = 'settled', debited_nano = v_debit, unbilled_nano = v_amount - v_debit, closed_at = now()
         WHERE request_id = v_request_id;
        v_results := array_append(v_results, jsonb_build_object('outcome', 'settled', 'debited', v_debit::text));

      WHEN 'draw' THEN
        IF v_hold.request_id IS DISTINCT FROM v_op->>'lease_id' OR NOT v_hold.lease THEN
          v_results := array_append(v_results, jsonb_build_object('outcome', 'unknown_request', 'debited', '0'));
          CONTINUE;
        END IF;
        SELECT -amount_nano INTO v_debit FROM ledger_entries WHERE request_id = v_request_id;
        IF FOUND THEN
          v_results := array_append(v_results, jsonb_build_object('outcome', 'settled', 'debited', v_debit::text));
          CONTINUE;
        END IF;
        v_amount := GREATEST((v_op->>'amount')::bigint, 0);
        v_was_active := v_hold.status = 'active';
        -- Never more than the data plane set aside for this request, nor more than the lease still holds.
        v_limit := GREATEST((v_op->>'hold')::bigint, 0);
        IF v_was_active THEN
          v_limit := LEAST(v_limit, v_hold.amount_nano);
        ELSE
          -- Expired or released: its remaining amount went back to the balance, as for a late settle.
          -- (gateway_late_room reads the project's active holds: write the pending draws first.)
          IF v_lease_pending THEN
            PERFORM gateway_write_back_lease(v_hold);
            v_lease_pending := false;
          END IF;
          v_limit := LEAST(v_limit, gateway_late_room(v_project, v_hold));
        END IF;
        v_debit := LEAST(v_amount, GREATEST(v_limit, 0));
        INSERT INTO ledger_entries (project_id, kind, amount_nano, request_id, day, model, access_path, input_tokens, output_tokens, cost_parts, key_id)
        VALUES (v_hold.project_id, 'debit', -v_debit, v_request_id, v_hold.day, v_op->>'model', v_op->>'access_path',
                (v_op->>'input_tokens')::integer, (v_op->>'output_tokens')::integer, v_op->'cost_parts', v_op->>'key_id')
        RETURNING id INTO v_debit_id;
        v_debits := array_append(v_debits, v_debit_id);
        -- A key's requests are leased only while it has no budget or cap; one set since counts them as spent.
        IF v_project.key_limits THEN
          PERFORM gateway_key_charge(v_op->>'key_id', v_hold.day, v_debit, 0);
        END IF;
        v_project.balance_nano := v_project.balance_nano - v_debit;
        IF v_was_active THEN
          -- The debited part stops being held; the cap already counted it while held.
          v_project.held_nano := v_project.held_nano - v_debit;
        ELSIF v_project.cap_day = v_hold.day THEN
          v_project.cap_used_nano := v_project.cap_used_nano + v_debit;
        END IF;
        -- The lease's row changes as the UPDATE of 0007 changed it, in v_hold; written when the run of
        -- draws ends (expires_at rounded as the column rounds it).
        IF v_was_active THEN
          v_hold.amount_nano := v_hold.amount_nano - v_debit;
          v_hold.expires_at := GREATEST(v_hold.expires_at, (v_op->>'expires_at')::timestamptz)::timestamptz(3);
        END IF;
        v_hold.debited_nano := COALESCE(v_hold.debited_nano, 0) + v_debit;
        v_hold.unbilled_nano := COALESCE(v_hold.unbilled_nano, 0) + (v_amount - v_debit);
        v_lease_pending := true;
        v_results := array_append(v_results, jsonb_build_object('outcome', 'settled', 'debited', v_debit::text));

      WHEN 'release' THEN
        v_amount := GREATEST(COALESCE((v_op->>'keep')::bigint, 0), 0);
        IF v_hold.request_id IS DISTINCT FROM v_request_id OR v_hold.status = 'refused' OR (v_amount > 0 AND NOT v_hold.lease) THEN
          v_results := array_append(v_results, jsonb_build_object('outcome', 'unknown_request'));
        ELSIF v_amount > 0 AND v_hold.status <> 'active' THEN
          -- A lease already released or expired: what it held went back then.
          v_results := array_append(v_results, jsonb_build_object('outcome', 'released'));
        ELSIF v_amount > 0 THEN
          -- Give back what it holds above "keep"; the lease stays active for the draws still to come.
          v_debit := GREATEST(v_hold.amount_nano - v_amount, 0);
          v_project.held_nano := v_project.held_nano - v_debit;
          IF v_project.cap_day = v_hold.day THEN
            v_project.cap_used_nano := v_project.cap_used_nano - v_debit;
          END IF;
          UPDATE holds SET amount_nano = amount_nano - v_debit WHERE request_id = v_request_id;
          v_results := array_append(v_results, jsonb_build_object('outcome', 'reduced', 'reserved', (v_hold.amount_nano - v_debit)::text));
        ELSIF v_hold.status = 'settled' THEN
          v_results := array_append(v_results, jsonb_build_object('outcome', 'already_settled'));
        ELSE
          IF v_hold.status = 'active' THEN
            v_project.held_nano := v_project.held_nano - v_hold.amount_nano;
            IF v_project.cap_day = v_hold.day THEN
              v_project.cap_used_nano := v_project.cap_used_nano - v_hold.amount_nano;
            END IF;
            IF v_hold.key_held THEN
              PERFORM gateway_key_charge(v_hold.key_id, v_hold.day, 0, v_hold.amount_nano);
            END IF;
          END IF;
          -- An expired hold is already off the balance; marking it released keeps a later settle from debiting it.
          IF v_hold.status <> 'released' THEN
            UPDATE holds SET status = 'released', closed_at = COALESCE(closed_at, now()) WHERE request_id = v_request_id;
          END IF;
          v_results := array_append(v_results, jsonb_build_object('outcome', 'released'));
        END IF;

      WHEN 'renew' THEN
        IF v_hold.request_id IS DISTINCT FROM v_request_id OR v_hold.status <> 'active' THEN
          v_results := array_append(v_results, jsonb_build_object('outcome', 'closed'));
        ELSE
          UPDATE holds SET expires_at = GREATEST(expires_at, (v_op->>'expires_at')::timestamptz) WHERE request_id = v_request_id;
          v_results := array_append(v_results, jsonb_build_object('outcome', 'renewed'));
        END IF;

      ELSE
        RAISE EXCEPTION 'unknown money operation %', v_op->>'op';
    END CASE;
  END LOOP;

  IF v_lease_pending THEN
    PERFORM gateway_write_back_lease(v_hold);
  END IF;
  IF v_loaded THEN
    PERFORM gateway_write_back(v_project);
  END IF;
  IF cardinality(v_debits) > 0 THEN
    INSERT INTO usage_pending (ledger_id) SELECT unnest(v_debits);
  END IF;
  RETURN to_jsonb(v_results);
END
$$;

CREATE OR REPLACE FUNCTION gateway_update_key(p_key_id text, p_changes jsonb, p_day date) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  v_old api_keys%ROWTYPE;
  v_new api_keys%ROWTYPE;
  v_spent bigint;
  v_today bigint;
BEGIN
  SELECT * INTO v_old FROM api_keys WHERE id = p_key_id;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'unknown key %', p_key_id USING ERRCODE = 'no_data_found';
  END IF;
  PERFORM 1 FROM projects WHERE id = v_old.project_id FOR UPDATE;
  SELECT * INTO v_old FROM api_keys WHERE id = p_key_id;
  UPDATE api_keys SET
    name = CASE WHEN p_changes ? 'name' THEN p_changes->>'name' ELSE name END,
    rpm_limit = CASE WHEN p_changes ? 'rpm_limit' THEN (p_changes->>'rpm_limit')::integer ELSE rpm_limit END,
    daily_cap_nano = CASE WHEN p_changes ? 'daily_cap_nano' THEN (p_changes->>'daily_cap_nano')::bigint ELSE daily_cap_nano END,
    budget_nano = CASE WHEN p_changes ? 'budget_nano' THEN (p_changes->>'budget_nano')::bigint ELSE budget_nano END,
    expires_at = CASE WHEN p_changes ? 'expires_at' THEN (p_changes->>'expires_at')::timestamptz ELSE expires_at END
  WHERE id = p_key_id
  RETURNING * INTO v_new;
  IF gateway_key_tracked(v_new) AND NOT gateway_key_tracked(v_old) THEN
    UPDATE projects SET key_limits = true WHERE id = v_new.project_id;
    -- The rollups hold every debit once the queue is empty (this project's debits wait for its lock, held here).
    WHILE gateway_roll_up_pending(10000) = 10000 LOOP
    END LOOP;
    WITH RECURSIVE chain(id) AS (
      SELECT p_key_id
      UNION SELECT k.id FROM api_keys k JOIN chain c ON k.replaced_by = c.id
    )
    SELECT COALESCE(sum(cost_nano), 0) INTO v_spent FROM usage_key_totals WHERE key_id IN (SELECT id FROM chain);
    WITH RECURSIVE chain(id) AS (
      SELECT p_key_id
      UNION SELECT k.id FROM api_keys k JOIN chain c ON k.replaced_by = c.id
    )
    SELECT COALESCE(sum(cost_nano), 0) INTO v_today
      FROM usage_daily WHERE project_id = v_old.project_id AND day = p_day AND key_id IN (SELECT id FROM chain);
    UPDATE holds SET key_held = false
     WHERE key_held AND status = 'active'
       AND key_id IN (WITH RECURSIVE chain(id) AS (
                        SELECT p_key_id UNION SELECT k.id FROM api_keys k JOIN chain c ON k.replaced_by = c.id)
                      SELECT id FROM chain);
    UPDATE api_keys SET spent_nano = v_spent, held_nano = 0, cap_day = p_day, cap_used_nano = v_today WHERE id = p_key_id;
  END IF;
END
$$;

-- The debits already in the ledger, rolled up once (a project's day at a time; docs/money.md says how long
-- a large ledger takes). last_used_at: the latest debit's time, as key spend read it from the ledger.
SELECT gateway_roll_up(array_agg(id)) FROM ledger_entries WHERE kind = 'debit' GROUP BY project_id, day;
