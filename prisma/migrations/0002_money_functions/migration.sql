-- Money operations, written by hand (Prisma does not generate functions).
--
-- Every operation is keyed by request id (or top-up idempotency key): a
-- replay returns the first answer and changes nothing. Reserve, settle and
-- release exist only inside gateway_apply_batch (group commit: many in one
-- transaction); top-ups and the expiry sweep are functions of their own.
--
-- Lock order everywhere: the project row first, then its holds. The project
-- row lock serializes all money changes of one project; batches are sorted by
-- project id, so concurrent batches take project locks in the same order.
--
-- Guarantees, enforced by the constraints below as well as by the logic:
--   0 <= held_nano <= balance_nano        (a balance never goes negative)
--   cap_used_nano <= daily_cap_nano       (checked before every hold; debits never exceed holds)
-- A settle debits the actual cost but at most its hold (the worst case it was
-- sized for); a settle arriving after its hold expired debits, in addition, at
-- most what the balance and the hold's day cap still allow. What could not be
-- debited is recorded in holds.unbilled_nano.
--
-- Cap accounting: projects.cap_used_nano is debits plus active holds of
-- projects.cap_day. A hold counts against the UTC day it was placed
-- (holds.day); its settle or release adjusts cap_used_nano only while cap_day
-- is still that day, so the counter resets once per day and never twice.

ALTER TABLE projects ADD CONSTRAINT projects_money_invariant CHECK (held_nano >= 0 AND balance_nano >= held_nano);
ALTER TABLE holds ADD CONSTRAINT holds_amount_not_negative CHECK (amount_nano >= 0 AND COALESCE(debited_nano, 0) >= 0);
ALTER TABLE ledger_entries ADD CONSTRAINT ledger_sign CHECK ((kind = 'topup' AND amount_nano > 0) OR (kind = 'debit' AND amount_nano <= 0) OR kind = 'adjustment');

-- Locks the project of a request's hold and returns the hold (no row when
-- there is none). Used by the sweeper, outside batches.
CREATE FUNCTION gateway_lock_hold(p_request_id text, p_project_id text) RETURNS holds
LANGUAGE plpgsql AS $$
DECLARE
  v_hold holds%ROWTYPE;
BEGIN
  PERFORM 1 FROM projects WHERE id = p_project_id FOR UPDATE;
  SELECT * INTO v_hold FROM holds WHERE request_id = p_request_id;
  RETURN v_hold;
END
$$;

-- Takes an active hold's amount off the project's held total and its day's cap counter.
CREATE FUNCTION gateway_unhold(p_hold holds, p_status hold_status) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  UPDATE projects
     SET held_nano = held_nano - p_hold.amount_nano,
         cap_used_nano = cap_used_nano - CASE WHEN cap_day = p_hold.day THEN p_hold.amount_nano ELSE 0 END
   WHERE id = p_hold.project_id;
  UPDATE holds SET status = p_status, closed_at = now() WHERE request_id = p_hold.request_id;
END
$$;

-- Writes a project's money columns back from a batch's variable.
CREATE FUNCTION gateway_write_back(p_project projects) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  UPDATE projects SET balance_nano = p_project.balance_nano, held_nano = p_project.held_nano,
                      cap_day = p_project.cap_day, cap_used_nano = p_project.cap_used_nano
   WHERE id = p_project.id;
END
$$;

-- Voids up to p_limit active holds whose TTL has passed (left by a crashed or
-- cut-off data plane), in project order like the batches, and returns how many.
CREATE FUNCTION gateway_expire_holds(p_now timestamptz, p_limit integer) RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
  v_candidate record;
  v_hold holds%ROWTYPE;
  v_count integer := 0;
BEGIN
  FOR v_candidate IN
    SELECT request_id, project_id FROM (
      SELECT request_id, project_id FROM holds WHERE status = 'active' AND expires_at <= p_now ORDER BY expires_at LIMIT p_limit
    ) due ORDER BY project_id COLLATE "C", request_id
  LOOP
    v_hold := gateway_lock_hold(v_candidate.request_id, v_candidate.project_id);
    IF v_hold.status = 'active' THEN
      PERFORM gateway_unhold(v_hold, 'expired');
      v_count := v_count + 1;
    END IF;
  END LOOP;
  RETURN v_count;
END
$$;

CREATE FUNCTION gateway_topup(p_project_id text, p_amount bigint, p_idempotency_key text, p_day date)
RETURNS TABLE (r_entry_id bigint, r_amount bigint, r_replayed boolean)
LANGUAGE plpgsql AS $$
DECLARE
  v_entry ledger_entries%ROWTYPE;
BEGIN
  PERFORM 1 FROM projects WHERE id = p_project_id FOR UPDATE;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'unknown project %', p_project_id USING ERRCODE = 'no_data_found';
  END IF;
  SELECT * INTO v_entry FROM ledger_entries WHERE project_id = p_project_id AND idempotency_key = p_idempotency_key;
  IF FOUND THEN
    RETURN QUERY SELECT v_entry.id, v_entry.amount_nano, true;
    RETURN;
  END IF;
  INSERT INTO ledger_entries (project_id, kind, amount_nano, idempotency_key, day)
  VALUES (p_project_id, 'topup', p_amount, p_idempotency_key, p_day)
  RETURNING * INTO v_entry;
  UPDATE projects SET balance_nano = balance_nano + p_amount WHERE id = p_project_id;
  RETURN QUERY SELECT v_entry.id, v_entry.amount_nano, false;
END
$$;

-- Group commit: the control plane sends the reserve, settle and release
-- operations that queued up while its previous batch was being written, sorted
-- by project id (stably: one project's operations keep their order). They are
-- applied in order, in the caller's one transaction. Each project's row is
-- locked when its run of operations starts, kept in a variable while they are
-- applied, and written back once when the run ends: one project-row write per
-- batch, however many requests the batch carries.
--
-- p_ops: [{"op":"reserve","request_id","project_id","amount","day","expires_at","model","access_path"}
--        |{"op":"settle","request_id","project_id","amount","model","access_path","input_tokens","output_tokens"}
--        |{"op":"release","request_id","project_id"}]
-- returns one result per operation, in order: {"outcome", "available" | "debited"} (amounts as decimal strings).
--   reserve: reserved (with the amount held) | insufficient_credits | spend_cap_exceeded | unknown_project
--            (a replay: the first answer). With "min_amount" > 0, a reserve whose amount does not fit
--            holds what does fit, if that is at least min_amount.
--   settle:  settled (with the amount on the ledger) | already_released | unknown_request
--   release: released | already_settled | unknown_request
CREATE FUNCTION gateway_apply_batch(p_ops jsonb) RETURNS jsonb
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
  v_room bigint;
  v_debit bigint;
  v_was_active boolean;
BEGIN
  FOR v_op IN SELECT value FROM jsonb_array_elements(p_ops) LOOP
    v_request_id := v_op->>'request_id';
    v_project_id := NULLIF(v_op->>'project_id', '');

    -- Lock the caller's project (batches arrive sorted by it).
    IF v_project_id IS NOT NULL AND (NOT v_loaded OR v_project.id <> v_project_id) THEN
      IF v_loaded THEN
        PERFORM gateway_write_back(v_project);
      END IF;
      SELECT * INTO v_project FROM projects WHERE id = v_project_id FOR UPDATE;
      v_loaded := FOUND;
    END IF;

    IF v_op->>'op' <> 'reserve' THEN
      -- Settle and release act on the hold's own project: read the hold under
      -- that project's lock. A hold whose reserve has not committed yet is
      -- simply not found (unknown_request).
      SELECT * INTO v_hold FROM holds WHERE request_id = v_request_id;
      IF FOUND AND (NOT v_loaded OR v_hold.project_id <> v_project.id) THEN
        IF v_loaded THEN
          PERFORM gateway_write_back(v_project);
        END IF;
        SELECT * INTO v_project FROM projects WHERE id = v_hold.project_id FOR UPDATE;
        v_loaded := FOUND;
        SELECT * INTO v_hold FROM holds WHERE request_id = v_request_id;
      END IF;
    END IF;

    CASE v_op->>'op'
      WHEN 'reserve' THEN
        v_amount := (v_op->>'amount')::bigint;
        IF NOT v_loaded OR v_project.id <> v_project_id OR v_project_id IS NULL THEN
          v_results := array_append(v_results, jsonb_build_object('outcome', 'unknown_project', 'available', '0'));
          CONTINUE;
        END IF;
        SELECT * INTO v_hold FROM holds WHERE request_id = v_request_id;
        IF FOUND THEN
          v_results := array_append(v_results, jsonb_build_object(
            'outcome', CASE WHEN v_hold.status = 'refused' THEN v_hold.refusal ELSE 'reserved' END,
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
        v_refusal := NULL;
        IF v_available < v_amount AND v_min > 0 AND v_available >= v_min THEN
          v_amount := v_available; -- the caller accepts a smaller answer: hold what fits
        END IF;
        v_needed := CASE WHEN v_min > 0 THEN LEAST(v_min, v_amount) ELSE v_amount END;
        IF v_available < v_amount THEN
          v_refusal := CASE WHEN v_project.balance_nano - v_project.held_nano < v_needed THEN 'insufficient_credits' ELSE 'spend_cap_exceeded' END;
        END IF;
        INSERT INTO holds (request_id, project_id, amount_nano, day, status, expires_at, closed_at, model, access_path, refusal)
        VALUES (v_request_id, v_project.id, v_amount, v_day, CASE WHEN v_refusal IS NULL THEN 'active' ELSE 'refused' END::hold_status,
                (v_op->>'expires_at')::timestamptz, CASE WHEN v_refusal IS NULL THEN NULL ELSE now() END,
                v_op->>'model', v_op->>'access_path', v_refusal);
        IF v_refusal IS NULL THEN
          v_project.held_nano := v_project.held_nano + v_amount;
          v_project.cap_day := v_day;
          v_project.cap_used_nano := v_cap_used + v_amount;
          v_results := array_append(v_results, jsonb_build_object('outcome', 'reserved', 'available', (v_available - v_amount)::text, 'reserved', v_amount::text));
        ELSE
          v_results := array_append(v_results, jsonb_build_object('outcome', v_refusal, 'available', GREATEST(v_available, 0)::text));
        END IF;

      WHEN 'settle' THEN
        IF v_hold.request_id IS DISTINCT FROM v_request_id OR v_hold.status = 'refused' THEN
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
          -- Expired: its amount went back to the balance and may be held by others now.
          v_limit := LEAST(v_limit, v_project.balance_nano - v_project.held_nano);
          IF v_project.daily_cap_nano IS NOT NULL THEN
            IF v_project.cap_day = v_hold.day THEN
              v_room := v_project.daily_cap_nano - v_project.cap_used_nano;
            ELSE
              SELECT v_project.daily_cap_nano
                     + COALESCE((SELECT sum(amount_nano) FROM ledger_entries WHERE project_id = v_hold.project_id AND day = v_hold.day AND kind = 'debit'), 0)
                     - COALESCE((SELECT sum(amount_nano) FROM holds WHERE project_id = v_hold.project_id AND day = v_hold.day AND status = 'active'), 0)
                INTO v_room;
            END IF;
            v_limit := LEAST(v_limit, v_room);
          END IF;
        END IF;
        v_debit := LEAST(v_amount, GREATEST(v_limit, 0));
        INSERT INTO ledger_entries (project_id, kind, amount_nano, request_id, day, model, access_path, input_tokens, output_tokens)
        VALUES (v_hold.project_id, 'debit', -v_debit, v_request_id, v_hold.day,
                COALESCE(v_op->>'model', v_hold.model), COALESCE(v_op->>'access_path', v_hold.access_path),
                (v_op->>'input_tokens')::integer, (v_op->>'output_tokens')::integer);
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

      WHEN 'release' THEN
        IF v_hold.request_id IS DISTINCT FROM v_request_id OR v_hold.status = 'refused' THEN
          v_results := array_append(v_results, jsonb_build_object('outcome', 'unknown_request'));
        ELSIF v_hold.status = 'settled' THEN
          v_results := array_append(v_results, jsonb_build_object('outcome', 'already_settled'));
        ELSE
          IF v_hold.status = 'active' THEN
            v_project.held_nano := v_project.held_nano - v_hold.amount_nano;
            IF v_project.cap_day = v_hold.day THEN
              v_project.cap_used_nano := v_project.cap_used_nano - v_hold.amount_nano;
            END IF;
          END IF;
          -- An expired hold is already off the balance; marking it released keeps a later settle from debiting it.
          IF v_hold.status <> 'released' THEN
            UPDATE holds SET status = 'released', closed_at = COALESCE(closed_at, now()) WHERE request_id = v_request_id;
          END IF;
          v_results := array_append(v_results, jsonb_build_object('outcome', 'released'));
        END IF;

      ELSE
        RAISE EXCEPTION 'unknown money operation %', v_op->>'op';
    END CASE;
  END LOOP;

  IF v_loaded THEN
    PERFORM gateway_write_back(v_project);
  END IF;
  RETURN to_jsonb(v_results);
END
$$;
