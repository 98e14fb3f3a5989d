"""Imported by a command before it runs (tests/drills/forked_commands.py, `first`): psycopg2 cannot be imported, as on
a machine where `pip install "dlt[postgres]"` was never run."""

from __future__ import annotations

import sys

sys.modules["psycopg2"] = None  # type: ignore[assignment]
