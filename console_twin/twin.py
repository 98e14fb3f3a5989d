"""ConsoleTwin: a faithful local console, served in-process (httpx transport) or over loopback HTTP.

The facade: it builds the organisation, its clock, the request log, the throttle and the service, hands
each what it needs, and serves the service through either transport. Nothing below it imports it.
"""

from __future__ import annotations

import copy
import logging
import random
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from typing import Any, Generic, TypeVar

import httpx

from gatehouse.console_twin.clock import Clock
from gatehouse.console_twin.generator import build_gate, build_organisation, mark_created
from gatehouse.console_twin.http_server import Console, console_server
from gatehouse.console_twin.organisation import Organisation
from gatehouse.console_twin.service import Answer, ConsoleService
from gatehouse.console_twin.settings import PageServed, TwinSettings
from gatehouse.console_twin.traffic import RateLimiter, RecordedRequest, RequestLog

log = logging.getLogger("console_twin")

T = TypeVar("T")


class Served:
    """Both transports of a console (a twin, or a host of several): in-process and over loopback HTTP."""

    def transport(self: Console) -> httpx.MockTransport:
        """An in-process transport for httpx.Client: the same behaviour as over HTTP, without sockets."""
        return console_transport(self)

    @contextmanager
    def serve(self: Console, host: str = "127.0.0.1", port: int = 0) -> Iterator[str]:
        """Serves over HTTP on a free loopback port (or `port`) while the block runs; yields the base URL."""
        with serving(self, host, port) as base_url:
            yield base_url


class OfTheService(Generic[T]):
    """An attribute of the twin that is its service's: read and replaced through the twin, the service reads the new
    one on its next request (a drill swaps a live twin's settings or throttle)."""

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, twin: Any, owner: type | None = None) -> T:
        return getattr(twin._service, self.name)

    def __set__(self, twin: Any, value: T) -> None:
        setattr(twin._service, self.name, value)


class ConsoleTwin(Served):
    """A console organisation, deterministic from (size, seed, days advanced), behind the console interface."""

    def __init__(self, size: str = "small", seed: int = 0, settings: TwinSettings | None = None) -> None:
        self.size = size
        self.seed = seed
        self.organisation: Organisation = build_organisation(size, seed)
        # One lock for the organisation: operations, advance and drill helpers never interleave.
        self.lock = threading.RLock()
        self.clock = Clock(self.organisation, size, self.lock)
        self.request_log = RequestLog()
        self._service = ConsoleService(
            organisation=self.organisation,
            clock=self.clock,
            settings=settings or TwinSettings(),
            request_log=self.request_log,
            rate_limiter=RateLimiter(),
            lock=self.lock,
            write_ids=random.Random(f"console-twin:{size}:{seed}:writes"),
        )
        self._drill_ids = random.Random(f"console-twin:{size}:{seed}:drills")

    # --- what the service reads on each request: replaceable on a live twin ---------------------------
    settings = OfTheService[TwinSettings]()
    rate_limiter = OfTheService[RateLimiter]()

    # --- the clock -------------------------------------------------------------------------------------
    @property
    def now(self) -> datetime:
        return self.clock.now

    @property
    def days_advanced(self) -> int:
        return self.clock.days_advanced

    def http_date(self) -> str:
        return self.clock.http_date()

    def advance(self, days: int = 1) -> None:
        """Moves the clock by whole days; each day changes gates, configs, exposures and runs."""
        self.clock.advance(days)

    # --- ids a client must be configured with -----------------------------------------------------------
    @property
    def experiment_ids(self) -> list[str]:
        return list(self.organisation.experiments)

    @property
    def holdout_ids(self) -> list[str]:
        return list(self.organisation.holdouts)

    @property
    def ingestion_run_ids(self) -> list[str]:
        """Runs that exist at the twin's clock, oldest first; advancing schedules more."""
        return self.organisation.visible_run_ids()

    # --- drill helpers -----------------------------------------------------------------------------------
    def create_gate(self, gate_id: str | None = None, **fields: object) -> dict:
        """Creates a TEMPORARY gate now (newest, so first in the list); `fields` override its public fields.

        Returns a copy of the stored gate.
        """
        with self.lock:
            org = self.organisation
            gate, facts = build_gate(self._drill_ids, org, "fresh", taken=org.gates)
            if gate_id is not None:
                gate["id"] = gate_id
                gate["name"] = gate_id
            if gate["id"] in org.gates:
                raise ValueError(f"gate {gate['id']} already exists")
            mark_created(gate, org.now_ms)
            gate.update(status="In Progress", isEnabled=True, checksPerHour=None)
            gate.update(fields)
            # Not yet wired into any code: never checked.
            facts.first_check_ms, facts.last_check_ms, facts.still_checked = None, None, False
            org.add_gate(gate, facts)
            org.reclassify_gates()
            return dict(gate)

    def delete_gate(self, gate_id: str) -> None:
        """Deletes a gate for good: gone from the list and 404 when read (unlike archiving)."""
        with self.lock:
            if gate_id not in self.organisation.gates:
                raise KeyError(gate_id)
            self.organisation.remove_gate(gate_id)
            self.organisation.reclassify_gates()

    def create_dynamic_config(self, config_id: str | None = None, **fields: object) -> dict:
        """Creates an enabled dynamic config now (newest, so first in the list), shaped like the newest
        listed one; `fields` override its public fields (`createdTime` moves it in the list).

        Returns a copy of the stored config.
        """
        with self.lock:
            org = self.organisation
            template = org.listed_dynamic_configs()[0]
            config = copy.deepcopy(template)
            config_id = config_id or f"drill_config_{self._drill_ids.randrange(16**8):08x}"
            if config_id in org.dynamic_configs:
                raise ValueError(f"dynamic config {config_id} already exists")
            config.update(id=config_id, name=config_id, status="Enabled", isEnabled=True, holdoutIDs=[], version=1)
            config.update(createdTime=org.now_ms, lastModifiedTime=org.now_ms)
            config.update(fields)
            org.dynamic_configs[config_id] = config
            return copy.deepcopy(config)

    def delete_dynamic_config(self, config_id: str) -> None:
        """Deletes a dynamic config for good: gone from the list (unlike archiving, it cannot come back)."""
        with self.lock:
            if config_id not in self.organisation.dynamic_configs:
                raise KeyError(config_id)
            del self.organisation.dynamic_configs[config_id]
            self.organisation.status_before_archive.pop(config_id, None)

    # --- transports --------------------------------------------------------------------------------------
    def answer(self, method: str, target: str, headers: dict[str, str], body: bytes) -> Answer:
        """One request, whatever carried it. `target` is the path with its query; header names lower-case."""
        settings = self.settings  # the settings the request arrives under, as the service reads them
        answer = self._service.handle(method, target, headers, body)
        # The hook runs last, outside the lock, and is handed the twin: it may call the drill helpers.
        if answer.page_served and settings.after_page is not None:
            endpoint, page, limit, items = answer.page_served
            settings.after_page(PageServed(endpoint, page, limit, items, self))
        return answer

    # --- what was asked ----------------------------------------------------------------------------------
    @property
    def requests(self) -> list[RecordedRequest]:
        return self.request_log.records()

    def reset_requests(self) -> None:
        """Forgets recorded requests; sequence numbers (and faults keyed on them) count from 1 again."""
        self.request_log.reset()

    def max_requests_in_window(self, seconds: float) -> int:
        return self.request_log.max_in_window(seconds)


def console_transport(console: Console) -> httpx.MockTransport:
    """An in-process transport for httpx.Client to `console` (a twin, or a host of several)."""

    def handle(request: httpx.Request) -> httpx.Response:
        headers = {name.lower(): value for name, value in request.headers.items()}
        answer = console.answer(request.method, request.url.raw_path.decode("ascii"), headers, request.read())
        if answer.fault == "drop":
            raise httpx.RemoteProtocolError("Server disconnected without sending a response.", request=request)
        if answer.fault == "slow":
            raise httpx.ReadTimeout("The console twin held its answer longer than the client waits.", request=request)
        return httpx.Response(answer.status, headers={**answer.headers, "Date": console.http_date()}, content=answer.body)

    return httpx.MockTransport(handle)


@contextmanager
def serving(console: Console, host: str = "127.0.0.1", port: int = 0) -> Iterator[str]:
    """`console` over HTTP on a free loopback port (or `port`) while the block runs; yields the base URL."""
    server = console_server(console, host, port)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True, name="console-twin-http")
    thread.start()
    base_url = f"http://{host}:{server.server_port}"
    log.info("console twin serving on %s", base_url)
    try:
        yield base_url
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
