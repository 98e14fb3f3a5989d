"""The rules the source applies between the client and dlt: exposure days, settled runs, discovery."""

from datetime import UTC, datetime, timedelta

import pytest

from gatehouse.sources.console.catalogue import Catalogue
from gatehouse.sources.console.errors import NotFoundError
from gatehouse.sources.console.exposures import exposure_rows
from gatehouse.sources.console.settle import has_gone_quiet, is_settled

SERIES = [
    {
        "groupID": "g1",
        "groupName": "Control",
        "results": [
            {"date": "2026-10-30", "exposures": 0},
            {"date": "2026-10-31", "exposures": 10},
            {"date": "2026-11-01", "exposures": 15},
        ],
    },
    {
        "groupID": "g2",
        "groupName": "Test",
        "results": [
            {"date": "2026-10-31", "exposures": 9},
            {"date": "2026-11-01", "exposures": 12},
        ],
    },
]


def test_first_load_takes_every_day():
    rows, read_from, newest = exposure_rows("exp", SERIES, None)
    assert (read_from, newest) == ("2026-11-01", "2026-11-01")
    assert rows == [
        {"experiment_id": "exp", "group_id": "g1", "group_name": "Control", "date": "2026-10-30", "exposures": 0},
        {"experiment_id": "exp", "group_id": "g1", "group_name": "Control", "date": "2026-10-31", "exposures": 10},
        {"experiment_id": "exp", "group_id": "g1", "group_name": "Control", "date": "2026-11-01", "exposures": 15},
        {"experiment_id": "exp", "group_id": "g2", "group_name": "Test", "date": "2026-10-31", "exposures": 9},
        {"experiment_id": "exp", "group_id": "g2", "group_name": "Test", "date": "2026-11-01", "exposures": 12},
    ]


def test_later_load_takes_the_last_day_again_and_newer_days_only():
    rows, read_from, newest = exposure_rows("exp", SERIES, "2026-11-01")
    assert (read_from, newest) == ("2026-11-01", "2026-11-01")
    assert [(r["group_id"], r["date"], r["exposures"]) for r in rows] == [("g1", "2026-11-01", 15), ("g2", "2026-11-01", 12)]


def test_experiment_without_days_keeps_its_cursor():
    assert exposure_rows("exp", [{"groupID": "g", "groupName": "G", "results": []}], "2026-10-01") == (
        [],
        "2026-10-01",
        "2026-10-01",
    )


def test_a_lagging_group_keeps_the_cursor_on_its_own_newest_day():
    # The contract does not say every group has the same days: Test's 10-31 arrives a run later.
    lagging = [SERIES[0], {**SERIES[1], "results": SERIES[1]["results"][:1]}]
    rows, read_from, newest = exposure_rows("exp", lagging, None)
    assert (read_from, newest) == ("2026-10-31", "2026-11-01")
    rows, read_from, newest = exposure_rows("exp", SERIES, read_from)
    assert [(r["group_id"], r["date"], r["exposures"]) for r in rows] == [
        ("g1", "2026-10-31", 10), ("g1", "2026-11-01", 15), ("g2", "2026-10-31", 9), ("g2", "2026-11-01", 12),
    ]  # fmt: skip
    assert (read_from, newest) == ("2026-11-01", "2026-11-01")


def test_a_day_listed_twice_is_one_row_with_the_larger_count_and_counts_are_whole_numbers():
    series = [{"groupID": "g", "groupName": "G", "results": [
        {"date": "2026-11-01", "exposures": 7407.0},
        {"date": "2026-11-01", "exposures": 7410},
        {"date": "2026-11-02", "exposures": "7500"},
        {"date": "2026-11-03", "exposures": 7600.6},
    ]}]  # fmt: skip
    rows, _, _ = exposure_rows("exp", series, None)
    assert [(r["date"], r["exposures"]) for r in rows] == [("2026-11-01", 7410), ("2026-11-02", 7500), ("2026-11-03", 7601)]


NOW = datetime(2026, 11, 2, 6, tzinfo=UTC)


def run(status, hours_ago):
    stamp = (NOW - timedelta(hours=hours_ago)).isoformat().replace("+00:00", "Z")
    return {"latestStatus": status, "lastUpdatedAt": stamp, "runHistory": [{"statusTimestamp": stamp, "status": status}]}


@pytest.mark.parametrize(
    "stamp",
    ["2026-10-31t06:00:00.000z", "2026-10-31T06:00:00.000", "2026-10-31T06:00:00Z", "2026-10-31T07:00:00+01:00"],
    ids=["lower-case", "no-offset", "no-millis", "offset"],
)
def test_a_run_stamped_in_any_iso_8601_form_goes_quiet_by_its_age(stamp):
    failed = {"latestStatus": "download_error", "runHistory": [{"statusTimestamp": stamp, "status": "download_error"}]}
    assert has_gone_quiet(failed, NOW, timedelta(hours=48)) is True
    assert has_gone_quiet(failed, NOW, timedelta(hours=49)) is False


def test_a_run_whose_times_cannot_be_read_never_goes_quiet_by_its_age():
    unreadable = {"latestStatus": "download_error", "lastUpdatedAt": "yesterday", "runHistory": [{"statusTimestamp": "n/a"}]}
    assert has_gone_quiet(unreadable, NOW, timedelta(hours=24)) is False


@pytest.mark.parametrize(
    ("status", "hours_ago", "settled"),
    [
        ("pulse_complete", 0, True),
        # an error is not final: the service retries it, at times more than a day later
        ("download_error", 25, False),
        ("download_error", 24 * 30, False),
        ("download_error", 23, False),
        ("metrics_started", 100, False),
        ("enqueued", 0, False),
    ],
)
def test_only_a_completed_run_is_settled(status, hours_ago, settled):
    assert is_settled(run(status, hours_ago)) is settled


class FakeClient:
    """Counts what the catalogue reads; lists and holdouts as the console would return them."""

    def __init__(self):
        self.calls = []

    def list_gates(self):
        self.calls.append("gates")
        yield [{"id": "a", "holdoutIDs": ["h1"]}, {"id": "b", "holdoutIDs": ["h2", "h1"]}]

    def list_dynamic_configs(self):
        self.calls.append("dynamic_configs")
        yield [{"id": "c", "holdoutIDs": ["h3"]}]

    def get_holdout(self, holdout_id):
        return {"id": holdout_id, "experimentIDs": [f"e_{holdout_id}"]}

    def fetch_many(self, fetch, ids):
        for id_ in ids:
            self.calls.append(f"holdout:{id_}")
            if id_ == "missing":
                yield id_, NotFoundError("holdout missing not found", status=404)
            else:
                yield id_, fetch(id_)


def test_catalogue_uses_what_the_lists_recorded_without_reading_again():
    client = FakeClient()
    catalogue = Catalogue(client)
    catalogue.record_list_page("gates", [{"id": "a", "holdoutIDs": ["h1"]}])
    catalogue.complete_list("gates")
    catalogue.record_list_page("dynamic_configs", [{"id": "c", "holdoutIDs": ["h3", "h1"]}])
    catalogue.complete_list("dynamic_configs")
    assert catalogue.holdout_ids(["h9", "h1"]) == ["h9", "h1", "h3"]
    assert client.calls == []


def test_catalogue_reads_lists_and_holdouts_it_has_not_seen():
    client = FakeClient()
    catalogue = Catalogue(client)
    catalogue.record_holdout("h1", {"id": "h1", "experimentIDs": ["e1", "e_shared"]})
    assert catalogue.experiment_ids(["e0", "e1"], ["missing"]) == ["e0", "e1", "e_shared", "e_h2", "e_h3"]
    # The lists were read once each; only holdouts not recorded yet were fetched.
    assert client.calls == ["gates", "dynamic_configs", "holdout:missing", "holdout:h2", "holdout:h3"]


def test_a_holdout_answered_under_another_spelling_is_kept_under_the_id_asked_for():
    # A console that matches ids case-insensitively answers its own spelling in `id`.
    client = FakeClient()
    client.get_holdout = lambda holdout_id: {"id": holdout_id.lower(), "experimentIDs": [f"e_{holdout_id.lower()}"]}
    catalogue = Catalogue(client)
    catalogue.record_list_page("gates", [{"id": "a", "holdoutIDs": ["H1"]}])
    catalogue.complete_list("gates")
    catalogue.record_list_page("dynamic_configs", [])
    catalogue.complete_list("dynamic_configs")
    catalogue.record_holdout("H1", {"id": "h1", "experimentIDs": ["e_h1"]})

    assert catalogue.holdouts_answered(["H1"]) is True
    assert catalogue.experiment_ids([], []) == ["e_h1"]
    assert client.calls == [], "a holdout answered once is not read again"


@pytest.mark.parametrize(
    ("newest", "late_days", "concluded"),
    [
        ("2026-11-02", 4, False),
        ("2026-11-01", 4, False),
        # the service's computation running late: 2 to 4 days behind is late, not concluded
        ("2026-10-31", 4, False),
        ("2026-10-29", 4, False),
        ("2026-10-28", 4, True),
        ("2026-10-30", 3, False),
        ("2026-10-29", 3, True),
    ],
)
def test_an_experiment_concludes_when_its_series_is_silent_longer_than_a_late_computation(newest, late_days, concluded):
    from gatehouse.sources.console.exposures import has_concluded

    assert has_concluded(newest, NOW.date(), late_days) is concluded


def test_the_default_late_computation_is_four_days():
    from gatehouse.sources.console.exposures import has_concluded

    assert (has_concluded("2026-10-29", NOW.date()), has_concluded("2026-10-28", NOW.date())) == (False, True)


@pytest.mark.parametrize(
    ("concluded_on", "quiet"),
    [(None, False), ("2026-11-01", True), ("2026-10-27", True), ("2026-10-26", False)],
)
def test_a_concluded_experiment_is_checked_again_after_a_week(concluded_on, quiet):
    from gatehouse.sources.console.settle import is_quiet

    assert is_quiet(concluded_on, NOW.date(), 7) is quiet
