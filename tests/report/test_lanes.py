"""The processes that run the report's notebooks: outputs as a kernel gives them, and every way a lane can fail is
one line, the other notebooks still made."""

from __future__ import annotations

import shutil
import time
from pathlib import Path

import nbformat
import pytest

from gatehouse.pipelines.reports import lanes
from gatehouse.pipelines.reports.lanes import NOTEBOOK_DIR, LaneFailed, Lanes
from gatehouse.pipelines.reports.report import NOTEBOOKS, NotebookLanes, ReportsFailed, write_reports
from gatehouse.pipelines.warehouse.destination import Destination


def notebook(folder, name, *cells):
    book = nbformat.v4.new_notebook()
    book.cells = [nbformat.v4.new_markdown_cell("# a heading")] + [nbformat.v4.new_code_cell(source) for source in cells]
    nbformat.write(book, folder / f"{name}.ipynb")


def running(pid: int) -> bool:
    """Whether the process runs (a zombie, dead but not yet reaped by whoever adopted it, does not)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def outputs(executed: str) -> list[list[dict]]:
    return [
        [dict(output) for output in cell.outputs]
        for cell in nbformat.reads(executed, as_version=4).cells
        if cell.cell_type == "code"
    ]


def test_the_first_lane_is_forked_only_from_a_process_where_no_other_thread_runs():
    # a fork copies the locks other threads hold, never released in the child (a test worker's own threads hung a
    # forked lane in its imports); `gatehouse report`, one thread, forks it (tests/report/conftest.py's reports)
    import threading

    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        assert lanes.start_method() == "spawn"
    finally:
        stop.set()
        other.join()


@pytest.fixture(scope="module")
def one_lane(tmp_path_factory) -> tuple[dict[str, tuple[str | None, str | None]], str]:
    """One lane's results, by notebook, and its summary: the notebooks of the two tests below in one process (each
    lane's process imports what the notebooks draw with, most of what a lane costs)."""
    folder = tmp_path_factory.mktemp("one_lane")
    notebook(
        folder,
        "first",
        "import os\nx = 1\nprint('hello')\nprint('again')\n1 + 1",
        "from IPython.display import Markdown, display\ndisplay(Markdown('**bold**'))\nos.environ['GATEHOUSE__DESTINATION']",
        "import matplotlib.pyplot as plt\nfigure = plt.figure(figsize=(1, 1))",
        "import sys\nprint('careful', file=sys.stderr)\nos.getcwd()",
    )
    notebook(folder, "second", "'x' in dir()")
    notebook(folder, "bad", "1 / 0", "raise SystemExit('never run')")
    notebook(folder, "good", "'fine'")
    names = ("first", "second", "bad", "good")
    group = Lanes(1, str.upper)
    lane = group.lanes[0]
    try:
        lane.start({"GATEHOUSE__DESTINATION": "postgres"}, names, ("label", []), folder)
        results = [(name, (executed, failure)) for name, executed, failure in lane.results(names)]
        summary = lane.summary()
    finally:
        group.stop()
    assert [name for name, _ in results] == list(names)
    return dict(results), summary


def test_a_lane_gives_each_notebook_the_outputs_a_kernel_gives(one_lane):
    results, summary = one_lane
    (executed, failure), (executed_second, _) = results["first"], results["second"]
    assert (failure, summary) == (None, "LABEL")
    printed, shown, drawn, warned = outputs(executed)
    assert printed == [
        {"output_type": "stream", "name": "stdout", "text": "hello\nagain\n"},
        {"output_type": "execute_result", "data": {"text/plain": "2"}, "metadata": {}, "execution_count": 1},
    ]
    assert shown == [
        {
            "output_type": "display_data",
            "data": {"text/markdown": "**bold**", "text/plain": "<IPython.core.display.Markdown object>"},
            "metadata": {},
        },
        {"output_type": "execute_result", "data": {"text/plain": "'postgres'"}, "metadata": {}, "execution_count": 2},
    ]
    # a figure left open is shown at the cell's end, as Jupyter's inline backend shows it
    [image] = drawn
    assert image["output_type"] == "display_data" and image["data"]["image/png"].startswith("iVBORw0KGgo")
    assert image["metadata"] == {"image/png": {"alt": "chart"}}
    # Jupyter starts a notebook's kernel in the notebooks' folder
    assert warned == [
        {"output_type": "stream", "name": "stderr", "text": "careful\n"},
        {"output_type": "execute_result", "data": {"text/plain": repr(str(NOTEBOOK_DIR))}, "metadata": {}, "execution_count": 4},
    ]
    # each notebook starts from an empty namespace, as in a fresh kernel
    assert outputs(executed_second) == [
        [{"output_type": "execute_result", "data": {"text/plain": "False"}, "metadata": {}, "execution_count": 1}]
    ]


def test_a_failing_cell_is_one_line_and_the_next_notebook_still_runs(one_lane):
    results, _ = one_lane
    assert [(name, results[name][1]) for name in ("bad", "good")] == [
        ("bad", "notebook bad.ipynb failed: ZeroDivisionError: division by zero"),
        ("good", None),
    ]
    assert results["bad"][0] is None and outputs(results["good"][0])[0][0]["data"] == {"text/plain": "'fine'"}


@pytest.mark.parametrize("lane", [0, 1])
def test_a_lane_whose_process_dies_is_one_line_and_the_other_lane_goes_on(lane, tmp_path):
    # the first lane is the command's child, the second forked from it: how each ended reaches the command
    notebook(tmp_path, "dies", "import os, signal\nos.kill(os.getpid(), signal.SIGKILL)")
    notebook(tmp_path, "lives", "'alive'")
    group = Lanes(2, str)
    try:
        group.lanes[lane].start({}, ("dies",), None, tmp_path)
        group.lanes[1 - lane].start({}, ("lives",), None, tmp_path)
        with pytest.raises(LaneFailed) as failure:
            list(group.lanes[lane].results(("dies",)))
        [(_, executed, _)] = group.lanes[1 - lane].results(("lives",))
    finally:
        group.stop()
    assert str(failure.value) == "notebook dies.ipynb did not finish: its process ended (signal SIGKILL)"
    assert outputs(executed)[0][0]["data"] == {"text/plain": "'alive'"}


@pytest.mark.parametrize(
    "limit, seconds, cells, said",
    [
        # a cell's limit, the lane's start (its imports) not counted in it
        (
            "CELL_TIMEOUT_S",
            1.0,
            ("'quick'", "import time\ntime.sleep(600)"),
            "notebook slow.ipynb did not finish: nothing finished in 1 s",
        ),
        # the start's limit: the imports alone take a good part of a second
        ("START_TIMEOUT_S", 0.01, ("'quick'",), "the notebooks' process did not start: nothing finished in 0.01 s"),
    ],
)
def test_a_lane_over_a_time_limit_is_one_line_and_is_stopped(limit, seconds, cells, said, tmp_path, monkeypatch):
    monkeypatch.setattr(lanes, limit, seconds)
    notebook(tmp_path, "slow", *cells)
    group = Lanes(1, str)
    lane = group.lanes[0]
    try:
        lane.start({}, ("slow",), None, tmp_path)
        with pytest.raises(LaneFailed) as failure:
            list(lane.results(("slow",)))
        group.process.join(5)
        assert group.process.exitcode == -9  # stopped, not left running
    finally:
        group.stop()
    assert str(failure.value) == said


def test_a_report_whose_notebook_fails_keeps_its_earlier_version_and_writes_the_others(hand_built_db, tmp_path):
    folder = tmp_path / "notebooks"
    shutil.copytree(NOTEBOOK_DIR, folder, ignore=shutil.ignore_patterns("*.py", "__pycache__"))
    broken = nbformat.read(folder / "exposure_growth.ipynb", as_version=4)
    broken.cells.append(nbformat.v4.new_code_cell("raise ValueError('a bad day')"))
    nbformat.write(broken, folder / "exposure_growth.ipynb")
    out = tmp_path / "out"
    out.mkdir()
    (out / "exposure_growth.html").write_text("yesterday's")
    database = tmp_path / "flags.duckdb"
    database.write_bytes(hand_built_db.read_bytes())
    destination = Destination(duckdb_path=database, read_only=True)
    with NotebookLanes(destination.label(), count=2, folder=folder) as running:
        with pytest.raises(ReportsFailed) as failure:
            write_reports(destination, out, running)
        summary = running.summary()
    assert str(failure.value) == (
        "report exposure_growth not made (notebook exposure_growth.ipynb failed: ValueError: a bad"
        " day): its earlier version, if any, is kept"
    )
    assert [report.notebook for report in failure.value.written] == [name for name in NOTEBOOKS if name != "exposure_growth"]
    assert (out / "exposure_growth.html").read_text() == "yesterday's"
    assert sorted(path.name for path in out.iterdir()) == [
        "exposure_growth.html",
        "ingestion_health.html",
        "stale_gates.csv",
        "stale_gates.html",
    ]
    assert summary.startswith(f"gatehouse report: {database}, as of ")


def test_a_lane_that_dies_stops_the_other_at_once_and_leaves_no_half_made_report(hand_built_db, tmp_path):
    # the first lane: a notebook made, then one whose process dies; the second lane's notebook would run 600 s
    folder = tmp_path / "notebooks"
    folder.mkdir()
    notebook(folder, "stale_gates", "'made'")
    notebook(folder, "ingestion_health", "import os, signal\nos.kill(os.getpid(), signal.SIGKILL)")
    notebook(folder, "exposure_growth", "import time\ntime.sleep(600)")
    out = tmp_path / "out"
    database = tmp_path / "flags.duckdb"
    database.write_bytes(hand_built_db.read_bytes())
    destination = Destination(duckdb_path=database, read_only=True)
    started = time.monotonic()
    with NotebookLanes(None, count=2, folder=folder) as report_lanes:
        with pytest.raises(LaneFailed) as failure:
            write_reports(destination, out, report_lanes)
        second = report_lanes.lanes[1].pid
    assert str(failure.value) == "notebook ingestion_health.ipynb did not finish: its process ended (signal SIGKILL)"
    assert time.monotonic() - started < 60  # the sleeping lane was stopped, not waited for
    deadline = time.monotonic() + 10  # a signal is delivered when the kernel next schedules the process
    while running(second) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not running(second)
    assert sorted(path.name for path in out.iterdir()) == ["stale_gates.csv"]  # no report, no .partial file
