"""Fixtures every test folder may use: one real PostgreSQL server per session, started only when asked for."""

from __future__ import annotations

import pytest

from tests.postgres_server import PostgresServer

# Not UTC on purpose: the views must give UTC wall-clock times whatever the warehouse's own time zone.
POSTGRES_TIMEZONE = "America/New_York"


@pytest.fixture(scope="session")
def postgres_server():
    """A PostgreSQL server on 127.0.0.1: `.database(name)` gives a fresh database's dlt credentials."""
    server = PostgresServer(timezone=POSTGRES_TIMEZONE).start()
    try:
        yield server
    finally:
        server.stop()
