"""Several organisations at one address (ConsoleHost), as the hosted service serves a company's projects:
a request is answered by the organisation whose key it carries, each with its own rate limit and log."""

from __future__ import annotations

import json
import re
import signal
import subprocess
from pathlib import Path

import httpx
import pytest

from gatehouse.console_twin import ConsoleHost, ConsoleTwin, TwinSettings
from tests.twin.test_http import curl, gatehouse_command

GATES = "/console/v1/gates"


def test_each_key_reaches_its_own_organisation_and_an_unknown_key_is_refused():
    host = ConsoleHost.of({"web": ("small", 0), "mobile": ("small", 1)}, TwinSettings(rate_limit=(3, 60.0)))
    web, mobile = host.twins["web"], host.twins["mobile"]
    assert web.settings.api_key != mobile.settings.api_key
    with httpx.Client(transport=host.transport(), base_url="http://console.test") as client:
        for twin in (web, mobile):
            answer = client.get(GATES, params={"limit": 1000}, headers={"service-api-key": twin.settings.api_key})
            assert answer.status_code == 200
            assert [gate["id"] for gate in answer.json()["data"]] == [g["id"] for g in twin.organisation.listed_gates()]
        assert client.get(GATES, headers={"service-api-key": "console-other"}).status_code == 401
        # each organisation keeps its own rate limit and request log: web's third request is its last
        assert [client.get(GATES, headers={"service-api-key": web.settings.api_key}).status_code for _ in range(2)] == [200, 429]
        assert client.get(GATES, headers={"service-api-key": mobile.settings.api_key}).status_code == 200
    assert [r.status for r in web.requests] == [200, 401, 200, 429]
    assert [r.status for r in mobile.requests] == [200, 200]


def test_a_host_needs_a_key_per_organisation():
    with pytest.raises(ValueError, match="its own server key"):
        ConsoleHost({"web": ConsoleTwin(), "mobile": ConsoleTwin(seed=1)})


def test_gatehouse_twin_serve_projects_prints_each_projects_settings():
    server = subprocess.Popen(
        [gatehouse_command(), "twin", "serve", "--port", "0", "--projects", "web,mobile", "--admin"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        banner = server.stdout.readline()
        assert "2 small organisations, projects web, mobile, seeds 0-1, each under its own key" in banner
        base_url = re.search(r"serving on (http://127\.0\.0\.1:\d+)", banner).group(1)
        lines = []
        while (line := server.stdout.readline()) not in ("", "Press Ctrl-C to stop.\n"):
            lines.append(line)
        source = next(line.split()[-1] for line in lines if line.strip().startswith("source "))
        exports = dict(line.removeprefix("export ").strip().split("=", 1) for line in Path(source).read_text().splitlines())
        expected = ConsoleHost.of({"web": ("small", 0), "mobile": ("small", 1)})
        for name, twin in expected.twins.items():
            prefix = f"SOURCES__CONSOLE__PROJECTS__{name.upper()}__"
            assert exports[prefix + "BASE_URL"] == base_url
            assert exports[prefix + "API_KEY"] == twin.settings.api_key
            assert json.loads(exports[prefix + "EXPERIMENT_IDS"].strip("'")) == twin.experiment_ids
            status, text = curl("GET", f"{base_url}{GATES}?limit=1", {"SERVICE-API-KEY": twin.settings.api_key})
            assert status == 200 and json.loads(text)["data"][0]["id"] == twin.organisation.listed_gates()[0]["id"]
        # the twin's clock moves every organisation together
        status, _ = curl("POST", f"{base_url}/_twin/advance?days=1", {}, None)
        assert status == 200
    finally:
        server.send_signal(signal.SIGINT)
        out, err = server.communicate(timeout=10)
    assert server.returncode == 0, err
