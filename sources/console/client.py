"""The console client: options, transport, auth, retries, typed methods, fan-out.

Layers: `ClientOptions` (validated up front) -> `ConsoleClient`, which owns one
`httpx.Client`, one rate limiter and one retry loop (`_send`) -> one thin typed method per
operation. Sync only; it is thread-safe, and concurrency for fan-out reads comes from
`fetch_many`, a bounded thread pool over the same code path.
"""

from __future__ import annotations

import functools
import logging
import math
import os
import random
import ssl
import threading
import time
from collections import deque
from collections.abc import Callable, Generator, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Any, Literal, TypedDict, TypeVar, Unpack
from urllib.parse import quote, urlsplit

import httpx

from gatehouse.sources.console import constants, paging, settings, validation
from gatehouse.sources.console.errors import (
    AuthError,
    ConfigurationError,
    ConsoleError,
    ForbiddenError,
    NotFoundError,
    OutcomeUnknownError,
    ServerError,
    ThrottledError,
    TransportError,
    ValidationError,
    one_line,
    redact,
    register_secret,
)
from gatehouse.sources.console.paging import Page
from gatehouse.sources.console.ratelimit import Permit, SlidingWindowRateLimiter

log = logging.getLogger(constants.LOGGER_NAME)

T = TypeVar("T")
# What fetch_many yields for an id the console answered about that id alone: unknown (404) or refused (400).
IdRefused = NotFoundError | ValidationError
Auth = Literal["console", "scim"]
Filter = str | Sequence[str] | None


# A list's filters keep the interface's query-parameter names (`idType`, `releasePipelineID`, ...), so
# `list_gates(**filters)` takes what the interface documents, still as typed keywords. A sequence value is sent as a
# repeated parameter (`tags=a&tags=b`); None, as no parameter.
class CreationFilters(TypedDict, total=False):
    """The filters of every list of things people create (gates, dynamic configs)."""

    releasePipelineID: Filter
    creatorName: Filter
    creatorID: Filter
    tags: Filter


class GateFilters(CreationFilters, total=False):
    """`type` is one of gatehouse.contract.GATE_TYPES, `typeReason` of GATE_TYPE_REASONS, `passRate` and
    `rolloutRate` of RATE_FILTERS."""

    idType: Filter
    type: Filter
    typeReason: Filter
    passRate: Filter
    rolloutRate: Filter


# --------------------------------------------------------------------------- options


# The settings the HTTP client takes; the rest are the run's rules and ids.
_FROM_SETTINGS = (
    "base_url",
    "api_key",
    "scim_token",
    "page_size",
    "timeout",
    "max_attempts",
    "max_retry_time",
    "rate_limit_requests",
    "rate_limit_window",
    "max_workers",
)


@dataclass(frozen=True)
class ClientOptions:
    """Everything that configures a client. Validated on construction: a bad value raises
    `ConfigurationError` naming the setting, before any request. `repr` never shows secrets."""

    base_url: str
    api_key: str | None = field(repr=False)
    scim_token: str | None = field(default=None, repr=False)
    page_size: int = settings.DEFAULT_PAGE_SIZE
    timeout: float = settings.DEFAULT_TIMEOUT_S
    max_attempts: int = settings.DEFAULT_MAX_ATTEMPTS
    max_retry_time: float = settings.DEFAULT_MAX_RETRY_TIME_S
    rate_limit_requests: int = settings.DEFAULT_RATE_LIMIT_REQUESTS
    rate_limit_window: float = settings.DEFAULT_RATE_LIMIT_WINDOW_S
    max_workers: int = settings.DEFAULT_MAX_WORKERS
    respect_review_settings: bool = False

    @classmethod
    def from_settings(cls, console_settings: settings.ConsoleSettings, **overrides: Any) -> ClientOptions:
        """The client's options from the `[sources.console]` settings, `overrides` winning (validated here: a bad
        value is one line naming it)."""
        values = {name: getattr(console_settings, name) for name in _FROM_SETTINGS}
        return cls(**{**values, **overrides})

    def __post_init__(self) -> None:
        register_secret(self.api_key if isinstance(self.api_key, str) else None)
        register_secret(self.scim_token if isinstance(self.scim_token, str) else None)
        object.__setattr__(self, "base_url", _checked_base_url(self.base_url))
        # A SCIM-only client (group provisioning) needs no console key; every console path checks it.
        if self.scim_token is None and not _has_text(self.api_key):
            raise ConfigurationError(_NO_API_KEY)
        if self.api_key is not None and not _has_text(self.api_key):
            raise ConfigurationError(_NO_API_KEY)
        if self.scim_token is not None and (not isinstance(self.scim_token, str) or not self.scim_token.strip()):
            raise ConfigurationError(
                f"the SCIM token is empty: set {constants.SETTING_SCIM_TOKEN} / {constants.ENV_SCIM_TOKEN} or leave it unset"
            )
        positive = {
            "page_size": self.page_size,
            "max_attempts": self.max_attempts,
            "rate_limit_requests": self.rate_limit_requests,
            "max_workers": self.max_workers,
        }
        for name, value in positive.items():
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ConfigurationError(f"sources.console.{name} must be a positive integer, got {value!r}")
        for name, seconds in {
            "timeout": self.timeout,
            "max_retry_time": self.max_retry_time,
            "rate_limit_window": self.rate_limit_window,
        }.items():
            if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or not 0 < seconds < math.inf:
                raise ConfigurationError(f"sources.console.{name} must be a positive number of seconds, got {seconds!r}")

    def __repr__(self) -> str:
        return (
            f"ClientOptions(base_url={self.base_url!r}, api_key='{constants.REDACTED}', "
            f"scim_token={None if self.scim_token is None else constants.REDACTED!r}, page_size={self.page_size}, "
            f"timeout={self.timeout}, max_attempts={self.max_attempts}, max_retry_time={self.max_retry_time}, "
            f"rate_limit_requests={self.rate_limit_requests}, rate_limit_window={self.rate_limit_window}, "
            f"max_workers={self.max_workers}, respect_review_settings={self.respect_review_settings})"
        )

    __str__ = __repr__


_NO_API_KEY = (
    f"no console API key: set {constants.SETTING_API_KEY} in .dlt/secrets.toml "
    f"or the environment variable {constants.ENV_API_KEY}"
)


def _has_text(value: Any) -> bool:
    return isinstance(value, str) and bool(value.strip())


def _checked_base_url(base_url: Any) -> str:
    setting = constants.SETTING_BASE_URL
    if not isinstance(base_url, str) or not base_url.strip():
        raise ConfigurationError(f"no console base URL: set {setting} (e.g. https://console.example.com)")
    try:
        parts = urlsplit(base_url.strip())
        parts.port  # noqa: B018 - read for its check: a port out of range or not a number raises here
    except ValueError as err:  # `http://[::1`, `http://host:99999`
        raise ConfigurationError(f"{setting} is not a URL ({err}); write it as https://console.example.com") from None
    # the URL is quoted only where it cannot hold a secret: credentials or a query (`?api_key=…`) are named, not shown
    if parts.username or parts.password:
        raise ConfigurationError(f"{setting} must not hold credentials; set {constants.SETTING_API_KEY} instead")
    if parts.query or parts.fragment:
        raise ConfigurationError(f"{setting} must not have a query or fragment (not shown: it may hold a key)")
    if parts.scheme not in ("http", "https"):
        raise ConfigurationError(f"{setting} must start with http:// or https://, got {base_url!r}")
    if not parts.hostname:
        raise ConfigurationError(f"{setting} has no host: {base_url!r}")
    path = parts.path.rstrip("/")
    if path.endswith(constants.API_PREFIX):
        raise ConfigurationError(
            f"{setting} must be the service root, without {constants.API_PREFIX}: "
            f"use {base_url.strip().rstrip('/')[: -len(constants.API_PREFIX)]!r}"
        )
    return f"{parts.scheme}://{parts.netloc}{path}"


# --------------------------------------------------------------------------- results and stats


@dataclass(frozen=True)
class WriteResult:
    status: int
    message: str | None
    data: Any


@dataclass(frozen=True)
class PreparedRequest:
    """What a write would send (dry run): secrets in `headers` are redacted."""

    method: str
    url: str
    path: str
    headers: dict[str, str]
    body: Any


@dataclass(frozen=True)
class RequestEvent:
    """Passed to the `on_request` hook after every attempt (for progress displays)."""

    method: str
    endpoint: str
    status: int | None
    attempt: int
    elapsed_s: float
    error: str | None = None


def _covered(intervals: list[tuple[float, float]]) -> float:
    """The length of the union of (start, end) intervals."""
    total, covered = 0.0, float("-inf")
    for start, end in sorted(intervals):
        if end > covered:
            total += end - max(start, covered)
            covered = end
    return total


class ClientStats:
    """Counters of one client, safe to update from many threads."""

    def __init__(self, on_request: Callable[[RequestEvent], None] | None = None) -> None:
        self._lock = threading.Lock()
        self._on_request = on_request
        self.requests = 0
        self.retries = 0
        self.throttled = 0
        # each wait on the rate limit as (start, end) on the monotonic clock: several threads wait at once, and
        # what a person wants to know is how long the run was held up, the union of the waits, not their sum
        self._waits: list[tuple[float, float]] = []
        self.by_endpoint: dict[str, int] = {}
        self.retries_by_endpoint: dict[str, int] = {}

    def record_request(self, endpoint: str) -> None:
        with self._lock:
            self.requests += 1
            self.by_endpoint[endpoint] = self.by_endpoint.get(endpoint, 0) + 1

    def record_retry(self, endpoint: str) -> None:
        with self._lock:
            self.retries += 1
            self.retries_by_endpoint[endpoint] = self.retries_by_endpoint.get(endpoint, 0) + 1

    def record_throttled(self) -> None:
        with self._lock:
            self.throttled += 1

    def record_throttle_wait(self, seconds: float) -> None:
        """A wait of `seconds` that ends now."""
        if seconds > 0:
            end = time.monotonic()
            with self._lock:
                self._waits.append((end - seconds, end))

    @property
    def throttle_wait_s(self) -> float:
        """Wall-clock seconds during which at least one request waited on the rate limit."""
        with self._lock:
            return _covered(self._waits)

    def notify(self, event: RequestEvent) -> None:
        if self._on_request is not None:
            try:
                self._on_request(event)
            except Exception:  # a broken progress display must not break the extraction
                log.debug("on_request hook failed", exc_info=True)

    def snapshot(self) -> dict:
        with self._lock:
            return {
                "requests": self.requests,
                "retries": self.retries,
                "throttled": self.throttled,
                "throttle_wait_s": round(_covered(self._waits), 3),
                "by_endpoint": dict(self.by_endpoint),
                "retries_by_endpoint": dict(self.retries_by_endpoint),
            }


# --------------------------------------------------------------------------- operations


@dataclass(frozen=True)
class Endpoint:
    """One console operation: how it is sent, retried and explained when it fails."""

    method: str
    template: str
    noun: str
    retry: bool  # idempotent: safe to send again
    permission: str  # what a 403 means for this operation
    auth: Auth = "console"

    def path(self, **ids: str) -> str:
        return self.template.format(**{k: path_segment(v) for k, v in ids.items()})


def path_segment(value: str) -> str:
    """An id as one path segment: `/` and every other reserved character percent-encoded.

    An id that is exactly `.` or `..` is a dot segment, which URL normalisation removes (`gates/..`
    would be sent as `/console/v1`, another resource); its dots are percent-encoded so it stays an id.
    """
    segment = quote(value, safe="")
    return segment.replace(".", "%2E") if segment in (".", "..") else segment


_READ = "a console API key with read access"
GET_GATE = Endpoint("GET", constants.GATE_PATH, "gate", True, _READ)
LIST_GATES = Endpoint("GET", constants.GATES_PATH, "gate list", True, _READ)
GET_HOLDOUT = Endpoint("GET", constants.HOLDOUT_PATH, "holdout", True, _READ)
LIST_DYNAMIC_CONFIGS = Endpoint("GET", constants.DYNAMIC_CONFIGS_PATH, "dynamic config list", True, _READ)
UNARCHIVE_DYNAMIC_CONFIG = Endpoint(
    "PUT",
    constants.DYNAMIC_CONFIG_UNARCHIVE_PATH,
    "dynamic config",
    True,
    "a read-write console API key whose role has edit_or_delete_configs",
)
CREATE_RELEASE_PIPELINE = Endpoint(
    "POST",
    constants.RELEASE_PIPELINES_PATH,
    "release pipeline",
    False,
    "a read-write console API key whose role has create_release_pipelines",
)
# The update is a POST too, but sending the same body twice gives the same pipeline.
UPDATE_RELEASE_PIPELINE = Endpoint(
    "POST",
    constants.RELEASE_PIPELINE_PATH,
    "release pipeline",
    True,
    "a read-write console API key whose role has create_release_pipelines",
)
LIST_QUALIFYING_EVENTS = Endpoint("GET", constants.QUALIFYING_EVENTS_PATH, "qualifying event list", True, _READ)
GET_CUMULATIVE_EXPOSURES = Endpoint("GET", constants.CUMULATIVE_EXPOSURES_PATH, "experiment", True, _READ)
GET_INGESTION_RUN = Endpoint("GET", constants.INGESTION_RUN_PATH, "ingestion run", True, _READ)
CREATE_ROLE = Endpoint("POST", constants.ROLES_PATH, "role", False, "a read-write console API key of a project admin")
UPDATE_WH_CONNECTION = Endpoint(
    "PATCH",
    constants.WH_CONNECTIONS_PATH,
    "warehouse connection",
    True,
    "a read-write console API key whose role has data_warehouse_ingestion_and_exports_edit_access",
)
PATCH_SCIM_GROUP = Endpoint(
    "PATCH", constants.SCIM_GROUP_PATH, "SCIM group", True, "a SCIM token allowed to provision groups", auth="scim"
)
ENDPOINTS: tuple[Endpoint, ...] = (
    GET_GATE, LIST_GATES, GET_HOLDOUT, LIST_DYNAMIC_CONFIGS, UNARCHIVE_DYNAMIC_CONFIG, CREATE_RELEASE_PIPELINE,
    UPDATE_RELEASE_PIPELINE, LIST_QUALIFYING_EVENTS, GET_CUMULATIVE_EXPOSURES, GET_INGESTION_RUN, CREATE_ROLE,
    UPDATE_WH_CONNECTION, PATCH_SCIM_GROUP,
)  # fmt: skip


class _Retry(Exception):
    """Internal: a transient failure; carries the error to raise when retries run out."""

    def __init__(self, error: ConsoleError, retry_after: float | None = None, throttled: bool = False) -> None:
        super().__init__(error.message)
        self.error = error
        self.retry_after = retry_after
        self.throttled = throttled


# Failures before the request left this machine: nothing can have been created.
_NOT_SENT = (httpx.ConnectError, httpx.ConnectTimeout, httpx.PoolTimeout, httpx.UnsupportedProtocol)


# --------------------------------------------------------------------------- client

# Marks the threads of a `fetch_many(background=True)` pool: their requests yield the rate limit to others.
_thread_role = threading.local()


def _read_ahead_thread() -> None:
    _thread_role.reads_ahead = True


class WireTimes:
    """When one attempt's first byte went out and its answer's head came back, as the transport reports
    them (httpcore's trace events; a mock transport reports none): what the rate limiter learns from."""

    def __init__(self, clock: Callable[[], float]) -> None:
        self._clock = clock
        self.sent_at: float | None = None
        self.answered_at: float | None = None

    def trace(self, event: str, info: dict) -> None:
        if event.endswith("send_request_headers.started"):
            self.sent_at = self._clock()
        elif event.endswith("receive_response_headers.complete"):
            self.answered_at = self._clock()


def known_filters(filters: Mapping[str, Any], spec: type) -> None:
    """A filter the list does not take is refused, as a misspelt keyword was before the filters were declared as a
    TypedDict (which checks them for the type checker only): the console would ignore it and list everything."""
    known = spec.__optional_keys__ | spec.__required_keys__  # type: ignore[attr-defined]
    unknown = sorted(set(filters) - known)
    if unknown:
        raise TypeError(f"unknown filter(s) {', '.join(unknown)}; known: {', '.join(sorted(known))}")


@functools.lru_cache(maxsize=4)
def tls_context(cert_file: str | None, cert_dir: str | None) -> ssl.SSLContext:
    """httpx's default TLS context (its certificates, or the environment's SSL_CERT_FILE / SSL_CERT_DIR), made once
    per process for those: loading the certificates again was a share of every run's own time, and a context is
    shared by connections safely."""
    return httpx.create_ssl_context()


class ConsoleClient:
    """A thread-safe client of the console's 13 operations. Use as a context manager."""

    def __init__(
        self,
        options: ClientOptions,
        transport: httpx.BaseTransport | None = None,
        *,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.monotonic,
        jitter: Callable[[], float] = random.random,
        rate_limiter: SlidingWindowRateLimiter | None = None,
        on_request: Callable[[RequestEvent], None] | None = None,
    ) -> None:
        self.options = options
        self._sleep = sleep
        self._clock = clock
        self._jitter = jitter
        self._http = httpx.Client(
            base_url=options.base_url,
            transport=transport,
            timeout=httpx.Timeout(options.timeout),
            headers={"Accept": "application/json", "User-Agent": constants.USER_AGENT},
            # A redirect could carry SERVICE-API-KEY to another host: never follow one.
            follow_redirects=False,
            event_hooks={"response": [self._on_response_head]},
            verify=tls_context(os.environ.get("SSL_CERT_FILE"), os.environ.get("SSL_CERT_DIR")),
        )
        self.rate_limiter = rate_limiter or SlidingWindowRateLimiter(
            options.rate_limit_requests, options.rate_limit_window, clock=clock, sleep=sleep
        )
        self.stats = ClientStats(on_request)
        self._server_time: datetime | None = None
        self._time_lock = threading.Lock()
        # The first request goes alone: until the console has answered once, a key it rejects
        # would be sent by every fan-out thread at once. After a 401 nothing more is sent.
        self._first_answer = threading.Event()
        self._first_request = threading.Lock()
        self._rejected: AuthError | None = None
        self._reads_forbidden: ForbiddenError | None = None
        # An endpoint whose request gave up on the console's failures (5xx, timeouts, 429s past the retry budget)
        # is not asked again this run: each of its ids would spend the same budget to fail the same way. Once two
        # endpoints have given up the console is down: nothing more is asked, and retries waiting are woken, so a
        # run against a console that fails everything ends within about two requests' retries (docs/reliability.md).
        self._gave_up: dict[str, ConsoleError] = {}
        self._down = threading.Event()
        # Turns: until the console has answered an endpoint, and again after a request of it failed transiently,
        # one request at a time asks it (`_take_turn`) and the endpoint's other ids wait for its outcome. Ids read
        # side by side from an endpoint that fails then spend one request's retries between them, not each its own.
        self._turns = threading.Condition()
        self._asking: set[str] = set()
        self._answered: set[str] = set()

    def __repr__(self) -> str:
        return f"ConsoleClient({self.options!r})"

    def __enter__(self) -> ConsoleClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._http.close()

    @property
    def server_time(self) -> datetime | None:
        """The console's clock, from the `Date` header of the last response (UTC)."""
        with self._time_lock:
            return self._server_time

    # ----------------------------------------------------------------- reads

    def get_gate(self, gate_id: str) -> dict:
        return self._read_one(GET_GATE, gate_id)

    def list_gates(
        self, *, page_size: int | None = None, check_total: bool = True, **filters: Unpack[GateFilters]
    ) -> Iterator[list[dict]]:
        """Every gate, one list per page, de-duplicated (key `id`), filtered by `GateFilters`.

        `check_total=False`: one pass, for a caller that confirms absences itself (see `iter_list`)."""
        known_filters(filters, GateFilters)
        return self.iter_list(LIST_GATES.template, filters, key="id", page_size=page_size, check_total=check_total)

    def get_holdout(self, holdout_id: str) -> dict:
        return self._read_one(GET_HOLDOUT, holdout_id)

    def list_dynamic_configs(
        self, *, page_size: int | None = None, check_total: bool = True, **filters: Unpack[CreationFilters]
    ) -> Iterator[list[dict]]:
        """Every dynamic config, one list per page, de-duplicated (key `id`); `check_total` as `list_gates`."""
        known_filters(filters, CreationFilters)
        return self.iter_list(LIST_DYNAMIC_CONFIGS.template, filters, key="id", page_size=page_size, check_total=check_total)

    def check_access(self) -> None:
        """One cheap authenticated read, a page of one qualifying event: a wrong base URL or key fails here
        with the error a run would meet at its first request."""
        next(iter(self.paginate(LIST_QUALIFYING_EVENTS.template, page_size=1)), None)

    def list_qualifying_events(
        self, *, page_size: int | None = None, counted_apart: Callable[[], None] | None = None
    ) -> Iterator[list[dict]]:
        """Every qualifying event, one list per page, de-duplicated by `name` (they have no id).

        Read as strictly as a first read of the gates (`totalItems` checked, one re-read): a name missing from the
        read is deleted from the table, so a list that could not be read whole is refused, not loaded; one whose
        count two agreeing passes never reach calls `counted_apart()` (see `paging.read_complete`)."""
        return self.iter_list(LIST_QUALIFYING_EVENTS.template, key="name", page_size=page_size, counted_apart=counted_apart)

    def get_cumulative_exposures(self, experiment_id: str) -> list[dict]:
        """The whole series of every group of the experiment (not paginated)."""
        return self._read_one(GET_CUMULATIVE_EXPOSURES, experiment_id, expect=list)

    def get_ingestion_run(self, run_id: str) -> dict:
        return self._read_one(GET_INGESTION_RUN, run_id)

    # ----------------------------------------------------------------- lists

    def paginate(
        self,
        path: str,
        params: Mapping[str, Any] | None = None,
        *,
        page_size: int | None = None,
        start_page: int = constants.FIRST_PAGE,
    ) -> Iterator[Page]:
        """Every page of the list at `path` from `start_page` on (see `paging.paginate`)."""
        endpoint = _endpoint_for_list(path)

        def fetch(list_path: str, query: dict[str, Any]) -> Mapping[str, Any]:
            return self._send(endpoint, list_path, params=query)[1]

        return paging.paginate(fetch, path, params, page_size or self.options.page_size, start_page=start_page)

    def iter_list(
        self,
        path: str,
        params: Mapping[str, Any] | None = None,
        *,
        key: str = "id",
        page_size: int | None = None,
        check_total: bool = True,
        counted_apart: Callable[[], None] | None = None,
    ) -> Iterator[list[dict]]:
        """A complete read of a list, one list of new items per page (see `paging.read_complete`).

        `check_total=False` reads one pass and never checks `totalItems`: for a caller that confirms
        every item missing from the pass before acting on its absence."""
        if page_size is not None and (isinstance(page_size, bool) or not isinstance(page_size, int) or page_size < 1):
            raise ConfigurationError(f"sources.console.page_size must be a positive integer, got {page_size!r}")
        return paging.read_complete(
            lambda: self.paginate(path, params, page_size=page_size),
            path,
            key,
            check_total=check_total,
            counted_apart=counted_apart,
        )

    # ----------------------------------------------------------------- writes

    def unarchive_dynamic_config(
        self, config_id: str, reason: str | None = None, *, dry_run: bool = False
    ) -> WriteResult | PreparedRequest:
        validation.require_id(config_id, "config id")
        body = validation.validate_unarchive_reason(reason)
        return self._write(UNARCHIVE_DYNAMIC_CONFIG, {"id": config_id}, body, dry_run)

    def create_release_pipeline(self, body: Mapping[str, Any], *, dry_run: bool = False) -> WriteResult | PreparedRequest:
        return self._write(CREATE_RELEASE_PIPELINE, {}, validation.validate_release_pipeline(body), dry_run)

    def update_release_pipeline(
        self, pipeline_id: str, body: Mapping[str, Any], *, dry_run: bool = False
    ) -> WriteResult | PreparedRequest:
        validation.require_id(pipeline_id, "release pipeline id")
        return self._write(
            UPDATE_RELEASE_PIPELINE, {"id": pipeline_id}, validation.validate_release_pipeline(body, creating=False), dry_run
        )

    def create_role(self, name: str, permissions: Mapping[str, bool], *, dry_run: bool = False) -> WriteResult | PreparedRequest:
        return self._write(CREATE_ROLE, {}, validation.validate_role(name, permissions), dry_run)

    def update_wh_connection(self, body: Mapping[str, Any], *, dry_run: bool = False) -> WriteResult | PreparedRequest:
        return self._write(UPDATE_WH_CONNECTION, {}, validation.validate_wh_connection(body), dry_run)

    def patch_scim_group(self, group_id: str, body: Mapping[str, Any], *, dry_run: bool = False) -> WriteResult | PreparedRequest:
        validation.require_id(group_id, "group id")
        return self._write(PATCH_SCIM_GROUP, {"id": group_id}, validation.validate_scim_patch(body), dry_run)

    # ----------------------------------------------------------------- fan-out

    def fetch_many(
        self, fetch: Callable[[str], T], ids: Iterable[str], *, background: bool = False
    ) -> Generator[tuple[str, T | IdRefused], None, None]:
        """`fetch(id)` for every id on a bounded pool (max_workers), under the shared rate limiter.

        Yields `(id, result)` in input order; an answer about that id alone (404, or 400: the console
        refusing that id) is yielded as its error, any other error is raised after cancelling what has
        not started. At most
        `IN_FLIGHT_PER_WORKER * max_workers` calls are submitted at a time, so memory follows the batch, not the
        whole id list (which may itself be a lazy iterator). `background`: reads ahead of need, which take
        only the slots of the rate limit no other request waits for (`SlidingWindowRateLimiter.acquire`).
        """
        workers = self.options.max_workers
        in_flight: deque[tuple[str, Future]] = deque()
        id_iter = iter(ids)
        executor = ThreadPoolExecutor(
            max_workers=workers, thread_name_prefix="console-fetch", initializer=_read_ahead_thread if background else None
        )

        def submit_next() -> bool:
            for next_id in id_iter:
                in_flight.append((next_id, executor.submit(fetch, next_id)))
                return True
            return False

        try:
            while len(in_flight) < workers * constants.IN_FLIGHT_PER_WORKER and submit_next():
                pass
            while in_flight:
                item_id, future = in_flight.popleft()
                try:
                    result: T | IdRefused = future.result()
                except (NotFoundError, ValidationError) as refused:
                    result = refused
                submit_next()
                yield item_id, result
        finally:
            for _, pending in in_flight:
                pending.cancel()
            executor.shutdown(wait=True, cancel_futures=True)

    # ----------------------------------------------------------------- internals

    def _read_one(self, endpoint: Endpoint, item_id: str, expect: type = dict) -> Any:
        validation.require_id(item_id, f"{endpoint.noun} id")
        _, body = self._send(endpoint, endpoint.path(id=item_id), item_id=item_id)
        data = body.get("data")
        if data is None and expect is list:
            return []  # no series yet: nothing to load
        if data is None:
            # A 200 without the entity (as some services answer a deleted one) is its absence, not a fault.
            raise NotFoundError(
                f"{endpoint.noun} {item_id!r} not found ({endpoint.method} {endpoint.template} answered `data: null`)",
                status=200,
                method=endpoint.method,
                path=endpoint.template,
            )
        if not isinstance(data, expect):
            raise TransportError(
                f"{endpoint.method} {endpoint.template}: the answer's `data` is {type(data).__name__}, "
                f"expected {'an object' if expect is dict else 'an array'}",
                method=endpoint.method,
                path=endpoint.template,
            )
        return data

    def _write(self, endpoint: Endpoint, ids: dict[str, str], body: Any, dry_run: bool) -> WriteResult | PreparedRequest:
        path = endpoint.path(**ids)
        if dry_run:
            headers = self._headers(endpoint)
            shown = {
                name: (constants.REDACTED if name in (constants.API_KEY_HEADER, constants.SCIM_AUTH_HEADER) else value)
                for name, value in headers.items()
            }
            url = str(self._http.build_request(endpoint.method, path).url)
            log.info("dry run: %s %s not sent", endpoint.method, path)
            return PreparedRequest(endpoint.method, url, path, {**shown, "Content-Type": "application/json"}, body)
        status, answer = self._send(endpoint, path, json_body=body, item_id=ids.get("id"))
        message = answer.get("message")
        # The console's answers wrap what they return in {message, data}; the SCIM endpoint answers with the
        # resource itself (the group), which is then the data, not dropped.
        enveloped = "message" in answer or "data" in answer
        return WriteResult(
            status, message if isinstance(message, str) else None, answer.get("data") if enveloped else answer or None
        )

    def _headers(self, endpoint: Endpoint) -> dict[str, str]:
        if endpoint.auth == "scim":
            if not self.options.scim_token:
                raise ConfigurationError(
                    f"no SCIM token for {endpoint.method} {endpoint.template}: set {constants.SETTING_SCIM_TOKEN} "
                    f"or {constants.ENV_SCIM_TOKEN} (it is distinct from the console API key)"
                )
            return {constants.SCIM_AUTH_HEADER: f"Bearer {self.options.scim_token}"}
        key = self.options.api_key
        if key is None or not _has_text(key):
            raise ConfigurationError(_NO_API_KEY)
        headers = {constants.API_KEY_HEADER: key}
        if self.options.respect_review_settings:
            headers[constants.RESPECT_REVIEW_HEADER] = "true"
        return headers

    def _send(
        self,
        endpoint: Endpoint,
        path: str,
        *,
        params: Mapping[str, Any] | None = None,
        json_body: Any = None,
        item_id: str | None = None,
    ) -> tuple[int, dict]:
        """Send one operation with pacing and retries; return (status, decoded JSON object)."""
        if not path.startswith("/") or path.startswith("//"):
            # An absolute URL would make httpx ignore base_url and send the key elsewhere.
            raise ConfigurationError(
                f"console paths are relative to {constants.SETTING_BASE_URL} and start with '/', got {path!r}"
            )
        if self._first_answer.is_set():
            return self._send_answered(endpoint, path, params, json_body, item_id)
        with self._first_request:
            if self._first_answer.is_set():  # another thread's first request was answered meanwhile
                return self._send_answered(endpoint, path, params, json_body, item_id)
            try:
                return self._send_answered(endpoint, path, params, json_body, item_id)
            finally:
                self._first_answer.set()

    def _on_response_head(self, response: httpx.Response) -> None:
        # Called when the status line and headers are in, before the body is read. A success means
        # the key is accepted: the other threads need not wait for the first answer's body (a page
        # of 1,000 gates takes most of a second to read). Errors keep them waiting until handled.
        if response.is_success:
            self._first_answer.set()

    def _send_answered(
        self,
        endpoint: Endpoint,
        path: str,
        params: Mapping[str, Any] | None,
        json_body: Any,
        item_id: str | None,
    ) -> tuple[int, dict]:
        if self._rejected is not None and endpoint.auth == "console":
            raise self._rejected
        if self._reads_forbidden is not None and endpoint.method == "GET":
            raise self._reads_forbidden
        headers = self._headers(endpoint)
        began = self._clock()
        attempt = 0
        asking = self._take_turn(endpoint)
        answered = False
        try:
            while True:
                attempt += 1
                permit = self.rate_limiter.acquire(background=getattr(_thread_role, "reads_ahead", False))
                self.stats.record_throttle_wait(permit.waited)
                self.stats.record_request(endpoint.template)
                sent_at = self._clock()
                wire = WireTimes(self._clock)
                try:
                    try:
                        response = self._attempt(endpoint, path, params, json_body, headers, permit, item_id, wire)
                    finally:
                        self.rate_limiter.release(permit, wire.sent_at, wire.answered_at)
                    answered = True
                    self._notify(endpoint, response[0], attempt, sent_at)
                    return response
                except ConsoleError as failure:
                    answered = True  # an answer about this request (4xx), not the endpoint failing
                    self._notify(endpoint, failure.status, attempt, sent_at, failure.message)
                    if isinstance(failure, AuthError) and endpoint.auth == "console":
                        self._rejected = failure
                    elif isinstance(failure, ForbiddenError) and endpoint.method == "GET":
                        # Every read needs the same permission: one refusal is the answer for all.
                        self._reads_forbidden = failure
                    raise
                except _Retry as transient:
                    self._notify(endpoint, transient.error.status, attempt, sent_at, transient.error.message)
                    delay = self._retry_delay(endpoint, transient, attempt, began)
                    if not asking and not transient.throttled:
                        # The endpoint failed: its requests wait for one of them to retry it (a quota's 429 is
                        # the console's whole pace, not this endpoint's fault: each request waits its own).
                        asking = self._take_turn(endpoint, failed=True)
                        if not asking:
                            continue  # it was answered while this request waited: ask again now
                    if transient.throttled:
                        self.stats.record_throttle_wait(delay)
                    self._pause(delay)
                    self._raise_if_given_up(endpoint)
        finally:
            # a request answered while another asks for the endpoint ends the wait of those behind it too
            if asking or (answered and endpoint.template not in self._answered):
                self._end_turn(endpoint, answered, asking)

    def _notify(self, endpoint: Endpoint, status: int | None, attempt: int, sent_at: float, error: str | None = None) -> None:
        self.stats.notify(RequestEvent(endpoint.method, endpoint.template, status, attempt, self._clock() - sent_at, error))

    def _retry_delay(self, endpoint: Endpoint, transient: _Retry, attempt: int, began: float) -> float:
        """The wait before retrying after `transient`; raises instead when the retries or their time are spent."""
        if not endpoint.retry:
            raise self._unretried_create_error(endpoint, transient.error) from None
        delay = self._backoff(attempt, transient.retry_after)
        spent = self._clock() - began
        if attempt >= self.options.max_attempts or spent + delay > self.options.max_retry_time:
            given_up = self._given_up_error(transient, attempt, spent)
            if not transient.throttled:  # a quota's long wait is said as such, id by id
                self._give_up(endpoint, given_up)
            raise given_up from None
        log.warning("%s; retry %d/%d in %.2f s", transient.error.message, attempt, self.options.max_attempts - 1, delay)
        self.stats.record_retry(endpoint.template)
        return delay

    def _given_up_error(self, transient: _Retry, attempt: int, spent: float) -> ConsoleError:
        """The last transient error, saying how long it was retried (and a wait asked for past the limit)."""
        error = transient.error
        asked = (
            f"; it asked to wait {transient.retry_after:.0f} s, longer than sources.console.max_retry_time "
            f"({self.options.max_retry_time:.0f} s)"
            if transient.retry_after is not None and transient.retry_after > self.options.max_retry_time
            else ""
        )
        return type(error)(
            f"{error.message} (gave up after {attempt} attempt{'s' if attempt > 1 else ''} in {spent:.1f} s{asked})",
            status=error.status,
            field_errors=error.field_errors,
            method=error.method,
            path=error.path,
        )

    def _take_turn(self, endpoint: Endpoint, *, failed: bool = False) -> bool:
        """Whether this request asks `endpoint` now as the one whose outcome the others wait for (`_end_turn` ends
        it): True while the console has not answered it (or `failed`: a request of it just failed), after waiting
        for the request asking before; False once it is answered. Raises the error it gave up with."""
        with self._turns:
            if failed:
                self._answered.discard(endpoint.template)
            while True:
                self._raise_if_given_up(endpoint)
                if endpoint.template in self._answered:
                    return False
                if endpoint.template not in self._asking:
                    self._asking.add(endpoint.template)
                    return True
                self._turns.wait()

    def _end_turn(self, endpoint: Endpoint, answered: bool, asking: bool) -> None:
        with self._turns:
            if asking:
                self._asking.discard(endpoint.template)
            if answered:
                self._answered.add(endpoint.template)
            self._turns.notify_all()

    def _give_up(self, endpoint: Endpoint, error: ConsoleError) -> None:
        with self._turns:
            self._gave_up.setdefault(endpoint.template, error)
            if len(self._gave_up) >= 2:
                self._down.set()
            self._turns.notify_all()

    def _raise_if_given_up(self, endpoint: Endpoint) -> None:
        """The error an endpoint (or the whole console) gave up with, raised again instead of asking."""
        with self._turns:
            error = self._gave_up.get(endpoint.template) or (next(iter(self._gave_up.values())) if self._down.is_set() else None)
        if error is not None:
            raise type(error)(error.message, status=error.status, method=error.method, path=error.path)

    def _pause(self, seconds: float) -> None:
        """The wait before a retry; woken when the console is found down (an injected clock's sleep is its own)."""
        if self._sleep is time.sleep:
            self._down.wait(seconds)
        else:
            self._sleep(seconds)

    def _attempt(
        self,
        endpoint: Endpoint,
        path: str,
        params: Mapping[str, Any] | None,
        json_body: Any,
        headers: dict[str, str],
        permit: Permit,
        item_id: str | None,
        wire: WireTimes | None = None,
    ) -> tuple[int, dict]:
        method = endpoint.method
        where = f"{method} {path}"
        query = {k: (list(v) if isinstance(v, (list, tuple)) else v) for k, v in (params or {}).items() if v is not None}
        try:
            response = self._http.request(
                method,
                path,
                params=query or None,
                json=json_body,
                headers=headers,
                extensions={"trace": wire.trace} if wire is not None else None,
            )
        except _NOT_SENT as exc:
            error = TransportError(
                f"{where}: could not connect to {self.options.base_url} ({type(exc).__name__}); nothing was sent",
                method=method,
                path=path,
            )
            if endpoint.retry:
                raise _Retry(error) from None
            raise error from None
        except httpx.TransportError as exc:  # timeouts, dropped connections, protocol errors
            raise _Retry(
                TransportError(
                    f"{where}: no answer from the console ({type(exc).__name__}: {one_line(str(exc), 120)})",
                    method=method,
                    path=path,
                )
            ) from None
        self._note_server_time(response)
        status = response.status_code
        log.debug("%s -> HTTP %d%s", where, status, f" {query}" if query else "")

        if 200 <= status < 300:
            return status, self._answer_body(response, endpoint, path, where)

        server_message, field_errors = _error_body(response)
        if status == 429:
            retry_after = _retry_after(response)
            self.stats.record_throttled()
            # A wait past max_retry_time is one nobody makes (this request gives up, and so will every other
            # one the console throttles): pausing the shared limiter for it would only hold the others back.
            beyond_budget = retry_after is not None and retry_after > self.options.max_retry_time
            self.rate_limiter.on_throttled(permit, None if beyond_budget else retry_after)
            raise _Retry(
                ThrottledError(
                    f"the console throttled {where} (HTTP 429): lower sources.console.rate_limit_requests "
                    "or run fewer extractions at once",
                    status=status,
                    method=method,
                    path=path,
                ),
                retry_after=retry_after,
                throttled=True,
            )
        if status >= 500:
            raise _Retry(
                ServerError(
                    f"the console failed on {where} (HTTP {status}: {server_message}); try again later",
                    status=status,
                    method=method,
                    path=path,
                ),
                retry_after=_retry_after(response),
            )
        raise self._client_error(endpoint, where, status, server_message, field_errors, item_id)

    @staticmethod
    def _answer_body(response: httpx.Response, endpoint: Endpoint, path: str, where: str) -> dict:
        """A 2xx answer's JSON object; an update whose answer is unreadable is done all the same."""
        status = response.status_code
        if not response.content.strip():
            return {}  # SCIM answers 200 with no documented body
        try:
            body = response.json()
        except ValueError:
            body = None
        if isinstance(body, dict):
            return body
        if endpoint.method != "GET" and endpoint.retry:
            # An update was done (2xx); only its answer is unreadable, and sending it again would not make
            # it readable (SCIM's answer body is not documented at all). A create says what to check instead.
            log.warning("%s: HTTP %d with a body that is not a JSON object; the write was accepted", where, status)
            return {}
        raise _Retry(
            TransportError(
                f"{where}: HTTP {status} with a malformed or truncated JSON body",
                status=status,
                method=endpoint.method,
                path=path,
            )
        )

    def _client_error(
        self, endpoint: Endpoint, where: str, status: int, server_message: str, field_errors: list, item_id: str | None
    ) -> ConsoleError:
        method, path = endpoint.method, endpoint.template
        if status == 401:
            if endpoint.auth == "scim":
                text = (
                    f"the console rejected the SCIM token (HTTP 401): check {constants.SETTING_SCIM_TOKEN} / "
                    f"{constants.ENV_SCIM_TOKEN} ({where}: {server_message})"
                )
            else:
                text = (
                    f"the console rejected the API key (HTTP 401): check {constants.SETTING_API_KEY} / "
                    f"{constants.ENV_API_KEY} ({where}: {server_message})"
                )
            return AuthError(text, status=status, method=method, path=path)
        if status == 403:
            return ForbiddenError(
                f"the console refused {where} (HTTP 403: {server_message}): this needs {endpoint.permission}",
                status=status,
                method=method,
                path=path,
            )
        if status == 404:
            what = f"{endpoint.noun} {item_id!r}" if item_id is not None else endpoint.noun
            return NotFoundError(
                f"{what} not found ({where}, HTTP 404: {server_message})", status=status, method=method, path=path
            )
        if status == 400:
            details = "; ".join(f"{e.get('property')}: {e.get('errorMessage')}" for e in field_errors if isinstance(e, dict))
            return ValidationError(
                f"the console rejected {where} (HTTP 400: {server_message}){': ' + details if details else ''}",
                status=status,
                field_errors=field_errors,
                method=method,
                path=path,
            )
        return ConsoleError(f"unexpected HTTP {status} from {where}: {server_message}", status=status, method=method, path=path)

    def _unretried_create_error(self, endpoint: Endpoint, error: ConsoleError) -> ConsoleError:
        """A create is sent once. An error status is a definite failure; no answer is an unknown outcome."""
        status, method, path = error.status, error.method, error.path
        if status == 429:
            return ThrottledError(
                f"{error.message}; the {endpoint.noun} was not created, it is safe to try again later",
                status=status, method=method, path=path,
            )  # fmt: skip
        if status is not None and status >= 500:
            return ServerError(
                f"{error.message}; creates are not retried: check whether the {endpoint.noun} exists before trying again",
                status=status, method=method, path=path,
            )  # fmt: skip
        # No answer at all, or a 2xx whose body we could not read.
        return OutcomeUnknownError(
            f"{error.message}; the {endpoint.noun} may or may not have been created: check the console "
            f"(list or open it by name) before creating it again",
            status=status, method=method, path=path,
        )  # fmt: skip

    def _backoff(self, attempt: int, retry_after: float | None) -> float:
        if retry_after is not None:
            return max(0.0, retry_after)
        ceiling = min(constants.BACKOFF_CAP_S, constants.BACKOFF_BASE_S * 2 ** (attempt - 1))
        return self._jitter() * ceiling

    def _note_server_time(self, response: httpx.Response) -> None:
        stamp = _http_date(response.headers.get("Date"))
        if stamp is not None:
            with self._time_lock:
                self._server_time = stamp


# --------------------------------------------------------------------------- helpers


def _endpoint_for_list(path: str) -> Endpoint:
    for endpoint in ENDPOINTS:
        if endpoint.method == "GET" and endpoint.template == path:
            return endpoint
    return Endpoint("GET", path, "list", True, _READ)


def _http_date(value: str | None) -> datetime | None:
    if not value:
        return None
    try:
        stamp = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if stamp.tzinfo is None:
        stamp = stamp.replace(tzinfo=UTC)
    return stamp.astimezone(UTC)


def _retry_after(response: httpx.Response) -> float | None:
    """Seconds to wait from `Retry-After`: delta-seconds, or an HTTP date measured against
    the response's own `Date` (the server's clock, immune to local skew) else our clock."""
    value = response.headers.get("Retry-After")
    if not value:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    until = _http_date(value)
    if until is None:
        return None
    now = _http_date(response.headers.get("Date")) or datetime.now(UTC)
    return max(0.0, (until - now).total_seconds())


def _error_body(response: httpx.Response) -> tuple[str, list[dict]]:
    """(one-line redacted server message, field errors) from `{status, message, errors?}`."""
    try:
        body = response.json()
    except ValueError:
        body = None
    if isinstance(body, dict):
        message = body.get("message")
        errors = body.get("errors")
        text = message if isinstance(message, str) and message else response.reason_phrase or "no message"
        return redact(one_line(text, 200)), [e for e in errors if isinstance(e, dict)] if isinstance(errors, list) else []
    text = response.text.strip() or response.reason_phrase or "no message"
    return redact(one_line(text, 200)), []
