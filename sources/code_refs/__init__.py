"""The `code_references` dlt source: what a scan of code repositories found (`gatehouse code-refs`), and the
branches `gatehouse cleanup` made from it.

Its tables, `code_references` (replaced per repository), `code_reference_scans` and `code_reference_sightings`
(history: every scan of every repository, and what each found of each id) and `cleanup_branches` (history), land in the
console data's dataset (`console`) under their own dlt schema `code_references`, so a `gatehouse run` and a scan never
rewrite each other's tables. The scans come in from the scanner as objects of the
shapes in scans.py; the branches as rows of `cleanup_branches`' columns.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import dlt
from dlt.common.schema.typing import TDeleteInsertStrategyDict

from gatehouse.sources.code_refs.scans import (
    RepositoryScan,
    incomplete_reason,
    reference_counts,
    scanned_repository,
    scanned_repository_columns,
    sightings,
)

SCHEMA_NAME = "code_references"
# A row with this flag set deletes the repository's references (dlt's hard_delete hint) and is itself
# never stored: every scan sends one per repository, so a repository left with no reference is emptied too.
REPLACEMENT_MARKER = "is_replacement_marker"
DELETE_INSERT: TDeleteInsertStrategyDict = {"disposition": "merge", "strategy": "delete-insert"}


@dlt.resource(
    name="code_references",
    write_disposition=DELETE_INSERT,
    merge_key="repository",
    columns={
        REPLACEMENT_MARKER: {"data_type": "bool", "hard_delete": True},
        "entity_type": {"data_type": "text"},
        "entity_id": {"data_type": "text"},
        **scanned_repository_columns(),
        "path": {"data_type": "text"},
        "line": {"data_type": "bigint"},
        "column": {"data_type": "bigint"},
        "text": {"data_type": "text"},
        "matched": {"data_type": "text"},
        "match_kind": {"data_type": "text"},
        "scanned_at": {"data_type": "timestamp"},
        "scan_id": {"data_type": "text"},
        "code_owners": {"data_type": "text"},
    },
)
def code_references(scans: Sequence[RepositoryScan]) -> Iterator[dict[str, Any]]:
    """Table `code_references`: one row per reference (entity, repository, path, line, column).

    Merge key `repository`, strategy delete-insert: a scan replaces all of its repository's rows and
    leaves other repositories' rows alone. `code_owners`: the file's owners by the repository's CODEOWNERS,
    space-separated in that file's order; null when it has none."""
    for scan in scans:
        repository = scan.repository
        yield {REPLACEMENT_MARKER: True, "repository": repository.name, "scan_id": scan.scan_id}
        for hit in scan.hits:
            yield {
                REPLACEMENT_MARKER: False,
                "entity_type": hit.entity_type,
                "entity_id": hit.entity_id,
                **scanned_repository(repository),
                "path": hit.path,
                "line": hit.line,
                "column": hit.column,
                "text": hit.text,
                "matched": hit.matched,
                "match_kind": hit.match_kind,
                "scanned_at": scan.scanned_at,
                "scan_id": scan.scan_id,
                "code_owners": scan.code_owners.get(hit.path),
            }


@dlt.resource(
    name="code_reference_scans",
    write_disposition="append",
    primary_key=("scan_id", "repository"),
    columns={
        "scan_id": {"data_type": "text", "nullable": False},
        **scanned_repository_columns(),
        "scanned_at": {"data_type": "timestamp"},
        "files_scanned": {"data_type": "bigint"},
        "bytes_scanned": {"data_type": "bigint"},
        "files_skipped_binary": {"data_type": "bigint"},
        "files_skipped_large": {"data_type": "bigint"},
        "files_excluded": {"data_type": "bigint"},
        "reference_count": {"data_type": "bigint"},
        "gate_count": {"data_type": "bigint"},
        "dynamic_config_count": {"data_type": "bigint"},
        "unknown_id_count": {"data_type": "bigint"},
        "is_complete": {"data_type": "bool"},
        "incomplete_reason": {"data_type": "text"},
    },
)
def code_reference_scans(
    scans: Sequence[RepositoryScan], known_ids: set[tuple[str, str]] | None = None
) -> Iterator[dict[str, Any]]:
    """Table `code_reference_scans`: one row per repository per scan (append), the history of counts.

    `gate_count`, `dynamic_config_count`: distinct ids referenced, known to the console or not;
    `unknown_id_count`: of those, the ids the console never had (found in gate or config checks).
    `is_complete`: every file that could hold a reference was read; else `incomplete_reason` says what was not.
    A scan that fails is not loaded at all (`gatehouse code-refs` loads only once every repository is scanned)."""
    for scan in scans:
        counts = reference_counts(scan, known_ids)
        reason = incomplete_reason(scan.stats)
        yield {
            "scan_id": scan.scan_id,
            **scanned_repository(scan.repository),
            "scanned_at": scan.scanned_at,
            "files_scanned": scan.stats.files_scanned,
            "bytes_scanned": scan.stats.bytes_scanned,
            "files_skipped_binary": scan.stats.skipped_binary,
            "files_skipped_large": len(scan.stats.skipped_large),
            "files_excluded": scan.stats.skipped_excluded,
            "reference_count": counts.references,
            "gate_count": counts.gates,
            "dynamic_config_count": counts.dynamic_configs,
            "unknown_id_count": counts.unknown_ids,
            "is_complete": reason is None,
            "incomplete_reason": reason,
        }


@dlt.resource(
    name="code_reference_sightings",
    write_disposition="append",
    primary_key=("scan_id", "repository", "entity_type", "entity_id"),
    columns={
        "scan_id": {"data_type": "text", "nullable": False},
        "repository": {"data_type": "text", "nullable": False},
        "scanned_at": {"data_type": "timestamp"},
        "entity_type": {"data_type": "text", "nullable": False},
        "entity_id": {"data_type": "text", "nullable": False},
        "reference_count": {"data_type": "bigint"},
        "code_owners": {"data_type": "text"},
    },
)
def code_reference_sightings(scans: Sequence[RepositoryScan]) -> Iterator[dict[str, Any]]:
    """Table `code_reference_sightings`: one row per id found per repository per scan (append), the history of
    where each id was seen; an id a scan did not find in a repository has no row (its `code_reference_scans` row
    says the repository was scanned). `code_owners`: every owner of the files referencing it, sorted,
    space-separated; null when none."""
    for scan in scans:
        for sighting in sightings(scan):
            yield {
                "scan_id": scan.scan_id,
                "repository": scan.repository.name,
                "scanned_at": scan.scanned_at,
                "entity_type": sighting.entity_type,
                "entity_id": sighting.entity_id,
                "reference_count": sighting.reference_count,
                "code_owners": sighting.code_owners,
            }


@dlt.resource(
    name="cleanup_branches",
    write_disposition="append",
    primary_key=("cleanup_id", "project", "gate_id", "repository"),
    columns={
        "cleanup_id": {"data_type": "text", "nullable": False},
        "made_at": {"data_type": "timestamp"},
        "project": {"data_type": "text", "nullable": False},
        "gate_id": {"data_type": "text", "nullable": False},
        "repository": {"data_type": "text", "nullable": False},
        "branch": {"data_type": "text"},
        "base_commit": {"data_type": "text"},
        "commit": {"data_type": "text"},
        "cleanup_value": {"data_type": "bool"},
        "files_changed": {"data_type": "bigint"},
        "checks_replaced": {"data_type": "bigint"},
        "todos": {"data_type": "bigint"},
    },
)
def cleanup_branches(branches: Sequence[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    """Table `cleanup_branches`: one row per gate, project and repository per cleanup (append), the branches made."""
    yield from branches


@dlt.source(name=SCHEMA_NAME, max_table_nesting=0)
def cleanup_branches_source(branches: Sequence[dict[str, Any]]) -> Any:
    """The branches one `gatehouse cleanup` made, into the same schema as the scans: one schema for the code's tables."""
    return (cleanup_branches(branches),)


@dlt.source(name=SCHEMA_NAME, max_table_nesting=0)
def code_references_source(scans: Sequence[RepositoryScan], known_ids: set[tuple[str, str]] | None = None) -> Any:
    """`scans` as made by the scanner; `known_ids`, the console's (entity type, id) pairs, for `unknown_id_count`."""
    return code_references(scans), code_reference_scans(scans, known_ids), code_reference_sightings(scans)
