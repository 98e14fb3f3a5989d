"""The console client a command talks through, built from `[sources.console]` settings and its options."""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from contextlib import contextmanager

from gatehouse.pipelines.cli.console.client_options import client_options_from_config
from gatehouse.sources.console.client import ConsoleClient


@contextmanager
def open_client(args: argparse.Namespace) -> Iterator[ConsoleClient]:
    """A client for `--base-url` (else the configured base URL), sending `x-respect-review-settings`
    when the command has `--respect-review-settings`."""
    options = client_options_from_config(
        base_url=getattr(args, "base_url", None),
        respect_review_settings=getattr(args, "respect_review_settings", None),
    )
    with ConsoleClient(options) as client:
        yield client
