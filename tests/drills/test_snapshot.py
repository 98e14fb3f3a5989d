"""The drills' comparison itself: it ignores only dlt's bookkeeping and catches every real difference."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from tests.drills.snapshot import differences, snapshot

GATES = [  # (_dlt_id, id, name, closed)
    ("r1", "g1", "first", False),
    ("r2", "g2", "second", False),
    ("r3", "g2", "second, older", True),
]
RULES = [("c1", "r1", 0, "everyone"), ("c2", "r2", 0, "staff"), ("c3", "r2", 1, "beta")]  # (_dlt_id, parent, idx, name)


def build(path: Path, gates=GATES, rules=RULES, id_prefix: str = "", load_id: str = "1", extraction: str = "x1") -> Path:
    with duckdb.connect(str(path)) as con:
        con.execute("create schema console")
        con.execute(
            "create table console.gates (id varchar, name varchar, _dlt_load_id varchar, _dlt_id varchar,"
            " _dlt_valid_from timestamptz, _dlt_valid_to timestamptz)"
        )
        con.execute(
            "create table console.gates__rules (name varchar, _dlt_parent_id varchar, _dlt_list_idx bigint,"
            " _dlt_id varchar, _dlt_root_id varchar)"
        )
        con.execute(
            "create table console.extraction_runs (extraction_id varchar, service_time timestamptz, started_at timestamptz)"
        )
        con.execute("create table console._dlt_loads (load_id varchar)")
        for row_id, gate_id, name, closed in gates:
            con.execute(
                "insert into console.gates values (?, ?, ?, ?, now(), case when ? then now() end)",
                [gate_id, name, load_id, id_prefix + row_id, closed],
            )
        for row_id, parent, index, name in rules:
            con.execute(
                "insert into console.gates__rules values (?, ?, ?, ?, ?)",
                [name, id_prefix + parent, index, id_prefix + row_id, id_prefix + parent],
            )
        con.execute("insert into console.extraction_runs values (?, '2026-11-02 06:00:00+00', now())", [extraction])
        con.execute("insert into console._dlt_loads values (?)", [load_id])
    return path


def test_two_loads_that_differ_only_in_bookkeeping_are_identical(tmp_path):
    a = snapshot(build(tmp_path / "a.duckdb"))
    b = snapshot(build(tmp_path / "b.duckdb", id_prefix="other-", load_id="2", extraction="x2"))
    assert differences(a, b) == []
    assert set(a) == {"console.gates", "console.gates__rules", "console.extraction_runs"}


@pytest.mark.parametrize(
    "gates, rules, what",
    [
        (GATES, [("c1", "r1", 0, "everyone"), ("c2", "r1", 1, "staff"), ("c3", "r2", 1, "beta")], "a rule on another gate"),
        (GATES, [*RULES, ("c4", "r2", 1, "beta")], "a duplicated rule"),
        ([*GATES, ("r4", "g1", "first", False)], RULES, "a gate held twice"),
        (
            [("r1", "g1", "first", False), ("r2", "g2", "second", True), ("r3", "g2", "second, older", True)],
            RULES,
            "a gate retired",
        ),
        (GATES[:2], RULES, "a lost version"),
    ],
)
def test_every_real_difference_is_found(tmp_path, gates, rules, what):
    a = snapshot(build(tmp_path / "a.duckdb"))
    b = snapshot(build(tmp_path / "b.duckdb", gates=gates, rules=rules))
    assert differences(b, a), what


def test_rows_whose_parent_is_gone_are_reported(tmp_path):
    with pytest.raises(AssertionError, match="console.gates__rules"):
        snapshot(build(tmp_path / "a.duckdb", rules=[*RULES, ("c9", "gone", 0, "orphan")]))
