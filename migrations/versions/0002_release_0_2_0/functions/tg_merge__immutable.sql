CREATE OR REPLACE FUNCTION ledger.tg_merge__immutable()
RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_changed text;
BEGIN
    IF NOT OLD.processed THEN
        RETURN NEW;
    END IF;
    SELECT string_agg('merge.' || o.key, ', ' ORDER BY o.key) INTO v_changed
      FROM jsonb_each(to_jsonb(OLD)) AS o
      JOIN jsonb_each(to_jsonb(NEW)) AS n ON n.key = o.key
     WHERE o.value IS DISTINCT FROM n.value;
    RAISE EXCEPTION 'merge % of scope % (commit_sha %) is immutable once recorded: UPDATE refused (%)',
        OLD.id, quote_literal(OLD.scope), OLD.commit_sha, coalesce('changes ' || v_changed, 'changes no value')
        USING ERRCODE = 'LD006',
              HINT = 'Redeliver a merge with INSERT ... ON CONFLICT (scope, commit_sha) DO NOTHING, never DO UPDATE; a correction is a new commit.';
END
$$;

COMMENT ON FUNCTION ledger.tg_merge__immutable() IS
'BEFORE UPDATE trigger _010_immutable on ledger.merge: refuses any UPDATE of a processed merge (also ON CONFLICT DO UPDATE, also by the owner); unprocessed merges stay correctable for ledger.reconcile. Raises LD006 naming the merge and the changed columns.';
