"""Alerts start quietly: `gatehouse alerts --mark-known` records what holds today as told, sends nothing, and the
first scheduled alerting after it sends only what is new."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from gatehouse.pipelines.cli import main as cli
from tests.alerts.receiver import Receiver, receiving
from tests.alerts.runs import alerting_run
from tests.alerts.test_alerts import BASE_URL, SLACK_PATH, WEBHOOK_PATH, conditions_in_views, run_options, webhook_keys
from tests.drills.conftest import copy_database
from tests.pipeline.conftest import make_twin, seed_reference


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    with receiving() as receiver, pytest.MonkeyPatch.context() as env:
        env.setenv("RUNTIME__SLACK_INCOMING_HOOK", receiver.base_url + SLACK_PATH)
        env.setenv("GATEHOUSE__ALERTS__WEBHOOK_URL", receiver.base_url + WEBHOOK_PATH)
        env.setenv("RUNTIME__LOG_LEVEL", "ERROR")
        yield receiver


def test_marking_what_holds_as_known_sends_nothing_and_the_next_alerting_only_what_is_new(
    receiver, tmp_path: Path, tmp_path_factory, capsys
):
    twin = make_twin()
    # a first run of the twin, without alerts: a copy of one made once for the suite
    copy_database(seed_reference(tmp_path_factory), tmp_path / "gatehouse.duckdb", BASE_URL)
    known = conditions_in_views(tmp_path)
    assert len(known) > 20, "a console with a backlog: the flood a first alerting would send"

    capsys.readouterr()
    assert cli.main(["alerts", "--duckdb", str(tmp_path / "gatehouse.duckdb"), "--mark-known"]) == 0
    assert receiver.posts == []
    assert capsys.readouterr().out.splitlines() == [
        f"alerts: {len(known)} conditions marked known for {channel}, none sent; from now on only what is new is sent"
        for channel in ("slack", "webhook")
    ]

    twin.advance(days=1)
    _, outcome = alerting_run(run_options(twin, tmp_path))
    new = conditions_in_views(tmp_path) - known
    assert new, "the twin's day brings a new condition (seed 3: an experiment stalls)"
    assert sorted(webhook_keys(receiver)) == sorted(new)
    assert outcome.problems == [] and not outcome.undelivered


def test_mark_known_and_dry_run_together_are_refused_in_one_line(receiver, tmp_path: Path, capsys):
    assert cli.main(["alerts", "--duckdb", str(tmp_path / "gatehouse.duckdb"), "--mark-known", "--dry-run"]) == 2
    assert capsys.readouterr().err.strip().splitlines()[-1] == (
        "gatehouse: error: --dry-run and --mark-known: choose one (--mark-known records, --dry-run records nothing)"
    )
