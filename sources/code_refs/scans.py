"""A scan of one repository as the code-references source reads it, and the columns that name the
scanned repository in both of its tables.

The scanner (pipelines/code_refs/scan.py: `RepositoryScan`, `Repository`, `Hit`, `ScanStats`) makes
objects of these shapes; the source names only what it reads, so it knows nothing of the scanner.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol

from dlt.common.schema.typing import TColumnSchema


class ScannedRepository(Protocol):
    @property
    def name(self) -> str: ...
    @property
    def branch(self) -> str | None: ...
    @property
    def commit(self) -> str | None: ...


class CodeReference(Protocol):
    """One place an id is found: the entity, where (path, 1-based line and column), and how it matched."""

    @property
    def entity_type(self) -> str: ...
    @property
    def entity_id(self) -> str: ...
    @property
    def path(self) -> str: ...
    @property
    def line(self) -> int: ...
    @property
    def column(self) -> int: ...
    @property
    def text(self) -> str: ...
    @property
    def matched(self) -> str: ...
    @property
    def match_kind(self) -> str: ...


class ScanCounts(Protocol):
    @property
    def files_scanned(self) -> int: ...
    @property
    def bytes_scanned(self) -> int: ...
    @property
    def skipped_binary(self) -> int: ...
    @property
    def skipped_large(self) -> Sequence[str]: ...
    @property
    def skipped_excluded(self) -> int: ...
    @property
    def unreadable(self) -> Sequence[str]: ...


class RepositoryScan(Protocol):
    @property
    def repository(self) -> ScannedRepository: ...
    @property
    def hits(self) -> Sequence[CodeReference]: ...
    @property
    def stats(self) -> ScanCounts: ...
    @property
    def scanned_at(self) -> datetime: ...
    @property
    def scan_id(self) -> str: ...
    @property
    def code_owners(self) -> Mapping[str, str]:
        """The owners of each path with a hit that has some (CODEOWNERS), space-separated."""
        ...


def scanned_repository_columns() -> dict[str, TColumnSchema]:
    """The columns both tables name the scanned repository, branch and commit with; new dicts for each
    table, as dlt writes into the hints it is given."""
    return {
        "repository": {"data_type": "text", "nullable": False},
        "branch": {"data_type": "text"},
        "commit": {"data_type": "text"},
    }


def scanned_repository(repository: ScannedRepository) -> dict[str, Any]:
    """The values of `scanned_repository_columns()` in a row of either table."""
    return {"repository": repository.name, "branch": repository.branch, "commit": repository.commit}


def incomplete_reason(counts: ScanCounts) -> str | None:
    """Why a scan may have missed references, None when it read every file that could hold one: a file skipped
    as too large, or one (or a plain folder's folder) that could not be read. Binary, excluded and special files
    hold none the scan looks for, so they leave it complete."""
    reasons = []
    if counts.skipped_large:
        large = len(counts.skipped_large)
        reasons.append(f"{large} {'file' if large == 1 else 'files'} skipped as too large")
    if counts.unreadable:
        folders = sum(1 for path in counts.unreadable if path.endswith("/"))
        files = len(counts.unreadable) - folders
        if files:
            reasons.append(f"{files} {'file' if files == 1 else 'files'} unreadable")
        if folders:
            reasons.append(f"{folders} {'folder' if folders == 1 else 'folders'} unreadable")
    return ", ".join(reasons) or None


@dataclass(frozen=True)
class Sighting:
    """What one scan found of one id in one repository, as `code_reference_sightings` stores it."""

    entity_type: str
    entity_id: str
    reference_count: int
    code_owners: str | None  # every owner of the files referencing it, each once, sorted, space-separated


def sightings(scan: RepositoryScan) -> list[Sighting]:
    """One per (entity type, id) the scan found, in that order; an id not found has none."""
    counts: dict[tuple[str, str], int] = {}
    owners: dict[tuple[str, str], set[str]] = {}
    for hit in scan.hits:
        key = (hit.entity_type, hit.entity_id)
        counts[key] = counts.get(key, 0) + 1
        owners.setdefault(key, set()).update((scan.code_owners.get(hit.path) or "").split())
    return [
        Sighting(entity_type, entity_id, count, " ".join(sorted(owners[(entity_type, entity_id)])) or None)
        for (entity_type, entity_id), count in sorted(counts.items())
    ]


@dataclass(frozen=True)
class ReferenceCounts:
    """What one repository's scan found, as `code_reference_scans` stores it and `gatehouse code-refs` prints it."""

    references: int
    gates: int  # distinct gate ids referenced, whether the console has them or not
    dynamic_configs: int  # the same for configs
    unknown_ids: int | None  # of those (entity type, id) pairs, how many the console never had; None: not known


def reference_counts(scan: RepositoryScan, known_ids: set[tuple[str, str]] | None = None) -> ReferenceCounts:
    found = {(hit.entity_type, hit.entity_id) for hit in scan.hits}
    return ReferenceCounts(
        references=len(scan.hits),
        gates=sum(1 for entity_type, _ in found if entity_type == "gate"),
        dynamic_configs=sum(1 for entity_type, _ in found if entity_type == "dynamic_config"),
        unknown_ids=len(found - known_ids) if known_ids is not None else None,
    )
