"""Odd pagination: every form of `nextPage`, a capped `limit`, a `totalItems` that lies, a page that never ends."""

from __future__ import annotations

import pytest

from gatehouse.console_twin import PaginationStyle
from gatehouse.console_twin.settings import LIST_ENDPOINTS
from tests.drills.snapshot import assert_same_tables


def paginate_all_lists(drill, style: PaginationStyle) -> None:
    drill.twin.settings.pagination = {endpoint: style for endpoint in LIST_ENDPOINTS}


def read_in_pages_as_the_reference(drill, reference, form: str) -> None:
    """A first run in pages of four, every list's next page in `form` and paged (qualifying events included): it
    loads the reference's rows."""
    drill.twin.reset_requests()
    drill.run(page_size=4)

    pages = [r for r in drill.twin.requests if r.path == "/console/v1/experiments/qualifying_events"]
    assert len(pages) >= 2, form
    assert_same_tables(drill.snapshot(), reference, f"the database read in the {form} form")


# Every form of `nextPage` but the path form (/console/v1/gates?page=2&limit=4), which the clean first run after an
# empty page reads (below).
NEXT_PAGE_FORMS = {
    "query": PaginationStyle(next_page="query"),  # ?page=2&limit=4
    "nolimit": PaginationStyle(next_page="nolimit"),  # /console/v1/gates?page=2
    "host": PaginationStyle(next_page="host"),  # 127.0.0.1:port/console/v1/gates?page=2&limit=4
    "no-totalItems": PaginationStyle(total_items=False, all="empty"),  # neither totalItems nor `all`
}


@pytest.mark.parametrize("form", list(NEXT_PAGE_FORMS))
def test_every_next_page_form_reads_every_item(drill, reference, form):
    paginate_all_lists(drill, NEXT_PAGE_FORMS[form])

    read_in_pages_as_the_reference(drill, reference, form)


def test_a_server_that_caps_limit_below_what_was_asked(drill, reference):
    drill.twin.settings.max_limit = 7

    drill.run(page_size=1000)

    limits = {q for r in drill.twin.requests if r.path == "/console/v1/gates" for q in r.query["limit"]}
    assert limits == {"1000", "7"}, "the first page asks for 1000, the next ones follow the capped links"
    assert_same_tables(drill.snapshot(), reference)


def test_a_server_that_caps_limit_and_sends_no_pagination(drill, reference):
    # The dynamic-configs sample has no `pagination`; with a cap it does not report, only an empty
    # page shows the end of a list.
    drill.twin.settings.pagination = {endpoint: PaginationStyle(omitted=True) for endpoint in LIST_ENDPOINTS}
    drill.twin.settings.max_limit = 7

    drill.run(page_size=1000)

    assert_same_tables(drill.snapshot(), reference)


def test_a_next_page_that_never_advances_fails_clearly_and_loads_nothing(
    drill, reference_path, reference, reference_after_two_runs
):
    drill.start_loaded(reference_path)
    drill.twin.settings.pagination = {"gates": PaginationStyle(next_page="stuck")}

    message = drill.run_failing()

    assert "/console/v1/gates" in message and "next page" in message, message
    assert_same_tables(drill.snapshot(), reference, "the database after the failed run")
    drill.heal()
    drill.run()
    assert_same_tables(drill.snapshot(), reference_after_two_runs)


@pytest.mark.parametrize("offset", [2, -2])
def test_a_total_items_that_disagrees_with_the_items_served(drill, reference, reference_after_two_runs, offset):
    # A console whose totalItems counts what it does not list (archived gates) or leaves some out. A first run has
    # no list of the last run to confirm absences against: it reads the list twice, and both passes serve the same
    # gates, each once, with one unchanging total, to a null nextPage. Nothing moved: the list is loaded as served.
    drill.twin.settings.pagination = {"gates": PaginationStyle(total_items_offset=offset)}

    drill.run()

    pages = [r.query["page"][0] for r in drill.twin.requests if r.path == "/console/v1/gates"]
    assert len(pages) >= 2 and pages == pages[: len(pages) // 2] * 2, pages
    assert_same_tables(drill.snapshot(), reference)
    # Later runs confirm each absence by reading the gate itself, so the count no longer matters.
    drill.run()
    assert_same_tables(drill.snapshot(), reference_after_two_runs)


def test_an_empty_page_in_the_middle_with_a_next_page_refuses_a_first_run_and_leaves_no_database(drill, reference):
    # page 2 of every list is empty but names a next page: nothing tells it from a page that lost its items, so the
    # list is refused (tests/drills/test_whole_lists.py drills every list after a good load)
    paginate_all_lists(drill, PaginationStyle(empty_page=2))

    message = drill.run_failing(page_size=4)

    assert "page 2: an empty page names a next page" in message, message
    assert not drill.duckdb_path.exists()
    # the next clean run, every list's next page in the path form: /console/v1/gates?page=2&limit=4
    drill.heal()
    paginate_all_lists(drill, PaginationStyle(next_page="path"))
    read_in_pages_as_the_reference(drill, reference, "path")
