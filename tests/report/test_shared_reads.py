"""In `gatehouse report`'s one kernel, each query is read once for the three notebooks and the summary."""

from __future__ import annotations

import pytest

from gatehouse.pipelines.reports import notebook
from gatehouse.pipelines.reports.notebook import NotebookData
from gatehouse.pipelines.reports.report import summarise
from gatehouse.pipelines.warehouse.destination import Destination, Reader


@pytest.fixture
def counted(monkeypatch):
    reads = []
    original = Reader.frame

    def frame(self, sql):
        reads.append(sql)
        return original(self, sql)

    monkeypatch.setattr(Reader, "frame", frame)
    return reads


def test_a_notebook_opened_by_hand_reads_afresh(hand_built_db, counted, monkeypatch):
    monkeypatch.setattr(notebook, "_shared", None)
    data = NotebookData.open("duckdb", str(hand_built_db))
    data.view("select * from analytics.stale_gates")
    data.view("select * from analytics.stale_gates")
    assert counted == ["select * from analytics.stale_gates"] * 2
    assert NotebookData.open("duckdb", str(hand_built_db)) is not data


def test_in_the_report_each_query_is_read_once_and_each_notebook_gets_its_own_copy(hand_built_db, counted, monkeypatch):
    monkeypatch.setattr(notebook, "_shared", None)
    notebook.share_reads()
    data = NotebookData.open("duckdb", str(hand_built_db))
    assert NotebookData.open("duckdb", str(hand_built_db)) is data
    first = data.view("select * from analytics.stale_gates")
    first["added_by_one_notebook"] = 1
    second = data.view("select * from analytics.stale_gates")
    assert "added_by_one_notebook" not in second.columns
    assert counted == ["select * from analytics.stale_gates"]
    monkeypatch.setenv("GATEHOUSE_DESTINATION", "duckdb")
    monkeypatch.setenv("GATEHOUSE_DUCKDB", str(hand_built_db))
    text = notebook.report_summary("hand_built.duckdb")
    assert counted.count("select * from analytics.stale_gates") == 1  # the summary took the notebook's
    with Destination(duckdb_path=hand_built_db, read_only=True).reader() as reader:
        assert text == summarise(reader, "hand_built.duckdb")
