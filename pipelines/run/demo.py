"""`--demo`: two projects' consoles, small twins in this process, and the source settings that point at them.

The twins are reached through an in-process transport at a fixed, unroutable base URL, each project
under its own key as the hosted service tells projects apart, so the demo's consoles are the same on
every run (a dataset records which console it holds, and a loopback port would change each time), and
nothing listens on a port.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

# `.invalid` is reserved (RFC 2606): no real console can have this address.
DEMO_BASE_URL = "http://console-twin.demo.invalid"


# Two projects, as a company with a web and a mobile app has: each its own organisation and server key.
DEMO_PROJECTS = {"web": ("small", 0), "mobile": ("small", 1)}


@contextlib.contextmanager
def demo_consoles() -> Iterator[dict[str, dict[str, Any]]]:
    """The demo's projects, served by one console twin host in this process, and each one's source settings."""
    from gatehouse.console_twin import ConsoleHost

    host = ConsoleHost.of(DEMO_PROJECTS)
    transport = host.transport()
    yield {name: twin_source_args(twin, DEMO_BASE_URL, transport=transport) for name, twin in host.twins.items()}


def twin_source_args(twin: Any, base_url: str, **overrides: Any) -> dict[str, Any]:
    """The source settings that reach a console twin at `base_url` (`transport`: in this process, without a port):
    its key, and the experiments and ingestion runs it holds, which a real console's user lists by hand."""
    return {
        "base_url": base_url,
        "api_key": twin.settings.api_key,
        "experiment_ids": list(twin.experiment_ids),
        "ingestion_run_ids": list(twin.ingestion_run_ids),
        **overrides,
    }
