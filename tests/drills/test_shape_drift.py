"""The service changes shape after a good first load: each case either loads, with the views still answering, or
fails in one line with the history untouched (no gate retired, no row lost, no current version changed). What
each case does is decided in docs/reliability.md ("Shape drift"); a silent wrong result is a defect.

The cases that load are served together, each on a gate of its own, in one run from a copy of one good load of the
drills' organisation, and each is checked by its name; each refused case runs on its own copy."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import duckdb
import pytest

from gatehouse.console_twin import PaginationStyle
from gatehouse.pipelines.cli.main import main
from gatehouse.pipelines.errors import GatehouseError
from gatehouse.pipelines.models.graph import view_definitions
from gatehouse.pipelines.run.steps import RunOptions, run_extraction
from gatehouse.pipelines.warehouse.destination import Destination
from tests.drills.computed_views import views_as_tables
from tests.drills.conftest import copy_database, make_twin, source_args
from tests.drills.snapshot import assert_same_tables, snapshot

pytestmark = pytest.mark.slow

Transform = Callable[[str, dict], dict]


def on(endpoints: tuple[str, ...], change: Callable[[dict], dict]) -> Transform:
    return lambda endpoint, item: change(dict(item)) if endpoint in endpoints else item


def one_gate(gate_id: str, change: Callable[[dict], dict]) -> Callable[[dict], dict]:
    return lambda gate: change(gate) if gate["id"] == gate_id else gate


# Each case that changes one gate changes a gate of its own: the cases are served together.
FLOAT_GATE, STRING_GATE, ARRAY_GATE, NULL_GATE, KIND_GATE = sorted(
    gate["id"] for gate in make_twin().organisation.listed_gates()
)[:5]

# case -> (what the service now sends, the decided outcome: the column that holds the value, or "refused")
LOADED: dict[str, tuple[Transform, Callable[[duckdb.DuckDBPyConnection], None]]] = {}


def loads(name: str, transform: Transform):
    def register(check: Callable[[duckdb.DuckDBPyConnection], None]):
        LOADED[name] = (transform, check)
        return check

    return register


def current(connection: duckdb.DuckDBPyConnection, column: str, gate: str) -> Any:
    return connection.execute(f"select {column} from console.gates where id = ? and _dlt_valid_to is null", [gate]).fetchone()[0]


@loads("an integer becomes a float", on(("gates",), one_gate(FLOAT_GATE, lambda g: {**g, "checksPerHour": 12.5})))
def _(connection):
    # the fraction is kept whole in a variant column, and the views read it
    assert current(connection, "checks_per_hour__v_double", FLOAT_GATE) == 12.5
    assert (
        connection.execute("select checks_per_hour from analytics.stg_gates where gate_id = ?", [FLOAT_GATE]).fetchone()[0]
        == 12.5
    )


@loads("an integer becomes a string", on(("gates",), one_gate(STRING_GATE, lambda g: {**g, "checksPerHour": "39"})))
def _(connection):
    # a number column (the contract's `number`): a numeric string is read as the number it spells
    assert current(connection, "checks_per_hour", STRING_GATE) == 39


@loads("an array becomes a string", on(("gates",), one_gate(ARRAY_GATE, lambda g: {**g, "tags": "infra"})))
def _(connection):
    # declared arrays are read as lists: a lone string is a one-item list, as a scalar targetValue is
    tags = connection.execute(
        "select list(t.value) from console.gates g join console.gates__tags t on t._dlt_parent_id = g._dlt_id"
        " where g.id = ? and g._dlt_valid_to is null",
        [ARRAY_GATE],
    ).fetchone()[0]
    assert tags == ["infra"]


@loads("an object becomes null", on(("gates",), one_gate(NULL_GATE, lambda g: {**g, "owner": None, "reviewSettings": None})))
def _(connection):
    assert current(connection, "owner__owner_name", NULL_GATE) is None
    assert connection.execute("select owner_name from analytics.stg_gates where gate_id = ?", [NULL_GATE]).fetchone()[0] is None


@loads("a new scalar field", on(("gates",), lambda g: {**g, "riskLevel": "low"}))
def _(connection):
    assert current(connection, "risk_level", KIND_GATE) == "low"


@loads("a new nested field", on(("gates",), lambda g: {**g, "riskProfile": {"level": "low", "scores": [1, 2]}}))
def _(connection):
    assert current(connection, "risk_profile__level", KIND_GATE) == "low"


@loads("a documented field disappears", on(("gates",), lambda g: {k: v for k, v in g.items() if k != "description"}))
def _(connection):
    assert current(connection, "description", KIND_GATE) is None


@loads(
    "a new gate type and reason",
    on(("gates",), one_gate(KIND_GATE, lambda g: {**g, "type": "SEASONAL", "typeReason": "STALE_SEASON_OVER"})),
)
def _(connection):
    # an unknown kind is shown as sent, never taken for a known one
    row = connection.execute(
        "select gate_type, type_reason from analytics.current_gates where gate_id = ?", [KIND_GATE]
    ).fetchone()
    assert row == ("SEASONAL", "STALE_SEASON_OVER")


@loads("a new ingestion status", on(("ingestion_run",), lambda r: {**r, "latestStatus": "paused_by_admin"}))
def _(connection):
    # the runs still moving are read again: the new status is shown as sent, and counted neither a success nor
    # a failure
    rows = connection.execute(
        "select latest_status, outcome from analytics.ingestion_run_health where latest_status = 'paused_by_admin'"
    ).fetchall()
    assert rows and {outcome for _, outcome in rows} <= {"running", "incomplete"}, rows


def history(path) -> dict[str, Any]:
    with duckdb.connect(str(path), read_only=True) as connection:
        return {
            "gates": connection.execute("select id from console.gates where _dlt_valid_to is null order by id").fetchall(),
            "retired": connection.execute("select count(*) from console.gates where _dlt_valid_to is not null").fetchone(),
        }


def every_view_answers(path) -> None:
    """Every analysis view computed whole, each column of each row; the models' views all there."""
    with duckdb.connect(str(path)) as connection, views_as_tables(connection) as views:
        missing = {definition.name for definition in view_definitions()} - set(views)
        assert not missing, f"views missing: {sorted(missing)}"


def served_together(endpoint: str, item: dict) -> dict:
    """Every case's change of the service at once."""
    for transform, _ in LOADED.values():
        item = transform(endpoint, item)
    return item


def test_every_changed_shape_loads_and_the_views_answer(reference_path, tmp_path):
    twin = make_twin(transform_item=served_together)
    path = tmp_path / "gatehouse.duckdb"
    with twin.serve() as base_url:
        copy_database(reference_path, path, base_url)
        before = history(path)
        summary = run_extraction(
            RunOptions(
                destination=Destination(duckdb_path=path), progress=False, source_args=source_args(twin, base_url, page_size=10)
            )
        )
    assert summary.retired.get("gates", 0) == 0
    assert history(path)["gates"] == before["gates"], "no gate lost or added"
    failed = {}
    with duckdb.connect(str(path), read_only=True) as connection:
        for case, (_, check) in LOADED.items():
            try:
                check(connection)
            except Exception as failure:  # an assertion, or a column the case's change should have made
                failed[case] = repr(failure)
    assert not failed, f"cases whose outcome is not the decided one: {failed}"
    every_view_answers(path)


def test_a_next_page_looping_back_is_refused_in_one_line_and_changes_nothing(reference_path, tmp_path):
    # From page 2 on, nextPage points back to page 1: the list is neither read for ever nor loaded incomplete.
    # (The other envelope faults, a missing pagination object, `data: null`, a wrong totalItems, the same items
    # on two pages, an empty page in the middle, are drilled in test_paging_faults.py and tests/client.)
    twin = make_twin(pagination={"gates": PaginationStyle(all="empty", next_page="back")})
    path = tmp_path / "gatehouse.duckdb"
    with twin.serve() as base_url:
        copy_database(reference_path, path, base_url)
        before = snapshot(path)
        with pytest.raises(GatehouseError) as refused:
            run_extraction(
                RunOptions(
                    destination=Destination(duckdb_path=path),
                    progress=False,
                    source_args=source_args(twin, base_url, page_size=10),
                )
            )
    assert "\n" not in str(refused.value) and "gates" in str(refused.value), str(refused.value)
    assert_same_tables(snapshot(path), before, "a refused run")


def test_the_report_is_made_when_every_gate_stops_sending_when_it_was_modified(reference_path, tmp_path, capsys):
    twin = make_twin(transform_item=on(("gates",), lambda g: {k: v for k, v in g.items() if k != "lastModifiedTime"}))
    path = tmp_path / "gatehouse.duckdb"
    with twin.serve() as base_url:
        copy_database(reference_path, path, base_url)
        summary = run_extraction(
            RunOptions(
                destination=Destination(duckdb_path=path), progress=False, source_args=source_args(twin, base_url, page_size=10)
            )
        )
    assert any(change.startswith("field no longer sent gates.last_modified_time") for change in summary.schema_changes)
    capsys.readouterr()
    # the command in this process, as tests/warehouse/test_read_only_file.py runs it: a fresh one cost its start
    assert main(["report", "--duckdb", str(path), "--out", str(tmp_path / "reports")]) == 0, capsys.readouterr().err[-2000:]
    assert "no ages to draw" in (tmp_path / "reports" / "stale_gates.html").read_text(encoding="utf-8")
