"""The alerts on a real PostgreSQL server: the conditions read from the views there, the ledger
(`analytics.alerts_sent`) written there in its dialect, each condition told once, a day later only the new."""

from __future__ import annotations

import pytest

from gatehouse.console_twin import ConsoleTwin
from gatehouse.pipelines.alerts.dispatch import send_alerts
from gatehouse.pipelines.run.steps import RunOptions
from gatehouse.pipelines.warehouse.destination import Destination
from tests.alerts.receiver import receiving
from tests.alerts.runs import alerting_run
from tests.alerts.test_alerts import WEBHOOK_PATH, conditions_in_views, twin_source_args, webhook_keys

pytestmark = pytest.mark.slow


def test_alerts_on_postgres_tell_each_condition_once(postgres_server, tmp_path, monkeypatch):
    monkeypatch.setenv("DESTINATION__POSTGRES__CREDENTIALS", postgres_server.database("gatehouse_alerts"))
    monkeypatch.setenv("DLT_DATA_DIR", str(tmp_path / "dlt"))
    monkeypatch.setenv("RUNTIME__LOG_LEVEL", "ERROR")
    monkeypatch.delenv("RUNTIME__SLACK_INCOMING_HOOK", raising=False)
    twin = ConsoleTwin(size="small", seed=3)
    postgres = Destination(name="postgres")

    def options() -> RunOptions:
        return RunOptions(destination=Destination(name="postgres"), progress=False, source_args=twin_source_args(twin))

    with receiving() as receiver:
        monkeypatch.setenv("GATEHOUSE__ALERTS__WEBHOOK_URL", receiver.base_url + WEBHOOK_PATH)
        _, outcome = alerting_run(options())
        first = conditions_in_views(postgres)
        assert outcome.problems == [] and first
        assert sorted(webhook_keys(receiver)) == sorted(first)

        receiver.reset()
        assert send_alerts(postgres).lines() == ["alerts: nothing new for webhook"]
        assert receiver.posts == []

        twin.advance(days=1)
        alerting_run(options())
        after = conditions_in_views(postgres)
        assert after - first
        assert sorted(webhook_keys(receiver)) == sorted(after - first)
        with postgres.reader() as reader:
            cleared = {
                key
                for (key,) in reader.rows(
                    "select condition_key from analytics.alerts_sent where state = 'cleared' and channel = 'webhook'"
                )
            }
        assert cleared == first - after
