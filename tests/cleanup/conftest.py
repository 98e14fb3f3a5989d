"""A console of three stale gates, whose decisions are known, and the sample repository that checks them.

- `new_checkout`: marked STALE (STALE_PROBABLY_LAUNCHED), status Launched, an everyone rule at 100%: `true`.
- `old_banner`: marked STALE (STALE_PROBABLY_UNLAUNCHED), Disabled: `false`.
- `half_rollout`: meets the stale rules, checked, an everyone rule at 50% (STALE_PROBABLY_FORGOTTEN): a person decides.

The repository is `tests/cleanup/sample/`, committed on branch main; what each gate's branch must hold is
`tests/cleanup/expected/<gate>/`.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import dlt
import pytest

from gatehouse.pipelines.warehouse.destination import Destination
from tests.code_refs.conftest import gatehouse  # noqa: F401 - the command run in-process, its output captured
from tests.views.console_dataset import EVERYONE, SECOND_LOAD_AT, console_pipeline, gate, rule

HERE = Path(__file__).parent
SAMPLE = HERE / "sample"
EXPECTED = HERE / "expected"
# who commits in the tests: never the user's own git identity or configuration
GIT_ENV = {
    "GIT_AUTHOR_NAME": "Test Person",
    "GIT_AUTHOR_EMAIL": "test@example.com",
    "GIT_COMMITTER_NAME": "Test Person",
    "GIT_COMMITTER_EMAIL": "test@example.com",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_CONFIG_NOSYSTEM": "1",
}


def sample_gates() -> list[dict]:
    return [
        gate(
            "new_checkout",
            created="2026-03-01T00:00:00Z",
            modified="2026-06-01T00:00:00Z",
            owner="alice",
            team="Payments",
            rules=[rule("nc1", "everyone", 100, EVERYONE)],
            checks=250,
            type_="STALE",
            type_reason="STALE_PROBABLY_LAUNCHED",
            status="Launched",
        ),
        gate(
            "old_banner",
            created="2026-02-01T00:00:00Z",
            modified="2026-05-01T00:00:00Z",
            owner="bob",
            team="Growth",
            rules=[rule("ob1", "everyone", 0, EVERYONE)],
            checks=None,
            type_="STALE",
            type_reason="STALE_PROBABLY_UNLAUNCHED",
            status="Disabled",
            enabled=False,
        ),
        gate(
            "half_rollout",
            created="2026-04-01T00:00:00Z",
            modified="2026-07-01T00:00:00Z",
            owner="carol",
            team="Search",
            rules=[rule("hr1", "everyone", 50, EVERYONE)],
            checks=30,
        ),
    ]


@dlt.source(name="console", max_table_nesting=4)
def sample_console():
    return (
        dlt.resource(
            sample_gates(),
            name="gates",
            primary_key="id",
            write_disposition={"disposition": "merge", "strategy": "scd2", "boundary_timestamp": SECOND_LOAD_AT},
        ),
        dlt.resource(
            [
                {
                    "extraction_id": "extraction_1",
                    "service_time": SECOND_LOAD_AT,
                    "started_at": SECOND_LOAD_AT,
                    "finished_at": SECOND_LOAD_AT,
                }
            ],
            name="extraction_runs",
            primary_key="extraction_id",
            write_disposition="append",
        ),
    )


@pytest.fixture(scope="session")
def sample_console_db(tmp_path_factory) -> Path:
    work = tmp_path_factory.mktemp("cleanup_console")
    database = work / "flags.duckdb"
    console_pipeline(database, work).run(sample_console())
    # the views applied once here: each test's copy finds them current, not made again by its first command
    Destination.from_flags(None, database).views.apply()
    return database


@pytest.fixture
def database(sample_console_db, tmp_path) -> Path:
    copy = tmp_path / "flags.duckdb"
    copy.write_bytes(sample_console_db.read_bytes())
    return copy


def git(root: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-C", str(root), *args], capture_output=True, text=True, check=True, env={**os.environ, **GIT_ENV}
    )
    return done.stdout


@pytest.fixture
def repository(tmp_path, monkeypatch) -> Path:
    """The sample repository on branch main, one commit, plus a person's work in progress: an edited file and an
    untracked one, which the cleanup must leave exactly as they are."""
    for key, value in GIT_ENV.items():
        monkeypatch.setenv(key, value)
    root = tmp_path / "web"
    shutil.copytree(SAMPLE, root)
    git(root, "init", "--quiet", "--initial-branch=main")
    git(root, "add", ".")
    git(root, "commit", "--quiet", "-m", "the sample")
    return root


def tree_bytes(root: Path) -> dict[str, bytes]:
    """Every file of the work tree (not .git), by path: what a person sees in their checkout."""
    return {
        str(path.relative_to(root)): path.read_bytes()
        for path in sorted(root.rglob("*"))
        if path.is_file() and not {".git", "__pycache__"} & set(path.relative_to(root).parts)
    }
