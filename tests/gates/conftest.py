"""The cleanup tests' console of three gates (`new_checkout`, `old_banner`, `half_rollout`: tests/cleanup/conftest.py),
copied for each test; the command run in-process as a person named `test-person`."""

from __future__ import annotations

import pytest

from tests.cleanup.conftest import database, sample_console_db  # noqa: F401 - the console, a copy per test
from tests.code_refs.conftest import gatehouse  # noqa: F401 - the command run in-process, its output captured

USER = "test-person"


@pytest.fixture(autouse=True)
def _user(monkeypatch):
    """getpass reads these first: the row's `snoozed_by` is this, never the login of whoever runs the tests."""
    for name in ("LOGNAME", "USER", "LNAME", "USERNAME"):
        monkeypatch.setenv(name, USER)
