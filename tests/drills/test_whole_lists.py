"""A list is whole or it is not loaded: after a good load, a page of any list that cannot be a whole part of it
(`data` null or missing, an empty page naming the next, a page shorter than its `itemsPerPage` before the last)
is refused in one line naming the page, nothing is retired, and the next clean run writes no new version. A gate
missing from a list read but answering its own read is kept, whatever characters its id holds.
"""

from __future__ import annotations

import copy

import duckdb
import pytest

from gatehouse.console_twin import PageServed, PaginationStyle
from gatehouse.pipelines.warehouse.destination import Destination
from gatehouse.sources.console import constants
from tests.drills.conftest import Drill, copy_database
from tests.drills.snapshot import assert_same_tables, repeated

pytestmark = pytest.mark.slow

LIST_PATHS = {
    "gates": "/console/v1/gates",
    "dynamic_configs": "/console/v1/dynamic_configs",
    "qualifying_events": "/console/v1/experiments/qualifying_events",
}
# Four a page: every list of the drills' organisation has a second page (a list is read in pages 2.5 times
# larger while it may be unchanged: six qualifying events take two a page).
PAGE_SIZE = 4
PAGE_SIZES = {"gates": PAGE_SIZE, "dynamic_configs": PAGE_SIZE, "qualifying_events": 2}
# Every list at once: the smallest of them, so that each has a second page.
SHORT_PAGE_SIZE = min(PAGE_SIZES.values())


# (the answer that is not whole, the page named, what the refusal says is wrong with it)
NOT_WHOLE = {
    "data-null": (PaginationStyle(null_data_page=2), 2, "the answer's `data` is null, not a list of items"),
    "data-missing": (PaginationStyle(missing_data_page=2), 2, "the answer's `data` is missing, not a list of items"),
    "empty-page-naming-next": (PaginationStyle(empty_page=2), 2, "an empty page names a next page"),
    "short-page-before-last": (PaginationStyle(short_page=1), 1, "items where the page says it holds"),
}


def pipeline_state(drill: Drill) -> tuple[bool, dict]:
    """Whether a load is left pending, and the pipeline's state: what a run leaves for the next besides the rows.
    Where a run was started from (dlt's `last_run_context`, which any run rewrites) says where, not what: left out."""
    pipeline = Destination(duckdb_path=drill.duckdb_path).pipeline()
    state = copy.deepcopy(dict(pipeline.state))
    state.get("_local", {}).pop("last_run_context", None)
    return pipeline.has_pending_data, state


def test_a_page_that_is_not_whole_refuses_its_list_and_nothing_is_retired(
    drill, reference_path, reference, reference_after_two_runs
):
    # Every list, every answer that is not whole, one run each on the same good load: each refused run leaves the
    # rows, the pending loads and the pipeline's state as it found them, so one clean run after them all is the
    # clean run after each.
    copy_database(reference_path, drill.duckdb_path, drill.base_url)
    left = pipeline_state(drill)
    for endpoint in LIST_PATHS:
        for case, (style, page, why) in NOT_WHOLE.items():
            drill.twin.settings.pagination = {endpoint: style}

            message = drill.run_failing(page_size=PAGE_SIZES[endpoint])

            named = f"{endpoint}: {case}"
            assert message.startswith(f"GET {LIST_PATHS[endpoint]} page {page}: ") and why in message, (named, message)
            assert "the list is not loaded, so nothing is retired" in message, (named, message)
            assert_same_tables(drill.snapshot(), reference, f"the database after the run refused {named}")
            assert pipeline_state(drill) == left, f"what the run refused {named} left for the next"
    drill.heal()
    summary = drill.run(page_size=PAGE_SIZE)
    assert summary.new_versions == {"gates": 0, "dynamic_configs": 0}
    assert summary.retired == {"gates": 0, "dynamic_configs": 0}
    assert_same_tables(drill.snapshot(), reference_after_two_runs)


PATH_LIKE_IDS = ["..", "../../etc/passwd", "a/b", "%2e%2e", "."]


def without_extraction_runs(snap: dict) -> dict:
    return {table: rows for table, rows in snap.items() if "extraction_runs" not in table}


def test_gates_whose_ids_look_like_paths_are_kept_while_their_single_reads_answer(drill, reference_path):
    drill.start_loaded(reference_path)  # the organisation's gates loaded; the gates created below load with the next run
    for gate_id in PATH_LIKE_IDS:
        drill.twin.create_gate(gate_id)
    first = drill.run()
    assert first.new_versions["gates"] == len(PATH_LIKE_IDS)
    assert first.retired["gates"] == 0
    loaded = without_extraction_runs(drill.snapshot())
    with duckdb.connect(str(drill.duckdb_path), read_only=True) as connection:
        open_ids = {
            gate_id for (gate_id,) in connection.execute("select id from console.gates where _dlt_valid_to is null").fetchall()
        }
    assert open_ids == {gate["id"] for gate in drill.twin.organisation.listed_gates()} >= set(PATH_LIKE_IDS)

    # Missing from the run's list read, back in the next read of the list: each confirmed by its own read, and
    # taken from the list read again. Nothing retired, nothing new.
    def listed_again_after_the_first_pass(page: PageServed) -> None:
        if page.endpoint == "gates" and page.items < page.limit:
            drill.twin.settings.unlisted = set()

    drill.twin.settings.unlisted = set(PATH_LIKE_IDS)
    drill.twin.settings.after_page = listed_again_after_the_first_pass
    drill.twin.reset_requests()
    summary = drill.run()
    single_reads = sorted(r.path for r in drill.twin.requests if r.path.startswith("/console/v1/gates/"))
    assert single_reads == sorted(
        [
            "/console/v1/gates/%2E%2E",
            "/console/v1/gates/..%2F..%2Fetc%2Fpasswd",
            "/console/v1/gates/a%2Fb",
            "/console/v1/gates/%252e%252e",
            "/console/v1/gates/%2E",
        ]
    )
    assert summary.new_versions == {"gates": 0, "dynamic_configs": 0}
    assert summary.retired == {"gates": 0, "dynamic_configs": 0}
    assert_same_tables(without_extraction_runs(drill.snapshot()), loaded, "after a read that lacked them")

    # Missing from every read of the list while their single reads answer: the list is refused, nothing retired.
    drill.twin.settings.after_page = None
    drill.twin.settings.unlisted = set(PATH_LIKE_IDS)
    message = drill.run_failing()
    assert message.startswith(
        "GET /console/v1/gates: 5 gate(s) answer their own read but two reads of the list lack"
        " them ('%2e%2e', '.', '..' and 2 more); the list is not loaded"
    ), message
    assert_same_tables(without_extraction_runs(drill.snapshot()), loaded, "after the refused run")

    drill.twin.settings.unlisted = set()
    summary = drill.run()
    assert summary.new_versions == {"gates": 0, "dynamic_configs": 0}
    assert_same_tables(without_extraction_runs(drill.snapshot()), loaded, "after the next clean run")


def test_a_last_page_short_of_an_item_retires_and_deletes_nothing(drill, reference_path, reference_after_two_runs):
    # Nothing on a short last page says an item is missing but the count: a gate or config missing is confirmed by
    # reading it (or the list) again; an event is never deleted on a read whose count disagrees. Every list's last
    # page short in one run: each list is read, checked and kept on its own.
    copy_database(reference_path, drill.duckdb_path, drill.base_url)
    # the last page of each list, at the 2.5-times larger pages a list that may be unchanged is read in
    limit = round(SHORT_PAGE_SIZE * constants.SPOOLED_PAGE_FACTOR)
    org = drill.twin.organisation
    items = {
        "gates": org.listed_gates(),
        "dynamic_configs": org.listed_dynamic_configs(),
        "qualifying_events": org.qualifying_events,
    }
    last_pages = {endpoint: -(-len(items[endpoint]) // limit) for endpoint in LIST_PATHS}
    assert min(last_pages.values()) >= 2, last_pages
    drill.twin.settings.pagination = {endpoint: PaginationStyle(short_page=page) for endpoint, page in last_pages.items()}

    summary = drill.run(page_size=SHORT_PAGE_SIZE)

    read = {
        endpoint: {r.query["page"][0] for r in drill.twin.requests if r.path == path} for endpoint, path in LIST_PATHS.items()
    }
    assert all(str(page) in read[endpoint] for endpoint, page in last_pages.items()), (last_pages, read)
    assert summary.retired == {"gates": 0, "dynamic_configs": 0}
    assert_same_tables(drill.snapshot(), reference_after_two_runs, f"after the short last pages {last_pages}")


def test_a_total_the_pages_do_not_add_up_to_on_a_later_run_retires_nothing(drill, reference_path, reference_after_two_runs):
    # A later run confirms each gate missing from its read by reading it: a count that disagrees costs nothing.
    copy_database(reference_path, drill.duckdb_path, drill.base_url)
    drill.twin.settings.pagination = {endpoint: PaginationStyle(total_items_offset=3) for endpoint in LIST_PATHS}

    summary = drill.run(page_size=PAGE_SIZE)

    assert summary.retired == {"gates": 0, "dynamic_configs": 0}
    assert_same_tables(drill.snapshot(), reference_after_two_runs)


def test_the_reference_is_two_runs_of_the_same_rows(reference, reference_after_two_runs):
    # what the drills above compare with: a second run changes nothing but adds its extraction_runs row
    assert_same_tables(reference_after_two_runs, repeated(reference, "console.extraction_runs", 2))
