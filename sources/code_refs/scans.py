"""A scan of one repository as the code-references source reads it, and the columns that name the
scanned repository in both of its tables.

The scanner (pipelines/code_refs/scan.py: `RepositoryScan`, `Repository`, `Hit`, `ScanStats`) makes
objects of these shapes; the source names only what it reads, so it knows nothing of the scanner.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Optional, Protocol, Sequence


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


def scanned_repository_columns() -> dict[str, dict[str, Any]]:
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

