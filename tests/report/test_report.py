"""`gatehouse report`: notebooks executed headless against the demo database, self-contained HTML, a summary."""

from __future__ import annotations

import os
import re
from pathlib import Path

import nbformat
import pytest
from matplotlib import image as mpimg

from gatehouse.pipelines.cli.main import main
from gatehouse.pipelines.reports.lanes import NOTEBOOK_DIR
from gatehouse.pipelines.reports.report import NOTEBOOKS, summarise
from gatehouse.pipelines.warehouse.destination import Destination
from gatehouse.pipelines.warehouse.views import apply_views
from tests.code_refs.hand_built import SUMMARY_LINES
from tools import report_pages

REMOTE_REFERENCE = re.compile(r"""(?:src|href)\s*=\s*["']?\s*(?:https?:)?//|url\(\s*["']?\s*(?:https?:)?//|@import""", re.I)
# where the screenshots the browser test takes are kept (CI keeps the folder as the tests' artefacts)
ARTEFACTS = Path(os.environ.get("GATEHOUSE_TEST_ARTEFACTS", Path(__file__).resolve().parents[2] / "build" / "test-artefacts"))


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_notebook_is_committed_without_outputs(name):
    notebook = nbformat.read(NOTEBOOK_DIR / f"{name}.ipynb", as_version=4)
    nbformat.validate(notebook)
    code = [cell for cell in notebook.cells if cell.cell_type == "code"]
    assert all(cell.outputs == [] and cell.execution_count is None for cell in code)
    # unset, NotebookData.open looks for the database from the working folder and the project's
    assert 'DUCKDB_PATH = os.environ.get("GATEHOUSE__DUCKDB")' in code[0].source
    assert "parameters" in code[0].metadata.get("tags", [])


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_notebook_reads_only_the_views(name):
    notebook = nbformat.read(NOTEBOOK_DIR / f"{name}.ipynb", as_version=4)
    source = "\n".join(cell.source for cell in notebook.cells if cell.cell_type == "code")
    # One way in for every notebook: the destination its parameters cell names, read through the views.
    assert "NotebookData.open(DESTINATION, DUCKDB_PATH)" in source
    assert "import dlt" not in source and "sources.console" not in source
    queries = re.findall(r'view\(\s*"(.*?)"\s*\)', source, re.S)
    tables = [table for query in queries for table in re.findall(r"\b(?:from|join)\s+([a-z_][a-z0-9_.]*)", query)]
    assert tables and all(table.startswith("analytics.") for table in tables), tables


def test_report_writes_three_reports_and_a_summary(demo_reports):
    for name in NOTEBOOKS:
        assert (demo_reports.out / f"{name}.html").is_file()
    lines = demo_reports.stdout.splitlines()
    assert lines[0].startswith(f"gatehouse report: {demo_reports.database}, as of ")
    for heading in ("stale gates: ", "experiments: ", "ingestion sources: ", "reports:"):
        assert any(line.startswith(heading) for line in lines), heading
    assert f"  {demo_reports.out / 'stale_gates.html'}" in lines


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_report_is_self_contained(demo_reports, name):
    html = (demo_reports.out / f"{name}.html").read_text(encoding="utf-8")
    assert not REMOTE_REFERENCE.search(html), REMOTE_REFERENCE.search(html)[0]
    images = re.findall(r"<img\b[^>]*>", html)
    assert len(images) >= 3
    # each chart an SVG image with its alternative text
    assert all('src="data:image/svg+xml;base64,' in image and 'alt="' in image for image in images)
    # no error and no warning printed by a cell
    body = html.split("<body", 1)[1]
    assert "Traceback" not in body and 'data-mime-type="application/vnd.jupyter.stderr"' not in body
    # the code stays in the notebook; the report shows results
    assert "connection.execute" not in html


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_report_read_at_1280_px_in_headless_chromium(headless_browser, demo_reports, tmp_path, name):
    report = demo_reports.out / f"{name}.html"
    layout = report_pages.layout(headless_browser, report, tmp_path, width=1280)
    assert layout.viewport == 1280
    # nothing needs the page to scroll sideways: a wide table scrolls inside its own box
    assert layout.page_width <= layout.viewport, layout.page_width
    assert layout.tables
    for table in layout.tables:
        assert table["left"] >= 0 and table["right"] <= layout.viewport, table
    if name == "stale_gates":
        # the worklist's first column is what to do, and it is on screen
        worklist = layout.tables[0]
        assert worklist["headers"][0]["text"] == "Action"
        assert worklist["headers"][0]["left"] >= 0 and worklist["headers"][0]["right"] <= layout.viewport
    # every chart decoded with a size and shown within the page
    assert len(layout.images) >= 3
    for image in layout.images:
        assert image["src"] == "data:image/svg+xml;base64,"
        assert image["complete"] and image["width"] > 200 and image["height"] > 150 and image["shown"] > 200, image
        assert image["right"] <= layout.viewport, image
    # painted: the charts' colours are on the whole page's screenshot (the page itself is dark text on white)
    ARTEFACTS.mkdir(parents=True, exist_ok=True)
    screenshot = report_pages.screenshot(
        headless_browser, report, ARTEFACTS / f"demo-{name}.png", tmp_path, width=1280, height=layout.page_height
    )
    pixels = mpimg.imread(screenshot)[..., :3]
    assert pixels.shape[1] == 1280 and pixels.shape[0] >= min(layout.page_height, report_pages.MAX_HEIGHT) - 1
    saturation = pixels.max(axis=-1) - pixels.min(axis=-1)
    coloured = int((saturation > 0.3).sum())
    assert coloured > 5000, f"only {coloured} coloured pixels in the screenshot"


def test_summary_of_the_hand_built_console(hand_built_db):
    with Destination(duckdb_path=hand_built_db).reader() as reader:
        text = summarise(reader, "hand_built.duckdb")
    assert text.splitlines() == [
        "gatehouse report: hand_built.duckdb, as of 2026-11-20 12:00 UTC",
        "stale gates: 4 ready to remove from the code, 1 ready to archive in the console, 2 need a person; grouped by owner,"
        " the owner of the most urgent gate first; within an owner by stage (ready to remove first), then marked stale"
        " first, then the longest untouched:",
        # Alice's gates are ready to remove: Alice first, all of hers by stage, then the ownerless gate, then Dan's
        # (the HTML worklist's order); each with gate_lifecycle's stage and action
        "  launch_banner                      Alice              ready: remove from code       launched             90 d"
        "  remove the flag from the code and keep the path it enables (api, web)",
        "  new_nav                            Alice              ready: remove from code       launched             25 d"
        "  remove the flag from the code and keep the path it enables, wherever the code checks it"
        " (referenced in no scanned repository)",
        "  promo_rollout                      Alice              needs a person                forgotten rollout    50 d"
        "  ask the owner: forgotten: partly rolled out for a long time; finish or roll back the rollout",
        "  orphan_flag                        (no owner)         ready: remove from code       no rules             80 d"
        "  remove the flag from the code and delete the path it guards, wherever the code checks it"
        " (referenced in no scanned repository)",
        "  dark_launch                        Dan                ready: remove from code       never launched       60 d"
        "  remove the flag from the code and delete the path it guards (api)",
        "  …and 2 more",
        # the hand-built scans of tests/code_refs/hand_built.py
        *SUMMARY_LINES,
        # exp_skewed's 400:300 then 1000:800 is no mismatch yet to the sequential test (p = 0.0013; the one-look
        # chi-square's 2.4e-06 holds for one look only)
        "experiments: 5 (0 with sample-ratio mismatch, 1 stalled, 4 running, 0 concluded); to look at, sample-ratio"
        " mismatch first (smallest p first), then stalled:",
        "  exp_stalled                        stalled: no new exposure for 5 d",
        "  an experiment no holdout names is followed only when its id is in sources.console.experiment_ids",
        "ingestion sources: 4 (2 with failed runs); highest failure rate first:",
        "  Events 2                           1 of 2 finished runs failed (50%), the last enqueued 2026-11-19 01:00",
        "  Events 1                           1 of 4 finished runs failed (25%), the last enqueued 2026-11-19 02:00",
    ]


def test_summary_before_the_first_extraction_has_no_clock(tmp_path):
    # analytics.as_of has no row until an extraction is recorded: no wall clock stands in for it
    database = tmp_path / "empty.duckdb"
    apply_views(database)
    with Destination(duckdb_path=database).reader() as reader:
        lines = summarise(reader, "empty.duckdb").splitlines()
    assert lines[0] == "gatehouse report: empty.duckdb, no extraction recorded yet"
    assert lines[1].startswith("stale gates: none;")


def test_missing_database_is_one_line(tmp_path, capsys):
    assert main(["report", "--duckdb", str(tmp_path / "absent.duckdb"), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err.strip()
    assert (
        err == f"gatehouse: error: no database at {tmp_path / 'absent.duckdb'}: load it with `gatehouse run`"
        " (or `gatehouse run --demo`, then read it with --duckdb demo.duckdb)"
    )
    assert not (tmp_path / "out").exists()


def test_a_file_that_is_not_duckdb_is_one_line(tmp_path, capsys):
    bogus = tmp_path / "notes.duckdb"
    bogus.write_text("not a database")
    assert main(["report", "--duckdb", str(bogus), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"gatehouse: error: cannot read {bogus} as a gatehouse DuckDB database: ") and "\n" not in err


def test_an_out_folder_that_cannot_be_made_is_one_line(hand_built_db, tmp_path, capsys):
    database = tmp_path / "flags.duckdb"
    database.write_bytes(hand_built_db.read_bytes())
    (tmp_path / "taken").write_text("a file where the folder should be")
    assert main(["report", "--duckdb", str(database), "--out", str(tmp_path / "taken" / "reports")]) == 2
    [line] = [line for line in capsys.readouterr().err.splitlines() if line.startswith("gatehouse: error:")]
    assert line == f"gatehouse: error: cannot use {tmp_path / 'taken' / 'reports'}: a file is where a folder is needed"


@pytest.mark.parametrize("kernels", ["3", "0", "two"])
def test_a_kernel_count_other_than_one_or_two_is_one_line_and_nothing_is_written(
    kernels, hand_built_db, tmp_path, monkeypatch, capsys
):
    database = tmp_path / "flags.duckdb"
    database.write_bytes(hand_built_db.read_bytes())
    before = database.read_bytes()
    monkeypatch.setenv("GATEHOUSE__REPORT__KERNELS", kernels)
    assert main(["report", "--duckdb", str(database), "--out", str(tmp_path / "out")]) == 2
    assert capsys.readouterr().err.strip() == (
        f"gatehouse: error: gatehouse.report.kernels must be 1 or 2 (the notebooks"
        f" run in one process or two side by side), not {kernels!r}"
    )
    assert not (tmp_path / "out").exists() and database.read_bytes() == before


def test_a_notebook_opened_where_there_is_no_database_says_so_and_creates_none(tmp_path, monkeypatch):
    # Jupyter starts a kernel in the notebook's folder: ./gatehouse.duckdb used to be created there, empty,
    # and the first view failed with DuckDB's 'Table with name as_of does not exist'
    from gatehouse.pipelines.errors import GatehouseError
    from gatehouse.pipelines.reports.notebook import NotebookData

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("DLT_PROJECT_DIR", str(tmp_path))  # the dlt project is this folder too: one place looked in
    with pytest.raises(GatehouseError) as failure:
        NotebookData.open("", "gatehouse.duckdb")
    assert str(failure.value) == (
        f"no database at {tmp_path / 'gatehouse.duckdb'}: load one with `gatehouse run`"
        " (or `gatehouse run --demo`), or set GATEHOUSE__DUCKDB to its path before the first cell"
    )
    assert list(tmp_path.iterdir()) == []


def test_summary_lists_the_worklist_in_the_reports_order(demo_reports):
    # the demo's two projects: the list grouped by project (in name order), each with its counts and top rows
    lines = demo_reports.stdout.splitlines()
    heading = next(index for index, line in enumerate(lines) if line.startswith("stale gates: "))
    assert lines[heading].endswith(
        "; by project, then grouped by owner, the owner of the most urgent gate first; within an owner by stage (ready"
        " to remove first), then marked stale first, then the longest untouched:"
    )
    listed = re.compile(r"(\d+) (?:ready to|need a|removed from|approaching|in use)")
    total = sum(int(n) for n in listed.findall(lines[heading]))
    assert lines[heading + 1].startswith("  project mobile: ")
    first = sum(int(n) for n in listed.findall(lines[heading + 1]))
    terminal = [line.split()[0] for line in lines[heading + 2 : heading + 7]]
    assert lines[heading + 7] == f"    …and {first - 5} more"
    assert lines[heading + 8].startswith("  project web: ")
    second = sum(int(n) for n in listed.findall(lines[heading + 8]))
    assert first + second == total
    html = (demo_reports.out / "stale_gates.html").read_text(encoding="utf-8")
    worklist = html.split('<div class="gh-table">', 1)[1].split("</table>", 1)[0]
    gates = [
        title or text
        for title, text in re.findall(
            r'<tr><td class="text wrap">[^<]*</td><td class="text">(?:<abbr title="([^"]+)">[^<]*</abbr>|([^<]*))</td>', worklist
        )
    ]
    # at most three an owner, the rest counted per owner: every gate is shown or counted once
    hidden = [
        int(n)
        for n in re.findall(
            r'<tr class="gh-group-more"><td colspan="\d+"><a href="#owner-[0-9a-f]{12}">…and (\d+) more for this'
            r" owner</a></td></tr>",
            worklist,
        )
    ]
    assert len(gates) + sum(hidden) == total and gates[:5] == terminal
    owners = re.findall(r'<tr class="gh-group"><th colspan="\d+">(mobile|web): ', worklist)
    assert owners == sorted(owners) and set(owners) == {"mobile", "web"}
    assert max(len(group.split("<tr><td")) - 1 for group in worklist.split('<tr class="gh-group">')[1:]) == 3
    assert len(owners) > 1 and len(hidden) >= 1
