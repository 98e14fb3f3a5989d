"""The reports: the notebooks run headless against the destination into HTML, and the terminal summary.

The notebooks (`notebooks/*.ipynb`, package data, committed without outputs) read the data through the
analysis views only, on whichever destination `gatehouse run` loaded: it reaches their kernel as
GATEHOUSE_DESTINATION (and GATEHOUSE_DUCKDB for the DuckDB file, its readers' snapshot), read by
`NotebookData.open` (pipelines/reports/notebook.py). Each report is one
self-contained HTML file: charts are PNGs inlined as data: URIs, the CSS is inlined, and the page loads no
script, stylesheet or font from anywhere (nbconvert's lab template minus its require.js, MathJax, Mermaid
and widget blocks, which come from CDNs).
"""

from __future__ import annotations

import logging
import os
import subprocess
from importlib import resources
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

from gatehouse.pipelines.warehouse.destination import Destination, Reader
from gatehouse.pipelines.code_refs.summary import summary_lines as code_reference_lines
from gatehouse.pipelines.errors import GatehouseError

log = logging.getLogger("gatehouse.report")

# Package data: the checkout's notebooks/ in an editable install, site-packages/gatehouse/notebooks from a wheel.
NOTEBOOK_DIR = Path(str(resources.files("gatehouse.notebooks")))
NOTEBOOKS = ("stale_gates", "exposure_growth", "ingestion_health")
DEFAULT_OUT = Path("reports")
CELL_TIMEOUT_S = 300
TOP = 5

OFFLINE_TEMPLATE = """\
{%- extends 'lab/index.html.j2' -%}
{%- block html_head_js -%}{%- endblock html_head_js -%}
{%- block html_head_js_mathjax -%}{%- endblock html_head_js_mathjax -%}
{%- block html_head_js_mermaidjs -%}{%- endblock html_head_js_mermaidjs -%}
{%- block jupyter_widgets -%}{%- endblock jupyter_widgets -%}
{% block data_png scoped %}
<div class="jp-RenderedImage jp-OutputArea-output {{ extra_class }}">
<img src="data:image/png;base64,{{ output.data['image/png'] | escape_html }}" alt="{{ (output | get_metadata('alt', 'image/png') or 'chart') | escape_html }}">
</div>
{%- endblock data_png %}
"""

@dataclass(frozen=True)
class Report:
    notebook: str
    html: Path


def prepare(destination: Destination, timeout_s: float | None = None) -> str:
    """Refreshes the views (the notebooks rely on this version's) and returns the terminal summary."""
    destination.check_loaded(timeout_s)
    destination.apply_views(timeout_s=timeout_s)
    destination.publish_snapshot(timeout_s)
    with destination.reader(timeout_s) as reader:
        return summarise(reader, destination.label())


def write_reports(destination: Destination, out: Path) -> list[Report]:
    out.mkdir(parents=True, exist_ok=True)
    # Every report is written beside its place and renamed into it only once all are made: a notebook that
    # fails leaves the earlier reports as they were, never a mix of old and new.
    staged: list[tuple[Path, Report]] = []
    try:
        for report in _executed(destination, out):
            staged.append(report)
        for partial, report in staged:
            os.replace(partial, report.html)
    finally:
        for partial, _ in staged:
            partial.unlink(missing_ok=True)
    return [report for _, report in staged]


def _executed(destination: Destination, out: Path) -> Iterator[tuple[Path, Report]]:
    import nbformat
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError, CellTimeoutError, DeadKernelError

    exporter = _exporter()
    # The kernel inherits this environment, plus where the data is; its working directory is the notebooks'.
    env = {**os.environ, **destination.notebook_environment()}
    for name in NOTEBOOKS:
        path = NOTEBOOK_DIR / f"{name}.ipynb"
        if not path.is_file():
            raise GatehouseError(f"notebook {path} is missing: gatehouse report runs from a checkout of the project")
        notebook = nbformat.read(path, as_version=4)
        log.info("executing %s", path.name)
        client = NotebookClient(
            notebook,
            timeout=CELL_TIMEOUT_S,
            kernel_name="python3",
            resources={"metadata": {"path": str(NOTEBOOK_DIR)}},
        )
        try:
            # The kernel's own stderr only says it talks over loopback TCP; errors come back through the client.
            client.execute(env=env, stderr=subprocess.DEVNULL)
        except CellExecutionError as err:
            raise GatehouseError(f"notebook {path.name} failed: {_last_line(err)}") from err
        except (CellTimeoutError, DeadKernelError) as err:
            raise GatehouseError(f"notebook {path.name} did not finish: {_last_line(err)}") from err
        html, _ = exporter.from_notebook_node(notebook, resources={"metadata": {"name": notebook.metadata.get("title", name)}})
        target = out / f"{name}.html"
        partial = out / f".{name}.html.partial"
        partial.write_text(html, encoding="utf-8")
        yield partial, Report(name, target)


def _exporter():
    import jinja2
    from nbconvert import HTMLExporter

    exporter = HTMLExporter(
        template_name="lab",
        exclude_input=True,
        exclude_input_prompt=True,
        exclude_output_prompt=True,
        embed_images=True,
    )
    exporter.extra_loaders = [jinja2.DictLoader({"gatehouse_offline.html.j2": OFFLINE_TEMPLATE})]
    exporter.template_file = "gatehouse_offline.html.j2"
    return exporter


def _last_line(err: Exception) -> str:
    lines = [line for line in str(err).strip().splitlines() if line.strip()]
    return lines[-1] if lines else type(err).__name__


def summarise(reader: Reader, label: str) -> str:
    """A few lines for the terminal: top stale gates, experiments with SRM or stalls, failing sources."""
    rows = reader.rows
    # no row before the first extraction: there is no clock to count ages from
    as_of = [f"as of {at:%Y-%m-%d %H:%M} UTC" for (at,) in rows("select as_of_at from analytics.as_of")]
    lines = [f"gatehouse report: {label}, {as_of[0] if as_of else 'no extraction recorded yet'}"]

    [(stale, marked, meeting, approaching)] = rows(
        """
        select count(*),
               count(case when staleness = 'marked stale' then 1 end),
               count(case when staleness = 'meets stale rules' then 1 end),
               count(case when staleness = 'approaching' then 1 end)
        from analytics.stale_gates
        """
    )
    lines.append(f"stale gates: {stale} ({marked} marked stale, {meeting} meet the rules, {approaching} approaching)")
    for gate_id, owner, staleness, reason, days, action in rows(
        f"""
        select gate_id, coalesce(owner_name, '(no owner)'), staleness, type_reason, days_since_modified, recommended_action
        from analytics.stale_gates
        order by staleness_rank, checks_per_hour desc nulls last, days_since_modified desc, gate_id
        limit {TOP}
        """
    ):
        lines.append(f"  {gate_id:<34} {owner:<18} {staleness:<17} {reason:<26} {days:>4} d  {action}")
    lines += code_reference_lines(rows)

    flagged = rows(
        """
        select growth.experiment_id, srm.srm_detected, srm.p_value, growth.is_stalled, growth.days_without_growth
        from analytics.exposure_growth as growth
        left join analytics.exposure_srm as srm
            on srm.experiment_id = growth.experiment_id
        where srm.srm_detected or growth.is_stalled
        order by srm.p_value nulls last, growth.days_without_growth desc, growth.experiment_id
        """
    )
    [(experiments, concluded)] = rows(
        "select count(*), count(case when is_concluded then 1 end) from analytics.exposure_growth"
    )
    with_srm = sum(1 for row in flagged if row[1])
    stalled = sum(1 for row in flagged if row[3])
    lines.append(
        f"experiments: {experiments} ({with_srm} with sample-ratio mismatch, {stalled} stalled, {concluded} concluded)"
    )
    for experiment_id, srm_detected, p_value, is_stalled, idle_days in flagged[: TOP * 2]:
        flags = ([f"SRM p={p_value:.1e}"] if srm_detected else []) + ([f"stalled {idle_days} d"] if is_stalled else [])
        lines.append(f"  {experiment_id:<34} {', '.join(flags)}")

    failing = rows(
        """
        select source_name, failed_count, succeeded_count + failed_count, failure_rate, last_failed_run_enqueued_at
        from analytics.ingestion_failure_rate_by_source
        where failed_count > 0
        order by failure_rate desc, failed_count desc, source_name
        """
    )
    [(sources,)] = rows("select count(*) from analytics.ingestion_failure_rate_by_source")
    lines.append(f"ingestion sources: {sources} ({len(failing)} with failed runs)")
    for source, failed, finished, rate, last_failed in failing[:TOP]:
        lines.append(f"  {source:<34} {failed} of {finished} finished runs failed ({rate:.0%}), last enqueued {last_failed:%Y-%m-%d %H:%M}")
    return "\n".join(lines)
