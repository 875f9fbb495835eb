-- Money operations, written by hand (Prisma does not generate functions).
--
-- Each function is atomic (it runs inside its caller's transaction) and
-- keyed by request id (or top-up idempotency key): a replay returns the first
-- answer and changes nothing. The control plane calls reserve, settle and
-- release through gateway_apply_batch, many in one transaction (group commit).
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
-- most what the balance and the hold's day cap still allow. What could not be debited is
-- recorded in holds.unbilled_nano.
--
-- Cap accounting: projects.cap_used_nano is debits plus active holds of
-- projects.cap_day. A hold counts against the UTC day it was placed
-- (holds.day); its settle or release adjusts cap_used_nano only while cap_day
-- is still that day, so the counter resets once per day and never twice.

ALTER TABLE projects ADD CONSTRAINT projects_money_invariant CHECK (held_nano >= 0 AND balance_nano >= held_nano);
ALTER TABLE holds ADD CONSTRAINT holds_amount_not_negative CHECK (amount_nano >= 0 AND COALESCE(debited_nano, 0) >= 0);
ALTER TABLE ledger_entries ADD CONSTRAINT ledger_sign CHECK ((kind = 'topup' AND amount_nano > 0) OR (kind = 'debit' AND amount_nano <= 0) OR kind = 'adjustment');

CREATE FUNCTION gateway_reserve(
  p_request_id text, p_project_id text, p_amount bigint, p_day date,
  p_expires_at timestamptz, p_model text, p_access_path text
) RETURNS TABLE (r_outcome text, r_available bigint)
LANGUAGE plpgsql AS $$
DECLARE
  v_project projects%ROWTYPE;
  v_hold holds%ROWTYPE;
  v_day date;
  v_cap_used bigint;
  v_available bigint;
  v_refusal text;
BEGIN
  SELECT * INTO v_project FROM projects WHERE id = p_project_id FOR UPDATE;
  IF NOT FOUND THEN
    RETURN QUERY SELECT 'unknown_project'::text, 0::bigint;
    RETURN;
  END IF;

  SELECT * INTO v_hold FROM holds WHERE request_id = p_request_id;
  IF FOUND THEN
    RETURN QUERY SELECT (CASE WHEN v_hold.status = 'refused' THEN v_hold.refusal ELSE 'reserved' END)::text, 0::bigint;
    RETURN;
  END IF;

  -- A control plane whose clock lags never moves the cap day backwards.
  v_day := GREATEST(p_day, COALESCE(v_project.cap_day, p_day));
  v_cap_used := CASE WHEN v_project.cap_day = v_day THEN v_project.cap_used_nano ELSE 0 END;
  v_available := v_project.balance_nano - v_project.held_nano;
  IF v_project.daily_cap_nano IS NOT NULL THEN
    v_available := LEAST(v_available, v_project.daily_cap_nano - v_cap_used);
  END IF;

  IF v_project.balance_nano - v_project.held_nano < p_amount THEN
    v_refusal := 'insufficient_credits';
  ELSIF v_project.daily_cap_nano IS NOT NULL AND v_cap_used + p_amount > v_project.daily_cap_nano THEN
    v_refusal := 'spend_cap_exceeded';
  END IF;

  IF v_refusal IS NOT NULL THEN
    INSERT INTO holds (request_id, project_id, amount_nano, day, status, expires_at, closed_at, model, access_path, refusal)
    VALUES (p_request_id, p_project_id, p_amount, v_day, 'refused', p_expires_at, now(), p_model, p_access_path, v_refusal);
    RETURN QUERY SELECT v_refusal, GREATEST(v_available, 0);
    RETURN;
  END IF;

  UPDATE projects
     SET held_nano = held_nano + p_amount, cap_day = v_day, cap_used_nano = v_cap_used + p_amount
   WHERE id = p_project_id;
  INSERT INTO holds (request_id, project_id, amount_nano, day, status, expires_at, model, access_path)
  VALUES (p_request_id, p_project_id, p_amount, v_day, 'active', p_expires_at, p_model, p_access_path);

  RETURN QUERY SELECT 'reserved'::text, v_available - p_amount;
END
$$;

-- Locks the project of a request's hold and returns the hold (status
-- 'refused' or no row when there is none to act on). p_project_id is the
-- caller's word for the project; when it is missing or wrong, the hold's own
-- project is locked instead.
CREATE FUNCTION gateway_lock_hold(p_request_id text, p_project_id text) RETURNS holds
LANGUAGE plpgsql AS $$
DECLARE
  v_hold holds%ROWTYPE;
  v_project_id text := NULLIF(p_project_id, '');
BEGIN
  IF v_project_id IS NULL THEN
    SELECT project_id INTO v_project_id FROM holds WHERE request_id = p_request_id;
    IF NOT FOUND THEN
      RETURN NULL;
    END IF;
  END IF;
  PERFORM 1 FROM projects WHERE id = v_project_id FOR UPDATE;
  SELECT * INTO v_hold FROM holds WHERE request_id = p_request_id;
  IF FOUND AND v_hold.project_id <> v_project_id THEN
    PERFORM 1 FROM projects WHERE id = v_hold.project_id FOR UPDATE;
    SELECT * INTO v_hold FROM holds WHERE request_id = p_request_id;
  END IF;
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

CREATE FUNCTION gateway_settle(
  p_request_id text, p_project_id text, p_amount bigint, p_model text, p_access_path text,
  p_input_tokens integer, p_output_tokens integer
) RETURNS TABLE (r_outcome text, r_debited bigint)
LANGUAGE plpgsql AS $$
DECLARE
  v_hold holds%ROWTYPE;
  v_project projects%ROWTYPE;
  v_limit bigint;
  v_room bigint;
  v_debit bigint;
  v_was_active boolean;
BEGIN
  v_hold := gateway_lock_hold(p_request_id, p_project_id);
  IF v_hold.request_id IS NULL OR v_hold.status = 'refused' THEN
    RETURN QUERY SELECT 'unknown_request'::text, 0::bigint;
    RETURN;
  ELSIF v_hold.status = 'settled' THEN
    RETURN QUERY SELECT 'settled'::text, v_hold.debited_nano;
    RETURN;
  ELSIF v_hold.status = 'released' THEN
    RETURN QUERY SELECT 'already_released'::text, 0::bigint;
    RETURN;
  END IF;

  SELECT * INTO v_project FROM projects WHERE id = v_hold.project_id;
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
  v_debit := LEAST(GREATEST(p_amount, 0), GREATEST(v_limit, 0));

  INSERT INTO ledger_entries (project_id, kind, amount_nano, request_id, day, model, access_path, input_tokens, output_tokens)
  VALUES (v_hold.project_id, 'debit', -v_debit, p_request_id, v_hold.day,
          COALESCE(p_model, v_hold.model), COALESCE(p_access_path, v_hold.access_path), p_input_tokens, p_output_tokens);
  UPDATE projects
     SET balance_nano = balance_nano - v_debit,
         held_nano = held_nano - CASE WHEN v_was_active THEN v_hold.amount_nano ELSE 0 END,
         cap_used_nano = cap_used_nano + CASE WHEN cap_day = v_hold.day
                                              THEN v_debit - CASE WHEN v_was_active THEN v_hold.amount_nano ELSE 0 END
                                              ELSE 0 END
   WHERE id = v_hold.project_id;
  UPDATE holds
     SET status = 'settled', debited_nano = v_debit, unbilled_nano = GREATEST(p_amount, 0) - v_debit, closed_at = now()
   WHERE request_id = p_request_id;

  RETURN QUERY SELECT 'settled'::text, v_debit;
END
$$;

CREATE FUNCTION gateway_release(p_request_id text, p_project_id text) RETURNS TABLE (r_outcome text)
LANGUAGE plpgsql AS $$
DECLARE
  v_hold holds%ROWTYPE;
BEGIN
  v_hold := gateway_lock_hold(p_request_id, p_project_id);
  IF v_hold.request_id IS NULL OR v_hold.status = 'refused' THEN
    RETURN QUERY SELECT 'unknown_request'::text;
  ELSIF v_hold.status = 'settled' THEN
    RETURN QUERY SELECT 'already_settled'::text;
  ELSE
    IF v_hold.status = 'active' THEN
      PERFORM gateway_unhold(v_hold, 'released');
    ELSIF v_hold.status = 'expired' THEN
      -- Already off the balance; marking it released keeps a later settle from debiting it.
      UPDATE holds SET status = 'released' WHERE request_id = p_request_id;
    END IF;
    RETURN QUERY SELECT 'released'::text;
  END IF;
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
    ) due ORDER BY project_id, request_id
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

-- Group commit: applies a batch of reserve, settle and release operations in
-- order, in the caller's one transaction, and returns one result per operation.
-- p_ops: [{"op":"reserve","request_id","project_id","amount","day","expires_at","model","access_path"}
--        |{"op":"settle","request_id","project_id","amount","model","access_path","input_tokens","output_tokens"}
--        |{"op":"release","request_id","project_id"}]
-- results: [{"outcome", "available" | "debited"}] (amounts as decimal strings).
CREATE FUNCTION gateway_apply_batch(p_ops jsonb) RETURNS jsonb
LANGUAGE plpgsql AS $$
DECLARE
  v_op jsonb;
  v_results jsonb[] := '{}';
  v_outcome text;
  v_amount bigint;
BEGIN
  FOR v_op IN SELECT value FROM jsonb_array_elements(p_ops) LOOP
    CASE v_op->>'op'
      WHEN 'reserve' THEN
        SELECT r_outcome, r_available INTO v_outcome, v_amount FROM gateway_reserve(
          v_op->>'request_id', v_op->>'project_id', (v_op->>'amount')::bigint, (v_op->>'day')::date,
          (v_op->>'expires_at')::timestamptz, v_op->>'model', v_op->>'access_path');
        v_results := array_append(v_results, jsonb_build_object('outcome', v_outcome, 'available', v_amount::text));
      WHEN 'settle' THEN
        SELECT r_outcome, r_debited INTO v_outcome, v_amount FROM gateway_settle(
          v_op->>'request_id', v_op->>'project_id', (v_op->>'amount')::bigint, v_op->>'model', v_op->>'access_path',
          (v_op->>'input_tokens')::integer, (v_op->>'output_tokens')::integer);
        v_results := array_append(v_results, jsonb_build_object('outcome', v_outcome, 'debited', v_amount::text));
      WHEN 'release' THEN
        SELECT r_outcome INTO v_outcome FROM gateway_release(v_op->>'request_id', v_op->>'project_id');
        v_results := array_append(v_results, jsonb_build_object('outcome', v_outcome));
      ELSE
        RAISE EXCEPTION 'unknown money operation %', v_op->>'op';
    END CASE;
  END LOOP;
  RETURN to_jsonb(v_results);
END
$$;
