"""What every notebook starts with: where the data is, a `view()` over the analysis views, inline charts.

A notebook reads the destination named by GATEHOUSE__DESTINATION (default: the DuckDB file in
GATEHOUSE__DUCKDB, else gatehouse.duckdb, else demo.duckdb, in the working folder or the project's; on
DuckDB its readers' snapshot); `gatehouse report` sets both for its notebooks. Opened by hand
in Jupyter, set them before the first cell, e.g. `%env GATEHOUSE__DESTINATION=postgres`, with the
destination's credentials in .dlt/ as for `gatehouse run` (DLT_PROJECT_DIR names that folder's parent
when Jupyter runs elsewhere).
"""

from __future__ import annotations

import base64
import contextlib
import io
import logging
import os
import threading
from concurrent.futures import Future
from pathlib import Path
from typing import Any

from gatehouse.pipelines.errors import GatehouseError
from gatehouse.pipelines.reports.format import AS_OF_SQL, as_of_phrase
from gatehouse.pipelines.untrusted import all_visible, for_html, visible
from gatehouse.pipelines.warehouse import datasets
from gatehouse.pipelines.warehouse.destination import Destination
from gatehouse.pipelines.warehouse.duckdb_file import import_driver
from gatehouse.pipelines.warehouse.names import DEFAULT_DUCKDB, DEFAULT_NAME, DEMO_DUCKDB, DESTINATION_ENV, DUCKDB_ENV
from gatehouse.pipelines.warehouse.snapshot import database_of

log = logging.getLogger("gatehouse.notebook")

# The name the DuckDB path had in the notebooks before it was dlt's setting `gatehouse.duckdb` everywhere: still read.
LEGACY_DUCKDB_ENV = "GATEHOUSE_DUCKDB"


def find_duckdb(duckdb_path: str | None = None) -> Path:
    """The DuckDB file a notebook reads: the path given, else ./gatehouse.duckdb, else the demo's file."""
    names = [Path(duckdb_path)] if duckdb_path else [DEFAULT_DUCKDB, DEMO_DUCKDB]
    if names[0].is_absolute():
        return names[0]
    folders = [Path.cwd(), *_project_folders()]
    for folder in folders:
        for candidate in names:
            if (folder / candidate).is_file():
                return folder / candidate
    looked = ", ".join(dict.fromkeys(str(folder / candidate) for folder in folders for candidate in names))
    raise GatehouseError(
        f"no database at {looked}: load one with `gatehouse run` (or `gatehouse run --demo`), or set"
        f" GATEHOUSE__DUCKDB to its path before the first cell"
    )


def _project_folders() -> list[Path]:
    folders = []
    if os.environ.get("DLT_PROJECT_DIR"):
        folders.append(Path(os.environ["DLT_PROJECT_DIR"]))
    for folder in Path.cwd().parents:
        if (folder / ".dlt").is_dir() or (folder / "pyproject.toml").is_file():
            folders.append(folder)
            break
    return folders


def import_readers() -> None:
    """What a notebook's first read imports, imported ahead (`gatehouse report` does it once, before its notebooks'
    processes fork): DuckDB, and sqlglot's DuckDB dialect, in which every query a notebook reads is written."""
    import sqlglot

    import_driver()

    sqlglot.Dialect.get_or_raise("duckdb")


class _SharedReads:
    """What the notebooks of one `gatehouse report` have read, in their process (`share_reads`)."""

    def __init__(self) -> None:
        self.data: dict[tuple[str | None, str | None], NotebookData] = {}
        self.frames: dict[tuple[str, str], Future] = {}
        self.lock = threading.Lock()

    def frame(self, key: tuple[str, str], read: Any) -> Any:
        """The frame of `key`, read by `read()` unless another notebook (or the read-ahead) read it or is reading it."""
        while True:
            with self.lock:
                pending = self.frames.get(key)
                if pending is None:
                    mine = self.frames[key] = Future()
            if pending is not None:
                try:
                    return pending.result()
                except Exception:
                    continue  # whoever read it failed: read it here
            try:
                mine.set_result(read())
            except BaseException as err:
                with self.lock:
                    del self.frames[key]
                mine.set_exception(err)
                raise
            return mine.result()


_shared: _SharedReads | None = None


def share_reads() -> None:
    """From here on in this process, each query's frame is read once and each `NotebookData.open` of the same data
    gives the same reader: `gatehouse report` runs its notebooks, then its summary, over one snapshot that does not
    change meanwhile. Never in a notebook opened by hand, where a cell run again reads the data afresh."""
    global _shared
    _shared = _SharedReads()


def read_ahead(queries: list[str]) -> None:
    """Reads `queries` in a thread, on a connection of its own, while the notebooks run: `gatehouse report` names
    its summary's, which the notebooks read too, so that a warehouse computes them while the notebooks draw charts.
    A query the thread could not read is read by the first notebook that asks for it, as it would be without."""
    if _shared is None:
        return
    try:
        data = NotebookData.open(os.environ.get(DESTINATION_ENV, DEFAULT_NAME), os.environ.get(DUCKDB_ENV))
    except Exception:  # the first notebook says what is wrong
        log.debug("no read-ahead", exc_info=True)
        return
    shared, where = _shared, data.destination

    def read_all() -> None:
        try:
            with where.reader() as reader:
                for sql in queries:
                    try:
                        shared.frame((where.label(), sql), lambda sql=sql: shown_as_text(reader.frame(sql)))
                    except Exception:
                        log.debug("not read ahead: %s", sql, exc_info=True)
        except Exception:
            log.debug("no read-ahead", exc_info=True)

    threading.Thread(target=read_all, name="gatehouse-read-ahead", daemon=True).start()


class NotebookData:
    """Read-only, through the analysis views only: nothing is extracted here."""

    def __init__(self, destination: Destination, loaded: Destination | None = None) -> None:
        self.destination = destination
        # what `gatehouse run` loads (the snapshot's database), for the commands a notebook suggests
        self.loaded = loaded or destination
        self._exit = contextlib.ExitStack()
        self.reader = self._exit.enter_context(destination.reader())

    @classmethod
    def open(cls, destination: str | None = None, duckdb_path: str | None = None) -> NotebookData:
        """The notebook's parameters cell names the destination (and may name the DuckDB file for the default).

        On DuckDB it reads the readers' snapshot `gatehouse run` publishes beside the file, so a notebook
        left open all day never delays a run. A relative path, or none, is looked for in the working folder
        and then in the project's (DLT_PROJECT_DIR, or the folder above holding `.dlt/` or `pyproject.toml`):
        Jupyter started from the project root or from `notebooks/` finds the same database.
        """
        import pandas as pd

        pd.set_option("display.max_rows", 60)
        if _shared is not None and (destination, duckdb_path) in _shared.data:
            return _shared.data[(destination, duckdb_path)]
        loaded = Destination(name=destination or DEFAULT_NAME)
        if loaded.is_duckdb_file:
            # `gatehouse report` names the snapshot it published; the commands a notebook suggests name the database
            # (a snapshot copied elsewhere without its database is read as it is)
            found = find_duckdb(duckdb_path or os.environ.get(LEGACY_DUCKDB_ENV))
            loaded = Destination(duckdb_path=database_of(found) if database_of(found).is_file() else found)
        where = loaded.for_reading()
        datasets.check_readable(where)
        data = cls(where, loaded)
        try:
            datasets.check_loaded(where, reader=data.reader)  # on the notebook's own connection: one open of the file
        except BaseException:
            data.close()
            raise
        if _shared is not None:
            _shared.data[(destination, duckdb_path)] = data
        return data

    @property
    def flags(self) -> str:
        """The flags that point a `gatehouse` command at this data, e.g. `--duckdb gatehouse.duckdb`."""
        return f"--duckdb {self.loaded.duckdb_path}" if self.loaded.is_duckdb_file else f"--destination {self.loaded.name}"

    def view(self, sql: str) -> Any:
        """A data frame from DuckDB-dialect SQL over `analytics.*`, run in the destination's dialect."""
        if _shared is None:
            return shown_as_text(self.reader.frame(sql))
        # a copy: what one notebook adds to its frame is not in another's
        return _shared.frame((self.destination.label(), sql), lambda: shown_as_text(self.reader.frame(sql))).copy()

    def as_of_line(self) -> str:
        as_of = as_of_phrase(self.reader.rows(AS_OF_SQL))
        if as_of is None:  # no row before the first extraction
            return f"Data in `{self.destination.label()}`: no extraction recorded yet."
        return (
            f"Data in `{self.destination.label()}`, {as_of.replace('as of ', 'as of **', 1).replace(' UTC', ' UTC**', 1)}"
            " (the console's clock at the last extraction)."
        )

    def close(self) -> None:
        self._exit.close()


def shown_as_text(frame: Any) -> Any:
    """The frame with every control and bidi character of its text shown as an escape (pipelines/untrusted.py):
    what the notebooks draw and print of console text (chart labels, tick labels, legends, the summary) can
    then neither hide nor change anything; tables escape it for HTML besides."""
    from pandas.api.types import is_object_dtype, is_string_dtype

    for column in frame.columns:
        if (is_object_dtype(frame[column]) or is_string_dtype(frame[column])) and not all_visible(frame[column]):
            frame[column] = frame[column].map(lambda value: visible(value) if isinstance(value, str) else value)
    return frame


def show(chart: Any, alt: str) -> None:
    """A chart shown as an image with alternative text: an SVG chart (pipelines/reports/charts.py) as an `<img>` of
    its data (which runs nothing it holds and loads nothing, in a report as in Jupyter); a matplotlib figure, e.g. one
    a cell added by hand leaves open, as an inline PNG (the HTML report embeds it as a data: URI)."""
    from IPython.display import HTML, Image, display

    if isinstance(chart, str):
        data = base64.b64encode(chart.encode("utf-8")).decode("ascii")
        display(HTML(f'<img src="data:image/svg+xml;base64,{data}" alt="{for_html(alt)}" style="max-width: 100%; height: auto">'))
        return
    import matplotlib.pyplot as plt

    buffer = io.BytesIO()
    chart.savefig(buffer, format="png")
    plt.close(chart)
    display(Image(data=buffer.getvalue(), format="png", alt=alt))
