"""`--demo`: a small console twin on a free loopback port, and the source settings that point at it."""

from __future__ import annotations

import contextlib
from typing import Any, Iterator


@contextlib.contextmanager
def demo_console() -> Iterator[dict[str, Any]]:
    """A small console twin on a free loopback port, and the source settings that point at it."""
    from console_twin import ConsoleTwin

    twin = ConsoleTwin(size="small")
    with twin.serve() as base_url:
        yield {
            "base_url": base_url,
            "api_key": twin.settings.api_key,
            "experiment_ids": list(twin.experiment_ids),
            "ingestion_run_ids": list(twin.ingestion_run_ids),
        }


