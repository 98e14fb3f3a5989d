"""Last in this folder: no output of any command run of the suite holds a secret it used.

Each run is checked as it happens (the `gatehouse` fixture); this scans the whole transcript once
more, and makes sure the scan was not vacuous: every sentinel secret was really sent to the twin.
"""

from __future__ import annotations

import pytest

from tests.commands.conftest import SECRETS, SECRETS_SEEN_BY_TWIN, TRANSCRIPT, leaked_secrets

# Sent where a real user's would be: headers (key, token) and warehouse bodies.
SENT_SECRETS = set(SECRETS)


def test_no_secret_in_any_output_of_the_suite():
    if len(TRANSCRIPT) < 100:
        pytest.skip("run the whole tests/commands suite: the scan needs its transcript")
    assert SECRETS_SEEN_BY_TWIN == SENT_SECRETS, f"never sent, so never tested: {SENT_SECRETS - SECRETS_SEEN_BY_TWIN}"
    leaks = [(run.argv, leaked_secrets(run.out + run.err)) for run in TRANSCRIPT if leaked_secrets(run.out + run.err)]
    assert leaks == []
    assert sum(run.code == 2 for run in TRANSCRIPT) > 50  # the error paths, where a secret would most likely slip
