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
