"""One "as of" for the terminal summary and the HTML report: the earliest console's clock, each project's beside it
when the consoles' clocks differ."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

from gatehouse.pipelines.reports.format import as_of_phrase


def test_one_console_or_clocks_that_agree():
    at = datetime(2026, 11, 2, 6, 0, tzinfo=UTC)
    assert as_of_phrase([("default", at)]) == "as of 2026-11-02 06:00 UTC"
    assert as_of_phrase([("mobile", at), ("web", at)]) == "as of 2026-11-02 06:00 UTC"
    assert as_of_phrase([]) is None


def test_consoles_on_different_clocks_are_each_said():
    web = datetime(2026, 11, 2, 6, 0, tzinfo=UTC)
    mobile = datetime(2025, 10, 13, 2, 0, tzinfo=timezone(timedelta(hours=-4)))
    assert as_of_phrase([("mobile", mobile), ("web", web)]) == (
        "as of 2025-10-13 06:00 UTC (by project: mobile 2025-10-13 06:00, web 2026-11-02 06:00)"
    )
