"""The twin's knobs: what a test, drill or benchmark can switch on a live twin.

Every field of `TwinSettings` is read again on each request, so changing one on a
running twin (`twin.settings.latency = 0.2`) takes effect from the next request.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, Literal

FaultKind = Literal["server_error", "bad_gateway", "unavailable", "drop", "slow", "malformed", "truncated"]
FAULT_KINDS: tuple[str, ...] = ("server_error", "bad_gateway", "unavailable", "drop", "slow", "malformed", "truncated")

NextPageForm = Literal["path", "query", "nolimit", "host", "stuck", "back"]
NEXT_PAGE_FORMS: tuple[str, ...] = ("path", "query", "nolimit", "host", "stuck", "back")

RetryAfterForm = Literal["seconds", "http-date", "none"]
RETRY_AFTER_FORMS: tuple[str, ...] = ("seconds", "http-date", "none")

# The paginated lists of the interface, by the name hooks and pagination styles use.
LIST_ENDPOINTS: tuple[str, ...] = ("gates", "dynamic_configs", "qualifying_events")


@dataclass(frozen=True)
class Fault:
    """One injected failure: on the listed request sequence numbers, and/or at a seeded random rate.

    kind: `server_error` (500), `bad_gateway` (502), `unavailable` (503) are answered before the request
    reaches the service (nothing changes); `drop` (socket closed without an answer) and `slow` (the answer
    is held longer than a client waits) happen after the service acted, so a create may have happened;
    `malformed` and `truncated` send a 200-class answer whose JSON body cannot be parsed.
    """

    kind: FaultKind
    on_requests: Iterable[int] = frozenset()
    rate: float = 0.0
    path_prefix: str = ""
    path_suffix: str = ""  # e.g. `/cumulative_exposures`: one operation whose path has an id in the middle

    def __post_init__(self) -> None:
        if self.kind not in FAULT_KINDS:
            raise ValueError(f"unknown fault kind {self.kind!r}; expected one of {', '.join(FAULT_KINDS)}")
        if not 0.0 <= self.rate <= 1.0:
            raise ValueError("fault rate must be between 0 and 1")
        object.__setattr__(self, "on_requests", frozenset(self.on_requests))


@dataclass
class PaginationStyle:
    """How one list endpoint writes its `pagination` object (the forms production has been seen to use)."""

    next_page: NextPageForm = "path"
    total_items: bool = True  # False: the `totalItems` member is left out
    all: Literal["path", "empty"] = "path"  # "empty": `all` is sent as ""
    total_items_offset: int = 0  # added to the true count, so totalItems disagrees with what is served
    # True: no `pagination` object at all, as the published dynamic-configs sample answers (the
    # OpenAPI's schema still declares it required). Only an empty page then shows the end.
    omitted: bool = False
    # An empty page served as this page number, with a nextPage to the rest (every later page one further on).
    empty_page: int | None = None
    # This page answers `data: null`.
    null_data_page: int | None = None
    # This page's answer has no `data` member at all.
    missing_data_page: int | None = None
    # This page serves one item fewer than its `itemsPerPage`, and still names the next page (the item is lost).
    short_page: int | None = None

    def __post_init__(self) -> None:
        if self.next_page not in NEXT_PAGE_FORMS:
            raise ValueError(f"unknown nextPage form {self.next_page!r}; expected one of {', '.join(NEXT_PAGE_FORMS)}")
        if self.all not in ("path", "empty"):
            raise ValueError("pagination `all` form must be 'path' or 'empty'")


def default_pagination() -> dict[str, PaginationStyle]:
    # The published samples: the gates list sends `all: ""`, the qualifying events list a path.
    return {
        "gates": PaginationStyle(all="empty"),
        "dynamic_configs": PaginationStyle(),
        "qualifying_events": PaginationStyle(),
    }


@dataclass(frozen=True)
class PageServed:
    """What `TwinSettings.after_page` is told after a list page was built, before the client sees it."""

    endpoint: str
    page: int
    limit: int
    items: int
    # The ConsoleTwin that served the page, for the hook to change what it serves. Typed loosely: the
    # settings sit below the twin and import nothing of it.
    twin: Any


@dataclass
class TwinSettings:
    api_key: str = "console-twin-local-key"
    scim_token: str = "scim-twin-local-token"
    # Keys the service knows but that lack the permission: answered 403, not 401.
    forbidden_keys: set[str] = field(default_factory=set)
    latency: float = 0.0  # seconds added to every request
    rate_limit: tuple[int, float] | None = None  # (requests, window seconds); None: never throttles
    retry_after: RetryAfterForm = "seconds"
    faults: list[Fault] = field(default_factory=list)
    fault_seed: int = 0
    slow_seconds: float = 3.0  # how long a `slow` fault holds the answer over real HTTP
    max_limit: int | None = None  # server-side cap on `limit`; None: no cap, as documented
    pagination: dict[str, PaginationStyle] = field(default_factory=default_pagination)
    # Called after each list page is built: a drill inserts or deletes items here while a client pages.
    after_page: Callable[[PageServed], None] | None = None
    # Ids the lists leave out while their single reads still answer them (a list that drops some entities).
    unlisted: set[str] = field(default_factory=set)
    # Called with (endpoint, a copy of each item) before it is sent: schema drift drills.
    transform_item: Callable[[str, dict], dict] | None = None
    admin: bool = False  # serve POST /_twin/advance?days=N
    # The service's daily exposure computation runs this many days late (an ingestion outage): every
    # series ends that many days before today. Back to 0, the service has caught up.
    exposure_delay_days: int = 0

    def __post_init__(self) -> None:
        if self.retry_after not in RETRY_AFTER_FORMS:
            raise ValueError(f"retry_after must be one of {', '.join(RETRY_AFTER_FORMS)}")
        if self.exposure_delay_days < 0:
            raise ValueError("exposure_delay_days must be 0 or more")

    def pagination_for(self, endpoint: str) -> PaginationStyle:
        return self.pagination.get(endpoint) or PaginationStyle()
