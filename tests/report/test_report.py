"""`gatehouse report`: notebooks executed headless against the demo database, self-contained HTML, a summary."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import duckdb
import nbformat
import pytest
from matplotlib import image as mpimg

from gatehouse.pipelines.cli.main import main
from gatehouse.pipelines.warehouse.destination import Destination
from gatehouse.pipelines.reports.report import NOTEBOOK_DIR, NOTEBOOKS, summarise
from gatehouse.pipelines.warehouse.destination import apply_views
from tests.code_refs.hand_built import SUMMARY_LINES

REMOTE_REFERENCE = re.compile(r"""(?:src|href)\s*=\s*["']?\s*(?:https?:)?//|url\(\s*["']?\s*(?:https?:)?//|@import""", re.I)
CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--hide-scrollbars",
    # anything the page asked of the network would go to a closed port: the charts must not need it
    "--proxy-server=http://127.0.0.1:9",
    "--virtual-time-budget=10000",
)
IMAGE_PROBE = """<script>
window.addEventListener('load', function () {
  var found = Array.prototype.map.call(document.images, function (img) {
    return {src: img.src.slice(0, 22), complete: img.complete, width: img.naturalWidth, height: img.naturalHeight,
            shown: img.getBoundingClientRect().width};
  });
  var out = document.createElement('pre');
  out.id = 'image-probe';
  out.textContent = JSON.stringify(found);
  document.body.appendChild(out);
});
</script>"""


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_notebook_is_committed_without_outputs(name):
    notebook = nbformat.read(NOTEBOOK_DIR / f"{name}.ipynb", as_version=4)
    nbformat.validate(notebook)
    code = [cell for cell in notebook.cells if cell.cell_type == "code"]
    assert all(cell.outputs == [] and cell.execution_count is None for cell in code)
    # unset, NotebookData.open looks for the database from the working folder and the project's
    assert 'DUCKDB_PATH = os.environ.get("GATEHOUSE_DUCKDB")' in code[0].source
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
    assert all('src="data:image/png;base64,' in image and 'alt="' in image for image in images)
    # no error and no warning printed by a cell
    body = html.split("<body", 1)[1]
    assert "Traceback" not in body and 'data-mime-type="application/vnd.jupyter.stderr"' not in body
    # the code stays in the notebook; the report shows results
    assert "connection.execute" not in html


def run_chromium(browser: str, tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    profile = tmp_path / "chromium-profile"
    return subprocess.run(
        [browser, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", *args],
        capture_output=True, text=True, timeout=120,
    )


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_report_charts_render_in_headless_chromium(headless_browser, demo_reports, tmp_path, name):
    report = demo_reports.out / f"{name}.html"
    # decoded: every <img> loaded with a size, read back from the page after its load event
    probe = tmp_path / f"{name}-probe.html"
    probe.write_text(report.read_text(encoding="utf-8").replace("</body>", IMAGE_PROBE + "</body>"), encoding="utf-8")
    dump = run_chromium(headless_browser, tmp_path, "--dump-dom", probe.as_uri())
    found = re.search(r'<pre id="image-probe">(.*?)</pre>', dump.stdout, re.S)
    assert found, f"no probe result from chromium:\n{dump.stderr[-2000:]}"
    images = json.loads(found[1].replace("&quot;", '"').replace("&amp;", "&"))
    assert len(images) >= 3
    for image in images:
        assert image["src"] == "data:image/png;base64,"
        assert image["complete"] and image["width"] > 200 and image["height"] > 150 and image["shown"] > 200, image
    # painted: the charts' colours are on screen (the page itself is black text on white)
    screenshot = tmp_path / f"{name}.png"
    shot = run_chromium(headless_browser, tmp_path, "--window-size=1280,2400", f"--screenshot={screenshot}", report.as_uri())
    assert screenshot.is_file(), shot.stderr[-2000:]
    pixels = mpimg.imread(screenshot)[..., :3]
    saturation = pixels.max(axis=-1) - pixels.min(axis=-1)
    coloured = int((saturation > 0.3).sum())
    assert coloured > 5000, f"only {coloured} coloured pixels in the screenshot"


def test_summary_of_the_hand_built_console(hand_built_db):
    with Destination(duckdb_path=hand_built_db).reader() as reader:
        text = summarise(reader, "hand_built.duckdb")
    assert text.splitlines() == [
        "gatehouse report: hand_built.duckdb, as of 2026-11-20 12:00 UTC",
        "stale gates: 7 (2 marked stale, 4 meet the rules, 1 approaching)",
        # marked first, the most checked first
        "  launch_banner                      Alice              marked stale      STALE_PROBABLY_LAUNCHED      90 d  remove the flag and keep the launched path",
        "  old_checkout                       Bob                marked stale      STALE_PROBABLY_UNLAUNCHED   189 d  ask the owner: still referenced by holdouts and configs",
        "  promo_rollout                      Alice              meets stale rules STALE_PROBABLY_FORGOTTEN     50 d  ask the owner: finish or roll back the partial rollout",
        "  dark_launch                        Dan                meets stale rules STALE_PROBABLY_UNLAUNCHED    60 d  remove the flag and the dead code path",
        "  orphan_flag                        (no owner)         meets stale rules STALE_NO_RULES               80 d  remove the flag and the dead code path",
        # the hand-built scans of tests/code_refs/hand_built.py
        *SUMMARY_LINES,
        "experiments: 5 (1 with sample-ratio mismatch, 1 stalled, 0 concluded)",
        "  exp_skewed                         SRM p=2.4e-06",
        "  exp_stalled                        stalled 5 d",
        "ingestion sources: 4 (2 with failed runs)",
        "  Events 2                           1 of 2 finished runs failed (50%), last enqueued 2026-11-19 01:00",
        "  Events 1                           1 of 4 finished runs failed (25%), last enqueued 2026-11-19 02:00",
    ]


def test_summary_before_the_first_extraction_has_no_clock(tmp_path):
    # analytics.as_of has no row until an extraction is recorded: no wall clock stands in for it
    database = tmp_path / "empty.duckdb"
    apply_views(database)
    with Destination(duckdb_path=database).reader() as reader:
        lines = summarise(reader, "empty.duckdb").splitlines()
    assert lines[:2] == ["gatehouse report: empty.duckdb, no extraction recorded yet", "stale gates: 0 (0 marked stale, 0 meet the rules, 0 approaching)"]


def test_missing_database_is_one_line(tmp_path, capsys):
    assert main(["report", "--duckdb", str(tmp_path / "absent.duckdb"), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err.strip()
    assert err == f"gatehouse: error: no database at {tmp_path / 'absent.duckdb'}: load one with `gatehouse run` (or `gatehouse run --demo`)"
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


def test_a_notebook_opened_where_there_is_no_database_says_so_and_creates_none(tmp_path, monkeypatch):
    # Jupyter starts a kernel in the notebook's folder: ./gatehouse.duckdb used to be created there, empty,
    # and the first view failed with DuckDB's 'Table with name as_of does not exist'
    from gatehouse.pipelines.errors import GatehouseError
    from gatehouse.pipelines.reports.notebook import NotebookData

    monkeypatch.chdir(tmp_path)
    with pytest.raises(GatehouseError) as failure:
        NotebookData.open("", "gatehouse.duckdb")
    assert str(failure.value) == (
        f"no database at {tmp_path / 'gatehouse.duckdb'}: load one with `gatehouse run`"
        " (or `gatehouse run --demo`), or set GATEHOUSE_DUCKDB to its path before the first cell"
    )
    assert list(tmp_path.iterdir()) == []
