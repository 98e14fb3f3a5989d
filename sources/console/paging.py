"""The one pagination generator, and the complete-list reader built on it.

`pagination.nextPage` comes in several forms (see gap-decisions.md):
`/console/v1/gates?page=2&limit=100`, `?page=2&limit=5`, `/console/v1/ingestion/runs?page=2`
(no limit), `host.example/console/v1/audit_logs?page=3&limit=3` (a host without scheme), and
the qualifying-events sample points at another path altogether
(`/console/v1/metrics/qualifying_event/list?page=2&limit=1`). We therefore never follow
`nextPage` as a URL: we always request OUR list path, on our base URL, with `page` and
`limit` taken from nextPage's query (our limit when it has none). This can never send the
key to another host or path, and works for every form seen.

A list ends where `nextPage` is null. A page that cannot be a whole part of the list is refused
(`PaginationError`, naming the page), so that a list missing a page is never loaded and nothing is retired for
it: a page whose `data` is null or missing (unless the console counts no items at all), an empty page naming a
next page, a page shorter than its `itemsPerPage` that names a next page. An answer without any `pagination`
object (the dynamic-configs sample) is paged until an empty page.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Callable, Generator, Iterator, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs, urlsplit

from gatehouse.sources.console.constants import FIRST_PAGE, LOGGER_NAME
from gatehouse.sources.console.errors import NotFoundError, PaginationError

log = logging.getLogger(LOGGER_NAME)

# (path, query params) -> the decoded JSON body of one page
FetchPage = Callable[[str, dict[str, Any]], Mapping[str, Any]]


@dataclass(frozen=True)
class Page:
    items: list[dict]
    number: int
    total_items: int | None
    next_page: str | None
    items_per_page: int | None
    # False when the answer had no `pagination` object: nothing then says whether more pages follow.
    described: bool = True
    # True when the console said this is the last page (`nextPage` null or empty), not when we inferred it.
    last: bool = False


def _as_int(value: Any) -> int | None:
    # pageNumber / itemsPerPage / totalItems are typed `number` (double) in the OpenAPI.
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str) and value.strip().isdigit():
        return int(value)
    return None


def _next_from_reference(reference: str, list_path: str) -> tuple[int | None, int | None]:
    """(page, limit) from a nextPage reference of any form; None where absent."""
    parts = urlsplit(reference)
    target = parts.path if not parts.netloc else f"{parts.netloc}{parts.path}"
    if target and target.rstrip("/") != list_path.rstrip("/"):
        log.debug("nextPage %r points elsewhere than %s: using only its page and limit", reference, list_path)
    query = parse_qs(parts.query)
    page = _as_int(query.get("page", [None])[0])
    limit = _as_int(query.get("limit", [None])[0])
    return page, (limit if limit and limit > 0 else None)


def paginate(
    fetch: FetchPage,
    path: str,
    params: Mapping[str, Any] | None,
    page_size: int,
    *,
    start_page: int = FIRST_PAGE,
) -> Iterator[Page]:
    """Yield every page of the list at `path` from `start_page`, in order, following the console's paging."""
    base = {k: v for k, v in (params or {}).items() if v is not None and k not in ("page", "limit")}
    page, limit = max(FIRST_PAGE, start_page), page_size
    previous: frozenset[str] | None = None  # the last page's items, when it came without a `pagination` object
    while True:
        try:
            body = fetch(path, {**base, "page": page, "limit": limit})
        except NotFoundError:
            if previous is None:
                raise
            # Without a `pagination` object only the console's answer past the end shows where the list ends,
            # and the OpenAPI documents 404 for the list: that answer is the end, not a failure.
            log.debug("GET %s: page %d answered 404 after a page without `pagination`: the list is read", path, page)
            return
        pagination = body.get("pagination")
        items = _page_items(body, path, page, pagination if isinstance(pagination, Mapping) else None)
        if not isinstance(pagination, Mapping):
            served = frozenset(json.dumps(item, sort_keys=True, default=str) for item in items)
            if _repeats_the_page_before(items, served, previous, limit, path, page):
                return
            yield Page(items, page, None, None, None, described=False)
            if not items:
                return
            previous, page = served, page + 1
            continue
        previous = None
        number = _as_int(pagination.get("pageNumber"))
        if number is not None and number != page:
            # A server that ignores `page` would otherwise make us read page 1 forever.
            raise PaginationError(
                f"GET {path}: asked for page {page} but the console answered page {number}; stopping instead of looping",
                method="GET",
                path=path,
            )
        items_per_page = _as_int(pagination.get("itemsPerPage"))
        total = _as_int(pagination.get("totalItems"))
        next_ref = pagination.get("nextPage")
        names_next = "nextPage" in pagination
        if names_next and next_ref:
            _check_whole_page(len(items), items_per_page, page, next_ref, path)
        yield Page(
            items, page, total, next_ref if isinstance(next_ref, str) else None, items_per_page, last=names_next and not next_ref
        )
        if not items and not names_next:
            return  # past the end, and nothing says more follow
        following = _following_page(pagination, len(items), page, limit, path)
        if following is None:
            return
        page, limit = following


def _refused(path: str, page: int, why: str) -> PaginationError:
    """The one line for a list page that cannot be a whole part of the list: nothing of the list is loaded."""
    return PaginationError(
        f"GET {path} page {page}: {why}; the list is not loaded, so nothing is retired for what that page did not"
        " send: the next run reads it again",
        method="GET",
        path=path,
    )


def _page_items(body: Mapping[str, Any], path: str, page: int, pagination: Mapping[str, Any] | None) -> list:
    items = body.get("data")
    if isinstance(items, list):
        return items
    if items is None and pagination is not None and _as_int(pagination.get("totalItems")) == 0:
        return []  # the console counts no items at all: an empty list, whatever form its `data` takes
    got = "missing" if "data" not in body else "null" if items is None else f"a {type(items).__name__}"
    raise _refused(path, page, f"the answer's `data` is {got}, not a list of items")


def _check_whole_page(served: int, items_per_page: int | None, page: int, next_ref: Any, path: str) -> None:
    """A page that names a next page is a whole page: not empty, and as long as its `itemsPerPage` when the console
    says it. A console's page that lost its items (an error it answered as 200) would otherwise read as a list
    without them, and the SCD2 merge would retire them (a server may serve fewer items than asked: `itemsPerPage`,
    not our `limit`, is what it says it serves)."""
    if served == 0:
        raise _refused(path, page, f"an empty page names a next page ({next_ref!r})")
    if items_per_page is not None and served < items_per_page:
        raise _refused(
            path, page, f"{served} items where the page says it holds {items_per_page}, and it names a next page ({next_ref!r})"
        )


def _repeats_the_page_before(
    items: list, served: frozenset[str], previous: frozenset[str] | None, limit: int, path: str, page: int
) -> bool:
    """A page without `pagination` (the published dynamic-configs sample has none): nothing says how many items
    a page holds, and a server may serve fewer than asked without saying so, so a short page does not end the list;
    an empty one does (past the end the console answers `data: []`). A page repeating the one before, in any order
    (a list's order is not documented), means the server ignores `page`: the end when the page before was short
    (all there is), refused when it was full (nothing says where the list ends)."""
    if not (items and previous is not None and served <= previous):
        return False
    if len(previous) < limit:
        log.debug("GET %s: page %d repeats page %d: the server ignores `page`; the list is read", path, page, page - 1)
        return True
    raise PaginationError(
        f"GET {path}: page {page} repeats page {page - 1} and nothing says where the list ends "
        "(no `pagination`); stopping instead of looping",
        method="GET",
        path=path,
    )


def _following_page(pagination: Mapping[str, Any], served: int, page: int, limit: int, path: str) -> tuple[int, int] | None:
    """The page to ask for after `page` and its limit, or None at the end of the list."""
    items_per_page = _as_int(pagination.get("itemsPerPage"))
    total = _as_int(pagination.get("totalItems"))
    if "nextPage" in pagination:
        next_ref = pagination["nextPage"]
        if not next_ref:  # null or "": the last page
            return None
        next_page, next_limit = _next_from_reference(str(next_ref), path)
        if next_page is None:
            log.debug("nextPage %r has no page number: asking for page %d", next_ref, page + 1)
            next_page = page + 1
        if next_page <= page:
            raise PaginationError(
                f"GET {path}: page {page} says the next page is {next_page} ({next_ref!r}); stopping instead of looping",
                method="GET",
                path=path,
            )
        return next_page, next_limit or limit
    # No nextPage at all: go on while the page was full (by what the server says it
    # serves, else by what we asked) or the total says more are left.
    full = served >= (items_per_page or limit)
    more_by_total = total is not None and (page - FIRST_PAGE) * (items_per_page or limit) + served < total
    return (page + 1, limit) if full or more_by_total else None


def _item_key(item: Any, key: str) -> Any:
    value = item.get(key) if isinstance(item, Mapping) else None
    if value is None or isinstance(value, (dict, list)):
        # Without a usable key, the whole item is its identity.
        return ("item", json.dumps(item, sort_keys=True, default=str))
    return value


# What is kept of the copy of an item yielded last: its `lastModifiedTime` and `version` (None where absent or not
# whole numbers), and without either, a digest of its content (not the item: a list's memory follows one page).
Copy = tuple[Any, Any, Any]


def _copy_of(item: Any) -> Copy:
    if not isinstance(item, Mapping):
        return None, None, None
    modified, version = _as_int(item.get("lastModifiedTime")), _as_int(item.get("version"))
    if modified is None and version is None:
        content = json.dumps(item, sort_keys=True, default=str).encode()
        return None, None, hashlib.blake2b(content, digest_size=16).digest()
    return modified, version, None


def _replaces(later: Copy, kept: Copy) -> bool:
    """Whether a copy served later replaces the one yielded: when it is newer by `lastModifiedTime`, else by
    `version`; with neither to compare, when it differs (the later served is the later read)."""
    compared = [(newer, older) for newer, older in zip(later[:2], kept[:2]) if newer is not None and older is not None]
    for newer, older in compared:
        if newer != older:
            return newer > older
    if compared:
        return False  # the same version served again
    return later != kept


@dataclass
class _Pass:
    keys: set[Any]
    served: int  # items served, repeats included
    totals: list[int]
    ended_at_null: bool  # the last page said it was the last (`nextPage` null)

    @property
    def total(self) -> int | None:
        return self.totals[-1] if self.totals else None

    @property
    def changed(self) -> bool:
        return len(set(self.totals)) > 1

    @property
    def agrees_with_total(self) -> bool:
        return self.total is None or (len(self.keys) == self.total and not self.changed)


def read_complete(
    pages: Callable[[], Iterator[Page]],
    path: str,
    key: str = "id",
    *,
    check_total: bool = True,
    counted_apart: Callable[[], None] | None = None,
) -> Iterator[list[dict]]:
    """A complete read of a list whose pages can shift while we read (items created, changed or deleted).

    One pass, de-duplicated by `key`: an item served again is left out, unless this copy is newer (a greater
    `lastModifiedTime`, else `version`; without either, a copy that differs): then it is yielded again, in a later
    page, and replaces the one yielded before. A caller keeps the last copy of each key.

    With `check_total=False` that is all: the caller confirms every absence itself (see
    `gatehouse.sources.console.absence.AbsenceCheck`), so a list that moved costs nothing more and fails nothing.
    Otherwise, if the last page's `totalItems` disagrees with the number of distinct items seen, or `totalItems`
    changed from one page to the next (an item deleted from a page already read shifts a later item past the page
    boundary: the count can still agree while that item was never served), read once more and yield only items not
    yet seen (or newer copies). If the re-read disagrees too, the list is accepted with a warning when the two
    passes agree with each other: the same items, each served once, `totalItems` the same on every page of both,
    each pass ended by a null `nextPage` (the console counts what it does not list, e.g. archived items; a moving
    list does not serve the same items twice over); `counted_apart()` is then called, for a caller that deletes what
    a read lacks: the count says the console holds items the list does not serve, which may be any. Otherwise
    `PaginationError`: nothing of an incomplete list is loaded, as what it lacks would be retired or deleted.
    """
    seen: dict[Any, Copy] = {}

    def one_pass() -> Generator[list[dict], None, _Pass]:
        read = _Pass(set(), 0, [], False)
        for page in pages():
            fresh = []
            for item in page.items:
                k, copy = _item_key(item, key), _copy_of(item)
                read.keys.add(k)
                read.served += 1
                if k not in seen or _replaces(copy, seen[k]):
                    seen[k] = copy
                    fresh.append(item)
            if page.total_items is not None:
                read.totals.append(page.total_items)
            read.ended_at_null = page.last
            if fresh:
                yield fresh
        return read

    first = yield from one_pass()
    if not check_total or first.agrees_with_total:
        return
    log.warning(
        "GET %s: read %d distinct items but the console reports %d%s: reading the list once more",
        path,
        len(first.keys),
        first.total,
        f" (totalItems changed from {first.totals[0]} while reading)" if first.changed else "",
    )
    second = yield from one_pass()
    if second.agrees_with_total:
        return
    distinct, total = len(second.keys), second.total
    if _passes_agree(first, second):
        log.warning(
            "GET %s: two passes served the same %d items, each once, but the console reports %d (totalItems); "
            "keeping the list as served",
            path, distinct, total,
        )  # fmt: skip
        if counted_apart is not None:
            counted_apart()
        return
    raise _incomplete(path, second)


def _incomplete(path: str, second: _Pass) -> PaginationError:
    """The one line for a list whose second pass still disagrees with its `totalItems`."""
    if second.changed:
        why = (
            f"the list changed while it was read (totalItems went from {second.totals[0]} to {second.total}): "
            "try again when fewer changes are being made"
        )
    else:
        why = (
            "the two passes did not serve the same items, each once, to a null nextPage, so what the count "
            "leaves out cannot be told: the next run tries again; if this persists, report it to the console's support"
        )
    return PaginationError(
        f"GET {path}: the list could not be read completely: a second pass saw {len(second.keys)} distinct items "
        f"but the console reports {second.total} (totalItems); nothing is loaded from an incomplete list, so no "
        f"item is retired by mistake ({why})",
        method="GET",
        path=path,
    )


def _passes_agree(first: _Pass, second: _Pass) -> bool:
    """Two passes that served the same items, each once, with one unchanging `totalItems`, to a null `nextPage`:
    nothing moved while they were read, so the count, not the list, is off. A list that moves shifts page
    boundaries, which shows as an item served twice, a total that changes, or passes that differ."""
    return (
        first.keys == second.keys
        and len(first.keys) == first.served and len(second.keys) == second.served
        and set(first.totals) == set(second.totals) and len(set(second.totals)) == 1
        and first.ended_at_null and second.ended_at_null
    )  # fmt: skip
