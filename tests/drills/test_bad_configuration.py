"""Bad configuration: one clear line naming the setting to fix, exit code 2, and nothing loaded.

Each case runs `gatehouse run` as a scheduler would, settings from the environment only, against a
database loaded before by a fault-free run: the failed run must leave it exactly as it was.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass

import pytest

from gatehouse.pipelines.cli.main import main
from tests.conftest import closed_port
from tests.drills.conftest import copy_database, make_twin
from tests.drills.snapshot import assert_same_tables, snapshot

pytestmark = pytest.mark.usefixtures("quick_backoff")

# Secrets of these drills: no ordinary words in them (a key holding "forbidden" would mask that word in
# the console's 403 text, as docs/client.md accepts).
KEY = "console-Qv7Xk2Lp9Rt4Zm8Wn3"
WRONG_KEY = "console-Hj4Bd8Sx1Ny6Pc5Gt7"
NO_PERMISSION_KEY = "console-Ue2Ka9Wf3Mr7Yb6Do4"


@dataclass(frozen=True)
class Case:
    settings: Callable[[str], dict[str, str]]  # twin base URL -> SOURCES__CONSOLE__* values
    names: tuple[str, ...]  # what the error line must say (the setting, and the cause)
    reaches_console: bool = True
    options: tuple[str, ...] = ()  # of `gatehouse run`


def with_key(url: str, **extra: str) -> dict[str, str]:
    return {"BASE_URL": url, "API_KEY": KEY, **extra}


CASES = {
    "missing key": Case(lambda url: {"BASE_URL": url}, ("sources.console.api_key", "SOURCES__CONSOLE__API_KEY"), False),
    "missing base URL": Case(lambda url: {"API_KEY": KEY}, ("sources.console.base_url", "SOURCES__CONSOLE__BASE_URL"), False),
    "wrong key (401)": Case(lambda url: {"BASE_URL": url, "API_KEY": WRONG_KEY}, ("sources.console.api_key", "401")),
    "key without permission (403)": Case(
        lambda url: {"BASE_URL": url, "API_KEY": NO_PERMISSION_KEY}, ("sources.console.api_key", "403")
    ),
    "base URL unreachable": Case(
        lambda url: {"BASE_URL": f"http://127.0.0.1:{closed_port()}", "API_KEY": KEY},
        ("sources.console.base_url", "could not connect"),
    ),
    "non-http base URL": Case(lambda url: with_key("ftp://console.example.com"), ("sources.console.base_url", "http"), False),
    "base URL with the API prefix": Case(
        lambda url: with_key(url + "/console/v1"), ("sources.console.base_url", "/console/v1"), False
    ),
    "experiment ids not JSON": Case(
        lambda url: with_key(url, EXPERIMENT_IDS="exp_a, exp_b"), ("sources.console.experiment_ids", "JSON list"), False
    ),
    "holdout ids not a list": Case(
        lambda url: with_key(url, HOLDOUT_IDS='{"h1": true}'), ("sources.console.holdout_ids", "JSON list"), False
    ),
    "run ids truncated JSON": Case(
        lambda url: with_key(url, INGESTION_RUN_IDS='["r1", "r2"'), ("sources.console.ingestion_run_ids", "JSON list"), False
    ),
    "page size not a number": Case(lambda url: with_key(url, PAGE_SIZE="ten"), ("sources.console.page_size",), False),
    "unknown destination": Case(
        lambda url: with_key(url), ("--destination", "warehouse9"), False, ("--destination", "warehouse9")
    ),
    "destination that cannot be reached": Case(
        lambda url: with_key(url), ("destination postgres: ", "Connection refused"), False, ("--destination", "postgres")
    ),
}
POSTGRES_PASSWORD = "pgpw-Tn6Wd1Rc8Yh3"


@pytest.mark.parametrize("case", CASES)
def test_bad_configuration_fails_with_one_line_naming_the_setting(case, reference, reference_path, tmp_path, monkeypatch, capsys):
    twin = make_twin(api_key=KEY, forbidden_keys={NO_PERMISSION_KEY})
    database = copy_database(reference_path, tmp_path / "gatehouse.duckdb")
    monkeypatch.chdir(tmp_path)
    for name in [n for n in os.environ if n.startswith("SOURCES__")]:
        monkeypatch.delenv(name)
    monkeypatch.setenv("RUNTIME__DLTHUB_TELEMETRY", "false")  # as the project's .dlt/config.toml, not found here

    with twin.serve() as base_url:
        for name, value in CASES[case].settings(base_url).items():
            monkeypatch.setenv(f"SOURCES__CONSOLE__{name}", value)
        monkeypatch.setenv(
            "DESTINATION__POSTGRES__CREDENTIALS", f"postgresql://loader:{POSTGRES_PASSWORD}@127.0.0.1:{closed_port()}/dw"
        )
        monkeypatch.setenv("DLT_DATA_DIR", str(tmp_path / "dlt"))  # where a pipeline of another destination keeps its state
        capsys.readouterr()
        code = main(["run", "--no-progress", "--duckdb", str(database), *CASES[case].options])
    out, err = capsys.readouterr()

    assert code == 2
    errors = [line for line in err.splitlines() if line.startswith("gatehouse: error:")]
    assert len(errors) == 1, err
    for expected in CASES[case].names:
        assert expected in errors[0], errors[0]
    assert out == ""
    for secret in (KEY, WRONG_KEY, NO_PERMISSION_KEY, POSTGRES_PASSWORD):
        assert secret[8:18] not in out + err
    if not CASES[case].reaches_console:
        assert twin.requests == [], "refused before any request"
    else:
        assert len({r.path for r in twin.requests}) <= 1, "stopped at the first operation"
    assert_same_tables(snapshot(database), reference, "the database after the failed run")
