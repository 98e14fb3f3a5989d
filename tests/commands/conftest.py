"""Console commands against the twin over loopback, with sentinel secrets that no output may hold.

Every command run goes through the `gatehouse` fixture, which records its stdout and stderr in
`TRANSCRIPT` and checks them for the sentinels at once; `test_zz_secret_scan.py` scans the whole
transcript again at the end of the suite.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from gatehouse.console_twin.settings import TwinSettings
from gatehouse.console_twin.twin import ConsoleTwin
from gatehouse.pipelines.cli.main import main
from tests.secret_scan import CommandOutput, leak_check

# Random-looking values: no 10-character run of one can turn up in an output by chance.
SECRETS: dict[str, str] = {
    "api_key": "console-7Qx2Lm9Wv4RbT3nY8pK1",
    "wrong_api_key": "console-Jd5Fs8Ka1LpW6eR0tZ4u",
    "forbidden_api_key": "console-Nc4Hv7Bq2TyM9kX3sD6f",
    "scim_token": "scim-K8p3Zr6Tn1WqB5vC0xJ7h",
    "wrong_scim_token": "scim-Ae3Gh5Jk7LzQ2wE9rT4yU",
    "snowflake_password": "Pw-R5t8Yu2Io0ExV6bN3mQ1z",
    "snowflake_private_key": (
        "-----BEGIN ENCRYPTED PRIVATE KEY-----\n"
        "MIIFHDBOBgkqhkiG9w0BBQ0wQTApB3n6Mq9Xc2Vw0LmTgY5hU8jK\n"
        "QxT7y4Pq1Lz8NmAbCdEfGh2sW4eR6tY8uI0oP\n"
        "-----END ENCRYPTED PRIVATE KEY-----\n"
    ),
    "snowflake_key_passphrase": "Kp-Ug6Wm3Qe9RdH2jL5nB8vX",
    "databricks_access_token": "dapiH4j7Kl0Pz3XsF6gA9qW2eC5r",
    "bigquery_private_key": (
        "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqW2e4R6t8Y0u1I3o5P7aS9dFz3Xc6Vb9Nm\n-----END PRIVATE KEY-----\n"
    ),
}
leaked_secrets = leak_check(SECRETS)


TRANSCRIPT: list[CommandOutput] = []  # every command run of the session, for the final scan
SECRETS_SEEN_BY_TWIN: set[str] = set()  # proof that the sentinels were really in play


@dataclass
class Run:
    code: int
    out: str
    err: str

    def json(self) -> Any:
        return json.loads(self.out)

    @property
    def error_line(self) -> str:
        lines = [line for line in self.err.splitlines() if line.startswith("gatehouse: error:")]
        assert len(lines) == 1, f"expected one error line, got: {self.err!r}"
        return lines[0]


def record(argv: list[str], code: int, out: str, err: str) -> None:
    TRANSCRIPT.append(CommandOutput(list(argv), code, out, err))
    leaked = leaked_secrets(out + err)
    assert not leaked, f"{leaked} appeared in the output of {argv}"


def note_secrets_seen(twin: ConsoleTwin) -> None:
    for request in twin.requests:
        text = json.dumps(request.headers) + request.body.decode("utf-8", "replace")
        SECRETS_SEEN_BY_TWIN.update(name for name, value in SECRETS.items() if json.dumps(value)[1:-1] in text or value in text)


@pytest.fixture
def twin() -> ConsoleTwin:
    return ConsoleTwin(
        "small",
        seed=3,
        settings=TwinSettings(
            api_key=SECRETS["api_key"],
            scim_token=SECRETS["scim_token"],
            forbidden_keys={SECRETS["forbidden_api_key"]},
            slow_seconds=1.0,
        ),
    )


@pytest.fixture
def base_url(twin: ConsoleTwin) -> Iterator[str]:
    with twin.serve() as url:
        yield url
    note_secrets_seen(twin)


CONSOLE_ENV = ("SOURCES__CONSOLE__", "GATEHOUSE_")


@pytest.fixture(autouse=True)
def console_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """Only the settings a test gives: none from the developer's shell."""
    for name in list(os.environ):
        if name.startswith(CONSOLE_ENV):
            monkeypatch.delenv(name)
    # configure_logging() sets it once per process (setdefault); undone after each test like the rest.
    monkeypatch.delenv("RUNTIME__LOG_LEVEL", raising=False)
    monkeypatch.setenv("SOURCES__CONSOLE__API_KEY", SECRETS["api_key"])
    monkeypatch.setenv("SOURCES__CONSOLE__SCIM_TOKEN", SECRETS["scim_token"])
    # Failures come back fast: no retry waits beyond a few tenths of a second.
    monkeypatch.setenv("SOURCES__CONSOLE__MAX_RETRY_TIME", "1")
    monkeypatch.setenv("SOURCES__CONSOLE__MAX_ATTEMPTS", "2")


@pytest.fixture
def gatehouse(base_url: str, capsys: pytest.CaptureFixture):
    """Runs `gatehouse [-vv] console --base-url <twin> ARGS...` in-process; returns its Run."""

    def run(*args: str, verbose: bool = False, with_base_url: bool = True) -> Run:
        argv = (["-vv"] if verbose else []) + ["console"] + (["--base-url", base_url] if with_base_url else []) + list(args)
        capsys.readouterr()
        root = logging.getLogger()
        handlers, level = list(root.handlers), root.level
        try:
            code = main(argv)
        finally:
            # main() points a root handler at this test's captured stderr: the twin's threads log after the test.
            root.handlers[:], root.level = handlers, level
        out, err = capsys.readouterr()
        record(argv, code, out, err)
        return Run(code, out, err)

    return run
