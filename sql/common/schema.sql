-- The schema every findings-ledger object lives in.
CREATE SCHEMA IF NOT EXISTS ledger;
