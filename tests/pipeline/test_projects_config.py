"""Several projects in dlt config: named by toml tables split over config.toml and secrets.toml, or by
environment variables; each project's settings its own section's, the rest inherited from [sources.console]
but for the base URL and key."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.drills.conftest import clean_environment

READ = """\
import json
from gatehouse.pipelines.errors import GatehouseError
from gatehouse.pipelines.projects import configured_projects, project_settings
from gatehouse.sources.console.settings import ConsoleSettings
out = {"projects": configured_projects()}
defaults = ConsoleSettings()
for name in out["projects"]:
    try:
        settings = project_settings(name)
        # what differs from the defaults, as the project reads it
        out[name] = {key: value for key, value in settings.items() if value != defaults[key]}
    except GatehouseError as err:
        out[name] = str(err)
print(json.dumps(out))
"""


def read_projects(folder: Path, config: str = "", secrets: str = "", **env: str) -> dict:
    (folder / ".dlt").mkdir(exist_ok=True)
    (folder / ".dlt" / "config.toml").write_text(config)
    (folder / ".dlt" / "secrets.toml").write_text(secrets)
    done = subprocess.run([sys.executable, "-c", READ], cwd=folder, env=clean_environment(**env),
                          capture_output=True, text=True, check=True)  # fmt: skip
    return json.loads(done.stdout)


def test_projects_from_config_and_secrets_tables(tmp_path):
    found = read_projects(
        tmp_path,
        config="[sources.console]\npage_size = 50\n"
        '[sources.console.projects.web]\nbase_url = "https://console.example.com"\nexperiment_ids = ["exp_a"]\n'
        '[sources.console.projects.mobile]\nbase_url = "https://console.example.com"\npage_size = 20\n',
        secrets='[sources.console]\napi_key = "console-single"\n[sources.console.projects.web]\napi_key = "console-web"\n',
    )
    assert found == {
        "projects": ["mobile", "web"],
        "web": {
            "base_url": "https://console.example.com",
            "api_key": "console-web",
            "experiment_ids": ["exp_a"],
            # inherited from [sources.console]
            "page_size": 50,
        },
        # never the single console's key
        "mobile": "missing setting sources.console.projects.mobile.api_key (SOURCES__CONSOLE__PROJECTS__MOBILE__API_KEY):"
        " each project names its own console, never [sources.console]'s; set it in .dlt/config.toml,"
        " .dlt/secrets.toml or the environment",
    }


def test_projects_from_the_environment(tmp_path):
    found = read_projects(
        tmp_path,
        SOURCES__CONSOLE__PROJECTS__INTERNAL_TOOLS__BASE_URL="https://tools.example.com",
        SOURCES__CONSOLE__PROJECTS__INTERNAL_TOOLS__API_KEY="console-tools",
        SOURCES__CONSOLE__PROJECTS__INTERNAL_TOOLS__INGESTION_RUN_IDS='["run_1"]',
        SOURCES__CONSOLE__PROJECTS__INTERNAL_TOOLS__RATE_LIMIT_REQUESTS="20",
    )
    assert found == {
        "projects": ["internal_tools"],
        "internal_tools": {"base_url": "https://tools.example.com", "api_key": "console-tools",
                           "ingestion_run_ids": ["run_1"], "rate_limit_requests": 20},
    }  # fmt: skip


def test_a_single_console_has_no_projects(tmp_path):
    found = read_projects(tmp_path, config='[sources.console]\nbase_url = "https://console.example.com"\n',
                          SOURCES__CONSOLE__API_KEY="console-single")  # fmt: skip
    assert found == {"projects": []}


def test_names_the_views_or_dlt_already_use_are_refused():
    import pytest

    from gatehouse.pipelines.errors import GatehouseError
    from gatehouse.pipelines.projects import check_name

    check_name("web_staging_eu")
    for name, reason in (
        ("default", "the views call the single console"),
        ("staging", "would end in _staging"),
        ("web_staging", "would end in _staging"),
        ("Web", "lower-case letters"),
        ("all", "means every project"),
    ):
        with pytest.raises(GatehouseError, match=reason):
            check_name(name)


def test_two_projects_naming_one_console_are_refused_before_any_starts(monkeypatch):
    # a section copied and renamed: each would load the console into a dataset of its own, and every view count it twice
    import pytest

    from gatehouse.pipelines.errors import GatehouseError
    from gatehouse.pipelines.projects import check_distinct_consoles

    one = {"base_url": "https://console.example.com/", "api_key": "console-k1"}
    check_distinct_consoles(["web", "mobile"], {"web": one, "mobile": {**one, "api_key": "console-k2"}})  # a key each
    check_distinct_consoles(["web", "site"], {"web": one, "site": {**one, "base_url": "https://other.example.com"}})
    with pytest.raises(GatehouseError) as refused:
        check_distinct_consoles(["web", "site"], {"web": one, "site": {**one, "base_url": "https://console.example.com"}})
    assert str(refused.value).startswith("projects web and site name the same console (the same base_url and api_key)")
    assert "console-k1" not in str(refused.value)
