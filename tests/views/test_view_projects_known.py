"""`gatehouse views --projects` keeps its filter in `analytics.view_projects` for every later refresh, so a project
neither loaded nor configured is refused in one line naming those that are, and nothing is stored; a configured
project not loaded yet is accepted (the views show it once a run loads it), and `--projects all` shows every one."""

from __future__ import annotations

import pytest

from gatehouse.pipelines.cli.main import main
from gatehouse.pipelines.errors import GatehouseError
from gatehouse.pipelines.warehouse.views import apply_views
from tests.drills.conftest import error_lines
from tests.views.conftest import query


def filter_and_as_of(database) -> tuple[list[tuple], list[tuple]]:
    return query(database, "select project from analytics.view_projects"), query(database, "select project from analytics.as_of")


def test_a_project_neither_loaded_nor_configured_is_refused_and_nothing_is_stored(writable_db, capsys):
    before = filter_and_as_of(writable_db)
    assert before == ([], [("default",)])
    assert main(["views", "--duckdb", str(writable_db), "--projects", "wbe"]) == 2
    assert error_lines(capsys.readouterr().err) == [
        "gatehouse: error: unknown project wbe: the views show the projects loaded or configured here (default);"
        " nothing was changed"
    ]
    assert filter_and_as_of(writable_db) == before
    with pytest.raises(GatehouseError, match=r"^unknown projects wbe, mboile: "):
        apply_views(writable_db, projects=["default", "wbe", "mboile"])
    assert filter_and_as_of(writable_db) == before


def test_configured_projects_are_known_before_they_are_loaded(writable_db, monkeypatch, capsys, caplog):
    for name in ("web", "mobile"):
        monkeypatch.setenv(f"SOURCES__CONSOLE__PROJECTS__{name.upper()}__BASE_URL", "http://127.0.0.1:9")
    assert main(["views", "--duckdb", str(writable_db), "--projects", "wbe,mboile"]) == 2
    assert error_lines(capsys.readouterr().err) == [
        "gatehouse: error: unknown projects wbe (did you mean web?), mboile (did you mean mobile?): the views show the"
        " projects loaded or configured here (default, mobile, web); nothing was changed"
    ]
    assert filter_and_as_of(writable_db) == ([], [("default",)])
    # the loaded one, and a configured one a run has not loaded yet
    assert main(["views", "--duckdb", str(writable_db), "--projects", "default"]) == 0
    assert filter_and_as_of(writable_db) == ([("default",)], [("default",)])
    assert main(["views", "--duckdb", str(writable_db), "--projects", "web"]) == 0
    assert "no loaded dataset for project(s) web yet" in capsys.readouterr().err
    assert filter_and_as_of(writable_db) == ([("web",)], [])
    assert main(["views", "--duckdb", str(writable_db), "--projects", "all"]) == 0
    assert filter_and_as_of(writable_db) == ([], [("default",)])
