"""A scan of one repository as the code-references source reads it, and the columns that name the
scanned repository in both of its tables.

The scanner (pipelines/code_refs/scan.py: `RepositoryScan`, `Repository`, `Hit`, `ScanStats`) makes
objects of these shapes; the source names only what it reads, so it knows nothing of the scanner.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, Optional, Protocol, Sequence

from dlt.common.schema.typing import TColumnSchema


class ScannedRepository(Protocol):
    @property
    def name(self) -> str: ...
    @property
    def branch(self) -> Optional[str]: ...
    @property
    def commit(self) -> Optional[str]: ...


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



@dataclass(frozen=True)
class ReferenceCounts:
    """What one repository's scan found, as `code_reference_scans` stores it and `gatehouse code-refs` prints it."""

    references: int
    gates: int  # distinct gate ids referenced, whether the console has them or not
    dynamic_configs: int  # the same for configs
    unknown_ids: Optional[int]  # of those (entity type, id) pairs, how many the console never had; None: not known


def reference_counts(scan: RepositoryScan, known_ids: Optional[set[tuple[str, str]]] = None) -> ReferenceCounts:
    found = {(hit.entity_type, hit.entity_id) for hit in scan.hits}
    return ReferenceCounts(
        references=len(scan.hits),
        gates=sum(1 for entity_type, _ in found if entity_type == "gate"),
        dynamic_configs=sum(1 for entity_type, _ in found if entity_type == "dynamic_config"),
        unknown_ids=len(found - known_ids) if known_ids is not None else None,
    )
