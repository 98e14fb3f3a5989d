"""`--demo`: a small console twin in this process, and the source settings that point at it.

The twin is reached through an in-process transport at a fixed, unroutable base URL, so the demo's
console is the same console on every run (a dataset records which console it holds, and a loopback
port would change each time), and nothing listens on a port.
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any, Iterator

# `.invalid` is reserved (RFC 2606): no real console can have this address.
DEMO_BASE_URL = "http://console-twin.demo.invalid"
# The demo keeps to its own file: `gatehouse run --demo` never writes into a real console's history.
DEMO_DUCKDB = Path("demo.duckdb")


@contextlib.contextmanager
def demo_console() -> Iterator[dict[str, Any]]:
    """A small console twin, and the source settings that point at it."""
    from gatehouse.console_twin import ConsoleTwin

    twin = ConsoleTwin(size="small")
    yield {
        "base_url": DEMO_BASE_URL,
        "api_key": twin.settings.api_key,
        "experiment_ids": list(twin.experiment_ids),
        "ingestion_run_ids": list(twin.ingestion_run_ids),
        "transport": twin.transport(),
    }

