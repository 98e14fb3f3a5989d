"""Several projects' consoles (web, mobile and tools: three organisations, each with its own key) and what each
healthy one loads alone: the reference the drills of several projects hold each project's dataset to
(`test_promise_projects.py`, `test_projects.py`). Made once per `pytest` command (`made_once`)."""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass
from pathlib import Path

import duckdb
import pytest

from gatehouse.console_twin import ConsoleTwin, TwinSettings
from tests.conftest import made_once
from tests.drills.conftest import copy_database, load, make_twin, reference_database
from tests.drills.snapshot import Snapshot, snapshot

HEALTHY = ("web", "mobile")
MOBILE_KEY = "console-Mb7Qx2Lp9Rt4Vn8Kc3"
TOOLS_KEY = "console-Tl5Hw8Zr3Jd6Fs2Gy9"


def organisation(name: str) -> ConsoleTwin:
    if name == "web":
        return make_twin()
    seed, key = {"mobile": (8, MOBILE_KEY), "tools": (9, TOOLS_KEY)}[name]
    return ConsoleTwin(size="small", seed=seed, settings=TwinSettings(api_key=key))


# views a person reads first: each project's rows in them equal the single load's
COMPARED_VIEWS = ("stale_gates_by_owner", "exposure_growth", "exposure_srm", "ingestion_source_health")


def view_rows(path: Path) -> dict[tuple[str, str], list[str]]:
    """Each project's rows of the compared views, without the project column: {(view, project): sorted reprs}.
    One pass over each view for every project, in one connection: each read of a view costs about a second."""
    rows: dict[tuple[str, str], list[str]] = {}
    with duckdb.connect(str(path), read_only=True) as connection:
        for view in COMPARED_VIEWS:
            columns = [row[0] for row in connection.execute(f"describe analytics.{view}").fetchall() if row[0] != "project"]
            for project, *row in connection.execute(f"select project, {', '.join(columns)} from analytics.{view}").fetchall():
                rows.setdefault((view, project), []).append(repr(tuple(row)))
    return {key: sorted(found) for key, found in rows.items()}


def single_load(name: str, reference_path: Path):
    """The organisation loaded alone (its views applied), then rerun unchanged: its first load's database, the
    compared views' rows of that load and the rerun's requests beside it. Web is the drills' organisation: its first
    load is the drills' reference (`reference_path`), copied."""

    def make(folder: Path) -> Path:
        twin, path = organisation(name), folder / "single.duckdb"
        with twin.serve() as base_url:
            if name == "web":
                copy_database(reference_path, path, base_url)
            else:
                load(twin, base_url, path)
            shutil.copyfile(path, folder / "first_load.duckdb")
            (folder / "rerun_requests.json").write_text(json.dumps(load(twin, base_url, path).requests))
        views = {view: rows for (view, _), rows in view_rows(folder / "first_load.duckdb").items()}
        (folder / "views.json").write_text(json.dumps(views))
        return folder / "first_load.duckdb"

    return make


@dataclass(frozen=True)
class SingleLoad:
    """What one healthy organisation's load alone gives, to hold its project in the three's database to."""

    tables: Snapshot
    views: dict[str, list[str]]  # view -> its rows, as `view_rows` gives them
    rerun_requests: int


def single_load_path(tmp_path_factory: pytest.TempPathFactory, name: str) -> Path:
    """Healthy organisation `name`'s first load alone (its views applied), made once per `pytest` command: read it,
    never change it."""
    reference_path = made_once(tmp_path_factory, "drills-reference", reference_database)
    return made_once(tmp_path_factory, f"promise-single-{name}", single_load(name, reference_path))


def healthy_single_loads(tmp_path_factory: pytest.TempPathFactory) -> dict[str, SingleLoad]:
    loads = {}
    for name in HEALTHY:
        path = single_load_path(tmp_path_factory, name)
        loads[name] = SingleLoad(
            snapshot(path, "console"),
            json.loads(path.with_name("views.json").read_text()),
            json.loads(path.with_name("rerun_requests.json").read_text()),
        )
    return loads
