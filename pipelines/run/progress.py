"""Progress of a long run: one line per interval with pages, items and requests per resource."""

from __future__ import annotations

import logging
import sys
import threading
from typing import Any

from gatehouse.sources.console import constants
from gatehouse.sources.console.counts import ExtractionCounts

log = logging.getLogger("gatehouse.run")

# The client counts requests by endpoint; progress shows them by resource.
RESOURCE_ENDPOINTS = {
    "gates": constants.GATES_PATH,
    "dynamic_configs": constants.DYNAMIC_CONFIGS_PATH,
    "qualifying_events": constants.QUALIFYING_EVENTS_PATH,
    "holdouts": constants.HOLDOUT_PATH,
    "cumulative_exposures": constants.CUMULATIVE_EXPOSURES_PATH,
    "ingestion_runs": constants.INGESTION_RUN_PATH,
}


class Progress:
    """One line per interval: per resource pages and items, and the requests so far."""

    def __init__(self, counts: ExtractionCounts, interval_s: float = 2.0, enabled: bool = True, label: str = "") -> None:
        # label: the project, when several load side by side (each line says whose it is)
        self.counts, self.interval_s, self.enabled, self.label = counts, interval_s, enabled, label
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="gatehouse-progress", daemon=True)
        self._tty = sys.stderr.isatty()

    def line(self) -> str:
        stats = self.counts.request_stats()
        requests, retries = stats.get("by_endpoint", {}), stats.get("retries_by_endpoint", {})
        parts = []
        for name, progress in self.counts.snapshot().items():
            endpoint = RESOURCE_ENDPOINTS.get(name, "")
            pages = f" {progress.pages} pages" if progress.pages else ""
            parts.append(
                f"{name}: {progress.items} items{pages}, {requests.get(endpoint, 0)} requests, {retries.get(endpoint, 0)} retries"
            )
        return (
            f"{self.label + ': ' if self.label else ''}{stats.get('requests', 0)} requests, {stats.get('throttled', 0)}"
            " throttled | " + "; ".join(parts)
        )

    def _loop(self) -> None:
        while not self._stop.wait(self.interval_s):
            if self._tty and not self.label:
                sys.stderr.write("\r\033[K" + self.line()[:200])
                sys.stderr.flush()
            else:
                log.info("progress: %s", self.line())

    def __enter__(self) -> Progress:
        if self.enabled:
            self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._stop.set()
        if self.enabled:
            self._thread.join()
            if self._tty and not self.label:
                sys.stderr.write("\r\033[K")
