"""What the console source needs beside its resources: id discovery, progress, and the rules that
decide which rows and requests a run makes (exposure days, settled ingestion runs)."""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta, timezone
from typing import Any, Callable, Iterable, Iterator, Optional, Sequence, TypeVar

from sources.console.client import ConsoleClient
from sources.console.errors import ConsoleError, NotFoundError, ValidationError
from sources.console.identity import ConsoleIdentity, identify
from sources.console.settings import DEFAULT_LATE_EXPOSURE_DAYS, LOGGER_NAME

T = TypeVar("T")
log = logging.getLogger(LOGGER_NAME)

# The statuses after which an ingestion run never changes again.
FINAL_RUN_STATUSES = frozenset({"pulse_complete"})


@dataclass
class ResourceProgress:
    pages: int = 0
    items: int = 0


@dataclass
class SkippedId:
    table: str
    id: str
    reason: str


@dataclass
class ExtractionReport:
    """Counters a run shows while it goes and sums up at the end (thread-safe)."""

    resources: dict[str, ResourceProgress] = field(default_factory=dict)
    skipped: list[SkippedId] = field(default_factory=list)
    # Top-level fields the console sent per table this run: a field that stops coming is drift too.
    fields_seen: dict[str, set[str]] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    _client: Any = field(default=None, repr=False)

    def bind_client(self, client: ConsoleClient) -> None:
        """The source's client, so the caller can read its request counters and close it."""
        self._client = client

    def console_identity(self) -> Optional[ConsoleIdentity]:
        """Which console this run reads, as its `extraction_runs` row records it (None before the client exists)."""
        if self._client is None:
            return None
        return identify(self._client.options.base_url, self._client.options.api_key)

    def check_access(self) -> None:
        """The client's one cheap read (ConsoleError when the base URL or key is wrong)."""
        if self._client is not None:
            self._client.check_access()

    def request_stats(self) -> dict[str, Any]:
        return self._client.stats.snapshot() if self._client is not None else {}

    def close(self) -> None:
        if self._client is not None:
            self._client.close()

    def add(self, resource: str, items: int, pages: int = 1) -> None:
        with self._lock:
            progress = self.resources.setdefault(resource, ResourceProgress())
            progress.pages += pages
            progress.items += items

    def add_fields(self, table: str, items: Sequence[dict[str, Any]]) -> None:
        keys = set().union(*(item.keys() for item in items)) if items else set()
        with self._lock:
            self.fields_seen.setdefault(table, set()).update(keys)

    def skip(self, table: str, id_: str, reason: str) -> None:
        with self._lock:
            self.skipped.append(SkippedId(table, id_, reason))

    def snapshot(self) -> dict[str, ResourceProgress]:
        with self._lock:
            return {name: ResourceProgress(p.pages, p.items) for name, p in self.resources.items()}


def batched(items: Iterable[T], size: int) -> Iterator[list[T]]:
    """Lists of `size` items (the last may be shorter), consuming `items` lazily."""
    batch: list[T] = []
    for item in items:
        batch.append(item)
        if len(batch) >= size:
            yield batch
            batch = []
    if batch:
        yield batch


def unique(ids: Iterable[str]) -> list[str]:
    """Ids in first-seen order without repeats (dict keeps insertion order)."""
    return list(dict.fromkeys(i for i in ids if i))


class Catalogue:
    """Ids discovered during one run, shared by the resources that find them and those that fan out.

    The list resources record the holdouts they reference; the holdouts transformer records the
    experiments. When an id resource runs before what feeds it (another extraction order, or a
    selection without the lists), it reads what is missing itself: the result never depends on
    order, only the request count does, and in dlt's `fifo` order nothing is read twice.
    """

    def __init__(self, client: ConsoleClient) -> None:
        self._client = client
        self._lock = threading.Lock()
        self._list_holdout_refs: dict[str, list[str]] = {}  # list name -> referenced holdout ids
        self._complete_lists: set[str] = set()
        self._holdout_experiments: dict[str, list[str]] = {}  # holdout id -> experiment ids
        self._holdouts_missing: set[str] = set()

    # -- recorded by the resources as they stream -------------------------------------------
    def record_list_page(self, list_name: str, page: Sequence[dict[str, Any]]) -> None:
        refs = [h for item in page for h in (as_list(item.get("holdoutIDs")) or [])]
        with self._lock:
            self._list_holdout_refs.setdefault(list_name, []).extend(refs)

    def complete_list(self, list_name: str) -> None:
        with self._lock:
            self._complete_lists.add(list_name)
            self._list_holdout_refs[list_name] = unique(self._list_holdout_refs.get(list_name, []))

    def record_holdout(self, holdout: dict[str, Any]) -> None:
        with self._lock:
            self._holdout_experiments[holdout["id"]] = list(as_list(holdout.get("experimentIDs")) or [])

    def record_missing_holdout(self, holdout_id: str) -> None:
        with self._lock:
            self._holdouts_missing.add(holdout_id)

    # -- asked by the id resources ----------------------------------------------------------
    def holdout_ids(self, configured: Sequence[str]) -> list[str]:
        for list_name, read in (
            ("gates", self._client.list_gates),
            ("dynamic_configs", self._client.list_dynamic_configs),
        ):
            if list_name not in self._complete_lists:
                for page in read():
                    self.record_list_page(list_name, page)
                self.complete_list(list_name)
        return unique([*configured, *self._list_holdout_refs["gates"], *self._list_holdout_refs["dynamic_configs"]])

    def experiment_ids(self, configured: Sequence[str], configured_holdouts: Sequence[str]) -> list[str]:
        holdout_ids = self.holdout_ids(configured_holdouts)
        unread = [h for h in holdout_ids if h not in self._holdout_experiments and h not in self._holdouts_missing]
        for holdout_id, holdout in self._client.fetch_many(self._client.get_holdout, unread):
            if isinstance(holdout, ConsoleError):
                self.record_missing_holdout(holdout_id)
            else:
                self.record_holdout(holdout)
        from_holdouts = [e for h in holdout_ids for e in self._holdout_experiments.get(h, [])]
        return unique([*configured, *from_holdouts])


# A gate or config with this status has left the lists on purpose: its absence is a retirement.
ARCHIVED = "Archived"


class AbsenceCheck:
    """What one list resource listed last run, and the confirmation of what this run's read lacks.

    The SCD2 merge retires every entity missing from a run's list. A list that moves while it is read
    (an entity deleted on a page already read pulls a later one past the page boundary) can lack live
    entities, and `totalItems` cannot tell: creations balance deletions, or it is not sent. So each id
    listed last run (resource state `listed`, id -> `version`) and missing now is confirmed before it may
    be retired; a live one is added to the run's items. A run where nothing left the list asks nothing
    more. Without a record (the first run, or the first after upgrading) the read is the strict one:
    `totalItems` checked, one re-read, `PaginationError` if still inconsistent.
    """

    def __init__(self, state: dict[str, Any], name: str) -> None:
        self.name = name
        self._state = state
        self.before: dict[str, Any] | None = state.get("listed")
        self.seen: dict[str, Any] = {}

    @property
    def confirms(self) -> bool:
        """True when absences can be confirmed, so the read needs no `totalItems` check."""
        return self.before is not None

    def saw(self, items: Sequence[dict[str, Any]]) -> None:
        for item in items:
            self.seen[item["id"]] = item.get("version")

    def missing(self) -> list[str]:
        return [entity_id for entity_id in self.before or {} if entity_id not in self.seen]

    def finish(self, confirm: Callable[[list[str]], list[dict[str, Any]]]) -> list[dict[str, Any]]:
        """Confirms the missing ids with `confirm(ids) -> the live ones`; returns those and records this run's list."""
        missing = self.missing()
        live: list[dict[str, Any]] = []
        if missing:
            live = [item for item in confirm(missing) if item["id"] not in self.seen]
            self.saw(live)
            log.info(
                "%s: %d listed last run missing from this read; %d still live (the list moved while read), "
                "%d deleted or archived",
                self.name,
                len(missing),
                len(live),
                len(missing) - len(live),
            )
        self._state["listed"] = self.seen
        return live


# Top-level fields the interface declares as arrays, per entity (see `arrays_as_lists`).
GATE_ARRAYS = ("targetApps", "holdoutIDs", "tags", "monitoringMetrics")
CONFIG_ARRAYS = ("targetApps", "holdoutIDs", "tags")
HOLDOUT_ARRAYS = ("targetApps", "tags", "gateIDs", "experimentIDs", "layerIDs")


def as_list(value: Any) -> Any:
    """A value the contract declares an array: a scalar sent in its place is a one-item list; null stays null."""
    return [value] if isinstance(value, (str, int, float, bool)) else value


def arrays_as_lists(items: Sequence[dict[str, Any]], fields: Sequence[str]) -> Sequence[dict[str, Any]]:
    """Makes each of `fields`, and every rule condition's `targetValue`, a list where a scalar came; in place.

    The published schemas allow a scalar where the interface shows an array: a condition's
    `targetValue` (a `passes_gate` condition naming one gate), a config's `targetApps` (a string in the
    unarchive schema). Loaded as is, a scalar becomes a column of the parent table while arrays become
    rows of a nested table, where every reader looks for them: a gate referenced by a scalar would read
    as referenced by nothing, and a holdout id sent as a string would be read letter by letter.
    """
    for item in items:
        for name in fields:
            if name in item:
                item[name] = as_list(item[name])
        for rule in item.get("rules") or ():
            if not isinstance(rule, dict):
                continue
            for condition in rule.get("conditions") or ():
                if isinstance(condition, dict) and "targetValue" in condition:
                    condition["targetValue"] = as_list(condition["targetValue"])
    return items


def live_gates(client: ConsoleClient, ids: Sequence[str], versions: dict[str, Any]) -> list[dict[str, Any]]:
    """The gates among `ids` that still exist and are not archived, by the single read.

    The single read has no `version` (list items do): the one it was last listed with stands in.
    """
    live = []
    for gate_id, gate in client.fetch_many(client.get_gate, ids):
        if isinstance(gate, ValidationError):
            raise gate  # neither gone nor live: a gate must not be retired on an answer that says neither
        if isinstance(gate, NotFoundError) or gate.get("status") == ARCHIVED:
            continue
        if "version" not in gate and versions.get(gate_id) is not None:
            gate = {**gate, "version": versions[gate_id]}
        live.append(gate)
    return live


def live_dynamic_configs(client: ConsoleClient, ids: Sequence[str], room: int) -> list[dict[str, Any]]:
    """The dynamic configs among `ids` still listed, by a second read of the list (there is no single read).

    Asked as one page of `room` items: one answer is a snapshot no deletion can shift. A console that
    serves fewer a page gets the strict complete read (`totalItems` checked), which fails rather than
    confirm an absence it could not see.
    """
    wanted = set(ids)
    return [
        config
        for page in client.list_dynamic_configs(page_size=max(room, client.options.page_size))
        for config in page
        if config["id"] in wanted
    ]


class NumberColumns:
    """One table's columns that the contract types `number` (console-interface.md), declared double.

    Declared, a fraction (12.5) that arrives after integers never makes a `__v_double` variant column,
    whichever page or normalize worker met an integer first. Except in a destination that already
    holds the column as bigint (loaded before it was declared): dlt never changes a column's type, so
    declaring double there would truncate 12.5 into the bigint column. Such a column stays declared
    bigint, as before, and a fraction goes to the variant column, which the views read.
    """

    def __init__(self, table: str, columns: dict[tuple[str, ...], tuple[str, ...]]) -> None:
        self.table = table
        self.columns = columns  # nested path (() for the table itself) -> column names
        self._stored_as_integers: set[tuple[tuple[str, ...], str]] = set()

    def check_destination(self, schema: Any) -> bool:
        """Reads the stored schema the run extracts into (`dlt.current.source_schema()`), before any item;
        True when a column is stored as bigint, so the resource's hints must be replaced (`hints`)."""
        for path, names in self.columns.items():
            stored = schema.tables.get("__".join((self.table, *path)), {}).get("columns", {})
            for name in names:
                if stored.get(name, {}).get("data_type") == "bigint" and (path, name) not in self._stored_as_integers:
                    self._stored_as_integers.add((path, name))
                    log.info("%s.%s is stored as bigint: kept bigint", "__".join((self.table, *path)), name)
        return bool(self._stored_as_integers)

    def hints(self, path: tuple[str, ...] = ()) -> dict[str, dict[str, str]]:
        """Column hints for the table at `path` below this one."""
        return {
            name: {"name": name, "data_type": "bigint" if (path, name) in self._stored_as_integers else "double"}
            for name in self.columns.get(path, ())
        }


def exposure_rows(
    experiment_id: str, series: Sequence[dict[str, Any]], from_day: str | None
) -> tuple[list[dict], str | None, str | None]:
    """Flattens one experiment's series to rows on or after `from_day`; returns them, the day the next
    run reads from, and the newest day of any group.

    The next run reads from the newest day of the group that lags most (never before `from_day`): that
    day is loaded again because the service still counts exposures into it, and a group whose days arrive
    later than the others' loses none. A day a group lists twice is one row, with the larger count (counts
    are cumulative); a count sent as a fraction or as text is loaded as the whole number it stands for.
    """
    points: dict[tuple[str, str], dict[str, Any]] = {}
    group_newest: list[str] = []
    newest: str | None = None
    for group in series:
        days = [point for point in group.get("results") or [] if isinstance(point, dict) and point.get("date")]
        if not days:
            continue
        group_last = max(point["date"] for point in days)
        group_newest.append(group_last)
        newest = group_last if newest is None or group_last > newest else newest
        for point in days:
            day = point["date"]
            if from_day is not None and day < from_day:
                continue
            row = {
                "experiment_id": experiment_id,
                "group_id": group["groupID"],
                "group_name": group.get("groupName"),
                "date": day,
                "exposures": exposure_count(point.get("exposures")),
            }
            key = (row["group_id"], day)
            kept = points.get(key)
            if kept is None or (row["exposures"] or 0) > (kept["exposures"] or 0):
                points[key] = row
    if not group_newest:
        return [], from_day, from_day
    next_from = min(group_newest)
    if from_day is not None and next_from < from_day:
        next_from = from_day
    return list(points.values()), next_from, newest


def exposure_count(value: Any) -> int | None:
    """An exposure count as an integer: the contract's type, where the OpenAPI allows any number."""
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, str):
        try:
            value = float(value.strip())
        except ValueError:
            return None
    return round(value) if isinstance(value, (int, float)) and value == value else None


def parse_timestamp(value: str) -> datetime:
    """An ISO 8601 time as the service writes it (`2023-12-13T02:44:23.790Z`), any case, naive as UTC."""
    parsed = datetime.fromisoformat(value.strip().upper().replace("Z", "+00:00"))
    return parsed if parsed.tzinfo is not None else parsed.replace(tzinfo=timezone.utc)


def run_status_since(run: dict[str, Any]) -> datetime | None:
    """When the run's latest status was reached: the newest runHistory entry (listed newest first)."""
    history = run.get("runHistory") or []
    stamps = [
        stamp for stamp in (readable_time(entry.get("statusTimestamp")) for entry in history if isinstance(entry, dict))
        if stamp is not None
    ]  # fmt: skip
    return max(stamps) if stamps else readable_time(run.get("lastUpdatedAt"))


def readable_time(value: Any) -> datetime | None:
    """`parse_timestamp`, or None for a value that is not a time: such a run is never settled by its age."""
    if not isinstance(value, str) or not value.strip():
        return None
    try:
        return parse_timestamp(value)
    except ValueError:
        return None


def is_settled(run: dict[str, Any], now: datetime, settle_after: timedelta) -> bool:
    """A run is settled when it completed, or when an error status has not moved for `settle_after`.

    An error is not final (the service retries: download_error is followed by download_started),
    hence the waiting time rather than treating every error as the end.
    """
    status = run.get("latestStatus") or ""
    if status in FINAL_RUN_STATUSES:
        return True
    return status.endswith("_error") and has_gone_quiet(run, now, settle_after)


def has_gone_quiet(run: dict[str, Any], now: datetime, quiet_after: timedelta) -> bool:
    """Whether the run's status has not moved for `quiet_after` (a time that cannot be read never counts).

    An error status that quiet has settled (`is_settled`); any other may still move (nothing says a
    status other than pulse_complete is final), so such a run is only requested less often (`is_quiet`).
    """
    since = run_status_since(run)
    return since is not None and now - since >= quiet_after


def estimated_service_now(clock_offset_s: float) -> datetime:
    """The service's clock before any answer of this run: the local clock moved by the offset last measured."""
    return utc_now() + timedelta(seconds=clock_offset_s)


def clock_offset_s(service_time: datetime) -> float:
    """How far the service's clock is ahead of the local one, for `estimated_service_now` next run."""
    return (service_time - utc_now()).total_seconds()


def utc_now() -> datetime:
    return datetime.now(timezone.utc)


def service_today(client: ConsoleClient) -> date:
    """Today by the service's clock (its `Date` header), so a skewed local clock changes nothing."""
    return (client.server_time or utc_now()).astimezone(timezone.utc).date()


def has_concluded(newest_day: str, today: date, late_days: int = DEFAULT_LATE_EXPOSURE_DAYS) -> bool:
    """A series silent for more than `late_days` has concluded: the experiment stopped.

    One that lags less is only late (the service's daily computation has not caught up yet): it is
    requested on every run, so the days it catches up load at once.
    """
    return date.fromisoformat(newest_day) < today - timedelta(days=late_days)


def is_quiet(concluded_on: str | None, today: date, recheck_days: int) -> bool:
    """True while a concluded experiment need not be requested: fewer than `recheck_days` since."""
    if concluded_on is None:
        return False
    return today < date.fromisoformat(concluded_on) + timedelta(days=recheck_days)

