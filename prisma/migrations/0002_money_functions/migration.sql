-- Money operations. Each is one call (one statement) for the control plane:
-- atomic on PostgreSQL and PGlite alike, keyed by request id (or top-up
-- idempotency key) so that a replay returns the first answer.
--
-- Lock order everywhere: the project row, then the hold row. The project row
-- lock serializes all money changes of one project.
--
-- Cap accounting: projects.cap_used_nano holds debits plus active holds of
-- projects.cap_day. A hold counts against the day it was placed (holds.day);
-- its settle or release adjusts cap_used_nano only while cap_day is still
-- that day, so the counter resets once per day and never twice.

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
  INSERT INTO daily_spend (project_id, day, held_nano) VALUES (p_project_id, v_day, p_amount)
  ON CONFLICT (project_id, day) DO UPDATE SET held_nano = daily_spend.held_nano + EXCLUDED.held_nano;

  RETURN QUERY SELECT 'reserved'::text, v_available - p_amount;
END
$$;

-- Removes an active hold's amount from the project's and the day's held totals.
CREATE FUNCTION gateway_close_hold(p_hold holds, p_status hold_status) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  UPDATE projects
     SET held_nano = held_nano - p_hold.amount_nano,
         cap_used_nano = cap_used_nano - CASE WHEN cap_day = p_hold.day THEN p_hold.amount_nano ELSE 0 END
   WHERE id = p_hold.project_id;
  UPDATE daily_spend SET held_nano = held_nano - p_hold.amount_nano
   WHERE project_id = p_hold.project_id AND day = p_hold.day;
  UPDATE holds SET status = p_status, closed_at = now() WHERE request_id = p_hold.request_id;
END
$$;

CREATE FUNCTION gateway_settle(
  p_request_id text, p_amount bigint, p_model text, p_access_path text,
  p_input_tokens integer, p_output_tokens integer
) RETURNS TABLE (r_outcome text, r_debited bigint)
LANGUAGE plpgsql AS $$
DECLARE
  v_hold holds%ROWTYPE;
BEGIN
  SELECT * INTO v_hold FROM holds WHERE request_id = p_request_id;
  IF NOT FOUND OR v_hold.status = 'refused' THEN
    RETURN QUERY SELECT 'unknown_request'::text, 0::bigint;
    RETURN;
  END IF;
  PERFORM 1 FROM projects WHERE id = v_hold.project_id FOR UPDATE;
  SELECT * INTO v_hold FROM holds WHERE request_id = p_request_id FOR UPDATE;

  IF v_hold.status = 'settled' THEN
    RETURN QUERY SELECT 'settled'::text, v_hold.debited_nano;
    RETURN;
  ELSIF v_hold.status = 'released' THEN
    RETURN QUERY SELECT 'already_released'::text, 0::bigint;
    RETURN;
  END IF;

  -- Active, or expired by the sweeper: a late settle still debits.
  IF v_hold.status = 'active' THEN
    PERFORM gateway_close_hold(v_hold, 'settled');
  END IF;
  INSERT INTO ledger_entries (project_id, kind, amount_nano, request_id, day, model, access_path, input_tokens, output_tokens)
  VALUES (v_hold.project_id, 'debit', -p_amount, p_request_id, v_hold.day,
          COALESCE(p_model, v_hold.model), COALESCE(p_access_path, v_hold.access_path), p_input_tokens, p_output_tokens);
  UPDATE projects
     SET balance_nano = balance_nano - p_amount,
         cap_used_nano = cap_used_nano + CASE WHEN cap_day = v_hold.day THEN p_amount ELSE 0 END
   WHERE id = v_hold.project_id;
  INSERT INTO daily_spend (project_id, day, spent_nano) VALUES (v_hold.project_id, v_hold.day, p_amount)
  ON CONFLICT (project_id, day) DO UPDATE SET spent_nano = daily_spend.spent_nano + EXCLUDED.spent_nano;
  UPDATE holds SET status = 'settled', debited_nano = p_amount, closed_at = now() WHERE request_id = p_request_id;

  RETURN QUERY SELECT 'settled'::text, p_amount;
END
$$;

CREATE FUNCTION gateway_release(p_request_id text) RETURNS TABLE (r_outcome text)
LANGUAGE plpgsql AS $$
DECLARE
  v_hold holds%ROWTYPE;
BEGIN
  SELECT * INTO v_hold FROM holds WHERE request_id = p_request_id;
  IF NOT FOUND OR v_hold.status = 'refused' THEN
    RETURN QUERY SELECT 'unknown_request'::text;
    RETURN;
  END IF;
  PERFORM 1 FROM projects WHERE id = v_hold.project_id FOR UPDATE;
  SELECT * INTO v_hold FROM holds WHERE request_id = p_request_id FOR UPDATE;

  IF v_hold.status = 'settled' THEN
    RETURN QUERY SELECT 'already_settled'::text;
    RETURN;
  ELSIF v_hold.status = 'active' THEN
    PERFORM gateway_close_hold(v_hold, 'released');
  END IF;
  RETURN QUERY SELECT 'released'::text;
END
$$;

-- Voids active holds whose TTL has passed (left by a crashed or cut-off data
-- plane) and returns how many it voided.
CREATE FUNCTION gateway_expire_holds(p_now timestamptz, p_limit integer) RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
  v_candidate record;
  v_hold holds%ROWTYPE;
  v_count integer := 0;
BEGIN
  FOR v_candidate IN
    SELECT request_id, project_id FROM holds
     WHERE status = 'active' AND expires_at <= p_now
     ORDER BY expires_at LIMIT p_limit
  LOOP
    PERFORM 1 FROM projects WHERE id = v_candidate.project_id FOR UPDATE;
    SELECT * INTO v_hold FROM holds WHERE request_id = v_candidate.request_id FOR UPDATE;
    IF v_hold.status = 'active' THEN
      PERFORM gateway_close_hold(v_hold, 'expired');
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
