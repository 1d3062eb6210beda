-- 0031_anchor_moves_kept_without_a: anchor moves kept without a normalize_path per key; decision pieces aggregated once

\ir functions/tg_finding__prepare.sql
\ir functions/_merge_decisions.sql
