"""The one pagination generator and the complete-list reader, against every nextPage form."""

from __future__ import annotations

import pytest

from gatehouse.sources.console.constants import GATES_PATH, QUALIFYING_EVENTS_PATH
from gatehouse.sources.console.errors import PaginationError
from gatehouse.sources.console.settings import DEFAULT_PAGE_SIZE
from tests.client.conftest import BASE_URL, answer, items, page_answer


def pages_handler(pages: dict[int, dict], path: str = GATES_PATH):
    """Serve page n from pages[n] = kwargs of page_answer (items under 'items'); past the end: empty."""

    def handler(request, sent):
        assert sent.path == path, "the client must always request its own list path"
        page = int(sent.params["page"][0])
        spec = dict(pages.get(page, {"items": []}))
        return page_answer(spec.pop("items"), page, **spec)

    return handler


def sent_pages(console) -> list[tuple[str, str | None]]:
    return [(s.params["page"][0], s.params.get("limit", [None])[0]) for s in console.sent]


@pytest.mark.parametrize(
    "next_of",
    [
        pytest.param(lambda n: f"/console/v1/gates?page={n}&limit=2", id="path-and-query"),
        pytest.param(lambda n: f"?page={n}&limit=2", id="query-only"),
        pytest.param(lambda n: f"host.example/console/v1/audit_logs?page={n}&limit=2", id="host-without-scheme"),
        pytest.param(lambda n: f"https://elsewhere.example/console/v1/gates?page={n}&limit=2", id="absolute-other-host"),
        pytest.param(lambda n: f"/console/v1/metrics/qualifying_event/list?page={n}&limit=2", id="other-path"),
    ],
)
def test_follows_every_next_page_form_on_our_own_path_and_host(make_client, next_of):
    pages = {
        1: {"items": items(1, 2), "next_page": next_of(2), "per_page": 2},
        2: {"items": items(3, 4), "next_page": next_of(3), "per_page": 2},
        3: {"items": items(5), "next_page": None, "per_page": 2},
    }
    client, console = make_client(pages_handler(pages), page_size=2)

    got = [page.items for page in client.paginate(GATES_PATH)]

    assert got == [items(1, 2), items(3, 4), items(5)]
    assert sent_pages(console) == [("1", "2"), ("2", "2"), ("3", "2")]
    assert all(s.url.startswith(f"{BASE_URL}{GATES_PATH}?") for s in console.sent)


def test_next_page_without_limit_keeps_our_limit(make_client):
    pages = {
        1: {"items": items(1, 2, 3), "next_page": "/console/v1/ingestion/runs?page=2"},
        2: {"items": items(4), "next_page": None},
    }
    client, console = make_client(pages_handler(pages), page_size=3)
    assert [p.number for p in client.paginate(GATES_PATH)] == [1, 2]
    assert sent_pages(console) == [("1", "3"), ("2", "3")]


def test_server_cap_on_limit_is_followed_not_assumed(make_client):
    # We ask for the default page size; the server serves 2 and says so in nextPage and itemsPerPage.
    pages = {
        1: {"items": items(1, 2), "next_page": "?page=2&limit=2", "per_page": 2, "total": 5},
        2: {"items": items(3, 4), "next_page": "?page=3&limit=2", "per_page": 2, "total": 5},
        3: {"items": items(5), "next_page": None, "per_page": 2, "total": 5},
    }
    client, console = make_client(pages_handler(pages))
    assert [i["id"] for batch in client.list_gates() for i in batch] == ["1", "2", "3", "4", "5"]
    assert sent_pages(console) == [("1", str(DEFAULT_PAGE_SIZE)), ("2", "2"), ("3", "2")]


@pytest.mark.parametrize(
    "pages, expected_requests",
    [
        pytest.param(
            {1: {"items": items(1, 2)}, 2: {"items": items(3, 4)}, 3: {"items": items(5)}},
            [("1", "2"), ("2", "2"), ("3", "2")],
            id="full-pages-then-short-page",
        ),
        pytest.param(
            {1: {"items": items(1, 2)}, 2: {"items": items(3, 4)}},
            [("1", "2"), ("2", "2"), ("3", "2")],
            id="full-pages-then-empty-page",
        ),
        pytest.param(
            # the server caps at 1 item and says so only through itemsPerPage
            {1: {"items": items(1), "per_page": 1}, 2: {"items": items(2), "per_page": 1}},
            [("1", "2"), ("2", "2"), ("3", "2")],
            id="full-by-items-per-page",
        ),
        pytest.param(
            # short page but totalItems says more remain
            {1: {"items": items(1), "total": 2}, 2: {"items": items(2), "total": 2}},
            [("1", "2"), ("2", "2")],
            id="short-page-but-total-says-more",
        ),
    ],
)
def test_falls_back_to_page_number_plus_one_without_next_page(make_client, pages, expected_requests):
    client, console = make_client(pages_handler(pages), page_size=2)
    list(client.paginate(GATES_PATH))
    assert sent_pages(console) == expected_requests


@pytest.mark.parametrize("last_next", [None, ""], ids=["null", "empty"])
def test_stops_on_null_or_empty_next_page(make_client, last_next):
    pages = {1: {"items": items(1, 2), "next_page": last_next}}
    client, console = make_client(pages_handler(pages), page_size=2)
    assert len(list(client.paginate(GATES_PATH))) == 1
    assert len(console.sent) == 1


@pytest.mark.parametrize("total", [None, 3], ids=["no-totalItems", "totalItems"])
def test_an_empty_page_naming_a_next_page_refuses_the_list_naming_the_page(make_client, total):
    # A page that came back empty while the list goes on lost its items: read past, they would be retired.
    pages = {
        1: {"items": items(1, 2), "next_page": "?page=2&limit=2", "total": total},
        2: {"items": [], "next_page": "?page=3&limit=2", "total": total},
        3: {"items": items(3), "next_page": None, "total": total},
    }
    client, console = make_client(pages_handler(pages), page_size=2)
    with pytest.raises(PaginationError) as refused:
        list(client.list_gates())
    assert str(refused.value) == (
        "GET /console/v1/gates page 2: an empty page names a next page ('?page=3&limit=2'); the list is not loaded, so"
        " nothing is retired for what that page did not send: the next run reads it again"
    )
    assert sent_pages(console) == [("1", "2"), ("2", "2")]


def test_a_page_shorter_than_its_items_per_page_before_the_last_refuses_the_list(make_client):
    pages = {
        1: {"items": items(1, 2), "next_page": "?page=2&limit=2", "per_page": 2},
        2: {"items": items(3), "next_page": "?page=3&limit=2", "per_page": 2},
        3: {"items": items(4), "next_page": None, "per_page": 2},
    }
    client, console = make_client(pages_handler(pages), page_size=2)
    with pytest.raises(
        PaginationError,
        match=r"^GET /console/v1/gates page 2: 1 items where the page says it holds 2,"
        r" and it names a next page \('\?page=3&limit=2'\); the list is not loaded",
    ):
        list(client.list_gates())
    assert len(console.sent) == 2


def test_a_short_page_the_console_says_is_its_page_size_is_followed(make_client):
    # A server may serve fewer items than asked: its itemsPerPage, not our limit, says what a whole page holds.
    pages = {
        1: {"items": items(1, 2), "next_page": "?page=2&limit=2", "per_page": 2},
        2: {"items": items(3), "next_page": None, "per_page": 2},
    }
    client, console = make_client(pages_handler(pages), page_size=5)
    assert [i["id"] for batch in client.list_gates() for i in batch] == ["1", "2", "3"]


@pytest.mark.parametrize(
    "pages",
    [
        pytest.param({1: {"items": items(1), "next_page": "?page=1&limit=1"}}, id="next-is-same-page"),
        pytest.param(
            {1: {"items": items(1), "next_page": "?page=2&limit=1"}, 2: {"items": items(2), "next_page": "?page=1&limit=1"}},
            id="next-goes-back",
        ),
    ],
)
def test_refuses_to_loop_on_a_next_page_that_does_not_advance(make_client, pages):
    client, console = make_client(pages_handler(pages), page_size=1)
    with pytest.raises(PaginationError, match="stopping instead of looping"):
        list(client.paginate(GATES_PATH))
    assert len(console.sent) <= 2


def test_refuses_a_server_that_ignores_the_page_parameter(make_client):
    client, console = make_client(lambda request, sent: page_answer(items(1), 1, next_page="?page=2&limit=1"), page_size=1)
    with pytest.raises(PaginationError, match="asked for page 2 but the console answered page 1"):
        list(client.paginate(GATES_PATH))
    assert len(console.sent) == 2


def test_a_body_without_a_data_list_is_a_pagination_error(make_client):
    client, _ = make_client(lambda request, sent: answer(200, {"message": "odd", "data": {"id": "x"}}))
    with pytest.raises(PaginationError, match=r"page 1: the answer.s `data` is a dict, not a list of items"):
        list(client.paginate(GATES_PATH))


def test_filters_are_sent_on_every_page_with_repeated_values(make_client):
    pages = {1: {"items": items(1), "next_page": "?page=2&limit=1"}, 2: {"items": items(2), "next_page": None}}
    client, console = make_client(pages_handler(pages), page_size=1)
    list(client.list_gates(type="STALE", tags=["web", "checkout"], creatorID=None))
    for s in console.sent:
        assert s.params["type"] == ["STALE"]
        assert s.params["tags"] == ["web", "checkout"]
        assert "creatorID" not in s.params


def test_a_filter_the_list_does_not_take_is_refused_before_any_request(make_client):
    client, console = make_client(pages_handler({1: {"items": items(1), "next_page": None}}))
    with pytest.raises(TypeError, match="unknown filter[(]s[)] tag; known: creatorID, creatorName, releasePipelineID, tags"):
        client.list_dynamic_configs(tag="web")
    with pytest.raises(TypeError, match="unknown filter[(]s[)] typ; known: .*idType"):
        client.list_gates(typ="STALE")
    assert console.sent == []


def test_complete_read_dedups_items_repeated_across_pages(make_client):
    # An item created at the front shifts the list: item 2 is served twice.
    pages = {
        1: {"items": items(1, 2), "next_page": "?page=2&limit=2", "total": 3},
        2: {"items": items(2, 3), "next_page": None, "total": 3},
    }
    client, console = make_client(pages_handler(pages), page_size=2)
    assert list(client.list_gates()) == [items(1, 2), items(3)]
    assert len(console.sent) == 2


def test_complete_read_rereads_once_and_yields_only_unseen_items(make_client):
    # First pass: item 3 falls between pages (a deletion shifted it); totalItems says 4.
    passes = {
        1: {
            1: {"items": items(1, 2), "next_page": "?page=2&limit=2", "total": 4},
            2: {"items": items(4), "next_page": None, "total": 4},
        },
        2: {
            1: {"items": items(1, 2), "next_page": "?page=2&limit=2", "total": 4},
            2: {"items": items(3, 4), "next_page": None, "total": 4},
        },
    }

    def handler(request, sent):
        page = int(sent.params["page"][0])
        current = 1 if len(console.sent) <= 2 else 2
        spec = dict(passes[current][page])
        return page_answer(spec.pop("items"), page, **spec)

    client, console = make_client(handler, page_size=2)
    assert list(client.list_gates()) == [items(1, 2), items(4), items(3)]
    assert sent_pages(console) == [("1", "2"), ("2", "2"), ("1", "2"), ("2", "2")]


def test_complete_read_rereads_when_total_items_changes_between_pages(make_client):
    # A gate deleted from page 1 after it was read: totalItems drops from 5 to 4 and item 3 slides
    # from page 2 to page 1, unseen. The count of the pass (1, 2, 4, 5 = 4) agrees with the last
    # totalItems, but the change of totalItems shows the pass is not a complete read.
    passes = {
        1: {
            1: {"items": items(1, 2), "next_page": "?page=2&limit=2", "total": 5},
            2: {"items": items(4, 5), "next_page": None, "total": 4},
        },
        2: {
            1: {"items": items(1, 3), "next_page": "?page=2&limit=2", "total": 4},
            2: {"items": items(4, 5), "next_page": None, "total": 4},
        },
    }

    def handler(request, sent):
        page = int(sent.params["page"][0])
        spec = dict(passes[1 if len(console.sent) <= 2 else 2][page])
        return page_answer(spec.pop("items"), page, **spec)

    client, console = make_client(handler, page_size=2)
    assert list(client.list_gates()) == [items(1, 2), items(4, 5), items(3)]
    assert len(console.sent) == 4


def test_complete_read_fails_when_total_items_keeps_changing(make_client):
    totals = iter(range(10, 0, -1))
    pages = {1: {"items": items(1, 2), "next_page": "?page=2&limit=2"}, 2: {"items": items(3), "next_page": None}}

    def handler(request, sent):
        page = int(sent.params["page"][0])
        spec = dict(pages[page])
        return page_answer(spec.pop("items"), page, total=next(totals), **spec)

    client, console = make_client(handler, page_size=2)
    with pytest.raises(PaginationError, match=r"the list changed while it was read \(totalItems went from 8 to 7\)"):
        list(client.list_gates())


@pytest.mark.parametrize("offset", [1, -1], ids=["total-counts-more", "total-counts-fewer"])
def test_a_total_that_never_agrees_is_accepted_when_two_passes_agree(make_client, caplog, offset):
    # A console whose totalItems counts what it does not list (archived gates): both passes serve the same
    # items, each once, with one unchanging total, to a null nextPage. Nothing moved: the count is off, not the list.
    pages = {
        1: {"items": items(1, 2), "next_page": "?page=2&limit=2", "total": 3 + offset},
        2: {"items": items(3), "next_page": None, "total": 3 + offset},
    }
    client, console = make_client(pages_handler(pages), page_size=2)
    assert list(client.list_gates()) == [items(1, 2), items(3)]
    assert sent_pages(console) == [("1", "2"), ("2", "2"), ("1", "2"), ("2", "2")]
    assert f"two passes served the same 3 items, each once, but the console reports {3 + offset}" in caplog.text


@pytest.mark.parametrize(
    "passes",
    [
        pytest.param(
            {
                1: {1: {"items": items(1, 2), "next_page": None, "total": 4}},
                2: {1: {"items": items(1, 3), "next_page": None, "total": 4}},
            },
            id="passes-serve-different-items",
        ),
        pytest.param(
            {
                1: {
                    1: {"items": items(1, 2), "next_page": "?page=2&limit=2", "total": 4},
                    2: {"items": items(2, 3), "next_page": None, "total": 4},
                }
            },
            id="an-item-served-twice",
        ),
        pytest.param(
            {1: {1: {"items": items(1, 2), "total": 4}, 2: {"items": items(3), "total": 4}}},
            id="no-null-next-page",
        ),
    ],
)
def test_a_total_that_never_agrees_fails_unless_the_passes_show_nothing_moved(make_client, passes):
    def handler(request, sent):
        page = int(sent.params["page"][0])
        served = passes[1 if len(console.sent) <= len(passes[1]) else len(passes)]
        spec = dict(served.get(page, {"items": []}))
        return page_answer(spec.pop("items"), page, **spec)

    client, console = make_client(handler, page_size=2)
    with pytest.raises(PaginationError, match=r"a second pass saw .*\(the two passes did not serve the same items, each once"):
        list(client.list_gates())


def test_complete_read_without_total_reads_once(make_client):
    pages = {1: {"items": items(1, 2), "next_page": None}}
    client, console = make_client(pages_handler(pages), page_size=2)
    assert list(client.list_gates()) == [items(1, 2)]
    assert len(console.sent) == 1


def test_qualifying_events_are_keyed_by_name_and_the_sample_next_page_is_safe(make_client):
    # The published sample points nextPage at /console/v1/metrics/qualifying_event/list.
    events = [{"name": "Log Events"}, {"name": "Purchases"}]
    pages = {
        1: {
            "items": events[:1],
            "next_page": "/console/v1/metrics/qualifying_event/list?page=2&limit=1",
            "total": 2,
            "per_page": 1,
        },
        2: {"items": events[1:], "next_page": None, "total": 2, "per_page": 1},
    }
    client, console = make_client(pages_handler(pages, QUALIFYING_EVENTS_PATH), page_size=1)
    assert list(client.list_qualifying_events()) == [events[:1], events[1:]]
    assert console.paths == [QUALIFYING_EVENTS_PATH, QUALIFYING_EVENTS_PATH]


def test_paginate_can_start_at_a_later_page(make_client):
    pages = {3: {"items": items(5, 6), "next_page": None}}
    client, console = make_client(pages_handler(pages), page_size=2)
    first = next(iter(client.paginate(GATES_PATH, {"type": "STALE"}, page_size=2, start_page=3)))
    assert (first.number, first.items) == (3, items(5, 6))
    assert console.sent[0].params == {"type": ["STALE"], "page": ["3"], "limit": ["2"]}


def unpaginated_handler(pages: dict[int, list[dict]]):
    """Answers as the published dynamic-configs sample does: `data` and no `pagination` object at all."""

    def handler(request, sent):
        return answer(
            200, {"message": "Dynamic Configs listed successfully.", "data": pages.get(int(sent.params["page"][0]), [])}
        )

    return handler


def test_without_a_pagination_object_a_short_page_is_not_the_end(make_client):
    # We ask for the default page size; the server serves 2 a page (a cap it does not report) and sends no
    # `pagination` (the dynamic-configs sample has none). Only an empty page ends the list.
    client, console = make_client(unpaginated_handler({1: items(1, 2), 2: items(3, 4), 3: items(5)}))
    assert [i["id"] for batch in client.list_dynamic_configs() for i in batch] == ["1", "2", "3", "4", "5"]
    limit = str(DEFAULT_PAGE_SIZE)
    assert sent_pages(console) == [("1", limit), ("2", limit), ("3", limit), ("4", limit)]


def test_without_a_pagination_object_a_server_ignoring_page_is_read_once(make_client):
    # No `pagination`, and `page` ignored: page 2 repeats page 1, which was short of our limit,
    # so page 1 was the whole list.
    client, console = make_client(lambda request, sent: answer(200, {"message": "listed", "data": items(1, 2)}))
    assert list(client.list_dynamic_configs()) == [items(1, 2)]
    assert len(console.sent) == 2


def test_without_a_pagination_object_a_repeated_full_page_is_a_pagination_error(make_client):
    client, console = make_client(lambda request, sent: answer(200, {"message": "listed", "data": items(1, 2)}), page_size=2)
    with pytest.raises(PaginationError, match="stopping instead of looping"):
        list(client.list_dynamic_configs())
    assert len(console.sent) == 2


def test_without_a_pagination_object_a_reordered_repeat_of_the_page_is_still_a_repeat(make_client):
    # The order of a list is not documented: a server ignoring `page` may serve the same items
    # in another order on every request. That is still page 1 again, not a next page.
    orders = iter([items(1, 2, 3), items(3, 1, 2), items(2, 3, 1)])
    client, console = make_client(lambda request, sent: answer(200, {"message": "listed", "data": next(orders)}))
    assert [sorted(i["id"] for i in batch) for batch in client.list_dynamic_configs()] == [["1", "2", "3"]]
    assert len(console.sent) == 2


def test_without_a_pagination_object_full_pages_end_at_the_empty_page(make_client):
    client, console = make_client(unpaginated_handler({1: items(1, 2), 2: items(3, 4)}), page_size=2)
    assert list(client.list_dynamic_configs()) == [items(1, 2), items(3, 4)]
    assert sent_pages(console) == [("1", "2"), ("2", "2"), ("3", "2")]


@pytest.mark.parametrize("data", ["null", "missing"])
@pytest.mark.parametrize("page", [1, 2])
def test_a_page_whose_data_is_null_or_missing_refuses_the_list(make_client, data, page):
    def handler(request, sent):
        number = int(sent.params["page"][0])
        body = {
            "message": "listed",
            "data": items(number),
            "pagination": {"pageNumber": number, "nextPage": "?page=2&limit=1" if number == 1 else None, "totalItems": 2},
        }
        if number == page:
            body.pop("data") if data == "missing" else body.update(data=None)
        return answer(200, body)

    client, console = make_client(handler, page_size=1)
    with pytest.raises(PaginationError) as refused:
        list(client.list_gates())
    assert str(refused.value) == (
        f"GET /console/v1/gates page {page}: the answer's `data` is {data}, not a list of items; the list is not"
        " loaded, so nothing is retired for what that page did not send: the next run reads it again"
    )
    assert len(console.sent) == page


def test_data_null_is_an_empty_list_only_when_the_console_counts_no_items(make_client):
    client, console = make_client(
        lambda request, sent: answer(
            200, {"message": "listed", "data": None, "pagination": {"pageNumber": 1, "nextPage": None, "totalItems": 0}}
        )
    )
    assert list(client.list_gates()) == []
    assert len(console.sent) == 1


def test_without_a_pagination_object_a_404_past_the_end_ends_the_list(make_client):
    # The OpenAPI documents 404 for the dynamic-configs list: a console may answer it past the end.
    def handler(request, sent):
        if sent.params["page"] == ["1"]:
            return answer(200, {"message": "listed", "data": items(1, 2)})
        return answer(404, {"status": 404, "message": "Not Found"})

    client, console = make_client(handler)
    assert list(client.list_dynamic_configs()) == [items(1, 2)]
    assert len(console.sent) == 2


def test_a_404_on_the_first_page_is_still_an_error(make_client):
    from gatehouse.sources.console.errors import NotFoundError

    client, _ = make_client(lambda request, sent: answer(404, {"status": 404, "message": "Not Found"}))
    with pytest.raises(NotFoundError):
        list(client.list_dynamic_configs())


def test_qualifying_events_whose_total_never_agrees_are_read_twice_and_kept(make_client):
    # Merged, never retired: a count the console keeps differently must not fail every run.
    def handler(request, sent):
        return page_answer([{"name": "purchase"}, {"name": "signup"}], 1, next_page=None, total=5)

    client, console = make_client(handler)
    assert [e["name"] for batch in client.list_qualifying_events() for e in batch] == ["purchase", "signup"]
    assert len(console.sent) == 2


def gate(gate_id: str, **fields) -> dict:
    return {"id": gate_id, "name": f"gate {gate_id}", **fields}


@pytest.mark.parametrize(
    "first, later",
    [
        pytest.param(
            gate("a", lastModifiedTime=100, version=1), gate("a", lastModifiedTime=200, version=2), id="newer-by-lastModifiedTime"
        ),
        pytest.param(gate("a", version=1), gate("a", version=2), id="newer-by-version"),
        pytest.param(gate("a", isEnabled=True), gate("a", isEnabled=False), id="no-stamps-later-served"),
    ],
)
def test_an_item_served_again_in_a_newer_copy_is_yielded_again(make_client, first, later):
    # The console orders by lastModifiedTime (order is not documented): a gate edited while the list is paged moves
    # to the last page and is served twice, its old version first. The caller keeps the last copy of each id.
    pages = {
        1: {"items": [first, gate("b")], "next_page": "?page=2&limit=2", "total": 3},
        2: {"items": [gate("c"), later], "next_page": None, "total": 3},
    }
    client, console = make_client(pages_handler(pages), page_size=2)

    got = list(client.list_gates())

    assert got == [[first, gate("b")], [gate("c"), later]]
    assert len(console.sent) == 2


def test_only_a_newer_copy_replaces_the_one_yielded(make_client):
    # Version 3 replaces version 1; version 2, served after it, and b served again as it was are left out.
    a1, a2, a3 = (gate("a", lastModifiedTime=100 * v, version=v) for v in (1, 2, 3))
    b = gate("b", lastModifiedTime=50, version=1)
    pages = {
        1: {"items": [a1], "next_page": "?page=2&limit=2", "total": 3},
        2: {"items": [a3, b], "next_page": "?page=3&limit=2", "total": 3},
        3: {"items": [a2, gate("c"), b], "next_page": None, "total": 3},
    }
    client, console = make_client(pages_handler(pages), page_size=2)

    assert list(client.list_gates()) == [[a1], [a3, b], [gate("c")]]
    assert len(console.sent) == 3
