"""Hand-built scans of two repositories against the hand-built console (tests/views/console_dataset.py).

Loaded with the command's own dlt source, so the views tests read exactly what a scan writes. What each
reference exercises is said beside it; the expected view rows in test_code_ref_views.py follow from these.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import dlt

from gatehouse.pipelines.code_refs.scan import Hit, Repository, RepositoryScan, ScanStats
from gatehouse.sources.code_refs import cleanup_branches_source, code_references_source

SCANNED_AT = datetime(2026, 11, 21, 9, 0, tzinfo=UTC)
WEB = Repository(Path("/src/web"), "web", True, "main", "a" * 40)
API = Repository(Path("/src/api"), "api", True, None, "b" * 40)


def hit(entity_id: str, path: str, line: int, column: int = 10, entity_type: str = "gate", kind: str = "literal") -> Hit:
    return Hit(entity_type, entity_id, path, line, column, f'check("{entity_id}")', entity_id, kind)


WEB_HITS = [
    hit("launch_banner", "src/banner.ts", 9),  # launched, referenced in two repositories
    hit("launch_banner", "src/banner.ts", 3),
    hit("old_checkout", "src/checkout.py", 12),  # still referenced by a holdout and a config
    hit("promo_rollout", "src/promo.py", 40),  # partly rolled out, forgotten
    hit("retired_gate", "src/legacy.py", 4),  # deleted from the console at the second load
    hit("ghost_gate", "src/flags.py", 7, kind="check_call"),  # never existed: found by its checkGate call
    hit("ghost_gate", "src/flags.py", 7, column=41, kind="check_call"),  # checked twice on one line: one location
    hit("ghost_gate", "lib/flags.js", 2, kind="check_call"),
    hit("c_checkout", "src/checkout.py", 30, entity_type="dynamic_config"),  # a live config: no orphan
]
API_HITS = [
    hit("launch_banner", "app/banner.go", 2),
    hit("dark_launch", "app/nav.go", 20),  # unlaunched
    hit("dark_launch", "app/nav.go", 20, column=40),
    hit("c_old", "app/config.go", 5, entity_type="dynamic_config"),  # a deleted config
]


def scans() -> list[RepositoryScan]:
    return [
        RepositoryScan(
            WEB,
            WEB_HITS,
            ScanStats(files_listed=12, files_scanned=10, bytes_scanned=5000, skipped_binary=2),
            SCANNED_AT,
            "scan_1",
        ),
        RepositoryScan(API, API_HITS, ScanStats(files_listed=5, files_scanned=5, bytes_scanned=800), SCANNED_AT, "scan_1"),
    ]


def branch(cleanup_id: str, made_at: datetime, gate_id: str, repository: str, value: bool, commit: str) -> dict:
    return {
        "cleanup_id": cleanup_id,
        "made_at": made_at,
        "project": "default",
        "gate_id": gate_id,
        "repository": repository,
        "branch": f"gatehouse/cleanup/{gate_id}",
        "base_commit": "a" * 40,
        "commit": commit,
        "cleanup_value": value,
        "files_changed": 1,
        "checks_replaced": 2,
        "todos": 0,
    }


# What `gatehouse cleanup` recorded: launch_banner's branch in web made twice (deleted and made again: the newer
# one counts), dark_launch's in api.
CLEANUP_BRANCHES = [
    branch("cleanup_1", datetime(2026, 11, 21, 10, 0, tzinfo=UTC), "launch_banner", "web", True, "c" * 40),
    branch("cleanup_2", datetime(2026, 11, 22, 10, 0, tzinfo=UTC), "launch_banner", "web", True, "d" * 40),
    branch("cleanup_2", datetime(2026, 11, 22, 10, 0, tzinfo=UTC), "dark_launch", "api", False, "e" * 40),
]


def load_code_references(pipeline: dlt.Pipeline) -> None:
    pipeline.run(code_references_source(scans()))
    pipeline.run(cleanup_branches_source(CLEANUP_BRANCHES))


# The code-reference lines of `gatehouse report`'s summary once these scans are loaded into the hand-built console.
SUMMARY_LINES = [
    "cleanup worklist: 7 gates, 4 referenced in code (7 references in 2 repositories scanned, last 2026-11-21 09:00 UTC),"
    " 1 to archive, 2 checked but found in no repository",
    "code orphans: 3 ids in code the console does not have (2 deleted, 1 never existed)",
    "  ghost_gate                         gate            never existed      web: lib/flags.js:2, src/flags.py:7",
    "  c_old                              dynamic_config  deleted 2026-11-20 api: app/config.go:5",
    "  retired_gate                       gate            deleted 2026-11-20 web: src/legacy.py:4",
]
