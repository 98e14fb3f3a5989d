"""A rerun that changed nothing loads nothing; a change in one row loads its whole list.

Each list's content is compared, once read whole, with the list last loaded (sources/console/unchanged.py).
The rules held here:

> an unchanged list is neither normalised nor loaded: its SCD2 table keeps every row as it was (load ids
> and validity included), and the summary says "unchanged";
> one changed field of one gate loads the whole gates list: one new version, nothing retired, every other
> row as it was; a gate gone is still retired exactly;
> a run that fails after reading a changed list, in the phase that reads it, records nothing of it: the next
> run loads the change;
> a run whose last phase fails (the exposures) has loaded its first phase's tables, each whole (the changed
> gate with them), names them on its one line, and records no extraction: the next run loads the rest.
"""

from __future__ import annotations

import duckdb

from gatehouse.console_twin import Fault
from gatehouse.sources.console import constants, unchanged
from tests.drills.conftest import DRILL_PAGE_SIZE

GATE_COLUMNS = "id, version, name, _dlt_load_id, _dlt_valid_from, _dlt_valid_to"


def rows(drill, sql: str) -> list[tuple]:
    with duckdb.connect(str(drill.duckdb_path), read_only=True) as connection:
        return sorted(connection.execute(sql).fetchall(), key=repr)


def every_row(drill, table: str) -> list[tuple]:
    return rows(drill, f"select * exclude (_dlt_id) from console.{table}")


def test_a_rerun_without_changes_normalises_and_loads_no_list_and_says_unchanged(drill, reference_path):
    drill.start_loaded(reference_path)  # a first load
    org = drill.twin.organisation
    tables = ("gates", "gates__rules", "dynamic_configs", "dynamic_configs__rules", "qualifying_events", "holdouts")
    before = {table: every_row(drill, table) for table in tables}

    summary = drill.run()

    assert summary.unchanged["gates"] == len(org.listed_gates())
    assert summary.unchanged["dynamic_configs"] == len(org.listed_dynamic_configs())
    assert summary.unchanged["qualifying_events"] == len(org.qualifying_events)
    assert summary.unchanged["holdouts"] == len(before["holdouts"])  # the rows the first load loaded
    # Nothing of the lists or of answers as last loaded reaches the normaliser: only the run's own row and
    # the per-id answers that moved.
    assert not {"gates", "dynamic_configs", "qualifying_events", "holdouts"} & summary.rows_loaded.keys()
    assert not [table for table in summary.rows_loaded if table.startswith(("gates__", "dynamic_configs__"))]
    assert summary.rows_loaded["extraction_runs"] == 1
    assert summary.new_versions == {"gates": 0, "dynamic_configs": 0}
    assert summary.retired == {"gates": 0, "dynamic_configs": 0}
    for table in tables:
        assert every_row(drill, table) == before[table], f"{table} changed"
    said = {line.split()[0]: line.split(None, 1)[1] for line in summary.lines()[1:] if line.startswith("  ")}
    assert said["gates"].startswith(f"unchanged: {len(org.listed_gates())} items read, each as last loaded")
    assert said["dynamic_configs"].startswith("unchanged")
    assert said["extraction_runs"].startswith("1 rows")


def test_one_changed_row_loads_the_whole_list_in_pages_of_page_size_and_retires_exactly(drill, reference_path, monkeypatch):
    drill.start_loaded(reference_path)
    gates = drill.twin.organisation.listed_gates()
    changed, removed = gates[3], gates[7]
    changed["description"] = (changed.get("description") or "") + " (edited)"
    drill.twin.delete_gate(removed["id"])
    listed = drill.twin.organisation.listed_gates()
    untouched = {g["id"] for g in listed} - {changed["id"]}
    before = {row[0]: row for row in rows(drill, f"select {GATE_COLUMNS} from console.gates")}
    drill.twin.reset_requests()
    yielded: list[int] = []  # the pages dlt is handed, by size
    pages = unchanged.ListContent.pages

    def counted_pages(content, page_size):
        for page in pages(content, page_size):
            yielded.append(len(page))
            yield page

    monkeypatch.setattr(unchanged.ListContent, "pages", counted_pages)
    summary = drill.run()

    # A rerun reads its lists in larger pages, and hands a changed one to dlt in pages of page_size.
    limit = round(DRILL_PAGE_SIZE * constants.SPOOLED_PAGE_FACTOR)
    assert limit > DRILL_PAGE_SIZE
    pages_read = -(-len(listed) // limit)
    assert [(r.query["page"], r.query["limit"]) for r in drill.twin.requests if r.path == "/console/v1/gates"] == [
        ([str(page)], [str(limit)]) for page in range(1, pages_read + 1)
    ]
    assert yielded == [DRILL_PAGE_SIZE] * (len(listed) // DRILL_PAGE_SIZE) + [len(listed) % DRILL_PAGE_SIZE] * (
        len(listed) % DRILL_PAGE_SIZE > 0
    )
    # the whole list went to the merge (retirement stays exact, below); the database holds one new row of it
    assert summary.rows_loaded["gates"] == 1
    assert summary.new_versions["gates"] == 1
    assert summary.retired["gates"] == 1
    assert "gates" not in summary.unchanged
    assert summary.unchanged["dynamic_configs"] == len(drill.twin.organisation.listed_dynamic_configs())
    after = rows(drill, f"select {GATE_COLUMNS} from console.gates")
    open_ids = {row[0] for row in after if row[5] is None}
    assert open_ids == untouched | {changed["id"]}
    assert [row for row in after if row[0] in untouched] == sorted((before[i] for i in untouched), key=repr)
    assert rows(drill, f"select description from console.gates where _dlt_valid_to is null and id = '{changed['id']}'") == [
        (changed["description"],)
    ]

    rerun = drill.run()
    assert rerun.unchanged["gates"] == len(gates) - 1
    assert rerun.new_versions["gates"] == 0 and rerun.retired["gates"] == 0


def test_a_run_failing_after_a_changed_list_records_nothing_and_the_next_loads_the_change(drill, reference_path):
    drill.start_loaded(reference_path)
    gate = drill.twin.organisation.listed_gates()[0]
    gate["description"] = (gate.get("description") or "") + " (edited)"
    # Every holdout read fails: the gates list is read whole, then extraction stops.
    drill.twin.settings.faults = [Fault("server_error", rate=1.0, path_prefix="/console/v1/holdouts/")]
    drill.run_failing(max_attempts=1)
    assert rows(drill, f"select description from console.gates where _dlt_valid_to is null and id = '{gate['id']}'") != [
        (gate["description"],)
    ]

    drill.heal()
    summary = drill.run()

    assert "gates" not in summary.unchanged
    assert summary.new_versions["gates"] == 1
    assert rows(drill, f"select description from console.gates where _dlt_valid_to is null and id = '{gate['id']}'") == [
        (gate["description"],)
    ]


def test_a_run_failing_in_its_last_phase_keeps_its_whole_lists_and_records_no_extraction(drill, reference_path):
    drill.start_loaded(reference_path)  # a first load
    gate = drill.twin.organisation.listed_gates()[0]
    gate["description"] = (gate.get("description") or "") + " (edited)"
    extractions = rows(drill, "select extraction_id from console.extraction_runs")
    exposures = every_row(drill, "cumulative_exposures")
    drill.twin.advance(1)  # exposures grow: the next run has rows to load
    # Every exposure read fails: the lists, holdouts and runs (the first load phase) are read and loaded whole.
    drill.twin.settings.faults = [Fault("server_error", rate=1.0, path_suffix="/cumulative_exposures")]
    message = drill.run_failing(max_attempts=1)

    assert message.endswith(
        "(loaded before the failure: ingestion_runs, qualifying_events, gates, dynamic_configs, holdouts;"
        " the run is not recorded in extraction_runs)"
    ), message
    assert rows(drill, f"select description from console.gates where _dlt_valid_to is null and id = '{gate['id']}'") == [
        (gate["description"],)
    ]
    assert rows(drill, "select extraction_id from console.extraction_runs") == extractions
    assert every_row(drill, "cumulative_exposures") == exposures

    drill.heal()
    summary = drill.run()

    assert summary.unchanged["gates"] == len(drill.twin.organisation.listed_gates())
    assert summary.new_versions["gates"] == 0
    assert summary.rows_loaded["cumulative_exposures"] > 0
    assert len(rows(drill, "select extraction_id from console.extraction_runs")) == len(extractions) + 1
    assert exposures, "the first load loaded exposures"
