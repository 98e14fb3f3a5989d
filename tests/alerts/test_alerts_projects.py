"""Alerts after a run of several projects: each project's conditions under keys of its own, its name first in
each message; a failed project is news beside what the others' views show, and its recovery clears it."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator

import pytest

from gatehouse.console_twin import ConsoleHost, Fault
from gatehouse.pipelines.run.steps import RunOptions
from gatehouse.pipelines.warehouse.destination import Destination
from tests.alerts.receiver import Receiver, receiving
from tests.alerts.runs import alerting_projects

WEBHOOK_PATH = "/alerts?token=webhook-token-never-shown"
BASE_URL = "http://console-twin.alerts-projects.invalid"


@pytest.fixture(scope="module")
def receiver() -> Iterator[Receiver]:
    with receiving() as receiver, pytest.MonkeyPatch.context() as env:
        env.delenv("RUNTIME__SLACK_INCOMING_HOOK", raising=False)
        env.setenv("GATEHOUSE__ALERTS__WEBHOOK_URL", receiver.base_url + WEBHOOK_PATH)
        env.setenv("GATEHOUSE__ALERTS__TIMEOUT", "2")
        yield receiver


def options(host: ConsoleHost, database) -> RunOptions:
    transport = host.transport()
    return RunOptions(destination=Destination(duckdb_path=database), progress=False, lock_timeout_s=30, demo=False,
                      projects_args={name: {"base_url": BASE_URL, "api_key": twin.settings.api_key,
                                            "experiment_ids": twin.experiment_ids, "ingestion_run_ids": twin.ingestion_run_ids,
                                            "transport": transport, "max_attempts": 1}
                                     for name, twin in host.twins.items()})  # fmt: skip


def keys(receiver: Receiver) -> list[str]:
    return [key for post in receiver.on(WEBHOOK_PATH) for alert in post.body["alerts"] for key in alert["keys"]]


def test_alerts_of_several_projects(receiver, tmp_path, monkeypatch):
    host = ConsoleHost.of({"web": ("small", 3), "mobile": ("small", 8)})
    for name in host.twins:  # the projects' sections, as run_extraction reads them
        monkeypatch.setenv(f"SOURCES__CONSOLE__PROJECTS__{name.upper()}__BASE_URL", BASE_URL)
        monkeypatch.setenv(f"SOURCES__CONSOLE__PROJECTS__{name.upper()}__API_KEY", host.twins[name].settings.api_key)
    database = tmp_path / "gatehouse.duckdb"
    outcomes, alerted = alerting_projects(options(host, database), ["web", "mobile"])
    assert [outcome.error for outcome in outcomes] == [None, None]
    assert alerted.problems == []
    sent = keys(receiver)
    for name in ("web", "mobile"):
        assert any(key.startswith(f"stale_gate:{name}:") for key in sent), sent
        assert any(key.startswith(f"srm:{name}:") for key in sent), sent
    texts = [alert["text"] for post in receiver.on(WEBHOOK_PATH) for alert in post.body["alerts"]]
    assert all(text.startswith(("[web] ", "[mobile] ")) or "owner" in text.splitlines()[0] for text in texts), texts
    assert len(sent) == len(set(sent))

    # mobile's console fails: that is the news, and web's conditions are already told
    receiver.reset()
    host.twins["mobile"].settings.faults = [Fault("server_error", rate=1.0)]
    outcomes, alerted = alerting_projects(options(host, database), ["web", "mobile"])
    assert outcomes[0].error is None and outcomes[1].error is not None
    assert keys(receiver) == ["run_failed:mobile"]
    [alert] = [alert for post in receiver.on(WEBHOOK_PATH) for alert in post.body["alerts"]]
    assert alert["text"].startswith("[mobile] gatehouse run failed on ") and "(dataset console_mobile)" in alert["text"]

    # it recovers: nothing new to send, and its failure is cleared (the next failure is news again)
    receiver.reset()
    host.twins["mobile"].settings.faults = []
    outcomes, alerted = alerting_projects(options(host, database), ["web", "mobile"])
    assert [outcome.error for outcome in outcomes] == [None, None]
    assert keys(receiver) == []

    receiver.reset()
    host.twins["mobile"].settings.faults = [Fault("server_error", rate=1.0)]
    alerting_projects(options(host, database), ["web", "mobile"])
    assert keys(receiver) == ["run_failed:mobile"], "a failure after a recovery is news again"

    # both fail: web's failure is the news, mobile's is told already (each under its own key, never one for all)
    receiver.reset()
    host.twins["web"].settings.faults = [Fault("server_error", rate=1.0)]
    outcomes, _ = alerting_projects(options(host, database), ["web", "mobile"])
    assert [outcome.error is not None for outcome in outcomes] == [True, True]
    assert keys(receiver) == ["run_failed:web"]

    # web recovers while mobile still fails: nothing is news (mobile's failure was never cleared)
    receiver.reset()
    host.twins["web"].settings.faults = []
    alerting_projects(options(host, database), ["web", "mobile"])
    assert keys(receiver) == []

    # a run of web alone leaves mobile's failure as it is: the next run of both, mobile failing still, sends nothing
    alerting_projects(options(host, database), ["web"])
    alerting_projects(options(host, database), ["web", "mobile"])
    assert keys(receiver) == []


def test_a_failure_every_project_shares_is_told(receiver, tmp_path):
    # before any project starts (the database's folder is missing): the run fails in one line, and is told so
    from gatehouse.pipelines.errors import GatehouseError
    from gatehouse.pipelines.run.consoles import run_consoles

    receiver.reset()
    host = ConsoleHost.of({"web": ("small", 3)})
    missing = tmp_path / "no-such-folder" / "gatehouse.duckdb"
    with pytest.raises(GatehouseError) as failed:
        run_consoles(dataclasses.replace(options(host, missing), alerts=True), ["web"])
    [alert] = [alert for post in receiver.on(WEBHOOK_PATH) for alert in post.body["alerts"]]
    assert alert["keys"] == ["run_failed"] and str(failed.value) in alert["text"]
    assert not missing.parent.exists()
