-- A draw batch is mostly draws of one lease in a row (a data plane sends ~150 per Draw call). Until
-- now each draw read the lease's hold row and updated it (amount, debited, unbilled, expires_at): one
-- SELECT and one non-HOT UPDATE (expires_at is indexed) per draw, the same row rewritten ~150 times
-- in one transaction. gateway_apply_batch now keeps the lease's row in v_hold across consecutive
-- draws of that lease and writes it once, when an operation on anything else comes (or the batch
-- ends), as it already did for the project row (gateway_write_back). Everything else is as in 0007:
-- same outcomes, amounts, order and answers.

-- Writes a lease's drawn columns back from a batch's variable (the only columns a draw changes).
CREATE FUNCTION gateway_write_back_lease(p_hold holds) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  UPDATE holds SET amount_nano = p_hold.amount_nano, debited_nano = p_hold.debited_nano,
                   unbilled_nano = p_hold.unbilled_nano, expires_at = p_hold.expires_at
   WHERE request_id = p_hold.request_id;
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
                (v_op->>'input_tokens')::integer, (v_op->>'output_tokens')::integer, v_op->'cost_parts', v_hold.key_id);
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
                (v_op->>'input_tokens')::integer, (v_op->>'output_tokens')::integer, v_op->'cost_parts', v_op->>'key_id');
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
  RETURN to_jsonb(v_results);
END
$$;
