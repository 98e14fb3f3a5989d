"""The source against answers shaped as the published OpenAPI allows, beyond what the twin sends.

Offline: the console is an `httpx.MockTransport`, the destination a DuckDB file in tmp_path.
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import parse_qs

import dlt
import duckdb
import httpx

from gatehouse.sources.console import console
from gatehouse.sources.console.client import ClientOptions, ConsoleClient
from gatehouse.sources.console.constants import DYNAMIC_CONFIGS_PATH, GATES_PATH, QUALIFYING_EVENTS_PATH
from gatehouse.sources.console.settings import resolve_settings

BASE_URL = "https://console.test"
API_KEY = "console-Qm4Tz8Lp2Wx6Rv9Nb3Kc7Hd5"


def condition(type_: str, target) -> dict:
    return {"type": type_, "targetValue": target, "operator": "any", "field": None, "customID": None}


def entity(entity_id: str, conditions: list[dict]) -> dict:
    return {
        "id": entity_id,
        "name": entity_id,
        "description": "",
        "lastModifierID": "u",
        "lastModifiedTime": 1705439406750,
        "lastModifierName": "CONSOLE API",
        "lastModifierEmail": None,
        "createdTime": 1705439406615,
        "creatorName": "CONSOLE API",
        "isEnabled": True,
        "status": "In Progress",
        "type": "PERMANENT",
        "typeReason": "NONE",
        "checksPerHour": 0,
        "holdoutIDs": [],
        "rules": [{"id": f"{entity_id}:r", "name": "r", "passPercentage": 100, "conditions": conditions}],
        "version": 1,
    }


def serve(lists: dict[str, list[dict]], reads: dict[str, object] | None = None, asked: list[str] | None = None):
    """Lists by path (one page), and single reads by path (`reads`); every path asked is noted in `asked`."""

    def handler(request: httpx.Request) -> httpx.Response:
        if asked is not None:
            asked.append(request.url.path)
        if request.url.path in (reads or {}):
            read = reads[request.url.path]
            if isinstance(read, httpx.Response):
                return read
            return httpx.Response(200, json={"message": "read", "data": read})
        if request.url.path not in lists:
            return httpx.Response(404, json={"status": 404, "message": f"{request.url.path} not found"})
        page = int(parse_qs(request.url.query.decode()).get("page", ["1"])[0])
        data = lists.get(request.url.path, []) if page == 1 else []
        pagination = {"itemsPerPage": 1000, "pageNumber": page, "nextPage": None, "previousPage": None}
        return httpx.Response(200, json={"message": "listed", "data": data, "pagination": pagination})

    return httpx.MockTransport(handler)


def load(
    tmp_path: Path, lists: dict[str, list[dict]], reads: dict[str, object] | None = None, asked: list[str] | None = None
) -> Path:
    db = tmp_path / "shapes.duckdb"
    pipeline = dlt.pipeline(
        pipeline_name="shapes",
        destination=dlt.destinations.duckdb(str(db)),
        pipelines_dir=str(tmp_path / "pipelines"),
        dataset_name="console",
    )
    settings = resolve_settings(base_url=BASE_URL, api_key=API_KEY)
    pipeline.run(
        console(settings, client=ConsoleClient(ClientOptions.from_settings(settings), transport=serve(lists, reads, asked)))
    )
    return db


def test_a_scalar_target_value_is_loaded_as_a_one_item_list(tmp_path):
    # The OpenAPI types a condition's targetValue as an array of strings or numbers, a string or a number.
    # A gate naming the gate it depends on as a plain string must still be a target value row, where
    # the views find gate references; a number likewise.
    lists = {
        GATES_PATH: [
            entity("child_gate", [condition("passes_gate", "parent_gate")]),
            entity("parent_gate", [condition("app_version", ["1", "2"])]),
        ],
        DYNAMIC_CONFIGS_PATH: [entity("a_config", [condition("fails_gate", "parent_gate"), condition("time", 1705439406750)])],
        QUALIFYING_EVENTS_PATH: [],
    }
    db = load(tmp_path, lists)
    with duckdb.connect(str(db), read_only=True) as con:
        gate_targets = con.execute(
            """
            select g.id, c.type, t.value
            from console.gates g
            join console.gates__rules r on r._dlt_parent_id = g._dlt_id
            join console.gates__rules__conditions c on c._dlt_parent_id = r._dlt_id
            join console.gates__rules__conditions__target_value t on t._dlt_parent_id = c._dlt_id
            order by 1, 3
            """
        ).fetchall()
        config_targets = con.execute(
            """
            select c.type, t.value
            from console.dynamic_configs__rules__conditions c
            join console.dynamic_configs__rules__conditions__target_value t on t._dlt_parent_id = c._dlt_id
            order by 1
            """
        ).fetchall()
        condition_columns = {
            row[0]
            for row in con.execute(
                "select column_name from information_schema.columns where table_name = 'gates__rules__conditions'"
            ).fetchall()
        }
    assert gate_targets == [
        ("child_gate", "passes_gate", "parent_gate"),
        ("parent_gate", "app_version", "1"),
        ("parent_gate", "app_version", "2"),
    ]
    assert config_targets == [("fails_gate", "parent_gate"), ("time", "1705439406750")]
    assert "target_value" not in condition_columns


def test_scalar_arrays_of_gates_configs_and_holdouts_are_loaded_as_one_item_lists(tmp_path):
    # The unarchive schema types a config's targetApps as a string; a console that sends any declared
    # array as a scalar must load the same rows as one sending a one-item array, and a holdout id or an
    # experiment id sent as a string must be followed as that id, not letter by letter.
    gate = {**entity("a_gate", []), "holdoutIDs": "holdout_1", "targetApps": "ios", "tags": "checkout"}
    config = {**entity("a_config", []), "targetApps": "web", "holdoutIDs": ["holdout_1"], "tags": ["x", "y"]}
    holdout = {
        "id": "holdout_1",
        "name": "h",
        "experimentIDs": "exp_1",
        "gateIDs": "a_gate",
        "layerIDs": None,
        "targetApps": "ios",
    }
    series = [{"groupID": "control", "groupName": "Control", "results": [{"date": "2024-01-02", "exposures": 7}]}]
    asked: list[str] = []
    db = load(
        tmp_path,
        {GATES_PATH: [gate], DYNAMIC_CONFIGS_PATH: [config], QUALIFYING_EVENTS_PATH: []},
        reads={
            "/console/v1/holdouts/holdout_1": holdout,
            "/console/v1/experiments/exp_1/cumulative_exposures": series,
        },
        asked=asked,
    )
    with duckdb.connect(str(db), read_only=True) as con:

        def values(table: str) -> list[tuple]:
            return con.execute(
                f"select p.id, t.value from console.{table} t join console.{table.split('__')[0]} p on t._dlt_parent_id ="
                " p._dlt_id order by 1, 2"
            ).fetchall()

        rows = {
            table: values(table)
            for table in (
                "gates__holdout_i_ds", "gates__target_apps", "gates__tags", "dynamic_configs__target_apps",
                "dynamic_configs__tags", "holdouts__experiment_i_ds", "holdouts__gate_i_ds", "holdouts__target_apps",
            )
        }  # fmt: skip
        exposures = con.execute("select experiment_id, group_id, date, exposures from console.cumulative_exposures").fetchall()
        gate_columns = {
            r[0] for r in con.execute("select column_name from information_schema.columns where table_name = 'gates'").fetchall()
        }
    assert rows == {
        "gates__holdout_i_ds": [("a_gate", "holdout_1")],
        "gates__target_apps": [("a_gate", "ios")],
        "gates__tags": [("a_gate", "checkout")],
        "dynamic_configs__target_apps": [("a_config", "web")],
        "dynamic_configs__tags": [("a_config", "x"), ("a_config", "y")],
        "holdouts__experiment_i_ds": [("holdout_1", "exp_1")],
        "holdouts__gate_i_ds": [("holdout_1", "a_gate")],
        "holdouts__target_apps": [("holdout_1", "ios")],
    }
    assert exposures == [("exp_1", "control", "2024-01-02", 7)]
    assert not {"holdout_i_ds", "target_apps", "tags"} & gate_columns
    assert sorted(p for p in asked if "/holdouts/" in p or "/experiments/" in p and "qualifying" not in p) == [
        "/console/v1/experiments/exp_1/cumulative_exposures",
        "/console/v1/holdouts/holdout_1",
    ]


def test_an_experiment_the_console_refuses_is_skipped_and_the_rest_loads(tmp_path):
    # Error codes of the exposures read are not documented: a 400 for one discovered experiment must not
    # fail every run (it would be discovered again on each).
    holdout = {"id": "holdout_1", "name": "h", "experimentIDs": ["exp_ok", "exp_refused", "exp_null"]}
    series = [{"groupID": "control", "groupName": "Control", "results": [{"date": "2024-01-02", "exposures": 7}]}]
    db = load(
        tmp_path,
        {
            GATES_PATH: [{**entity("a_gate", []), "holdoutIDs": ["holdout_1"]}],
            DYNAMIC_CONFIGS_PATH: [],
            QUALIFYING_EVENTS_PATH: [],
        },
        reads={
            "/console/v1/holdouts/holdout_1": holdout,
            "/console/v1/experiments/exp_ok/cumulative_exposures": series,
            "/console/v1/experiments/exp_refused/cumulative_exposures": httpx.Response(
                400, json={"status": 400, "message": "Experiment not started"}
            ),
            "/console/v1/experiments/exp_null/cumulative_exposures": None,
        },
    )
    with duckdb.connect(str(db), read_only=True) as con:
        exposures = con.execute("select experiment_id, group_id, date, exposures from console.cumulative_exposures").fetchall()
    assert exposures == [("exp_ok", "control", "2024-01-02", 7)]
