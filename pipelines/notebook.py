"""What every notebook starts with: where the data is, a `view()` over the analysis views, inline charts.

A notebook reads the destination named by GATEHOUSE_DESTINATION (default: the DuckDB file in
GATEHOUSE_DUCKDB, else ./gatehouse.duckdb); `gatehouse report` sets both for its kernel. Opened by hand
in Jupyter, set them before the first cell, e.g. `%env GATEHOUSE_DESTINATION=postgres`, with the
destination's credentials in .dlt/ as for `gatehouse run` (DLT_PROJECT_DIR names that folder's parent
when Jupyter runs elsewhere).
"""

from __future__ import annotations

import contextlib
import io
from datetime import timezone
from pathlib import Path
from typing import Any

from pipelines.destination import DEFAULT_NAME, Destination
from pipelines.errors import GatehouseError

# DejaVu Sans ships with matplotlib: the charts need no font (nor anything else) from the network.
CHART_STYLE = {
    "figure.dpi": 100,
    "font.family": "DejaVu Sans",
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.grid": True,
    "grid.alpha": 0.3,
}


class NotebookData:
    """Read-only, through the analysis views only: nothing is extracted here."""

    def __init__(self, destination: Destination) -> None:
        self.destination = destination
        self._exit = contextlib.ExitStack()
        self.reader = self._exit.enter_context(destination.reader())

    @classmethod
    def open(cls, destination: str, duckdb_path: str) -> "NotebookData":
        """The notebook's parameters cell names the destination (and the DuckDB file for the default)."""
        import matplotlib
        import pandas as pd

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        plt.rcParams.update(CHART_STYLE)
        pd.set_option("display.max_rows", 60)
        where = Destination(name=destination or DEFAULT_NAME, duckdb_path=Path(duckdb_path))
        if where.is_duckdb_file and not where.duckdb_path.is_file():
            # Opening it would create an empty file (Jupyter's kernel runs in the notebook's folder), and the
            # first view would fail with DuckDB's 'Table with name as_of does not exist'.
            raise GatehouseError(
                f"no database at {where.duckdb_path} ({where.duckdb_path.absolute()}): load one with `gatehouse run`"
                " (or `gatehouse run --demo`), or set GATEHOUSE_DUCKDB to its path before the first cell"
            )
        return cls(where)

    def view(self, sql: str) -> Any:
        """A data frame from DuckDB-dialect SQL over `analytics.*`, run in the destination's dialect."""
        return self.reader.frame(sql)

    def as_of_line(self) -> str:
        clock = self.view("select as_of_at from analytics.as_of")
        if clock.empty:  # no row before the first extraction
            return f"Data in `{self.destination.label()}`: no extraction recorded yet."
        as_of = clock.iloc[0, 0]
        if getattr(as_of, "tzinfo", None) is not None:
            as_of = as_of.astimezone(timezone.utc)
        return (f"Data in `{self.destination.label()}`, as of **{as_of:%Y-%m-%d %H:%M} UTC**"
                " (the console's clock at the last extraction).")

    def close(self) -> None:
        self._exit.close()


def show(figure: Any, alt: str) -> None:
    """The chart as an inline PNG with alternative text (the HTML report embeds it as a data: URI)."""
    import matplotlib.pyplot as plt
    from IPython.display import Image, display

    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", bbox_inches="tight")
    plt.close(figure)
    display(Image(data=buffer.getvalue(), format="png", alt=alt))
