-- ledger.scope_active_total: how many findings of a scope are active
-- (superseded_at IS NULL) and how many prompt characters they cost
-- (length(title) + 1 + length(description), length(title) without a
-- description: the cost ledger.read_prompt_findings budgets), kept as delta
-- rows: the scope's totals are the sums of its rows. Derived data, written
-- only by the statement triggers _310_active_totals_insert and
-- _310_active_totals_update (ledger.tg_finding__active_totals; each statement
-- that changes a scope's totals appends one row for it, so concurrent writers
-- into one scope never wait for each other here) and by ledger.reconcile
-- (one correcting row for findings written without triggers). The trigger
-- folds a scope's rows into one now and then (ledger.tg_finding__active_totals),
-- so a scope keeps few rows, whatever its size; a sum over
-- them is a short index range scan. ledger.read_prompt_findings reads it for
-- the omitted count and characters, which are otherwise a scan of every
-- active finding of the scope.
-- Readers may SELECT it (scope_isolation applies, as on ledger.finding); no
-- role may write it (sql/access/privileges.sql).
CREATE TABLE ledger.scope_active_total (
    scope    text NOT NULL,
    id       bigint GENERATED ALWAYS AS IDENTITY,
    findings bigint NOT NULL,
    chars    bigint NOT NULL,
    CONSTRAINT scope_active_total_pkey PRIMARY KEY (scope, id)
);

COMMENT ON TABLE ledger.scope_active_total IS
'Per-scope totals of the active findings (superseded_at IS NULL) as delta rows: a scope''s active count and prompt characters are sum(findings) and sum(chars) over its rows. Maintained by the finding statement triggers _310_active_totals_insert and _310_active_totals_update (ledger.tg_finding__active_totals: one row per statement and scope, folded now and then) and by ledger.reconcile. Derived: never written directly; readers may select it.';
COMMENT ON COLUMN ledger.scope_active_total.scope IS
'The scope (ledger.finding.scope).';
COMMENT ON COLUMN ledger.scope_active_total.id IS
'Order of the rows; a scope''s rows are folded when a statement appends a row whose id is a multiple of 32.';
COMMENT ON COLUMN ledger.scope_active_total.findings IS
'Change of the number of active findings of the scope (negative: findings superseded or dismissed).';
COMMENT ON COLUMN ledger.scope_active_total.chars IS
'Change of the prompt characters of the scope''s active findings: length(title) + 1 + length(description) per finding, length(title) without a description.';
