"""Table-driven commit-message matching: message, findings, policy
-> the action the ledger takes for each finding.

Each case runs in its own scope of one shared database: its findings are
inserted with plain INSERTs, its merge is recorded through the Python API,
and the expected action (with the rule, when given as ``action:rule``) is
compared for EVERY finding of the case, ``none`` meaning the merge left no
audit row for it. A finding is superseded exactly when its action is
``superseded``.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass, field
from typing import Any

import psycopg
import pytest
from support.matching import add, module_conn, module_dsn  # noqa: F401
from support.touch_policy import retire_drift_on_touch

import findings_ledger as fl

TITLE_A = "Root pyproject.toml is missing nightshift workspace entries"


def F(key: str | None = None, **kw: Any) -> dict[str, Any]:
    """A finding of a case: key, slug, keywords, title, kind, paths, retired."""
    return {"key": key, **kw}


@dataclass
class Case:
    id: str
    message: str
    findings: dict[str, dict[str, Any]]
    expect: dict[str, str]
    paths: tuple[str, ...] = ()
    policy: dict[str, Any] = field(default_factory=dict)
    branch: str | None = None
    mode: str = "on"


K42 = {"a": F("F-42")}
K4142 = {"a": F("F-41"), "b": F("F-42")}
K414243 = {"a": F("F-41"), "b": F("F-42"), "c": F("F-43")}
PREFIX = {"a": F("F-42"), "b": F("F-421")}
SLUG = {"a": F("D-1", slug="drift-frozen")}
KW = {"a": F("K-1", keywords=["ECONNRESET"])}
TITLE = {"a": F("T-1", title=TITLE_A)}
SAFARI = {"a": F("S-1", title="Login fails on Safari")}
WRAPPED = {"a": F("H-1", slug="lost-heartbeat-on-staging", title="Heartbeats lost on the staging cluster")}
LONG_FILLER = "Refactor the connection pool and tidy the logging of retries. " * 3300

CASES = [
    # --- resolution verbs: whole words, any case, optional colon ---------------------------
    Case("verb-fixes", "Fixes F-42", K42, {"a": "superseded:key"}),
    Case("verb-lower", "fixes F-42", K42, {"a": "superseded:key"}),
    Case("verb-upper", "FIXES F-42", K42, {"a": "superseded:key"}),
    Case("verb-fix", "Fix F-42", K42, {"a": "superseded:key"}),
    Case("verb-fixed", "Fixed F-42 in the scheduler", K42, {"a": "superseded:key"}),
    Case("verb-close", "Close F-42", K42, {"a": "superseded:key"}),
    Case("verb-closes", "Closes F-42", K42, {"a": "superseded:key"}),
    Case("verb-closed", "closed F-42", K42, {"a": "superseded:key"}),
    Case("verb-resolve", "Resolve F-42", K42, {"a": "superseded:key"}),
    Case("verb-resolves", "Resolves F-42", K42, {"a": "superseded:key"}),
    Case("verb-resolved", "Resolved F-42", K42, {"a": "superseded:key"}),
    Case("colon", "Fixes: F-42", K42, {"a": "superseded:key"}),
    Case("colon-no-space", "Resolves:F-42", K42, {"a": "superseded:key"}),
    Case("colon-in-body", "Tidy the scheduler\n\nThis closes: F-42", K42, {"a": "superseded:key"}),
    Case("conventional", "fix: F-42 crash in parser", K42, {"a": "superseded:key"}),
    Case("conventional-scope", "fix(parser)!: F-42 crash", K42, {"a": "superseded:key"}),
    Case("conventional-scope-is-mention", "fix(F-42): tidy logging", K42, {"a": "mention:key"}),
    Case("verb-then-verb", "fix: close F-42 properly", K42, {"a": "superseded:key"}),
    Case("not-verb-suffix", "Suffix F-42 handling", K42, {"a": "mention:key"}),
    Case("not-verb-prefixes", "Prefixes F-42 with a zero", K42, {"a": "mention:key"}),
    Case("not-verb-unfixed", "unfixed F-42", K42, {"a": "mention:key"}),
    Case("not-verb-fixing", "fixing F-42", K42, {"a": "mention:key"}),
    Case("not-verb-fix-up", "fix-up F-42", K42, {"a": "mention:key"}),
    Case("trailing-period", "Fixes F-42.", K42, {"a": "superseded:key"}),
    Case("parenthesised", "Fixes (F-42)", K42, {"a": "superseded:key"}),
    Case("hash", "Fixes #F-42", K42, {"a": "superseded:key"}),
    Case("filler-the-finding", "Fixes the F-42 finding", K42, {"a": "superseded:key"}),
    Case("filler-issue", "Closes issue F-42", K42, {"a": "superseded:key"}),
    Case("fix-for-is-mention", "Fix for F-42", K42, {"a": "mention:key"}),
    Case("fixed-in-is-mention", "Fixed in F-42", K42, {"a": "mention:key"}),
    Case("key-case-insensitive", "Fixes f-42", K42, {"a": "superseded:key"}),
    # --- keys are whole tokens: F-42 vs F-421 ---------------------------------------------
    Case("prefix-longer", "Fixes F-421", PREFIX, {"a": "none", "b": "superseded:key"}),
    Case("prefix-shorter", "Fixes F-42", PREFIX, {"a": "superseded:key", "b": "none"}),
    Case("prefix-suffixed", "Fixes F-42-followup", PREFIX, {"a": "none", "b": "none"}),
    Case("prefix-dotted", "Fixes F-42.1", PREFIX, {"a": "none", "b": "none"}),
    Case("prefix-possessive", "Fixes F-42's timeout", PREFIX, {"a": "superseded:key", "b": "none"}),
    Case("key-in-url-path", "See https://example.org/F-42/", PREFIX, {"a": "mention:key", "b": "none"}),
    # --- mentions and trailers -------------------------------------------------------------
    Case("see", "see F-42", K42, {"a": "mention:key"}),
    Case("refs", "refs F-42", K42, {"a": "mention:key"}),
    Case("related-to", "Related to F-42", K42, {"a": "mention:key"}),
    Case("trailer-refs", "Tidy\n\nRefs: F-42", K42, {"a": "mention:key"}),
    Case("trailer-partial-bug", "Tidy\n\nPartial-Bug: F-42", K42, {"a": "mention:key"}),
    Case("trailer-related-bug", "Tidy\n\nRelated-Bug: F-42", K42, {"a": "mention:key"}),
    Case("trailer-co-authored-by-verb", "Tidy\n\nCo-authored-by: Fixes SAFARI_TEAM <t@example.invalid>",
         {"a": F("K-2", keywords=["SAFARI_TEAM"])}, {"a": "mention:keyword"}),
    Case("trailer-co-authored-by-key", "Tidy\n\nCo-authored-by: Fixes F-42 <t@example.invalid>", K42,
         {"a": "mention:key"}),
    Case("trailer-then-prose-verb", "Tidy\n\nRefs: F-41\nFixes F-42 as well", K4142,
         {"a": "mention:key", "b": "superseded:key"}),
    Case("trailer-closes-bug", "Tidy\n\nCloses-Bug: F-42", K42, {"a": "superseded:key"}),
    Case("trailer-supersedes", "Tidy\n\nSupersedes: F-42", K42, {"a": "superseded:key"}),
    Case("supersedes-inline", "This supersedes F-42", K42, {"a": "mention:key"}),
    Case("trailer-resolves-list", "Tidy\n\nResolves: F-41, F-42", K4142,
         {"a": "superseded:key", "b": "superseded:key"}),
    Case("trailer-fixes", "Tidy\n\nFixes: F-42\nSigned-off-by: A <a@example.org>", K42, {"a": "superseded:key"}),
    Case("trailers-one-per-line", "Tidy\r\n\r\nCloses: F-41\r\nCloses: F-42\r\n", K4142,
         {"a": "superseded:key", "b": "superseded:key"}),
    Case("verb-reach-ends-at-line-end", "Fixes:\n- F-41\n- F-42", K4142, {"a": "mention:key", "b": "mention:key"}),
    # --- one verb governs a comma / and list of identifiers ----------------------------------
    Case("list-comma", "Fixes F-41, F-42", K4142, {"a": "superseded:key", "b": "superseded:key"}),
    Case("list-and", "Fixes F-41 and F-42", K4142, {"a": "superseded:key", "b": "superseded:key"}),
    Case("list-oxford", "Fixes F-41, F-42, and F-43", K414243,
         {"a": "superseded:key", "b": "superseded:key", "c": "superseded:key"}),
    Case("list-ampersand", "Closes F-41 & F-42", K4142, {"a": "superseded:key", "b": "superseded:key"}),
    Case("list-space-is-not-a-list", "Fixes F-41 F-42", K4142, {"a": "superseded:key", "b": "mention:key"}),
    Case("list-see", "Fixes F-41, see F-42", K4142, {"a": "superseded:key", "b": "mention:key"}),
    Case("list-or", "Fixes F-41 or F-42", K4142, {"a": "superseded:key", "b": "mention:key"}),
    Case("list-slash", "Fixes F-41/F-42", K4142, {"a": "superseded:key", "b": "mention:key"}),
    Case("list-broken-by-words", "Fixes F-41, updates docs and F-42", K4142,
         {"a": "superseded:key", "b": "mention:key"}),
    Case("list-two-verbs", "Fixes F-41, closes F-42", K4142, {"a": "superseded:key", "b": "superseded:key"}),
    # --- negations and hedges are mentions ---------------------------------------------------
    Case("does-not-fix", "This does not fix F-42", K42, {"a": "mention:key"}),
    Case("doesnt-fix", "doesn't fix F-42", K42, {"a": "mention:key"}),
    Case("doesnt-resolve-curly", "Doesn’t resolve F-42", K42, {"a": "mention:key"}),
    Case("partially-fixes", "Partially fixes F-42", K42, {"a": "mention:key"}),
    Case("not-fixed-colon", "Not fixed: F-42", K42, {"a": "mention:key"}),
    Case("fixes-partially-after", "Fixes F-42 partially", K42, {"a": "mention:key"}),
    Case("fixes-partial-paren", "Fixes F-41, F-42 (partial)", K4142, {"a": "mention:key", "b": "mention:key"}),
    Case("fixes-in-part", "Resolves F-42 in part", K42, {"a": "mention:key"}),
    Case("negation-own-sentence", "Fixes F-41. Does not fix F-42.", K4142, {"a": "superseded:key", "b": "mention:key"}),
    Case("negated-list", "Doesn't fix F-41, F-42", K4142, {"a": "mention:key", "b": "mention:key"}),
    Case("wip", "WIP: fixes F-42", K42, {"a": "mention:key"}),
    Case("will-fix", "This will fix F-42 later", K42, {"a": "mention:key"}),
    Case("attempt-to-fix", "Attempt to fix F-42", K42, {"a": "mention:key"}),
    Case("never-fixed", "F-41 never fixed F-42", K4142, {"a": "mention:key", "b": "mention:key"}),
    Case("adjective", "Use the fixed F-42 timeout", K42, {"a": "mention:key"}),
    Case("hedge-other-clause", "No more retries, fixes F-42", K42, {"a": "superseded:key"}),
    # --- code spans, fenced blocks, HTML comments --------------------------------------------
    Case("code-span", "Fixes `F-42`", K42, {"a": "mention:key"}),
    Case("code-span-double", "Fixes ``F-42`` and more", K42, {"a": "mention:key"}),
    Case("unmatched-backtick", "Fixes `F-42", K42, {"a": "mention:key"}),
    Case("code-span-then-text", "Rename `F-41` and fix F-42", K4142, {"a": "mention:key", "b": "superseded:key"}),
    Case("fenced-backticks", "Update docs\n\n```\nFixes F-42\n```", K42, {"a": "mention:key"}),
    Case("fenced-tildes-closed", "Update docs\n\n~~~text\nFixes F-42\n~~~\nFixes F-41", K4142,
         {"a": "superseded:key", "b": "mention:key"}),
    Case("fenced-unclosed", "Update docs\n\n```\nFixes F-42\n\nFixes F-41", K4142,
         {"a": "mention:key", "b": "mention:key"}),
    Case("html-comment-inline", "Tidy <!-- Fixes F-42 --> docs", K42, {"a": "mention:key"}),
    Case("html-comment-multiline", "Tidy\n<!--\nFixes F-42\n-->\nFixes F-41", K4142,
         {"a": "superseded:key", "b": "mention:key"}),
    # --- reverts, commit-naming trailers, quotes ---------------------------------------------
    # the lifecycle's revert rule also audits the merge itself: the reverted sha is unknown in the scope
    Case("revert", 'Revert "Fixes F-42"\n\nThis reverts commit 54a4f0239f2e0000.', K42,
         {"a": "mention:key", "(merge)": "revert_unknown:revert"}),
    Case("reapply", 'Reapply "Fixes F-42"', K42, {"a": "mention:key"}),
    Case("revert-then-real-fix", 'Revert "Fix F-41"\n\nFixes F-42 properly this time', K4142,
         {"a": "mention:key", "b": "superseded:key"}),
    Case("kernel-fixes-trailer", 'Rework locking\n\nFixes: 54a4f0239f2e ("Fix F-42 crash")', K42, {"a": "mention:key"}),
    Case("kernel-fixes-sha-is-no-key", "Rework\n\nFixes: 54a4f0239f2e", {"a": F("54a4f0239f2e")}, {"a": "mention:key"}),
    Case("quoted-line", "> Fixes F-42\n\nAgreed, later.", K42, {"a": "mention:key"}),
    # --- slug and file name ------------------------------------------------------------------
    Case("slug", "Fixes drift-frozen", SLUG, {"a": "superseded:slug"}),
    Case("slug-file-name", "Fixes 2026-06-24-drift-frozen.md", SLUG, {"a": "superseded:slug"}),
    Case("slug-file-path", "Close findings/2026-06-24-drift-frozen.md", SLUG, {"a": "superseded:slug"}),
    Case("slug-bare-file-name", "Add 2026-06-24-drift-frozen.md", SLUG, {"a": "mention:slug"}),
    Case("slug-longer-token", "Fixes drift-frozen-v2", SLUG, {"a": "none"}),
    Case("slug-opt-in", "Update 2026-06-24-drift-frozen.md wording", SLUG, {"a": "superseded:slug"},
         policy={"slug_mention_resolves": True}),
    Case("slug-opt-in-filing-commit", "Add 2026-06-24-drift-frozen.md", SLUG, {"a": "mention:slug"},
         paths=("findings/2026-06-24-drift-frozen.md",), policy={"slug_mention_resolves": True}),
    Case("slug-opt-in-code-span", "Update `drift-frozen`", SLUG, {"a": "mention:slug"},
         policy={"slug_mention_resolves": True}),
    Case("slug-bare-word", "Fixes cancel handling", {"a": F("C-1", slug="cancel")}, {"a": "none"}),
    Case("slug-bare-word-file-name", "Fixes 2026-01-01-cancel.md", {"a": F("C-1", slug="cancel")},
         {"a": "superseded:slug"}),
    # --- strong keywords ---------------------------------------------------------------------
    Case("keyword", "Fixes ECONNRESET", KW, {"a": "superseded:keyword"}),
    Case("keyword-case", "Fixes econnreset in the pool", KW, {"a": "superseded:keyword"}),
    Case("keyword-mention", "Handle ECONNRESET in pool", KW, {"a": "mention:keyword"}),
    Case("keyword-longer-token", "Fixes ECONNRESET_V2", KW, {"a": "none"}),
    # --- ambiguity: one piece of evidence, two findings --------------------------------------
    Case("ambiguous-keyword", "Fixes ECONNRESET",
         {"a": F("K-1", keywords=["ECONNRESET"]), "b": F("K-2", keywords=["ECONNRESET"])},
         {"a": "ambiguous:keyword", "b": "ambiguous:keyword"}),
    Case("ambiguous-key-vs-keyword", "Fixes F-42", {"a": F("F-42"), "b": F("K-2", keywords=["F-42"])},
         {"a": "ambiguous:key", "b": "ambiguous:keyword"}),
    Case("ambiguous-but-own-key", "Fixes ECONNRESET and F-42",
         {"a": F("F-42", keywords=["ECONNRESET"]), "b": F("K-2", keywords=["ECONNRESET"])},
         {"a": "superseded:key", "b": "ambiguous:keyword"}),
    Case("ambiguous-mention-is-mention", "See ECONNRESET",
         {"a": F("K-1", keywords=["ECONNRESET"]), "b": F("K-2", keywords=["ECONNRESET"])},
         {"a": "mention:keyword", "b": "mention:keyword"}),
    Case("ambiguous-title", "Fix nightshift workspace entries",
         {"a": F("T-1", title=TITLE_A), "b": F("T-2", title="Nightshift workspace entries are stale in docs")},
         {"a": "ambiguous:title", "b": "ambiguous:title"}),
    # --- titles: exact title or >= 3 consecutive significant words ---------------------------
    Case("title-phrase", "Fix missing nightshift workspace entries", TITLE, {"a": "superseded:title"}),
    Case("title-whole", "Fix: root pyproject.toml is missing nightshift workspace entries", TITLE,
         {"a": "superseded:title"}),
    Case("title-mention", "Add nightshift workspace entries", TITLE, {"a": "mention:title"}),
    Case("title-two-words", "Fix nightshift workspace", TITLE, {"a": "none"}),
    Case("title-not-governed", "Fix docs; nightshift workspace entries still missing", TITLE, {"a": "mention:title"}),
    Case("title-short-exact", "Fix parser crash", {"a": F("T-3", title="Parser crash")},
         {"a": "superseded:title"}),
    # the object goes on past the title: a narrower problem
    Case("title-short-exact-then-more", "Fix parser crash on empty input", {"a": F("T-3", title="Parser crash")},
         {"a": "mention:title"}),
    Case("title-short-inexact", "Fix parser crashes", {"a": F("T-3", title="Parser crash")}, {"a": "none"}),
    Case("title-one-word", "Fix crash", {"a": F("T-4", title="Crash")}, {"a": "none"}),
    Case("title-filler-start", "Closes the drift findings frozen at the initial drift-review phase",
         {"a": F("T-5", title="Drift findings are frozen at the initial drift-review phase")},
         {"a": "superseded:title"}),
    # --- commit prose as people write it -------------------------------------------------------
    # a verb reaches to the end of its sentence across wrapped lines; a blank line, a list
    # item or a trailer ends it
    Case("wrapped-slug-reference",
         "Resolves the lost heartbeat observed on the staging cluster after the\nupgrade to 2.4 (finding "
         "2026-05-24-lost-heartbeat-on-\nstaging)", WRAPPED, {"a": "superseded:slug"}),
    Case("wrapped-slug-reference-own-line",
         "Tidy the pool\n\nResolves the lost heartbeat observed on the staging cluster\n(finding "
         "2026-05-24-lost-heartbeat-on-\nstaging)", WRAPPED, {"a": "superseded:slug"}),
    Case("wrapped-verb-object", "Tidy the retry loop, and this fixes\nF-42 for good", K42, {"a": "superseded:key"}),
    Case("wrapped-list", "Fixes F-41,\nF-42 and F-43", K414243,
         {"a": "superseded:key", "b": "superseded:key", "c": "superseded:key"}),
    Case("wrapped-blank-line-ends-reach", "Fixes\n\nF-42", K42, {"a": "mention:key"}),
    Case("wrapped-trailer-ends-reach", "Fixes the pool\nRefs: F-42", K42, {"a": "mention:key"}),
    Case("wrapped-list-item-ends-reach", "Fixes the pool\n* F-42 stays open", K42, {"a": "mention:key"}),
    Case("wrapped-sentence-end", "Resolves the pool leak.\n(finding F-42)", K42, {"a": "mention:key"}),
    # a slug, key or file name broken at a hyphen or slash across a line end is rejoined
    Case("broken-key", "Fixes AUTH-\n0007 in the login form", {"a": F("AUTH-0007")}, {"a": "superseded:key"}),
    Case("broken-file-name", "Closes findings/2026-06-24-drift-\nfrozen.md", SLUG, {"a": "superseded:slug"}),
    Case("broken-at-slash", "Closes findings/\n2026-06-24-drift-frozen.md", SLUG, {"a": "superseded:slug"}),
    Case("broken-slug-bare", "See 2026-05-24-lost-heartbeat-on-\nstaging", WRAPPED, {"a": "mention:slug"}),
    Case("broken-short-key", "Fixes F-\n42", K42, {"a": "superseded:key"}),
    Case("broken-joined-names-nothing", "Fixes F-\n43", K42, {"a": "none"}),
    Case("dated-slug", "Fixes 2026-05-24-lost-heartbeat-on-staging", WRAPPED, {"a": "superseded:slug"}),
    # references: a parenthesis of nothing but references, in the verb's sentence
    Case("reference-key", "Fix the parser crash (F-42)", K42, {"a": "superseded:key"}),
    Case("reference-list", "Fix two parser crashes (F-41, F-42)", K4142,
         {"a": "superseded:key", "b": "superseded:key"}),
    Case("reference-not-only-references", "Fix the parser crash (F-42 follow-up)", K42, {"a": "mention:key"}),
    Case("reference-see", "Fix the parser crash (see F-42)", K42, {"a": "mention:key"}),
    Case("reference-pull-request-number", "Fix the parser crash (#4207)", {"a": F("4207")}, {"a": "mention:key"}),
    Case("reference-negated", "Does not fix the parser crash (F-42)", K42, {"a": "mention:key"}),
    Case("reference-no-verb", "Tidy the parser (F-42)", K42, {"a": "mention:key"}),
    # negations and non-resolutions never resolve
    Case("rather-than-fixed", "Filed rather than fixed: Login fails on Safari", SAFARI, {"a": "mention:title"}),
    Case("instead-of-fixing", "Instead of fixing F-42, document the limit", K42, {"a": "mention:key"}),
    Case("not-fixed-yet", "Login fails on Safari: not fixed yet", SAFARI, {"a": "mention:title"}),
    Case("filed", "Filed F-42 for the next cycle", K42, {"a": "mention:key"}),
    Case("filed-then-fixed-verb", "Filed and fixed F-42", K42, {"a": "mention:key"}),
    Case("reported", "Reported: F-42 still happens", K42, {"a": "mention:key"}),
    Case("reproduces", "Reproduces F-42 in a test", K42, {"a": "mention:key"}),
    Case("reproduced-then-fixed", "Reproduced it in a test, then fixed F-42", K42, {"a": "superseded:key"}),
    # a title phrase counts only as the whole object of the verb
    Case("title-narrower-problem", "Fixes Login fails on Safari 15", SAFARI, {"a": "mention:title"}),
    Case("title-whole-object", "Fixes Login fails on Safari", SAFARI, {"a": "superseded:title"}),
    Case("title-then-period", "Fixes Login fails on Safari. Also tidies CSS", SAFARI, {"a": "superseded:title"}),
    Case("title-then-reference", "Fixes Login fails on Safari (#1203)", SAFARI, {"a": "superseded:title"}),
    Case("title-then-clause", "Fixes Login fails on Safari, and tidies CSS", SAFARI, {"a": "superseded:title"}),
    Case("title-then-dash", "Fixes Login fails on Safari - a cookie race", SAFARI, {"a": "superseded:title"}),
    Case("title-then-word", "Fixes Login fails on Safari when offline", SAFARI, {"a": "mention:title"}),
    Case("title-then-possessive", "Fixes Login fails on Safari's private mode", SAFARI, {"a": "mention:title"}),
    Case("title-wrapped", "Fixes Login fails on\nSafari", SAFARI, {"a": "superseded:title"}),
    Case("title-wrapped-then-more", "Fixes Login fails on Safari\nwhen offline", SAFARI, {"a": "mention:title"}),
    Case("title-then-paragraph", "Fixes Login fails on Safari\n\nThe cookie was set twice.", SAFARI,
         {"a": "superseded:title"}),
    # --- non-ASCII text ----------------------------------------------------------------------
    Case("non-ascii-title", "Fixes naïve café exports",
         {"a": F("U-1", title="Ünïcödé names break naïve café exports")}, {"a": "superseded:title"}),
    Case("non-ascii-nfd", unicodedata.normalize("NFD", "Fixes naïve café exports"),
         {"a": F("U-1", title="Ünïcödé names break naïve café exports")}, {"a": "superseded:title"}),
    Case("non-ascii-key", "Fixes Ärger-7", {"a": F("Ärger-7")}, {"a": "superseded:key"}),
    Case("non-ascii-verb", "修复 F-42", K42, {"a": "mention:key"}),
    Case("em-dash", "Fixes F-42—naïve café", K42, {"a": "superseded:key"}),
    Case("non-breaking-hyphen", "Fixes F\u201142", K42, {"a": "none"}),
    # --- very long message -------------------------------------------------------------------
    Case("very-long", "Tidy, see F-41\n\n" + LONG_FILLER + "\n\nFixes F-42", K4142,
         {"a": "mention:key", "b": "superseded:key"}),
    # --- path rule and policy ----------------------------------------------------------------
    Case("path-drift", "Create the scaffold", {"a": F("P-1", kind="drift", paths=["packages/nightshift/"])},
         {"a": "superseded:path"}, paths=("packages/nightshift/__init__.py",)),
    Case("path-review-candidate", "Tidy", {"a": F("P-2", paths=["src/a.py"])}, {"a": "candidate:path"},
         paths=("src/a.py",)),
    Case("path-review-and-key", "Fixes P-2", {"a": F("P-2", paths=["src/a.py"])}, {"a": "superseded:key"},
         paths=("src/a.py",)),
    Case("path-all-kinds", "Tidy", {"a": F("P-2", paths=["src/a.py"])}, {"a": "superseded:path"},
         paths=("src/a.py",), policy={"path_supersede_kinds": ["*"]}),
    Case("path-disabled", "Tidy", {"a": F("P-1", kind="drift", paths=["src/a.py"])}, {"a": "skipped:path"},
         paths=("src/a.py",), policy={"enabled_rules": ["key", "slug", "keyword", "title"]}),
    Case("rule-disabled", "Fixes F-42", K42, {"a": "skipped:key"}, policy={"enabled_rules": ["path", "title"]}),
    Case("rule-disabled-other-rule-wins", "Fixes F-42 and drift-frozen", {"a": F("F-42", slug="drift-frozen")},
         {"a": "superseded:slug"}, policy={"enabled_rules": ["slug"]}),
    Case("branch-other", "Fixes F-42", K42, {"a": "skipped:key", "(merge)": "skipped"},
         policy={"default_branch": "main"}, branch="feature/x"),
    Case("branch-default", "Fixes F-42", K42, {"a": "superseded:key"},
         policy={"default_branch": "main"}, branch="refs/heads/main"),
    Case("branch-unknown", "Fixes F-42", K42, {"a": "superseded:key"}, policy={"default_branch": "main"}),
    Case("retired-never-touched", "Fixes F-41 and F-42", {"a": F("F-41", retired=True), "b": F("F-42")},
         {"a": "none", "b": "superseded:key"}),
    Case("dry-mode", "Fixes F-41, see F-42", K4142, {"a": "would_supersede:key", "b": "mention:key"}, mode="dry"),
    Case("off-mode", "Fixes F-42", K42, {"a": "none"}, mode="off"),
]


def test_the_table_has_at_least_80_cases() -> None:
    assert len(CASES) >= 80
    assert len({c.id for c in CASES}) == len(CASES)


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_message_case(module_conn: psycopg.Connection[Any], case: Case) -> None:  # noqa: F811
    conn = module_conn
    scope = f"case:{case.id}"
    retire_drift_on_touch(conn, scope)  # a drift touch: the path rule as such
    labels: dict[int | None, str] = {None: "(merge)"}
    for n, (label, spec) in enumerate(case.findings.items()):
        title = spec.get("title") or f"Placeholder zqx{n} entry"
        fid = add(conn, scope, title, key=spec.get("key"), slug=spec.get("slug"),
                  keywords=spec.get("keywords", ()), kind=spec.get("kind", "review"), paths=spec.get("paths", ()))
        labels[fid] = label
        if spec.get("retired"):
            conn.execute("UPDATE ledger.finding SET superseded_at = now() WHERE id = %s", (fid,))
    if case.policy:
        fl.set_match_policy(conn, scope, **case.policy)
    fl.set_hygiene_mode(conn, scope, case.mode, create=True)

    result = fl.record_merge(conn, scope, "abc1234", case.paths, message=case.message, branch=case.branch)

    got = {label: "none" for label in case.findings}
    for d in result.decisions:
        got[labels[d.finding_id]] = d.action if d.rule is None else f"{d.action}:{d.rule}"
    want = {label: got[label] if ":" not in exp and exp != "none" and got[label].startswith(exp + ":") else exp
            for label, exp in case.expect.items()}
    assert got == want
    assert all(d.reason for d in result.decisions), "every decision says why"
    superseded = {labels[r[0]] for r in conn.execute(
        "SELECT id FROM ledger.finding WHERE scope = %s AND superseded_at IS NOT NULL "
        "AND superseded_by_merge_id IS NOT NULL",
        (scope,))}
    assert superseded == {label for label, exp in case.expect.items() if exp.startswith("superseded")}
