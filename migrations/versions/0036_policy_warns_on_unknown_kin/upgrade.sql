-- 0036_policy_warns_on_unknown_kin: policy warns on unknown kind

\ir functions/set_match_policy.sql
