"""The lists as the source loads them from a console that pages them as the contract allows: an empty page that
names a next page, a `totalItems` that counts what is not listed, an item served twice because it was edited while
the list was paged; and a holdout answered under another spelling of the id asked for.

Offline: the console is an `httpx.MockTransport` over lists held here, the destination a DuckDB file.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from urllib.parse import parse_qs

import dlt
import duckdb
import httpx
import pytest

from gatehouse.sources.console import console
from gatehouse.sources.console.client import ClientOptions, ConsoleClient
from gatehouse.sources.console.constants import DYNAMIC_CONFIGS_PATH, GATES_PATH, QUALIFYING_EVENTS_PATH
from gatehouse.sources.console.settings import resolve_settings

BASE_URL = "https://console.test"
API_KEY = "console-Hq4Wd8Nz2Lx6Tb9Rc3Vm7Kp5"
PAGE_SIZE = 2
HOLDOUT_PATH = "/console/v1/holdouts/"
EXPOSURES_PATH = "/console/v1/experiments/exp_1/cumulative_exposures"


def listed_entity(entity_id: str, **fields) -> dict:
    """What a gate and a dynamic config both hold, as the lists send them; `fields` add to it or replace."""
    return {
        "id": entity_id,
        "name": entity_id,
        "description": "",
        "idType": "userID",
        "isEnabled": True,
        "lastModifiedTime": 1_705_439_406_000,
        "createdTime": 1_705_439_400_000,
        "holdoutIDs": [],
        "tags": [],
        "rules": [],
        "version": 1,
        **fields,
    }


def gate(gate_id: str, **fields) -> dict:
    return listed_entity(gate_id, **{"status": "In Progress", "type": "PERMANENT", "typeReason": "NONE", **fields})


def config(config_id: str, **fields) -> dict:
    return listed_entity(config_id, **{"status": "Enabled", "defaultValue": {}, **fields})


def listed(items: list[dict]) -> list[dict]:
    return [item for item in items if item.get("status") != "Archived"]


def pagination(path: str, page: int, limit: int, more: bool, total: int | None) -> dict:
    return {
        "itemsPerPage": limit,
        "pageNumber": page,
        "nextPage": f"{path}?page={page + 1}&limit={limit}" if more else None,
        "previousPage": f"{path}?page={page - 1}&limit={limit}" if page > 1 else None,
        **({} if total is None else {"totalItems": total}),
    }


def pages_of_listed(path: str, items: list[dict], page: int, limit: int) -> tuple[list[dict], dict]:
    """Archived items left out of the lists, the rest paged, `totalItems` counting what is listed."""
    shown = listed(items)
    start = (page - 1) * limit
    return shown[start : start + limit], pagination(path, page, limit, start + limit < len(shown), len(shown))


Pager = Callable[[str, list[dict], int, int], tuple[list[dict], dict]]


class Console:
    """The lists in `lists`, paged by `pager`; single reads from `reads`; every request recorded."""

    def __init__(self, gates: list[dict], configs: list[dict] | None = None, reads=None, pager: Pager = pages_of_listed):
        self.lists = {GATES_PATH: gates, DYNAMIC_CONFIGS_PATH: [] if configs is None else configs, QUALIFYING_EVENTS_PATH: []}
        self.reads: dict[str, object] = reads or {}
        self.pager = pager
        self.sent: list[str] = []

    def handle(self, request: httpx.Request) -> httpx.Response:
        path, query = request.url.path, parse_qs(request.url.query.decode())
        self.sent.append(f"{path}?{request.url.query.decode()}" if query else path)
        if path in self.lists:
            data, paging = self.pager(path, self.lists[path], int(query["page"][0]), int(query["limit"][0]))
            return httpx.Response(200, json={"message": "listed", "data": data, "pagination": paging})
        if path in self.reads:
            return httpx.Response(200, json={"message": "read", "data": self.reads[path]})
        if path.startswith(f"{GATES_PATH}/"):  # a gate missing from a list, confirmed by its single read
            for item in self.lists[GATES_PATH]:
                if path == f"{GATES_PATH}/{item['id']}":
                    return httpx.Response(200, json={"message": "read", "data": item})
        return httpx.Response(404, json={"status": 404, "message": f"{path} not found"})

    def requests_for(self, path: str) -> list[str]:
        return [sent for sent in self.sent if sent.startswith(path)]


def load(tmp_path: Path, service: Console) -> None:
    service.sent.clear()
    pipeline = dlt.pipeline(
        pipeline_name="list_reads",
        destination=dlt.destinations.duckdb(str(tmp_path / "list_reads.duckdb")),
        pipelines_dir=str(tmp_path / "pipelines"),
        dataset_name="console",
    )
    settings = resolve_settings(base_url=BASE_URL, api_key=API_KEY, page_size=PAGE_SIZE)
    client = ConsoleClient(ClientOptions.from_settings(settings), transport=httpx.MockTransport(service.handle))
    pipeline.run(console(settings, client=client))


def query(tmp_path: Path, sql: str) -> list[tuple]:
    with duckdb.connect(str(tmp_path / "list_reads.duckdb"), read_only=True) as connection:
        return connection.execute(sql).fetchall()


def current(tmp_path: Path, table: str) -> list[tuple]:
    return query(tmp_path, f"select id, version from console.{table} where _dlt_valid_to is null order by id")


def test_gates_after_an_empty_page_that_names_a_next_page_are_refused_not_loaded(tmp_path):
    # Pages 2 to 4 come back empty, each naming the next page: nothing tells an empty page that lost its gates
    # from one filtered after it was cut, so the list is refused whole rather than loaded without them.
    def filtered_after_cutting(path, items, page, limit):
        start = (page - 1) * limit
        return listed(items[start : start + limit]), pagination(path, page, limit, start + limit < len(items), None)

    gates = [gate("g1"), gate("g2"), *(gate(f"old{i}", status="Archived") for i in range(6)), gate("g3"), gate("g4")]
    service = Console(gates, pager=filtered_after_cutting)

    with pytest.raises(Exception, match=r"GET /console/v1/gates page 2: an empty page names a next page"):
        load(tmp_path, service)

    assert service.requests_for(GATES_PATH) == [f"{GATES_PATH}?page={page}&limit=2" for page in (1, 2)]


def counting_archived(path, items, page, limit):
    """As `pages_of_listed`, but `totalItems` counts the archived items the list leaves out."""
    data, paging = pages_of_listed(path, items, page, limit)
    return data, {**paging, "totalItems": len(items)}


def test_a_first_run_loads_a_list_whose_total_counts_archived_gates(tmp_path):
    service = Console([gate("g1"), gate("g2"), gate("g_old", status="Archived")], [config("c1")], pager=counting_archived)

    load(tmp_path, service)

    assert current(tmp_path, "gates") == [("g1", 1), ("g2", 1)]
    assert current(tmp_path, "dynamic_configs") == [("c1", 1)]
    # read twice: the count disagrees, both passes agree with each other
    assert service.requests_for(GATES_PATH) == [f"{GATES_PATH}?page=1&limit=2", f"{GATES_PATH}?page=1&limit=2"]


def test_a_config_archived_where_the_total_counts_archived_ones_is_retired(tmp_path):
    configs = [config("c1"), config("c2"), config("c3")]
    service = Console([gate("g1")], configs, pager=counting_archived)
    load(tmp_path, service)
    configs[1]["status"] = "Archived"
    configs.append(config("c4"))

    load(tmp_path, service)

    assert current(tmp_path, "dynamic_configs") == [("c1", 1), ("c3", 1), ("c4", 1)]
    assert query(tmp_path, "select id from console.dynamic_configs where _dlt_valid_to is not null") == [("c2",)]
    # one pass (absences are confirmed), then c2 confirmed gone by one page of every config, read twice
    assert service.requests_for(DYNAMIC_CONFIGS_PATH) == [
        f"{DYNAMIC_CONFIGS_PATH}?page=1&limit=5",
        f"{DYNAMIC_CONFIGS_PATH}?page=1&limit=6",
        f"{DYNAMIC_CONFIGS_PATH}?page=1&limit=6",
    ]


def test_a_gate_edited_while_the_list_is_paged_is_loaded_in_its_newest_version(tmp_path):
    # Ordered by lastModifiedTime (the order is not documented): a gate edited after the first page moves to the
    # last page and is served twice, its old version first.
    gates = [gate(f"g{i:02}", lastModifiedTime=1_000 + i) for i in range(1, 13)]
    edit: dict[str, str] = {}

    def oldest_first(path, items, page, limit):
        if page == 2 and edit:
            edited_id = edit.pop("id")
            edited = next(g for g in items if g["id"] == edited_id)
            edited.update(version=edited["version"] + 1, lastModifiedTime=edited["lastModifiedTime"] + 10_000, isEnabled=False)
        ordered = sorted(items, key=lambda g: g["lastModifiedTime"])
        start = (page - 1) * limit
        return ordered[start : start + limit], pagination(path, page, limit, start + limit < len(ordered), len(ordered))

    service = Console(gates, pager=oldest_first)
    edit["id"] = "g01"  # on the first run's first page
    load(tmp_path, service)
    assert current(tmp_path, "gates") == [("g01", 2), *((f"g{i:02}", 1) for i in range(2, 13))]

    edit["id"] = "g02"  # a rerun's list, compared with the last one before it is loaded (pages of 5)
    load(tmp_path, service)
    # g07, pushed back onto the first page by the move, is confirmed by its single read, not retired
    assert service.requests_for(f"{GATES_PATH}/") == [f"{GATES_PATH}/g07"]
    assert current(tmp_path, "gates") == [("g01", 2), ("g02", 2), *((f"g{i:02}", 1) for i in range(3, 13))]
    # no stale version was ever current: g01's first version was never loaded, g02's was retired by its newer one
    assert query(tmp_path, "select id, version, is_enabled from console.gates where id in ('g01', 'g02') order by 1, 2") == [
        ("g01", 2, False),
        ("g02", 1, True),
        ("g02", 2, False),
    ]


def test_a_holdout_answered_under_another_spelling_of_its_id_names_its_experiments(tmp_path):
    # A console that matches ids case-insensitively answers its own spelling in `id`.
    holdout = {
        "id": "ho_checkout",
        "name": "Checkout",
        "description": "",
        "idType": "userID",
        "isEnabled": True,
        "passPercentage": 5,
        "gateIDs": ["g1"],
        "experimentIDs": ["exp_1"],
        "layerIDs": [],
        "isGlobal": False,
        "lastModifiedTime": 1,
        "createdTime": 1,
    }
    series = [{"groupID": "control", "groupName": "Control", "results": [{"date": "2026-11-01", "exposures": 10}]}]
    service = Console(
        [gate("g1", holdoutIDs=["HO_Checkout"])],
        reads={
            f"{HOLDOUT_PATH}HO_Checkout": holdout,
            EXPOSURES_PATH: series,
        },
    )

    load(tmp_path, service)

    assert query(tmp_path, "select id from console.holdouts") == [("ho_checkout",)]
    assert query(tmp_path, "select experiment_id, group_id, date, exposures from console.cumulative_exposures") == [
        ("exp_1", "control", "2026-11-01", 10),
    ]
    assert [s for s in service.sent if s.startswith((HOLDOUT_PATH, EXPOSURES_PATH))] == [
        f"{HOLDOUT_PATH}HO_Checkout",
        EXPOSURES_PATH,
    ]
