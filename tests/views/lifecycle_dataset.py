"""Gates that live their lives over four loads, and two scans of their code: the stages of `gate_lifecycle`.

Loads (service clock, dlt's scd2 boundary) on 2026-10-01, 10-10, 10-20 and 11-01 12:00 UTC, the last the "as of"
of every age. Each gate below says what it exercises; the expected rows in test_gate_lifecycle.py follow from it.
Code: `web` and `api` scanned on 2026-10-15 and again on 2026-10-30.
"""

from __future__ import annotations

import shutil
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import dlt
import pytest

from gatehouse.pipelines.code_refs.scan import Hit, Repository, RepositoryScan, ScanStats
from gatehouse.pipelines.warehouse.views import apply_views
from gatehouse.sources.code_refs import code_references_source
from tests.conftest import made_once
from tests.views.console_dataset import EVERYONE, SCD2, condition, console_pipeline, gate, holdout, rule

LOADS = ("2026-10-01T12:00:00Z", "2026-10-10T12:00:00Z", "2026-10-20T12:00:00Z", "2026-11-01T12:00:00Z")
CREATED = "2026-06-01T00:00:00Z"
LONG_AGO = "2026-08-01T00:00:00Z"

STAFF_AT_100 = rule("r_staff", "staff", 100, condition("email", "@example.com"))


def everyone_at(pass_percentage: float) -> dict[str, Any]:
    return rule("r_all", "everyone", pass_percentage, EVERYONE)


def lived(
    gate_id: str, owner: str | None, team: str | None, rules: list, checks: int | None, modified: str = LONG_AGO, **fields: Any
) -> dict[str, Any]:
    """A gate created on CREATED: its id, owner, team, rules, checks an hour and last change (long ago unless given)."""
    return gate(gate_id, created=CREATED, modified=modified, owner=owner, team=team, rules=rules, checks=checks, **fields)


def gates(load: int) -> list[dict[str, Any]]:
    """The gates as the console lists them at load `load` (0 to 3)."""
    final = load == 3
    # when the console dates each changing gate's last change, at this load
    rolled = "2026-10-31T12:00:00Z" if final else LONG_AGO
    turned_off = "2026-10-23T00:00:00Z" if final else LONG_AGO
    flipped = {0: LONG_AGO, 1: "2026-10-05T00:00:00Z"}.get(load, "2026-10-15T00:00:00Z")
    return [
        # launched since 08-01, checked 100 an hour until the third load, then 30: falling; referenced in web and api
        lived("launched_long", "alice", "Growth", [everyone_at(100)], 100 if load < 2 else 30, status="Launched"),
        # 50% for everyone since 08-01, rolled to 100% the day before the last load: one answer for one day only
        lived("rolled_yesterday", "alice", "Growth", [everyone_at(100 if final else 50)], 40, rolled),
        # turned off on 10-23 (after the third load): ready on 11-06, within a week of the last load's "as of"
        lived("off_lately", "bob", "Search", [everyone_at(30)], 12, turned_off, enabled=load < 3),
        # off, on at 50% on 10-05 (seen at the second load), off again on 10-15 (seen at the third): two changes
        # within the window, one answer since 10-15
        lived("flip_flop", "bob", "Search", [everyone_at(50)], 8, flipped, enabled=load == 1),
        # a switch: off, on for everyone on 10-05 (seen at the second load), off again on 10-15 (seen at the third):
        # off for 17 days again, but it came back to off after on: it may well come on again
        lived("switch", "bob", "Search", [everyone_at(100)], 8, flipped, enabled=load == 1),
        # its everyone rule went 0% -> 100% at the third load, but the console dates the change 09-01, before the
        # second load saw it at 0%: the answer holds from the second load's boundary, 10-10 12:00, no earlier
        lived(
            "late_stamp",
            "carol",
            None,
            [everyone_at(100 if load >= 2 else 0)],
            5,
            "2026-09-01T00:00:00Z",
            version=2 if load >= 2 else 1,
        ),
        # no rules, never checked, in no repository: archive it
        lived("dead_flag", None, None, [], None),
        # launched, checked 20 an hour, but no scanned repository references it: something unscanned checks it
        lived("checked_nowhere", "carol", None, [everyone_at(100)], 20, status="Launched"),
        # launched; the older scan found it in web, the newer one nowhere; still checked: deploys pending
        lived("gone_from_code", "carol", None, [everyone_at(100)], 6, status="Launched"),
        # disabled, but holdout h_lifecycle still names it, and the console marked it stale
        lived("held_out", "bob", "Payments", [], 3, status="Disabled", type_="STALE", type_reason="STALE_PROBABLY_UNLAUNCHED"),
        # partly rolled out (staff 100%, everyone 25%) since 08-01: forgotten
        lived("half_done", "alice", "Growth", [STAFF_AT_100, everyone_at(25)], 50),
        # the console says launched, but the gate is turned off: every user fails; a person decides
        lived(
            "says_launched",
            "dan",
            None,
            [everyone_at(100)],
            9,
            enabled=False,
            type_="STALE",
            type_reason="STALE_PROBABLY_LAUNCHED",
        ),
        # a kill switch: permanent, in use whatever its rules
        lived("kill_switch", "dan", None, [everyone_at(100)], 70, type_="PERMANENT"),
        # a partial rollout touched recently: in use
        lived("in_progress", "alice", "Growth", [everyone_at(10)], 90, "2026-10-25T00:00:00Z"),
    ]


HOLDOUTS = [holdout("h_lifecycle", gate_ids=["held_out"], experiment_ids=[], pass_percentage=5, is_global=False, targeting=None)]


def extraction_run(load: int) -> dict[str, Any]:
    at = LOADS[load]
    return {
        "extraction_id": f"extraction_{load}",
        "service_time": at,
        "started_at": at,
        "finished_at": at,
        "followed_experiment_count": 0,
        "followed_experiment_ids": [],
    }


@dlt.source(name="console", max_table_nesting=4)
def lifecycle_console(load: int):
    scd2 = {**SCD2, "boundary_timestamp": LOADS[load]}
    return [
        dlt.resource(gates(load), name="gates", primary_key="id", write_disposition=scd2),
        dlt.resource(HOLDOUTS, name="holdouts", primary_key="id", write_disposition="merge"),
        dlt.resource([extraction_run(load)], name="extraction_runs", primary_key="extraction_id", write_disposition="append"),
    ]


WEB = Repository(Path("/src/web"), "web", True, "main", "a" * 40)
API = Repository(Path("/src/api"), "api", True, None, "b" * 40)
EARLIER_SCAN = datetime(2026, 10, 15, 9, 0, tzinfo=UTC)
LATER_SCAN = datetime(2026, 10, 30, 9, 0, tzinfo=UTC)


def hit(entity_id: str, path: str, line: int) -> Hit:
    return Hit("gate", entity_id, path, line, 10, f'check("{entity_id}")', entity_id, "literal")


def scans(at: datetime, scan_id: str) -> list[RepositoryScan]:
    web = [
        hit("launched_long", "src/banner.ts", 3),
        hit("half_done", "src/half.ts", 8),
        hit("flip_flop", "src/flip.ts", 1),
        hit("late_stamp", "src/late.ts", 2),
        hit("rolled_yesterday", "src/rolled.ts", 5),
        hit("off_lately", "src/off.ts", 4),
        hit("says_launched", "src/says.ts", 6),
        hit("held_out", "src/held.ts", 7),
    ]
    if at == EARLIER_SCAN:
        web.append(hit("gone_from_code", "src/gone.ts", 11))
    api = [
        hit("launched_long", "app/banner.go", 2),
        hit("kill_switch", "app/kill.go", 1),
        hit("in_progress", "app/progress.go", 9),
    ]
    # CODEOWNERS, as the scanner read them: web's banner is the web team's and Ana's; api's everything the api team's
    web_owners = {"src/banner.ts": "@org/web @ana"}
    api_owners = {path: "@org/api" for path in ("app/banner.go", "app/kill.go", "app/progress.go")}
    return [
        RepositoryScan(WEB, web, ScanStats(files_listed=20, files_scanned=20, bytes_scanned=9000), at, scan_id, web_owners),
        RepositoryScan(API, api, ScanStats(files_listed=5, files_scanned=5, bytes_scanned=800), at, scan_id, api_owners),
    ]


def load_lifecycle(database: Path, work_dir: Path, destination: Any = None) -> dlt.Pipeline:
    """The four loads and the two scans, in the order they happened, into `database` (or `destination`)."""
    pipeline = console_pipeline(database, work_dir, destination)
    pipeline.run(lifecycle_console(0))
    pipeline.run(lifecycle_console(1))
    pipeline.run(code_references_source(scans(EARLIER_SCAN, "scan_1")))
    pipeline.run(lifecycle_console(2))
    pipeline.run(code_references_source(scans(LATER_SCAN, "scan_2")))
    pipeline.run(lifecycle_console(3))
    return pipeline


def made_lifecycle(tmp_path_factory: pytest.TempPathFactory, work_dir: Path) -> Path:
    """`load_lifecycle` into a DuckDB file, the views applied, made once per `pytest` command however many workers ask
    (`made_once`), copied into `work_dir` with its pipeline's state: dlt's pipeline of the copy (`console_pipeline`)
    loads on from where the loads left it. For the modules that read it, or add to it: each made its own."""

    def make(folder: Path) -> Path:
        database = folder / "lifecycle.duckdb"
        load_lifecycle(database, folder)
        apply_views(database)
        return database

    made = made_once(tmp_path_factory, "views-lifecycle", make)
    shutil.copytree(made.parent, work_dir, dirs_exist_ok=True, ignore=shutil.ignore_patterns(".made"))
    return work_dir / made.name
