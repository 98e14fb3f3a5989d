"""`gatehouse alerts` and `gatehouse run --alerts` against the twin, sending to a webhook receiver on loopback.

The tests run in order on one database: the first alerting tells everything, the next nothing, a day later
only what is new; then failures of the channel and of the run.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from gatehouse.console_twin import ConsoleTwin
from gatehouse.pipelines.alerts.dispatch import send_alerts
from gatehouse.pipelines.cli import main as cli
from gatehouse.pipelines.errors import GatehouseError
from gatehouse.pipelines.run.steps import RunOptions
from gatehouse.pipelines.warehouse.destination import Destination
from tests.alerts.receiver import Receiver, receiving
from tests.alerts.runs import alerting_run
from tests.drills.conftest import source_args

SLACK_PATH = "/services/T0GATE/B0HOUSE/hook-token-never-shown"
WEBHOOK_PATH = "/alerts?token=webhook-token-never-shown"
BASE_URL = "http://console-twin.alerts.invalid"


@pytest.fixture(scope="module")
def twin() -> ConsoleTwin:
    return ConsoleTwin(size="small", seed=3)


@pytest.fixture(scope="module")
def receiver() -> Iterator[Receiver]:
    with receiving() as receiver, pytest.MonkeyPatch.context() as env:
        env.setenv("RUNTIME__SLACK_INCOMING_HOOK", receiver.base_url + SLACK_PATH)
        env.setenv("GATEHOUSE__ALERTS__WEBHOOK_URL", receiver.base_url + WEBHOOK_PATH)
        env.setenv("GATEHOUSE__ALERTS__TIMEOUT", "0.5")
        env.setenv("RUNTIME__LOG_LEVEL", "ERROR")
        yield receiver


@pytest.fixture(scope="module")
def workdir(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("alerts")


def destination(workdir: Path) -> Destination:
    return Destination(duckdb_path=workdir / "gatehouse.duckdb")


def twin_source_args(twin: ConsoleTwin, **overrides: Any) -> dict[str, Any]:
    """The source's arguments for the twin served in this process (its transport), `overrides` over them."""
    return source_args(twin, BASE_URL, **{"transport": twin.transport(), **overrides})


def run_options(twin: ConsoleTwin, workdir: Path, **overrides: Any) -> RunOptions:
    args = twin_source_args(twin, **overrides)
    return RunOptions(destination=destination(workdir), progress=False, lock_timeout_s=30, source_args=args)


def conditions_in_views(where: Path | Destination) -> set[str]:
    """The keys the views show now (a DuckDB workdir, or any destination), read independently of the alerting code."""
    with (where if isinstance(where, Destination) else destination(where)).reader() as reader:
        rows = reader.rows
        return (
            {f"srm:{e}" for (e,) in rows("select experiment_id from analytics.exposure_srm where srm_detected")}
            | {f"stalled:{e}" for (e,) in rows("select experiment_id from analytics.exposure_growth where is_stalled")}
            | {
                f"dip:{e}:{day:%Y-%m-%d}"
                for e, day in rows(
                    "select experiment_id, checked_through_date from analytics.experiment_health where dip_check = 'dip'"
                )
            }
            | {
                f"running_long:{e}"
                for (e,) in rows("select experiment_id from analytics.experiment_health where duration_check = 'running long'")
            }
            | {
                f"ingestion_failed:{r}:{s}"
                for r, s in rows("select run_id, source_name from analytics.ingestion_source_health where outcome = 'failed'")
            }
            | {
                f"stale_gate:{g}"
                for (g,) in rows(
                    "select gate_id from analytics.stale_gates where"
                    " stage in ('ready: remove from code', 'ready: archive in the console', 'needs a person', 'removed from"
                    " code')"
                )
            }
        )


def webhook_keys(receiver: Receiver) -> list[str]:
    return [key for post in receiver.on(WEBHOOK_PATH) for alert in post.body["alerts"] for key in alert["keys"]]


def assert_no_secret(receiver: Receiver, *texts: str) -> None:
    for text in [post.raw for post in receiver.posts] + list(texts):
        assert "hook-token-never-shown" not in text
        assert "webhook-token-never-shown" not in text


def test_a_run_with_alerts_tells_each_channel_every_condition_once(twin, receiver, workdir):
    summary, outcome = alerting_run(run_options(twin, workdir))
    assert summary.rows_loaded["gates"] > 0
    expected = conditions_in_views(workdir)
    # every kind is present in the small twin's seed 3, so each is exercised
    assert {key.split(":")[0] for key in expected} == {"srm", "stalled", "running_long", "ingestion_failed", "stale_gate"}

    assert outcome.problems == []
    assert sorted(webhook_keys(receiver)) == sorted(expected)
    [slack] = receiver.on(SLACK_PATH)
    assert slack.body["text"].startswith(f"gatehouse: {len(outcome.sent['slack'])} new alerts for ")
    assert "Sample-ratio mismatch in experiment" in slack.body["text"]
    # stale gates come one message per owner, every gate of the owner listed
    stale = [a for a in receiver.on(WEBHOOK_PATH)[0].body["alerts"] if a["kind"] == "stale_gate"]
    assert all(a["text"].splitlines()[0].endswith(":") and ", owner " in a["text"] for a in stale)
    assert len({a["text"].splitlines()[0].split(", owner ")[1] for a in stale}) == len(stale)
    assert_no_secret(receiver, *outcome.lines())


def test_gates_a_server_key_owns_come_in_one_message_that_names_who_to_ask_for_each(workdir):
    from gatehouse.pipelines.alerts.conditions import GATES_PER_MESSAGE, messages, stale_gate_conditions

    with destination(workdir).reader() as reader:
        gates = reader.rows(
            "select gate_id, contact_name from analytics.stale_gates where is_server_key_owner"
            " and stage in ('ready: remove from code', 'ready: archive in the console', 'needs a person', 'removed from code')"
            " order by gate_id"
        )
        texts = [message.text for message in messages(stale_gate_conditions(reader))]
    assert 0 < len(gates) <= GATES_PER_MESSAGE, "the twin makes a few gates through the API with a server key"
    [message] = [text for text in texts if "to clean up, owner a server key, not a person:" in text]
    listed = message.splitlines()[1:]
    assert [line.split(" ")[3] for line in listed] == [gate_id for gate_id, _ in gates]
    for line, (_, contact) in zip(listed, gates):
        assert line.endswith(f"; ask {contact}") if contact else "; ask" not in line


def test_an_alerting_with_nothing_new_sends_nothing(receiver, workdir):
    receiver.reset()
    outcome = send_alerts(destination(workdir))
    assert receiver.posts == []
    assert outcome.lines() == ["alerts: nothing new for slack", "alerts: nothing new for webhook"]


def test_after_a_day_only_what_is_new_is_sent(twin, receiver, workdir):
    before = conditions_in_views(workdir)
    receiver.reset()
    twin.advance(days=1)
    alerting_run(run_options(twin, workdir))
    after = conditions_in_views(workdir)
    assert after - before, "the twin's day should bring a new condition (seed 3: an experiment stalls)"
    assert sorted(webhook_keys(receiver)) == sorted(after - before)
    # what cleared is recorded as such: were it to return, it would be news again
    with destination(workdir).reader() as reader:
        cleared = {
            key
            for (key,) in reader.rows(
                "select condition_key from analytics.alerts_sent where state = 'cleared' and channel = 'webhook'"
            )
        }
    assert cleared == before - after


def test_dry_run_prints_the_messages_and_sends_and_records_nothing(twin, receiver, workdir, capsys):
    with destination(workdir).reader() as reader:
        [(recorded,)] = reader.rows("select count(*) from analytics.alerts_sent")
        reader.client.execute_sql("delete from analytics.alerts_sent where channel = 'webhook' and kind = 'srm'")
    receiver.reset()
    assert cli.main(["alerts", "--duckdb", str(workdir / "gatehouse.duckdb"), "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert receiver.posts == []
    assert "[webhook] Sample-ratio mismatch in experiment" in out
    assert "[slack] Sample-ratio" not in out
    assert "alerts: would send 0 new to slack" not in out and "alerts: nothing new for slack" in out
    with destination(workdir).reader() as reader:
        [(after,)] = reader.rows("select count(*) from analytics.alerts_sent")
    assert after < recorded  # only the rows this test deleted are gone; the dry run added none


@pytest.mark.parametrize(
    "status, delay_s, reason",
    [
        (500, 0.0, "the alert webhook answered HTTP 500"),
        (200, 2.0, "the alert webhook did not answer within 0.5 s"),
    ],
)
def test_a_failing_webhook_is_one_line_keeps_the_alerts_and_never_fails_the_run(twin, receiver, workdir, status, delay_s, reason):
    # the SRM rows deleted above are news for the webhook again, and it refuses or hangs
    receiver.reset(status=status, delay_s=delay_s)
    summary, outcome = alerting_run(run_options(twin, workdir))
    assert summary.load_id is not None
    lines = [line for line in outcome.lines() if "webhook" in line]
    # one line for the channel, in the unit the channel is sent: messages, as many as the posts that failed held
    [posted] = {len(post.body["alerts"]) for post in receiver.posts}
    assert lines == [
        f"alerts: {posted} message{'s' if posted != 1 else ''} not delivered to webhook ({reason}), kept for the next run"
    ]
    assert_no_secret(receiver, lines[0])


def test_the_kept_alerts_are_sent_once_the_webhook_takes_them(receiver, workdir):
    receiver.reset()
    outcome = send_alerts(destination(workdir))
    assert outcome.problems == []
    keys = webhook_keys(receiver)
    assert keys and all(key.startswith("srm:") for key in keys)
    assert receiver.on(SLACK_PATH) == []


def test_a_failed_run_is_told_once_then_again_after_a_good_run(twin, receiver, workdir):
    secret = "wrong-key-9f8e7d6c5b4a"
    receiver.reset()
    for _ in range(2):
        with pytest.raises(GatehouseError) as failed:
            alerting_run(run_options(twin, workdir, api_key=secret))
    [slack] = receiver.on(SLACK_PATH)
    assert slack.body["text"].splitlines()[-1] == f"gatehouse run failed on {workdir / 'gatehouse.duckdb'}: {failed.value}"
    assert webhook_keys(receiver) == ["run_failed"]
    assert secret not in slack.raw

    alerting_run(run_options(twin, workdir))
    receiver.reset()
    with pytest.raises(GatehouseError):
        alerting_run(run_options(twin, workdir, api_key=secret))
    assert webhook_keys(receiver) == ["run_failed"]
    assert_no_secret(receiver)


def test_without_a_channel_the_command_says_what_to_set(workdir, capsys, monkeypatch):
    monkeypatch.delenv("RUNTIME__SLACK_INCOMING_HOOK")
    monkeypatch.delenv("GATEHOUSE__ALERTS__WEBHOOK_URL")
    assert cli.main(["alerts", "--duckdb", str(workdir / "gatehouse.duckdb")]) == 2
    assert "no alert channel configured: set runtime.slack_incoming_hook" in capsys.readouterr().err


@pytest.mark.parametrize("address", ["notaurl", "ftp://hooks.example.com/x", "http://[::1", "https://"])
@pytest.mark.parametrize("argv", [["alerts", "--dry-run"], ["run", "--alerts"]], ids=["alerts", "run --alerts"])
def test_a_hook_no_request_could_reach_is_refused_before_anything_without_showing_it(workdir, capsys, monkeypatch, address, argv):
    # else every alert was kept as undelivered, run after run, and the address (a credential) quoted in the line
    monkeypatch.setenv("GATEHOUSE__ALERTS__WEBHOOK_URL", address)
    database = workdir / "refused.duckdb"
    assert cli.main([*argv, "--duckdb", str(database)]) == 2
    assert capsys.readouterr().err.splitlines() == [
        "gatehouse: error: gatehouse.alerts.webhook_url (GATEHOUSE__ALERTS__WEBHOOK_URL) is not an http:// or https://"
        " address (not shown: it is a credential); nothing was sent"
    ]
    assert not database.exists()


@pytest.mark.parametrize("timeout", ["abc", "0", "-1"])
def test_a_run_with_alerts_refuses_a_time_out_that_is_none_before_anything(workdir, capsys, monkeypatch, timeout):
    # after the run it was a line of the summary: every scheduled run passed, and nothing was ever sent
    monkeypatch.setenv("GATEHOUSE__ALERTS__TIMEOUT", timeout)
    database = workdir / "timeout.duckdb"
    assert cli.main(["run", "--alerts", "--duckdb", str(database)]) == 2
    [line] = capsys.readouterr().err.splitlines()
    assert line.startswith("gatehouse: error: gatehouse.alerts.timeout must be") and not database.exists()
