"""The twin over real HTTP on loopback, in-process and as `gatehouse twin serve` driven by curl."""

from __future__ import annotations

import http.client
import json
import re
import shutil
import signal
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest

from gatehouse.console_twin import ConsoleTwin, Fault
from tests.twin.test_operations import PIPELINE, any_pipeline_id, archived_config_id, scim_group_id


def test_loopback_http_serves_the_same_answers_with_keep_alive(twin, conforms):
    with twin.serve() as base_url:
        assert re.fullmatch(r"http://127\.0\.0\.1:\d+", base_url)
        with httpx.Client(base_url=base_url, headers={"SERVICE-API-KEY": twin.settings.api_key}) as client:
            answer = conforms(client.get("/console/v1/gates", params={"limit": 5}))
        host, port = base_url.removeprefix("http://").split(":")
        connection = http.client.HTTPConnection(host, int(port), timeout=5)
        connection.request("GET", "/console/v1/gates?limit=1", headers={"SERVICE-API-KEY": twin.settings.api_key})
        first = connection.getresponse()
        first.read()
        socket_in_use = connection.sock
        connection.request("GET", "/console/v1/gates?limit=2", headers={"SERVICE-API-KEY": twin.settings.api_key})
        second = connection.getresponse()
        second_body = json.loads(second.read())
        kept_alive = connection.sock is socket_in_use
        connection.close()

    assert answer.status_code == 200
    assert answer.headers["date"] == "Mon, 02 Nov 2026 06:00:00 GMT"
    assert answer.json()["data"] == twin.organisation.listed_gates()[:5]
    assert kept_alive, "both requests went over one connection"
    assert second.status == 200 and len(second_body["data"]) == 2
    assert first.getheader("Content-Length")
    assert [r.path for r in twin.requests] == ["/console/v1/gates"] * 3


def test_loopback_http_reads_chunked_request_bodies(twin):
    with twin.serve() as base_url:
        host, port = base_url.removeprefix("http://").split(":")
        connection = http.client.HTTPConnection(host, int(port), timeout=5)
        body = iter([b'{"name": "Streamed", ', b'"permissions": {"create_teams": true}}'])
        headers = {"SERVICE-API-KEY": twin.settings.api_key, "Content-Type": "application/json"}
        connection.request("POST", "/console/v1/roles", body=body, headers=headers, encode_chunked=True)
        created = connection.getresponse()
        created.read()
        connection.request("GET", "/console/v1/gates?limit=1", headers=headers)
        after = connection.getresponse()
        after.read()
        connection.close()

    assert created.status == 201 and after.status == 200
    assert twin.organisation.roles["Streamed"]["permissions"]["create_teams"] is True


def test_loopback_http_serves_concurrent_clients(twin):
    with (
        twin.serve() as base_url,
        httpx.Client(base_url=base_url, headers={"SERVICE-API-KEY": twin.settings.api_key}) as client,
        ThreadPoolExecutor(max_workers=8) as pool,
    ):
        statuses = list(
            pool.map(
                lambda run_id: client.get(f"/console/v1/ingestion/runs/{run_id}").status_code,
                twin.ingestion_run_ids,
            )
        )
    assert statuses == [200] * len(twin.ingestion_run_ids)
    assert len(twin.requests) == len(twin.ingestion_run_ids)


@pytest.mark.parametrize("kind, error", [("drop", httpx.RemoteProtocolError), ("slow", httpx.ReadTimeout)])
def test_loopback_faults_break_the_connection_for_real(twin, kind, error):
    twin.settings.faults = [Fault(kind, on_requests={1})]
    twin.settings.slow_seconds = 1.0
    with (
        twin.serve() as base_url,
        httpx.Client(base_url=base_url, timeout=0.3, headers={"SERVICE-API-KEY": twin.settings.api_key}) as client,
    ):
        with pytest.raises(error):
            client.get("/console/v1/gates")
        # the next request is answered: given time enough for a busy machine (the short timeout is the fault's)
        assert client.get("/console/v1/gates", params={"limit": 1}, timeout=10).status_code == 200


def gatehouse_command() -> str:
    beside_python = Path(sys.executable).parent / "gatehouse"
    return str(beside_python) if beside_python.exists() else shutil.which("gatehouse")


def curl(method: str, url: str, headers: dict[str, str], body: object = None) -> tuple[int, str]:
    command = ["curl", "-sS", "-X", method, url, "-w", "\n%{http_code}", "--max-time", "10"]
    for name, value in headers.items():
        command += ["-H", f"{name}: {value}"]
    if body is not None:
        command += ["-H", "Content-Type: application/json", "--data", json.dumps(body)]
    output = subprocess.run(command, capture_output=True, text=True, check=True).stdout
    text, _, status = output.rpartition("\n")
    return int(status), text


@pytest.mark.skipif(shutil.which("curl") is None, reason="curl is not installed")
def test_gatehouse_twin_serve_answers_curl_for_every_operation():
    # The served twin and this one are built from the same (size, seed): the same ids.
    twin = ConsoleTwin("small", 4)
    server = subprocess.Popen(
        [gatehouse_command(), "twin", "serve", "--port", "0", "--seed", "4", "--api-key", "console-curl-key"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        banner = [server.stdout.readline() for _ in range(2)]
        base_url = re.search(r"serving on (http://127\.0\.0\.1:\d+)", banner[0]).group(1)
        exports = ""
        while (line := server.stdout.readline()) not in ("", "Press Ctrl-C to stop.\n"):
            exports += line
        assert f"export SOURCES__CONSOLE__BASE_URL={base_url}" in exports
        assert json.dumps(twin.experiment_ids) in exports and json.dumps(twin.ingestion_run_ids) in exports

        key = {"SERVICE-API-KEY": "console-curl-key"}
        operations = [
            ("GET", "/console/v1/gates?limit=2", key, None, 200),
            ("GET", f"/console/v1/gates/{twin.organisation.listed_gates()[0]['id']}", key, None, 200),
            ("GET", f"/console/v1/holdouts/{twin.holdout_ids[0]}", key, None, 200),
            ("GET", "/console/v1/dynamic_configs?limit=2", key, None, 200),
            (
                "PUT",
                f"/console/v1/dynamic_configs/{archived_config_id(twin)}/unarchive",
                key,
                {"unarchiveReason": "curl"},
                200,
            ),
            ("POST", "/console/v1/release_pipelines", key, PIPELINE, 200),
            ("POST", f"/console/v1/release_pipelines/{any_pipeline_id(twin)}", key, PIPELINE, 200),
            ("GET", "/console/v1/experiments/qualifying_events", key, None, 200),
            ("GET", f"/console/v1/experiments/{twin.experiment_ids[0]}/cumulative_exposures", key, None, 200),
            ("GET", f"/console/v1/ingestion/runs/{twin.ingestion_run_ids[0]}", key, None, 200),
            ("POST", "/console/v1/roles", key, {"name": "Curl", "permissions": {"create_teams": True}}, 201),
            (
                "PATCH",
                "/console/v1/wh_connections",
                key,
                {"databricks": {"host": "h", "accessToken": "dapi-secret"}},
                200,
            ),
            (
                "PATCH",
                f"/scim/Groups/{scim_group_id(twin)}",
                {"Authorization": "Bearer scim-twin-local-token"},
                {"Operations": [{"op": "add", "path": "members", "value": [{"value": "u1", "display": "U"}]}]},
                200,
            ),
        ]
        for method, path, headers, body, expected in operations:
            status, text = curl(method, base_url + path, headers, body)
            assert status == expected, (method, path, text)
            assert "dapi-secret" not in text
        status, text = curl("GET", f"{base_url}/console/v1/gates", {"SERVICE-API-KEY": "console-stolen"})
        assert status == 401
        assert json.loads(text) == {
            "status": 401,
            "message": "This endpoint only accepts an active CONSOLE key, but an invalid key was sent. Key: console-stolen",
        }
    finally:
        server.send_signal(signal.SIGINT)
        out, err = server.communicate(timeout=10)
    assert server.returncode == 0, err
    assert "Console twin stopped." in out


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--port", "99999"], "argument --port: expected a port from 0 to 65535, got '99999'"),
        (["--port", "-1"], "argument --port: expected a port from 0 to 65535, got '-1'"),
        (["--latency-ms", "-5"], "argument --latency-ms: expected 0 or more milliseconds, got '-5'"),
        (["--max-limit", "0"], "argument --max-limit: expected a whole number, 1 or more, got '0'"),
        (["--api-key", ""], "argument --api-key: must not be empty"),
    ],
)
def test_twin_serve_refuses_a_bad_port_or_latency_in_one_line(argv, message, capsys):
    # a port past 65535 ended in an OverflowError traceback from bind()
    from gatehouse.pipelines.cli.main import main

    with pytest.raises(SystemExit) as stop:
        main(["twin", "serve", *argv])
    assert stop.value.code == 2
    assert capsys.readouterr().err.splitlines()[-1] == f"gatehouse twin serve: error: {message}"


def test_gatehouse_twin_serve_stops_on_ctrl_c_when_started_with_it_ignored():
    # A child inherits an ignored SIGINT (pytest-xdist's workers ignore it; so does a background job of a
    # non-interactive shell): the twin used to serve on through Ctrl-C, and the tests above hung under xdist.
    server = subprocess.Popen(
        [gatehouse_command(), "twin", "serve", "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN),
    )
    try:
        while (line := server.stdout.readline()) not in ("", "Press Ctrl-C to stop.\n"):
            pass
        assert line == "Press Ctrl-C to stop.\n"
        server.send_signal(signal.SIGINT)
        out, err = server.communicate(timeout=10)
    finally:
        server.kill()
        server.wait()
    assert server.returncode == 0, err
    assert out == "Console twin stopped.\n"
