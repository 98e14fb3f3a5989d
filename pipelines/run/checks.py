"""What a run refuses before it loads: a table it does not know, the demo's file for a console (and a console's for
the demo), a dataset that holds another console; and the warning for a single console's dataset left beside the
projects."""

from __future__ import annotations

import logging

from gatehouse.pipelines.errors import GatehouseError, explain
from gatehouse.pipelines.models.build import DEFAULT_PROJECT
from gatehouse.pipelines.run.demo import DEMO_BASE_URL
from gatehouse.pipelines.run.options import SELECTABLE, RunOptions
from gatehouse.pipelines.warehouse import datasets
from gatehouse.pipelines.warehouse.destination import Destination
from gatehouse.pipelines.warehouse.names import DEFAULT_DUCKDB, DEMO_DUCKDB
from gatehouse.sources.console.counts import ExtractionCounts
from gatehouse.sources.console.errors import ConsoleError

log = logging.getLogger("gatehouse.run")


def check_resources(resources: list[str] | None) -> None:
    unknown = sorted(set(resources or ()) - set(SELECTABLE))
    if unknown:
        raise GatehouseError(f"unknown resource(s) {', '.join(unknown)}; choose from {', '.join(SELECTABLE)}")


def single_console_left(destination: Destination, projects: list[str], timeout_s: float | None = None) -> str | None:
    """The warning for a database that still holds a single console's dataset beside the configured projects (a
    setup switched from one console to projects): the views and reports count it as project `default`, which
    is most often one of the projects a second time. None when there is no such dataset."""
    if DEFAULT_PROJECT in projects:
        return None
    dataset = datasets.console_datasets(destination, timeout_s, projects).get(DEFAULT_PROJECT)
    if dataset is None:
        return None
    return (
        f"warning: dataset {dataset} still holds a single console's load (project {DEFAULT_PROJECT}): every view and"
        f' report shows it beside {", ".join(projects)}; to retire it, see "Several projects" in the README'
    )


def check_demo_file(destination: Destination, timeout_s: float, demo: bool) -> None:
    """The demo and the consoles never share a DuckDB file: the demo's projects load into datasets of their own, and
    a file where any dataset holds a real console is refused to the demo, flag or no flag; a console's run is refused
    the demo's file (by its name, or by a dataset that holds the demo), which `make demo` would then refuse in turn."""
    check_demo_name(destination, demo)
    check_demo_datasets(destination, timeout_s, demo)


def check_demo_name(destination: Destination, demo: bool) -> None:
    """A console's run refused the demo's file by its name, before anything is opened (`check_demo_file`)."""
    if destination.is_duckdb_file and not demo and destination.duckdb_path.resolve() == DEMO_DUCKDB.resolve():
        raise GatehouseError(
            f"{destination.label()} is the demo's file: a console loads into a file of its own; run it without --duckdb"
            f" (it writes {DEFAULT_DUCKDB}) or name another file (`make reset-demo` starts the demo afresh)"
        )


def check_demo_datasets(destination: Destination, timeout_s: float, demo: bool) -> None:
    """The demo refused a file where a dataset holds a real console, and a console one that holds the demo
    (`check_demo_file`)."""
    if not destination.is_duckdb_file:
        return
    for dataset, extraction in datasets.console_extractions(destination, timeout_s).items():
        held = extraction.console
        if held is None or (held.base_url == DEMO_BASE_URL) == demo:
            continue
        if demo:
            raise GatehouseError(
                f"{destination.label()} holds the console {held} (dataset {dataset}): the demo never loads into a real"
                f" console's database; run it without --duckdb (it writes {DEMO_DUCKDB}) or give it a file of its own"
            )
        raise GatehouseError(
            f"{destination.label()} holds the demo (dataset {dataset}): a console loads into a file of its own; run it"
            f" without --duckdb (it writes {DEFAULT_DUCKDB}) or name another file"
        )


def check_console(destination: Destination, counts: ExtractionCounts, options: RunOptions, timeout_s: float) -> None:
    """Refuses, in one line and before it extracts, a run whose console is not the one the dataset holds.

    A mistyped base URL or key looks like another console too: one cheap read first, so that a URL or key
    that does not work is reported as such (the setting to fix), and only a working one as another console.
    """
    console = counts.console_identity()
    if console is None:
        return
    last = datasets.last_extraction(destination, timeout_s)
    held = last.console if last else None
    if held is None or held.same_console(console):
        return
    try:
        counts.check_access()
    except ConsoleError as err:
        raise GatehouseError(explain(err)) from err
    if options.demo:
        raise GatehouseError(
            f"{destination.label()} holds the console {held}: the demo never loads into a real console's dataset;"
            f" run it without --duckdb (it writes {DEMO_DUCKDB}) or give it a file of its own"
        )
    if options.repoint:
        log.warning(
            "--repoint: %s held %s and follows %s from this run on%s",
            destination.label(),
            held,
            console,
            " (--full-refresh: what it held is dropped first)"
            if options.full_refresh
            else "; its history continues, and what the new console lacks is retired",
        )
        return
    other = "file (--duckdb PATH)" if destination.is_duckdb_file else "dataset (another database in the destination credentials)"
    raise GatehouseError(
        f"{destination.label()} holds the console {held}, not {console}: load this console into another"
        f" {other},"
        f" or pass --repoint to make {destination.label()} follow it (with --full-refresh to drop what it holds first)"
    )
