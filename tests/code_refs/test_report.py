"""`gatehouse report` with code references: the terminal lines and the stale-gates notebook's new sections."""

from __future__ import annotations

import os

import duckdb
import nbformat
import pytest
from nbclient import NotebookClient

from gatehouse.pipelines.code_refs.summary import summary_lines
from gatehouse.pipelines.reports.lanes import NOTEBOOK_DIR
from gatehouse.pipelines.warehouse.names import DUCKDB_ENV
from gatehouse.pipelines.warehouse.views import apply_views
from tests.code_refs.hand_built import SUMMARY_LINES
from tests.views.console_dataset import load_console


@pytest.fixture(scope="module")
def unscanned_db(tmp_path_factory):
    work = tmp_path_factory.mktemp("unscanned")
    database = load_console(work / "unscanned.duckdb", work, tables=("gates", "dynamic_configs", "holdouts", "extraction_runs"))
    apply_views(database)
    return database


def lines_for(database) -> list[str]:
    with duckdb.connect(str(database), read_only=True) as connection:
        return summary_lines(lambda sql: connection.execute(sql).fetchall())


def test_summary_counts_the_worklist_and_the_orphans(console_db):
    assert lines_for(console_db) == SUMMARY_LINES


def test_summary_without_a_scan_says_how_to_run_one(unscanned_db):
    assert lines_for(unscanned_db) == [
        "code references: no repository scanned yet; run `gatehouse code-refs PATH` on each code repository (docs/code-refs.md)"
    ]


def executed_text(database) -> str:
    notebook = nbformat.read(NOTEBOOK_DIR / "stale_gates.ipynb", as_version=4)
    client = NotebookClient(notebook, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(NOTEBOOK_DIR)}})
    client.execute(env={**os.environ, DUCKDB_ENV: str(database)})
    texts = []
    for cell in notebook.cells:
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            texts.append(data.get("text/html", "") + data.get("text/markdown", "") + output.get("text", ""))
    return "\n".join(texts)


def test_notebook_shows_locations_and_orphans_or_how_to_scan(console_db, unscanned_db):
    scanned = executed_text(console_db)
    for expected in (
        "api: app/banner.go:2; web: src/banner.ts:3, src/banner.ts:9",
        "remove the flag from the code and keep the path it enables (api, web)",
        "ghost_gate",
        "never existed",
        "lib/flags.js:2, src/flags.py:7",
        "<p>Scanned: <code>api</code> at 2026-11-21 09:00 UTC, <code>web</code> (main) at 2026-11-21 09:00 UTC.</p>",
    ):
        assert expected in scanned, expected
    unscanned = executed_text(unscanned_db)
    assert "No repository has been scanned yet" in unscanned and "gatehouse code-refs PATH --duckdb" in unscanned
    assert "ghost_gate" not in unscanned
