"""Every SQL statement the Python API sends, in one auditable module.

Each statement calls one stored function with named arguments; nothing is
built with f-strings. Column lists are explicit so that adding a column to a
table never breaks the dataclass a statement fills.
"""

FINDING_COLUMNS = (
    "id, scope, finding_key, kind, severity, title, description, paths, source, created_at, "
    "superseded_at, superseded_by, superseded_by_merge_id, supersede_rule"
)
ACTIVE_COLUMNS = "id, scope, finding_key, kind, severity, title, description, paths, source, created_at"
AUDIT_COLUMNS = "id, scope, finding_id, merge_id, action, rule, evidence, detail, actor, reason, created_at"

ADD_FINDING = (
    "SELECT " + FINDING_COLUMNS + " FROM ledger.add_finding("
    "p_scope => %(scope)s, p_title => %(title)s, p_description => %(description)s, "
    "p_paths => %(paths)s, p_kind => %(kind)s, p_severity => %(severity)s, "
    "p_finding_key => %(finding_key)s, p_source => %(source)s)"
)

RECORD_MERGE = (
    "SELECT merge_id, recorded, decisions FROM ledger.record_merge("
    "p_scope => %(scope)s, p_commit_sha => %(commit_sha)s, p_paths => %(paths)s, "
    "p_message => %(message)s, p_node_id => %(node_id)s, p_merged_at => %(merged_at)s, "
    "p_branch => %(branch)s)"
)

ACTIVE_FINDINGS = "SELECT " + ACTIVE_COLUMNS + " FROM ledger.active_findings(p_scope => %(scope)s)"

READ_AUDIT = (
    "SELECT " + AUDIT_COLUMNS + " FROM ledger.read_audit("
    "p_scope => %(scope)s, p_finding_id => %(finding_id)s, p_merge_id => %(merge_id)s)"
)

SET_HYGIENE_MODE = (
    "SELECT scope, hygiene_mode FROM ledger.set_hygiene_mode(p_scope => %(scope)s, p_mode => %(mode)s)"
)

# --- security and reliability (issue 7) -------------------------------------

RECONCILE = "SELECT merge_id, decisions FROM ledger.reconcile(p_scope => %(scope)s)"

SET_SCOPES = "SELECT set_config('ledger.scopes', %(scopes)s, %(is_local)s)"

ENABLE_SCOPE_RLS = "SELECT t::text FROM ledger.enable_scope_rls() AS t"

DISABLE_SCOPE_RLS = "SELECT t::text FROM ledger.disable_scope_rls() AS t"
# message matching (issue 3): importers and policy
IMPORT_FINDING = (
    "SELECT id, finding_key, slug, status FROM ledger.import_finding("
    "p_scope => %(scope)s, p_title => %(title)s, p_description => %(description)s, "
    "p_paths => %(paths)s, p_kind => %(kind)s, p_severity => %(severity)s, "
    "p_finding_key => %(finding_key)s, p_source => %(source)s, p_slug => %(slug)s, "
    "p_strong_keywords => %(strong_keywords)s, p_tags => %(tags)s)"
)

WORKSPACE_SCOPE = "SELECT ledger.workspace_scope(p_directory => %(directory)s)"

SET_MATCH_POLICY = (
    "SELECT scope, hygiene_mode, enabled_rules, path_supersede_kinds, slug_mention_resolves, default_branch "
    "FROM ledger.set_match_policy(p_scope => %(scope)s, p_enabled_rules => %(enabled_rules)s, "
    "p_path_supersede_kinds => %(path_supersede_kinds)s, "
    "p_slug_mention_resolves => %(slug_mention_resolves)s, p_default_branch => %(default_branch)s)"
)
