"""Content identical to what the last run loaded is not loaded again.

A list is read whole every run (the service has no "modified since" filter), and an SCD2 merge can
only find what was retired by comparing every current row: loading an unchanged list normalises and
merges every one of its rows to write nothing. So each list's content is hashed while it is read and
spooled to a temporary file; once the whole list is in, a digest equal to the one recorded when it was
last yielded means nothing changed, and nothing is yielded: dlt then makes no load job for the table,
the merge does not run, and no row is retired. Any difference, one field of one item, yields the whole
list again from the spool, so retirement stays exact.

Per-id answers (holdouts, exposure series, ingestion runs) are merged, not retired: an answer equal to
the one last yielded for that id is simply left out.

The digests live in resource state, which dlt commits with the load package that carries the rows and
discards when extraction fails: a digest is never recorded for content that did not reach the package.
A package a killed run left half loaded is completed by the next run before it extracts
(`pipelines/run/steps.py`), so "last yielded" is "last loaded" by the time it is compared.
"""

from __future__ import annotations

import hashlib
import struct
import tempfile
from collections.abc import Iterator, Sequence
from typing import Any

import orjson

from gatehouse.sources.console import constants
from gatehouse.sources.console.state import AnswersState, ListState

# Part of every digest: a change in how items become rows (columns.py, the resources) changes it too, so
# content recorded under older rules is loaded again once rather than skipped.
CONTENT_RULES = "1"
_LENGTH = struct.Struct("<I")


def _sorted_digest(value: Any) -> bytes:
    return hashlib.blake2b(orjson.dumps(value, option=orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS), digest_size=16).digest()


def content_digest(value: Any) -> str:
    """A stable digest of a JSON value: keys sorted, so the order the service sends fields in does not count."""
    return _sorted_digest(value).hex()


class ListContent:
    """One list's items as read, spooled to disk, and the digest of the whole (order of items aside).

    Memory follows one page: items are kept as bytes in a temporary file, not as objects, until the
    list is complete and its digest is compared with the last loaded one. Each item is kept once, its last
    copy by `key`: the complete read yields an item again when a newer copy of it is served later in the list
    (paging.read_complete), and an SCD2 merge handed both copies would keep both as current. So even a list with
    no last load to compare with is handed to dlt only once read whole.
    """

    def __init__(self, state: ListState, key: str) -> None:
        # With a digest of a last load, the list is only compared until it is read whole (read_page_size).
        self.compared = isinstance(state.get("loaded_digest"), str)
        self._key = key
        self._spool = tempfile.TemporaryFile(prefix="gatehouse-list-")  # noqa: SIM115 (closed with the list)
        self._item_digests: list[bytes | None] = []  # one per item, in the order read; None once a later copy replaced it
        self._positions: dict[Any, int] = {}  # key -> the index of its last copy
        self._replaced = 0

    def add(self, page: Sequence[dict[str, Any]]) -> None:
        for item in page:
            # Spooled as sent, keys in the service's order (a JSON value such as a config's `defaultValue` is loaded as
            # this text); digested with keys sorted, so an order that differs between reads is no change.
            data = orjson.dumps(item, option=orjson.OPT_NON_STR_KEYS)
            key = item.get(self._key)
            if isinstance(key, (str, int)):
                earlier = self._positions.get(key)
                if earlier is not None:
                    self._item_digests[earlier] = None
                    self._replaced += 1
                self._positions[key] = len(self._item_digests)
            self._item_digests.append(_sorted_digest(item))
            self._spool.write(_LENGTH.pack(len(data)))
            self._spool.write(data)

    @property
    def keys(self) -> list[Any]:
        """The key of each item read, in the order first read."""
        return list(self._positions)

    @property
    def items(self) -> int:
        return len(self._item_digests) - self._replaced

    def digest(self) -> str:
        whole = hashlib.blake2b(CONTENT_RULES.encode(), digest_size=16)
        for item_digest in sorted(d for d in self._item_digests if d is not None):
            whole.update(item_digest)
        return whole.hexdigest()

    def same_as_loaded(self, state: ListState) -> bool:
        """True when the list is as last loaded (resource state `loaded_digest`); otherwise its digest is
        recorded, as the caller is about to yield it whole."""
        digest = self.digest()
        if state.get("loaded_digest") == digest:
            return True
        state["loaded_digest"] = digest
        return False

    def read_page_size(self, page_size: int) -> int:
        """Items a page to ask for: a list compared with its last load holds a page as objects only while it is
        digested, so it is read in larger pages (constants.SPOOLED_PAGE_FACTOR), fewer requests of the rate limit;
        otherwise `page_size`."""
        return max(page_size, round(page_size * constants.SPOOLED_PAGE_FACTOR)) if self.compared else page_size

    def pages(self, page_size: int) -> Iterator[list[dict[str, Any]]]:
        """The last copy of each item, in the order read (as the service sent them, after the caller's reshaping),
        in pages of at most `page_size`."""
        self._spool.seek(0)
        page: list[dict[str, Any]] = []
        for item_digest in self._item_digests:
            (length,) = _LENGTH.unpack(self._spool.read(_LENGTH.size))
            data = self._spool.read(length)
            if item_digest is None:
                continue  # replaced by a later copy
            page.append(orjson.loads(data))
            if len(page) >= page_size:
                yield page
                page = []
        if page:
            yield page

    def close(self) -> None:
        self._spool.close()


class AnswerDigests:
    """The digest of the last answer yielded per id (resource state `loaded_digests`), for merged per-id reads.

    Thread-safe enough for its use: each id is asked by one resource, and dict operations are atomic."""

    def __init__(self, state: AnswersState) -> None:
        self._digests: dict[str, str] = state.setdefault("loaded_digests", {})
        self.unchanged = 0

    def changed(self, entity_id: str, answer: Any) -> bool:
        """True (and recorded) when `answer` differs from the last one yielded for `entity_id`."""
        digest = content_digest([CONTENT_RULES, answer])
        if self._digests.get(entity_id) == digest:
            self.unchanged += 1
            return False
        self._digests[entity_id] = digest
        return True

    def loaded(self, entity_id: str) -> bool:
        """True when an answer for `entity_id` was loaded."""
        return entity_id in self._digests

    def forget(self, entity_id: str) -> None:
        """An id never asked again (a settled run, a holdout no longer followed): its digest would only take room in
        the state."""
        self._digests.pop(entity_id, None)
