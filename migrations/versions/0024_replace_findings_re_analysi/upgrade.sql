-- 0024_replace_findings_re_analysi: replace_findings re-analysis: tool and category, rule reanalysis, anchors move, baseline_state

DROP FUNCTION ledger.replace_findings(p_scope text, p_kind text, p_review_run text, p_findings jsonb, p_actor text);
\ir functions/replace_findings.sql
\ir privileges.sql
