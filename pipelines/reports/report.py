"""The reports: the notebooks run headless against the destination into HTML, and the terminal summary.

The notebooks (`notebooks/*.ipynb`, package data, committed without outputs) read the data through the
analysis views only, on whichever destination `gatehouse run` loaded: it reaches them as
GATEHOUSE__DESTINATION (and GATEHOUSE__DUCKDB for the DuckDB file, its readers' snapshot), read by
`NotebookData.open` (pipelines/reports/notebook.py). Each report is one
self-contained HTML file: charts are PNGs inlined as data: URIs, the CSS is inlined, and the page loads no
script, stylesheet or font from anywhere (nbconvert's lab template minus its require.js, MathJax, Mermaid
and widget blocks, which come from CDNs).
"""

from __future__ import annotations

import csv
import logging
import os
import re
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from gatehouse.pipelines.code_refs.summary import summary_lines as code_reference_lines
from gatehouse.pipelines.errors import GatehouseError
from gatehouse.pipelines.reports import lists
from gatehouse.pipelines.reports.format import AS_OF_SQL, and_more, as_of_phrase, gate_url_template, link_to, minute
from gatehouse.pipelines.reports.lanes import NOTEBOOK_DIR, Lane, Lanes
from gatehouse.pipelines.settings import setting
from gatehouse.pipelines.untrusted import for_csv, for_terminal
from gatehouse.pipelines.warehouse import datasets
from gatehouse.pipelines.warehouse.destination import Destination

log = logging.getLogger("gatehouse.report")

NOTEBOOKS = ("stale_gates", "exposure_growth", "ingestion_health")
TOP = 5

OFFLINE_TEMPLATE = """\
{%- extends 'lab/index.html.j2' -%}
{%- block html_head_js -%}{%- endblock html_head_js -%}
{%- block html_head_js_mathjax -%}{%- endblock html_head_js_mathjax -%}
{%- block html_head_js_mermaidjs -%}{%- endblock html_head_js_mermaidjs -%}
{%- block jupyter_widgets -%}{%- endblock jupyter_widgets -%}
{% block data_png scoped %}
<div class="jp-RenderedImage jp-OutputArea-output {{ extra_class }}">
<img src="data:image/png;base64,{{ output.data['image/png'] | escape_html }}" \
alt="{{ (output | get_metadata('alt', 'image/png') or 'chart') | escape_html }}">
</div>
{%- endblock data_png %}
"""


@dataclass(frozen=True)
class Report:
    notebook: str
    html: Path


def prepare(destination: Destination, timeout_s: float | None = None) -> str:
    """Refreshes the views (the notebooks rely on this version's) and returns the terminal summary."""
    refresh(destination, timeout_s)
    return summary(destination, timeout_s)


def refresh(destination: Destination, timeout_s: float | None = None) -> None:
    """What the notebooks need first: loaded data, this version's views and, on DuckDB, a fresh snapshot.

    Views that are already this version's, over the same raw columns, are left as they are, and a snapshot
    the database has not changed since is not copied again (a new load or new columns redo both)."""
    datasets.check_loaded(destination, timeout_s)
    destination.views.apply(timeout_s=timeout_s, unless_current=True)
    destination.snapshot.publish(timeout_s, unless_current=True)


def summary(destination: Destination, timeout_s: float | None = None) -> str:
    """The terminal summary, read from the destination itself (not the snapshot the notebooks read)."""
    with destination.reader(timeout_s) as reader:
        return summarise(reader, destination.label())


class NotebookLanes:
    """The processes that run the notebooks (pipelines/reports/lanes.py), started at once so that their imports
    overlap the views' refresh: with two cores or more, two, each running its lane of notebooks side by side (the
    exposures' charts in one, the other two notebooks in the other: about as long), so that the report takes the
    longest lane, not the sum. The first lane makes the terminal summary afterwards, from the frames its
    notebooks read (`notebook.share_reads`: each query read once, the summary's read ahead)."""

    def __init__(self, summary_label: str | None, count: int | None = None, folder: Path = NOTEBOOK_DIR) -> None:
        self.summary_label = summary_label  # None: no summary (a scheduler's report has no terminal)
        self.folder = folder
        self.count = count or kernel_count()
        self.group: Lanes | None = None

    def __enter__(self) -> NotebookLanes:
        self.group = Lanes(self.count, summary_of_the_notebooks)
        return self

    def __exit__(self, *exc: object) -> None:
        if self.group is not None:
            self.group.stop()

    @property
    def lanes(self) -> list[Lane]:
        return self.group.lanes if self.group is not None else []

    def kill(self) -> None:
        """Every lane still at work stopped at once."""
        for lane in self.lanes:
            lane.kill()

    def plan(self) -> list[tuple[Lane, tuple[str, ...]]]:
        if len(self.lanes) == 1:
            return [(self.lanes[0], NOTEBOOKS)]
        return list(zip(self.lanes, LANES))

    def start(self, env: dict[str, str]) -> None:
        for index, (lane, names) in enumerate(self.plan()):
            label = self.summary_label if index == 0 else None
            lane.start(env, names, (label, list(SUMMARY_FRAMES)) if label is not None else None, self.folder)

    def summary(self) -> str:
        """The terminal summary, made by the first lane after its notebooks."""
        return self.lanes[0].summary()


# How many lanes run the notebooks: `[gatehouse.report] kernels = 1` (GATEHOUSE__REPORT__KERNELS) where the report
# shares a small machine with other work (a scheduler's worker, a test suite): one lane costs one set of imports
# less and takes about the sum of the lanes instead of the longest. (The name is the Jupyter kernels they once were.)
KERNELS_SETTING = "gatehouse.report.kernels"


def kernel_count() -> int:
    """The configured number of lanes, 1 or 2; by default 2 with two cores or more, else 1. Anything else is
    one line naming the setting, before any lane starts or any report is written."""
    configured: Any = setting("report.kernels")
    if configured is None:
        return 2 if (os.cpu_count() or 1) >= 2 else 1
    if str(configured).strip() not in ("1", "2"):
        raise GatehouseError(
            f"{KERNELS_SETTING} must be 1 or 2 (the notebooks run in one process or two side by side), not {configured!r}"
        )
    return int(configured)


# Two lanes of about the same length (the demo's, in seconds: exposure_growth 1.5; stale_gates 0.9 and
# ingestion_health 0.5), the summary's lane taking the notebooks whose frames the summary reads most.
LANES = (("stale_gates", "ingestion_health"), ("exposure_growth",))


class ReportsFailed(GatehouseError):
    """Some reports could not be made. The others were written; each that failed keeps its earlier version."""

    def __init__(self, failures: dict[str, str], written: list[Report]) -> None:
        super().__init__(
            "; ".join(f"report {name} not made ({why}): its earlier version, if any, is kept" for name, why in failures.items())
        )
        self.failures = failures
        self.written = written


def write_reports(destination: Destination, out: Path, lanes: NotebookLanes | None = None) -> list[Report]:
    """Each notebook executed and written as its report: a report is made or kept on its own, so one notebook
    that fails (its one line in `ReportsFailed`, raised once the others are written) never stops the others."""
    if lanes is None:
        with NotebookLanes(None) as own:
            return write_reports(destination, out, own)
    lanes.start(destination.notebook_environment())
    out.mkdir(parents=True, exist_ok=True)
    write_worklist_csv(destination, out)
    # Each report is written beside its place and renamed into it once made whole: a reader never opens half a
    # page. Each notebook's HTML is made here as it arrives, while the lanes run the next ones.
    pending: dict[str, Future] = {}
    failures: dict[str, str] = {}
    written: list[Report] = []
    try:
        with ThreadPoolExecutor(1) as exporting, ThreadPoolExecutor(len(lanes.lanes)) as receiving:
            exporter = exporting.submit(_exporter)

            def receive(lane: Lane, names: tuple[str, ...]) -> None:
                for name, executed, failure in lane.results(names):
                    if executed is None:
                        failures[name] = failure or "it failed"
                    else:
                        log.info("executed %s.ipynb", name)  # progress, as each notebook is done
                        pending[name] = exporting.submit(_write_html, exporter, name, executed, out)

            try:
                for lane in [receiving.submit(receive, lane, names) for lane, names in lanes.plan()]:
                    lane.result()
            except BaseException:  # Ctrl-C, a lane that failed: the others stop now, not at their next cell
                lanes.kill()
                raise
        for name in NOTEBOOKS:
            if name in pending:
                partial, report = pending[name].result()
                os.replace(partial, report.html)
                written.append(report)
    finally:
        # what was made but not put in place (an export or a rename failed, or the command was stopped)
        for made in pending.values():
            if made.done() and made.exception() is None:
                made.result()[0].unlink(missing_ok=True)
    if failures:
        raise ReportsFailed({name: failures[name] for name in NOTEBOOKS if name in failures}, written)
    return written


# Every stale gate, owner by owner, as a file a person can forward: one CSV with the owner's columns first.
WORKLIST_CSV = "stale_gates.csv"
WORKLIST_CSV_COLUMNS = (
    "project",
    "owner_name",
    "owner_email",
    "team",
    "gate_id",
    "gate_name",
    "stage",
    "staleness",
    "type_reason",
    "status",
    "rollout_state",
    "days_since_modified",
    "checks_per_hour",
    "code_reference_count",
    "code_locations",
    "code_owners",
    "recommended_action",
)


def write_worklist_csv(destination: Destination, out: Path) -> Path:
    """`stale_gates.csv` beside the reports: every gate of `analytics.stale_gates` (no top list), in the worklist's
    order, with its link to the console when `gatehouse.report.gate_url` is set. Cells a spreadsheet would run as a
    formula are neutralised (`untrusted.for_csv`)."""
    link = link_to(gate_url_template())
    with destination.reader() as reader:
        rows = reader.rows(
            f"select {', '.join(WORKLIST_CSV_COLUMNS)} from analytics.stale_gates"
            " order by project, coalesce(owner_name, owner_email, ''), stage_rank, staleness_rank,"
            " days_since_modified desc nulls last, gate_id"
        )
    path, partial = out / WORKLIST_CSV, out / f".{WORKLIST_CSV}.partial"
    with partial.open("w", newline="", encoding="utf-8") as file:
        writer = csv.writer(file)
        writer.writerow([*WORKLIST_CSV_COLUMNS, *(["console_url"] if link else [])])
        gate = WORKLIST_CSV_COLUMNS.index("gate_id")
        for row in rows:
            cells = [for_csv(value) if isinstance(value, str) else ("" if value is None else str(value)) for value in row]
            writer.writerow([*cells, *([link(row[gate])] if link else [])])
    os.replace(partial, path)
    return path


def _write_html(exporter: Future, name: str, executed: str, out: Path) -> tuple[Path, Report]:
    import nbformat

    notebook = nbformat.reads(executed, as_version=4)
    html, _ = exporter.result().from_notebook_node(
        notebook, resources={"metadata": {"name": notebook.metadata.get("title", name)}}
    )
    partial = out / f".{name}.html.partial"
    partial.write_text(html, encoding="utf-8")
    return partial, Report(name, out / f"{name}.html")


def _exporter():
    import jinja2
    from nbconvert import HTMLExporter
    from nbconvert.exporters.templateexporter import TemplateExporter
    from nbconvert.filters.highlight import Highlight2HTML
    from nbconvert.filters.widgetsdatatypefilter import WidgetsDataTypeFilter

    class OfflineHTMLExporter(HTMLExporter):
        """nbconvert's HTML export without its last step, which parses the whole page again (BeautifulSoup) to give
        an image without alternative text a placeholder and each output `tabindex="0"`: for the large
        organisation's worklist that took longer than running its notebook. Every image here has its text (`show`, and the
        template's image block); the outputs are made focusable by `_focusable`."""

        def from_notebook_node(self, nb: Any, resources: Any = None, **kw: Any) -> tuple[str, dict]:
            # what HTMLExporter.from_notebook_node does before its parse (nbconvert 7)
            resources = self._init_resources(resources)
            self.register_filter("highlight_code", self.filters.get("highlight_code", Highlight2HTML(parent=self)))
            self.register_filter(
                "filter_data_type", WidgetsDataTypeFilter(notebook_metadata=self._nb_metadata, parent=self, resources=resources)
            )
            html, resources = TemplateExporter.from_notebook_node(self, nb, resources, **kw)
            return _focusable(html), resources

    exporter = OfflineHTMLExporter(
        template_name="lab",
        exclude_input=True,
        exclude_input_prompt=True,
        exclude_output_prompt=True,
        embed_images=True,
    )
    exporter.extra_loaders = [jinja2.DictLoader({"gatehouse_offline.html.j2": OFFLINE_TEMPLATE})]
    exporter.template_file = "gatehouse_offline.html.j2"
    return exporter


# A cell's text or an output, as the template writes its element (what a notebook shows is inside it, its text
# escaped: it cannot hold this start of a tag)
FOCUSABLE_ELEMENT = re.compile(r'(<div class="[^"<>]*\b(?:jp-OutputArea-output|jp-Cell-inputWrapper)\b[^"<>]*")')


def _focusable(html: str) -> str:
    """Each cell's text and each output reachable with the keyboard (`tabindex="0"`), as nbconvert makes them."""
    return FOCUSABLE_ELEMENT.sub(r'\1 tabindex="0"', html)


# The frames the summary reads, word for word as the notebooks read them: in the report's first lane each is read once,
# ahead, while the first notebook runs.
STALE_GATES_SQL = "select * from analytics.stale_gates"
EXPOSURE_GROWTH_SQL = "select * from analytics.exposure_growth"
EXPOSURE_SRM_SQL = "select * from analytics.exposure_srm"
SOURCES_SQL = "select * from analytics.ingestion_failure_rate_by_source order by failure_rate desc nulls last, source_name"
EXPERIMENT_COVERAGE_SQL = "select * from analytics.experiment_coverage order by project, experiment_id"
SUMMARY_FRAMES = (
    STALE_GATES_SQL,
    EXPOSURE_GROWTH_SQL,
    EXPOSURE_SRM_SQL,
    lists.EXPERIMENT_NAMES_SQL,
    EXPERIMENT_COVERAGE_SQL,
    SOURCES_SQL,
)


class ReadsViews(Protocol):
    """What the summary reads with: a `Reader`, or a notebook's view of the same views (`summary_of_the_notebooks`)."""

    def rows(self, sql: str) -> list[tuple]: ...

    def frame(self, sql: str) -> Any: ...


def summary_of_the_notebooks(label: str) -> str:
    """The terminal summary, in a notebooks' lane after its notebooks, from the frames they read (the reader they
    used, opened as their parameters cell opens it): no view is read again."""
    from types import SimpleNamespace

    from gatehouse.pipelines.reports.notebook import NotebookData
    from gatehouse.pipelines.warehouse.names import DEFAULT_NAME, DESTINATION_ENV, DUCKDB_ENV

    data = NotebookData.open(os.environ.get(DESTINATION_ENV, DEFAULT_NAME), os.environ.get(DUCKDB_ENV))
    return summarise(SimpleNamespace(rows=data.reader.rows, frame=data.view), label)


def summarise(reader: ReadsViews, label: str) -> str:
    """A few lines for the terminal, each top list in the report's own order (said on its heading line) and
    ended by "…and N more": the stale-gate worklist, experiments to look at, sources with failed runs. With
    several projects each list is grouped by project: a line per project with its counts, then its top rows."""
    # no row before the first extraction: there is no clock to count ages from
    as_of = as_of_phrase(reader.rows(AS_OF_SQL))
    lines = [f"gatehouse report: {label}, {as_of or 'no extraction recorded yet'}"]
    lines += _stale_gate_lines(reader.frame)
    lines += code_reference_lines(reader.rows)
    lines += _experiment_lines(reader.frame)
    lines += _ingestion_lines(reader.frame)
    # each line one line, whatever a name in it holds: its control and bidi characters shown as escapes
    return "\n".join(for_terminal(line) for line in lines)


def _stale_gate_lines(frame: Any) -> list[str]:
    worklist = lists.stale_worklist(frame(STALE_GATES_SQL))

    def stale_rows(gates: Any, indent: str) -> list[str]:
        top = gates.groupby("owner_key", sort=False).head(lists.WORKLIST_PER_OWNER).head(TOP)
        return [
            f"{indent}{gate.gate_id:<34} {gate.owner:<18} {gate.stage:<29} {gate.reason:<18}"
            f" {gate.days_since_modified:>4} d  {gate.recommended_action}"
            for gate in top.itertuples()
        ]

    return [
        f"stale gates: {lists.stage_counts(worklist)}; {lists.by_project(lists.WORKLIST_ORDER, worklist)}:",
        *per_project(worklist, lists.stage_counts, stale_rows),
    ]


def _experiment_lines(frame: Any) -> list[str]:
    experiments = lists.reviewed_experiments(
        frame(EXPOSURE_GROWTH_SQL),
        frame(EXPOSURE_SRM_SQL),
        frame(lists.EXPERIMENT_NAMES_SQL),
    )
    flagged = experiments[experiments["review_status"].isin(["SRM", "stalled"])]

    def experiment_counts(shown: Any) -> str:
        status = shown["review_status"].value_counts()
        unfollowed = int(status.get(lists.UNFOLLOWED, 0))
        return (
            f"{len(shown)} ({int(status.get('SRM', 0))} with sample-ratio mismatch,"
            f" {int(status.get('stalled', 0))} stalled, {int(status.get('running', 0))} running,"
            f" {int(status.get('concluded', 0))} concluded" + (f", {unfollowed} no longer followed" if unfollowed else "") + ")"
        )

    def experiment_rows(shown: Any, indent: str) -> list[str]:
        out = []
        for experiment in shown[shown["review_status"].isin(["SRM", "stalled"])].head(TOP).itertuples():
            if experiment.review_status == "SRM":
                what = (
                    f"SRM p={experiment.p_value:.1e}, {experiment.most_deviating_group_name}"
                    f" {experiment.most_deviating_observed_share:.1%} of exposures (expected"
                    f" {experiment.most_deviating_expected_share:.1%})"
                )
            else:
                what = f"stalled: no new exposure for {experiment.days_without_growth} d"
            name = f" ({experiment.holdout_names})" if isinstance(experiment.holdout_names, str) else ""
            out.append(f"{indent}{experiment.experiment_id:<34} {what}{name}")
        return out

    order = lists.by_project(f"{lists.EXPERIMENT_ORDER.split(', then')[0]}, then stalled", experiments)
    lines = [f"experiments: {experiment_counts(experiments)}" + (f"; to look at, {order}:" if len(flagged) else "")]
    lines += per_project(
        experiments,
        experiment_counts,
        experiment_rows,
        shown=lambda rows_of: int(rows_of["review_status"].isin(["SRM", "stalled"]).sum()),
    )
    coverage = frame(EXPERIMENT_COVERAGE_SQL)
    unloaded = coverage[~coverage["has_exposures"].astype(bool)]
    if len(unloaded):
        ids = [
            f"{e.project}: {e.experiment_id}" if lists.several_projects(coverage) else e.experiment_id
            for e in unloaded.head(TOP).itertuples()
        ]
        lines.append(
            f"  named by a holdout, no exposures loaded: {', '.join(ids)}"
            + and_more(len(unloaded), len(ids)).replace("  ", " ", 1)
        )
    lines += _unfollowed_lines(experiments)
    lines.append("  an experiment no holdout names is followed only when its id is in sources.console.experiment_ids")
    return lines


def _unfollowed_lines(experiments: Any) -> list[str]:
    """The experiments gatehouse no longer follows, and the setting that follows one again: never "concluded"."""
    unfollowed = experiments[experiments["review_status"] == lists.UNFOLLOWED]
    if unfollowed.empty:
        return []
    several = lists.several_projects(experiments)
    listed = [(f"{e.project}: " if several else "") + lists.unfollowed_text(e) for e in unfollowed.head(TOP).itertuples()]
    return [
        f"  no longer followed, so neither concluded nor stalled: {', '.join(listed)}"
        + and_more(len(unfollowed), len(listed)).replace("  ", " ", 1)
        + f"; to follow one again, add its id to {lists.FOLLOW_SETTING}"
    ]


def _ingestion_lines(frame: Any) -> list[str]:
    by_source = frame(SOURCES_SQL)
    if by_source.empty:
        # the console cannot list ingestion runs: none named is nothing watched, never "0 with failed runs"
        return [
            "ingestion sources: no ingestion run is followed, so none is watched; name the runs to follow in"
            " sources.console.ingestion_run_ids (SOURCES__CONSOLE__INGESTION_RUN_IDS)"
        ]

    def source_counts(sources: Any) -> str:
        return f"{len(sources)} ({len(lists.failing_sources(sources))} with failed runs)"

    def source_rows(sources: Any, indent: str) -> list[str]:
        out = []
        for source in lists.failing_sources(sources).head(TOP).itertuples():
            finished = source.succeeded_count + source.failed_count
            out.append(
                f"{indent}{source.source_name:<34} {source.failed_count} of {finished} finished runs failed"
                f" ({source.failure_rate:.0%}), the last enqueued {minute(source.last_failed_run_enqueued_at)}"
            )
        return out

    failing = lists.failing_sources(by_source)
    return [
        f"ingestion sources: {source_counts(by_source)}"
        + (f"; {lists.by_project(lists.SOURCE_ORDER, by_source)}:" if len(failing) else ""),
        *per_project(by_source, source_counts, source_rows, shown=lambda rows_of: len(lists.failing_sources(rows_of))),
    ]


def per_project(frame: Any, counts: Any, top_rows: Any, shown: Any = len) -> list[str]:
    """A list's rows, each project's under a line with its own counts when there are several (the top rows and
    "…and N more" per project); as one list otherwise. `shown(rows)`: how many rows the list has to show."""
    if not lists.several_projects(frame):
        total = shown(frame)
        listed = top_rows(frame, "  ")
        return listed + [line for line in [and_more(total, len(listed))] if line]
    out = []
    for project, rows_of in frame.groupby("project", sort=True):
        listed = top_rows(rows_of, "    ")
        out.append(f"  project {project}: {counts(rows_of)}")
        out += listed + [line for line in [and_more(shown(rows_of), len(listed)).replace("  ", "    ", 1)] if line]
    return out
