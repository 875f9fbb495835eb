-- Per-key controls (docs/keys.md): a key may have its own requests per minute, daily spend cap and
-- total budget, all within its project's, an expiry, and a rotation (a successor issued, this key
-- valid for a grace period). The money rules are the project's: a key's cap or budget is checked in
-- the same conditional step that places a hold, under the same project lock, so it is never exceeded
-- however many data planes and requests there are.
--
-- A key's counters (spent_nano, held_nano, cap_day, cap_used_nano) are kept only while it has a cap
-- or a budget ("tracked"); setting one starts them from the ledger. A rotated key's limits and
-- counters move to its successor: money of both keys counts on the successor (gateway_limits_key).
-- Holds carry their key (key_id) and whether their amount is counted in its held_nano (key_held);
-- debits carry their key for usage per key.
-- AlterTable
ALTER TABLE "api_keys" ADD COLUMN     "budget_nano" BIGINT,
ADD COLUMN     "cap_day" DATE,
ADD COLUMN     "cap_used_nano" BIGINT NOT NULL DEFAULT 0,
ADD COLUMN     "daily_cap_nano" BIGINT,
ADD COLUMN     "expires_at" TIMESTAMPTZ(3),
ADD COLUMN     "held_nano" BIGINT NOT NULL DEFAULT 0,
ADD COLUMN     "replaced_by" TEXT,
ADD COLUMN     "rpm_limit" INTEGER,
ADD COLUMN     "spent_nano" BIGINT NOT NULL DEFAULT 0;

-- AlterTable
ALTER TABLE "ledger_entries" ADD COLUMN     "key_id" TEXT;

-- AlterTable
ALTER TABLE "holds" ADD COLUMN     "key_held" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN     "key_id" TEXT;

-- CreateIndex
CREATE INDEX "ledger_entries_key_id_day_idx" ON "ledger_entries"("key_id", "day");


-- The key whose limits and counters apply to a request of p_key_id: the key itself, or the end of
-- its rotations (replaced_by). No row when there is no such key.
CREATE FUNCTION gateway_limits_key(p_key_id text) RETURNS api_keys
LANGUAGE plpgsql STABLE AS $$
DECLARE
  v_key api_keys%ROWTYPE;
  v_steps integer := 0;
BEGIN
  IF p_key_id IS NULL THEN
    RETURN v_key;
  END IF;
  SELECT * INTO v_key FROM api_keys WHERE id = p_key_id;
  WHILE v_key.replaced_by IS NOT NULL AND v_steps < 64 LOOP
    SELECT * INTO v_key FROM api_keys WHERE id = v_key.replaced_by;
    v_steps := v_steps + 1;
  END LOOP;
  RETURN v_key;
END
$$;

-- A key's money is counted while it has a daily cap or a total budget.
CREATE FUNCTION gateway_key_tracked(p_key api_keys) RETURNS boolean
LANGUAGE sql IMMUTABLE AS $$
  SELECT p_key.id IS NOT NULL AND (p_key.daily_cap_nano IS NOT NULL OR p_key.budget_nano IS NOT NULL)
$$;

-- Counts a debit of p_debit on the hold day p_day against a request's key, and takes p_unheld (the
-- hold's amount, when it was counted in the key's held_nano and is still active) off its holds.
-- Callers hold the project's lock, which serializes every change to its keys' counters.
CREATE FUNCTION gateway_key_charge(p_key_id text, p_day date, p_debit bigint, p_unheld bigint) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  v_key api_keys%ROWTYPE := gateway_limits_key(p_key_id);
BEGIN
  IF NOT gateway_key_tracked(v_key) THEN
    RETURN;
  END IF;
  UPDATE api_keys
     SET spent_nano = spent_nano + p_debit,
         held_nano = held_nano - p_unheld,
         cap_used_nano = cap_used_nano + CASE WHEN cap_day = p_day THEN p_debit - p_unheld ELSE 0 END
   WHERE id = v_key.id;
END
$$;

-- What a debit arriving after its hold stopped being active may still take from its key: the
-- budget's room and, on the hold's day, the cap's (no bound when the key has neither).
CREATE FUNCTION gateway_key_late_room(p_key_id text, p_day date) RETURNS bigint
LANGUAGE plpgsql STABLE AS $$
DECLARE
  v_key api_keys%ROWTYPE := gateway_limits_key(p_key_id);
  v_room bigint := 9223372036854775807;
BEGIN
  IF NOT gateway_key_tracked(v_key) THEN
    RETURN v_room;
  END IF;
  IF v_key.budget_nano IS NOT NULL THEN
    v_room := v_key.budget_nano - v_key.spent_nano - v_key.held_nano;
  END IF;
  IF v_key.daily_cap_nano IS NOT NULL AND v_key.cap_day = p_day THEN
    v_room := LEAST(v_room, v_key.daily_cap_nano - v_key.cap_used_nano);
  END IF;
  RETURN v_room;
END
$$;

-- As in 0002, and an expired hold counted in its key's holds leaves them.
CREATE OR REPLACE FUNCTION gateway_unhold(p_hold holds, p_status hold_status) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  UPDATE projects
     SET held_nano = held_nano - p_hold.amount_nano,
         cap_used_nano = cap_used_nano - CASE WHEN cap_day = p_hold.day THEN p_hold.amount_nano ELSE 0 END
   WHERE id = p_hold.project_id;
  IF p_hold.key_held THEN
    PERFORM gateway_key_charge(p_hold.key_id, p_hold.day, 0, p_hold.amount_nano);
  END IF;
  UPDATE holds SET status = p_status, closed_at = now() WHERE request_id = p_hold.request_id;
END
$$;

-- Sets a key's limits and expiry under its project's lock (p_changes: any of "name", "rpm_limit",
-- "daily_cap_nano", "budget_nano", "expires_at"; a JSON null clears one). A key that gains a cap or a
-- budget starts counting from the ledger: its debits (and those of the keys it replaced), today's
-- for the cap. Its requests in flight are not counted as held: like a lowered project cap, a limit
-- set binds what is admitted after it (docs/keys.md).
CREATE FUNCTION gateway_update_key(p_key_id text, p_changes jsonb, p_day date) RETURNS void
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
    WITH RECURSIVE chain(id) AS (
      SELECT p_key_id
      UNION SELECT k.id FROM api_keys k JOIN chain c ON k.replaced_by = c.id
    )
    SELECT COALESCE(-sum(amount_nano), 0), COALESCE(-sum(amount_nano) FILTER (WHERE day = p_day), 0)
      INTO v_spent, v_today
      FROM ledger_entries WHERE kind = 'debit' AND key_id IN (SELECT id FROM chain);
    UPDATE holds SET key_held = false
     WHERE key_held AND status = 'active'
       AND key_id IN (WITH RECURSIVE chain(id) AS (
                        SELECT p_key_id UNION SELECT k.id FROM api_keys k JOIN chain c ON k.replaced_by = c.id)
                      SELECT id FROM chain);
    UPDATE api_keys SET spent_nano = v_spent, held_nano = 0, cap_day = p_day, cap_used_nano = v_today WHERE id = p_key_id;
  END IF;
END
$$;

-- Rotates a key under its project's lock: the successor (p_new_id, with its hash and hint) gets the
-- key's name, limits, expiry and counters; the key stays valid until p_until (or its own earlier
-- expiry), then the sweeper revokes it. A key revoked, expired or already rotated is refused.
CREATE FUNCTION gateway_rotate_key(p_key_id text, p_new_id text, p_hash text, p_hint text, p_until timestamptz, p_now timestamptz)
RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  v_key api_keys%ROWTYPE;
BEGIN
  SELECT * INTO v_key FROM api_keys WHERE id = p_key_id;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'unknown key %', p_key_id USING ERRCODE = 'no_data_found';
  END IF;
  PERFORM 1 FROM projects WHERE id = v_key.project_id FOR UPDATE;
  SELECT * INTO v_key FROM api_keys WHERE id = p_key_id;
  IF v_key.revoked_at IS NOT NULL OR v_key.replaced_by IS NOT NULL OR v_key.expires_at <= p_now THEN
    RAISE EXCEPTION 'key % cannot be rotated: it is %', p_key_id,
      CASE WHEN v_key.revoked_at IS NOT NULL THEN 'revoked' WHEN v_key.replaced_by IS NOT NULL THEN 'already rotated' ELSE 'expired' END
      USING ERRCODE = 'object_not_in_prerequisite_state';
  END IF;
  INSERT INTO api_keys (id, project_id, hash, hint, name, expires_at, rpm_limit, daily_cap_nano, budget_nano,
                        spent_nano, held_nano, cap_day, cap_used_nano)
  VALUES (p_new_id, v_key.project_id, p_hash, p_hint, v_key.name, v_key.expires_at, v_key.rpm_limit, v_key.daily_cap_nano,
          v_key.budget_nano, v_key.spent_nano, v_key.held_nano, v_key.cap_day, v_key.cap_used_nano);
  UPDATE api_keys
     SET replaced_by = p_new_id, expires_at = LEAST(COALESCE(expires_at, p_until), p_until),
         spent_nano = 0, held_nano = 0, cap_used_nano = 0
   WHERE id = p_key_id;
END
$$;

-- gateway_apply_batch as in 0006; a reserve (and a settle, release, draw and expiry) carries its key:
--   reserve: {..., "key_id"}: also refused with key_budget_exceeded or key_spend_cap_exceeded when the
--            key's budget or cap room (its successor's after a rotation) is short; a reserve with
--            "min_amount" holds what fits all of them.
--   draw:    {..., "key_id"}: the debit's key (a leased request's key has neither budget nor cap when
--            leased; one set since counts the debit).
-- Settles and releases take the key from the hold; every debit records its key.
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

    IF v_op->>'op' NOT IN ('reserve', 'lease') THEN
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
        v_key := gateway_limits_key(v_op->>'key_id');
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
          v_limit := LEAST(v_limit, gateway_late_room(v_project, v_hold), gateway_key_late_room(v_hold.key_id, v_hold.day));
        END IF;
        v_debit := LEAST(v_amount, GREATEST(v_limit, 0));
        INSERT INTO ledger_entries (project_id, kind, amount_nano, request_id, day, model, access_path, input_tokens, output_tokens, cost_parts, key_id)
        VALUES (v_hold.project_id, 'debit', -v_debit, v_request_id, v_hold.day,
                COALESCE(v_op->>'model', v_hold.model), COALESCE(v_op->>'access_path', v_hold.access_path),
                (v_op->>'input_tokens')::integer, (v_op->>'output_tokens')::integer, v_op->'cost_parts', v_hold.key_id);
        PERFORM gateway_key_charge(v_hold.key_id, v_hold.day, v_debit,
                                   CASE WHEN v_hold.key_held AND v_was_active THEN v_hold.amount_nano ELSE 0 END);
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
          v_limit := LEAST(v_limit, gateway_late_room(v_project, v_hold));
        END IF;
        v_debit := LEAST(v_amount, GREATEST(v_limit, 0));
        INSERT INTO ledger_entries (project_id, kind, amount_nano, request_id, day, model, access_path, input_tokens, output_tokens, cost_parts, key_id)
        VALUES (v_hold.project_id, 'debit', -v_debit, v_request_id, v_hold.day, v_op->>'model', v_op->>'access_path',
                (v_op->>'input_tokens')::integer, (v_op->>'output_tokens')::integer, v_op->'cost_parts', v_op->>'key_id');
        -- A key's requests are leased only while it has no budget or cap; one set since counts them as spent.
        PERFORM gateway_key_charge(v_op->>'key_id', v_hold.day, v_debit, 0);
        v_project.balance_nano := v_project.balance_nano - v_debit;
        IF v_was_active THEN
          -- The debited part stops being held; the cap already counted it while held.
          v_project.held_nano := v_project.held_nano - v_debit;
        ELSIF v_project.cap_day = v_hold.day THEN
          v_project.cap_used_nano := v_project.cap_used_nano + v_debit;
        END IF;
        UPDATE holds
           SET amount_nano = amount_nano - CASE WHEN v_was_active THEN v_debit ELSE 0 END,
               debited_nano = COALESCE(debited_nano, 0) + v_debit,
               unbilled_nano = COALESCE(unbilled_nano, 0) + (v_amount - v_debit),
               expires_at = CASE WHEN v_was_active THEN GREATEST(expires_at, (v_op->>'expires_at')::timestamptz) ELSE expires_at END
         WHERE request_id = v_hold.request_id;
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

  IF v_loaded THEN
    PERFORM gateway_write_back(v_project);
  END IF;
  RETURN to_jsonb(v_results);
END
$$;
