"""List paging: defaults, page past the end, the nextPage forms production uses, and the drills that
make pages shift, shrink or disagree with their totals."""

from __future__ import annotations

import json

import pytest

from gatehouse.console_twin import ConsoleTwin, PaginationStyle
from tests.twin.conftest import read_all

LISTS = [
    ("gates", "/console/v1/gates"),
    ("dynamic_configs", "/console/v1/dynamic_configs"),
    ("qualifying_events", "/console/v1/experiments/qualifying_events"),
]


def expected_items(twin: ConsoleTwin, endpoint: str) -> list[dict]:
    org = twin.organisation
    return {
        "gates": org.listed_gates,
        "dynamic_configs": org.listed_dynamic_configs,
        "qualifying_events": lambda: org.qualifying_events,
    }[endpoint]()


def test_a_list_without_parameters_answers_page_1_of_100(twin, console, conforms):
    answer = conforms(console.get("/console/v1/gates")).json()

    assert answer["pagination"] == {
        "itemsPerPage": 100,
        "pageNumber": 1,
        "totalItems": len(twin.organisation.listed_gates()),
        "nextPage": None,
        "previousPage": None,
        "all": "",
    }
    assert answer["data"] == twin.organisation.listed_gates()


@pytest.mark.parametrize("endpoint, path", LISTS, ids=[e for e, _ in LISTS])
def test_reading_page_by_page_gives_every_item_once_in_order(twin, console, endpoint, path):
    assert read_all(console, path, limit=7) == expected_items(twin, endpoint)


def test_gates_are_listed_newest_created_first_without_archived_ones(twin):
    listed = twin.organisation.listed_gates()
    created = [gate["createdTime"] for gate in listed]
    assert created == sorted(created, reverse=True)
    assert all(gate["status"] != "Archived" for gate in listed)
    assert any(gate["status"] == "Archived" for gate in twin.organisation.gates.values())


@pytest.mark.parametrize("endpoint, path", LISTS, ids=[e for e, _ in LISTS])
def test_a_page_past_the_end_is_200_with_no_data(twin, console, conforms, endpoint, path):
    answer = conforms(console.get(path, params={"page": 50, "limit": 5}))

    assert answer.status_code == 200
    body = answer.json()
    assert body["data"] == []
    assert body["pagination"]["nextPage"] is None
    assert body["pagination"]["previousPage"] == f"{path}?page=49&limit=5"
    assert body["pagination"]["totalItems"] == len(expected_items(twin, endpoint))


# the host form: the request's Host header before the path, no scheme
ON_HOST = "console.test/console/v1/gates"
NEXT_PAGE_FORMS = [
    ("path", "/console/v1/gates?page=3&limit=5&idType=userID", "/console/v1/gates?page=1&limit=5&idType=userID"),
    ("query", "?page=3&limit=5&idType=userID", "?page=1&limit=5&idType=userID"),
    ("nolimit", "/console/v1/gates?page=3&idType=userID", "/console/v1/gates?page=1&idType=userID"),
    ("host", f"{ON_HOST}?page=3&limit=5&idType=userID", f"{ON_HOST}?page=1&limit=5&idType=userID"),
    ("stuck", "/console/v1/gates?page=2&limit=5&idType=userID", "/console/v1/gates?page=1&limit=5&idType=userID"),
]


@pytest.mark.parametrize("form, next_page, previous_page", NEXT_PAGE_FORMS, ids=[f[0] for f in NEXT_PAGE_FORMS])
def test_next_page_forms(twin, console, conforms, form, next_page, previous_page):
    twin.settings.pagination["gates"] = PaginationStyle(next_page=form)
    pagination = conforms(console.get("/console/v1/gates", params={"page": 2, "limit": 5, "idType": "userID"})).json()[
        "pagination"
    ]
    assert pagination["nextPage"] == next_page
    assert pagination["previousPage"] == previous_page


def test_a_stuck_next_page_never_advances_not_even_on_the_last_page(twin, console):
    twin.settings.pagination["gates"] = PaginationStyle(next_page="stuck")
    last = console.get("/console/v1/gates", params={"page": 1, "limit": 1000}).json()["pagination"]
    assert last["nextPage"] == "/console/v1/gates?page=1&limit=1000"


def test_total_items_can_be_left_out_or_disagree_and_all_can_be_empty(twin, console, conforms):
    twin.settings.pagination["dynamic_configs"] = PaginationStyle(total_items=False, all="empty")
    twin.settings.pagination["qualifying_events"] = PaginationStyle(total_items_offset=3)

    configs = conforms(console.get("/console/v1/dynamic_configs", params={"limit": 5})).json()["pagination"]
    events = conforms(console.get("/console/v1/experiments/qualifying_events")).json()

    assert "totalItems" not in configs
    assert configs["all"] == ""
    assert events["pagination"]["totalItems"] == len(events["data"]) + 3
    assert events["pagination"]["all"] == "/console/v1/experiments/qualifying_events"


def test_max_limit_serves_fewer_items_than_asked(twin, console):
    twin.settings.max_limit = 10
    body = console.get("/console/v1/gates", params={"limit": 100}).json()

    assert len(body["data"]) == 10
    assert body["pagination"]["itemsPerPage"] == 10
    assert body["pagination"]["nextPage"] == "/console/v1/gates?page=2&limit=10"


def test_there_is_no_maximum_limit_by_default():
    medium = ConsoleTwin("medium", seed=0)
    answer = medium.answer("GET", "/console/v1/gates?limit=20000", {"service-api-key": medium.settings.api_key}, b"")
    body = json.loads(answer.body)
    assert len(body["data"]) == len(medium.organisation.listed_gates())
    assert body["pagination"]["nextPage"] is None


def test_a_gate_created_while_paging_shifts_an_item_onto_the_next_page(twin, console):
    def create_after_page_1(page):
        if page.endpoint == "gates" and page.page == 1:
            page.twin.create_gate("created_while_paging")

    twin.settings.after_page = create_after_page_1
    first = console.get("/console/v1/gates", params={"page": 1, "limit": 5}).json()["data"]
    second = console.get("/console/v1/gates", params={"page": 2, "limit": 5}).json()["data"]

    # Newest first: the new gate pushes page 1's last item onto page 2, which serves it again.
    assert second[0] == first[-1]
    assert "created_while_paging" not in {gate["id"] for gate in first + second}
    assert twin.organisation.listed_gates()[0]["id"] == "created_while_paging"


def test_a_gate_deleted_while_paging_makes_an_item_skip_a_pass(twin, console):
    listed = [gate["id"] for gate in twin.organisation.listed_gates()]

    def delete_after_page_1(page):
        if page.page == 1:
            page.twin.delete_gate(listed[0])

    twin.settings.after_page = delete_after_page_1
    seen = [gate["id"] for gate in read_all(console, "/console/v1/gates", limit=5)]

    assert listed[5] not in seen  # it moved onto page 1 after page 1 was served
    assert len(seen) == len(listed) - 1


@pytest.mark.parametrize(
    "drift, check",
    [
        (lambda item: {**item, "riskScore": 0.7}, lambda item: item["riskScore"] == 0.7),
        (lambda item: {**item, "checksPerHour": "many"}, lambda item: item["checksPerHour"] == "many"),
        (lambda item: {k: v for k, v in item.items() if k != "team"}, lambda item: "team" not in item),
    ],
    ids=["new field", "changed type", "removed field"],
)
def test_items_can_drift_from_the_schema(twin, console, drift, check):
    twin.settings.transform_item = lambda endpoint, item: drift(item) if endpoint in ("gates", "gate") else item
    listed = console.get("/console/v1/gates", params={"limit": 3}).json()["data"]
    single = console.get(f"/console/v1/gates/{listed[0]['id']}").json()["data"]

    assert all(check(item) for item in listed + [single])
    assert all("team" in gate for gate in twin.organisation.gates.values())  # the organisation itself is untouched


def test_pagination_can_be_left_out_as_in_the_dynamic_configs_sample(twin, console):
    twin.settings.pagination["dynamic_configs"] = PaginationStyle(omitted=True)
    twin.settings.max_limit = 2

    first = console.get("/console/v1/dynamic_configs", params={"limit": 100}).json()
    past_the_end = console.get("/console/v1/dynamic_configs", params={"page": 10_000, "limit": 100}).json()

    assert "pagination" not in first and len(first["data"]) == 2
    assert past_the_end == {"message": "Dynamic Configs listed successfully.", "data": []}
