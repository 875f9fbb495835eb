-- What a Reserve would answer, without its hold: for calls that are free but must be refused as the
-- paid call would be (POST /v1/messages/count_tokens, docs/money.md). The reserve operation runs
-- through gateway_apply_batch itself, so its checks (balance, daily cap, the key's budget and cap)
-- are the Reserve's and stay in one place, inside a block whose exception always rolls it back:
-- nothing it wrote stays (the hold, the held amounts), and its answer is kept in a local variable,
-- which a caught exception leaves as it was. No function of an earlier migration changes.
CREATE FUNCTION gateway_check_spend(p_op jsonb) RETURNS jsonb
LANGUAGE plpgsql AS $$
DECLARE
  v_result jsonb;
BEGIN
  BEGIN
    v_result := gateway_apply_batch(jsonb_build_array(p_op)) -> 0;
    RAISE EXCEPTION 'gateway_check_spend rolls back' USING ERRCODE = 'GWCHK';
  EXCEPTION WHEN SQLSTATE 'GWCHK' THEN
    NULL;
  END;
  RETURN v_result;
END
$$;
