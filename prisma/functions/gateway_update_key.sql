-- Sets a key's limits and expiry under its project's lock (p_changes: any of "name", "rpm_limit",
-- "daily_cap_nano", "budget_nano", "expires_at"; a JSON null clears one). A key that gains a cap or a
-- budget starts counting from its history: its debits (and those of the keys it replaced), today's for
-- the cap, from the usage rollups and the debits still queued for them (migration 0013). Its requests in
-- flight are not counted as held: like a lowered project cap, a limit set binds what is admitted after it
-- (docs/keys.md). History: 0007 (created, summing the ledger), this file since 0013.
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
    -- The rollups and the debits still queued, in one statement: a roll-up moves debits from the one to
    -- the other in one commit, so a single snapshot counts each once (no roll-up under the project's lock).
    WITH RECURSIVE chain(id) AS (
      SELECT p_key_id
      UNION SELECT k.id FROM api_keys k JOIN chain c ON k.replaced_by = c.id
    ), queued AS (
      SELECT -l.amount_nano AS cost, l.day
        FROM usage_pending AS q JOIN ledger_entries AS l ON l.id = q.ledger_id
       WHERE l.kind = 'debit' AND l.key_id IN (SELECT id FROM chain)
    )
    SELECT COALESCE((SELECT sum(cost_nano) FROM usage_key_totals WHERE key_id IN (SELECT id FROM chain)), 0)
           + COALESCE((SELECT sum(cost) FROM queued), 0),
           COALESCE((SELECT sum(cost_nano) FROM usage_daily
                      WHERE project_id = v_old.project_id AND day = p_day AND key_id IN (SELECT id FROM chain)), 0)
           + COALESCE((SELECT sum(cost) FROM queued WHERE day = p_day), 0)
      INTO v_spent, v_today;
    UPDATE holds SET key_held = false
     WHERE key_held AND status = 'active'
       AND key_id IN (WITH RECURSIVE chain(id) AS (
                        SELECT p_key_id UNION SELECT k.id FROM api_keys k JOIN chain c ON k.replaced_by = c.id)
                      SELECT id FROM chain);
    UPDATE api_keys SET spent_nano = v_spent, held_nano = 0, cap_day = p_day, cap_used_nano = v_today WHERE id = p_key_id;
  END IF;
END
$$;
