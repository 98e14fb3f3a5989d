"""Gates created and deleted while a run pages through the list.

The service lists gates newest first, so a gate created mid-run pushes every other one a place
down (the one at a page boundary is served twice) and a gate deleted from a page already read
pulls every later one a place up (the one at the boundary is never served in that pass). A gate
missing from a list read as complete would be retired in the SCD2 table, so: no gate may be
retired unless it was deleted, no gate may be held twice, and whatever one run could not see the
next one must.

The reference replays the same creations and deletions on a fault-free twin of the same
organisation between the same runs, so after the convergence run both databases must be identical.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import duckdb

from gatehouse.console_twin import ConsoleTwin
from gatehouse.console_twin.settings import PageServed
from tests.drills.conftest import copy_database, load, make_twin
from tests.drills.snapshot import Snapshot, TableSnapshot, assert_same_tables, snapshot

Change = tuple[str, str]  # ("create" | "delete", gate id)
EXTRACTION_RUNS = "console.extraction_runs"


@dataclass
class Churn:
    """An `after_page` hook: after the listed gate pages are served, it creates and deletes gates and
    remembers what it did, so that a reference twin can replay it."""

    plan: Callable[[PageServed, Churn], list[Change]]
    done: list[Change] = field(default_factory=list)

    def __call__(self, served: PageServed) -> None:
        if served.endpoint != "gates":
            return
        for change in self.plan(served, self):
            apply(served.twin, change)
            self.done.append(change)


def apply(twin: ConsoleTwin, change: Change) -> None:
    action, gate_id = change
    if action == "create":
        twin.create_gate(gate_id)
    else:
        twin.delete_gate(gate_id)


def listed_ids(twin: ConsoleTwin) -> list[str]:
    return [gate["id"] for gate in twin.organisation.listed_gates()]


def gate_states(path) -> tuple[dict[str, int], set[str]]:
    """(open versions per gate id, ids with no open version left: retired)."""
    with duckdb.connect(str(path), read_only=True) as con:
        open_versions = dict(
            con.execute("select id, count(*) from console.gates where _dlt_valid_to is null group by 1").fetchall()
        )
        ids = {row[0] for row in con.execute("select distinct id from console.gates").fetchall()}
    return open_versions, ids - open_versions.keys()


def reference_with(tmp_path, reference_path, changes_between_runs: list[list[Change]]) -> Snapshot:
    """A fault-free twin, loaded once (the session's reference, copied), then once more after each list of changes,
    then once more with no change, as the drill's convergence run. A run that changes nothing adds its
    extraction_runs row and nothing else (test_whole_lists.py's `test_the_reference_is_two_runs_of_the_same_rows`),
    and every run of the twin's unmoving clock records the same row: that last run's row is added, not loaded."""
    twin = make_twin()
    path = tmp_path / "reference.duckdb"
    with twin.serve() as base_url:
        copy_database(reference_path, path, base_url)
        for changes in changes_between_runs:
            for change in changes:
                apply(twin, change)
            load(twin, base_url, path)
    loaded = snapshot(path)
    runs = loaded[EXTRACTION_RUNS]
    assert len(set(runs.rows)) == 1, runs.rows
    return {**loaded, EXTRACTION_RUNS: TableSnapshot(runs.columns, runs.rows + runs.rows[:1])}


def test_gates_created_and_deleted_while_paging(drill, reference_path, tmp_path):
    drill.start_loaded(reference_path)
    size = drill.overrides["page_size"]
    listed = listed_ids(drill.twin)

    # Run 2: after page 2 a gate of page 1 is deleted. Pages 3+ shift up a place: the gate that was
    # first on page 3 is served on no page of this pass, and the count of the pass still agrees with
    # totalItems (the deleted gate was counted when its page was read).
    victim, unserved = listed[3], listed[2 * size]
    churn = Churn(lambda served, churn: [("delete", victim)] if served.page == 2 and not churn.done else [])
    drill.twin.settings.after_page = churn
    drill.run()

    assert churn.done == [("delete", victim)]
    open_versions, retired = gate_states(drill.duckdb_path)
    assert unserved not in retired, f"{unserved} was never deleted but was retired"
    assert not retired, "the deleted gate is retired by the next run, nothing else ever"
    assert all(count == 1 for count in open_versions.values()), "a gate is held twice"

    # Run 3: after page 2 a gate is created, newest first. Pages 3+ shift down a place: the last gate
    # of page 2 is served again on page 3; the new gate sits on a page already read.
    created = Churn(lambda served, churn: [("create", "drill_created_mid_run")] if served.page == 2 and not churn.done else [])
    drill.twin.settings.after_page = created
    drill.run()

    assert created.done == [("create", "drill_created_mid_run")]
    open_versions, retired = gate_states(drill.duckdb_path)
    assert retired == {victim}
    assert all(count == 1 for count in open_versions.values()), "a gate is held twice"
    # The list is read once (absences are confirmed gate by gate instead): the next run finds it.
    drill.twin.settings.after_page = None
    drill.run()
    assert "drill_created_mid_run" in gate_states(drill.duckdb_path)[0]
    assert_same_tables(drill.snapshot(), reference_with(tmp_path, reference_path, [churn.done, created.done]))


def test_a_list_that_changes_on_every_page_retires_only_deleted_gates(drill, reference_path, tmp_path):
    # A gate created and one deleted after every page: no pass can be complete. The gates missing
    # from the read are read one by one: only deleted ones are retired; the next run converges.
    drill.start_loaded(reference_path)
    before = gate_states(drill.duckdb_path)[0].keys()
    created = iter(range(1000))

    def plan(served: PageServed, churn: Churn) -> list[Change]:
        oldest = listed_ids(served.twin)[-1]
        return [("create", f"drill_churn_{next(created)}"), ("delete", oldest)]

    churn = Churn(plan)
    drill.twin.settings.after_page = churn
    drill.run()
    drill.twin.settings.after_page = None

    deleted = {gate_id for action, gate_id in churn.done if action == "delete"}
    assert gate_states(drill.duckdb_path)[1] <= deleted & before, "only deleted gates are retired"
    drill.run()
    assert_same_tables(drill.snapshot(), reference_with(tmp_path, reference_path, [churn.done]))
