"""Reading a destination: DuckDB-dialect SQL run on it in its own dialect (`Reader`), rows and data frames as DuckDB
gives them whatever the driver, and the newest extraction a dataset holds (`LastExtraction`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC
from typing import Any

from dlt.destinations.exceptions import DatabaseUndefinedRelation

from gatehouse.pipelines.models import build as models
from gatehouse.sources.console.identity import ConsoleIdentity


@dataclass(frozen=True)
class LastExtraction:
    """The newest extraction a dataset holds: when, by the service's clock, and from which console."""

    service_time: Any
    console: ConsoleIdentity | None


class Reader:
    """Rows and data frames from DuckDB-dialect SQL, run on the destination in its own dialect."""

    def __init__(self, client: Any) -> None:
        self.client = client

    @property
    def dataset_name(self) -> str:
        """The raw dataset the reader's client was opened on (`console`, or `console_<project>`)."""
        return str(self.client.dataset_name)

    @property
    def dialect(self) -> str:
        return models.destination_dialect(self.client)

    def translate(self, sql: str, values: Mapping[str, str] | None = None) -> str:
        """`sql` in the destination's dialect. `values`: SQL text put in place of each string literal `'<name>'` once
        translated, so that a statement asked again with other values (a run's load ids) is translated once."""
        translated = models.render_query(self.client, sql)
        for name, text in (values or {}).items():
            marker = f"'{name}'"
            if marker not in translated:  # the literal did not come through as written: translated with the values
                return models.render_query(self.client, _with_values(sql, values or {}))
            translated = translated.replace(marker, text)
        return translated

    def rows(self, sql: str, values: Mapping[str, str] | None = None) -> list[tuple]:
        """Rows as DuckDB gives them: instants in UTC whatever the warehouse session's time zone (`values`: as
        `translate`)."""
        with self.client.execute_query(self.translate(sql, values)) as cursor:
            return [tuple(_in_utc(value) for value in row) for row in cursor.fetchall()]

    def frame(self, sql: str) -> Any:
        with self.client.execute_query(self.translate(sql)) as cursor:
            return _same_dtypes(cursor.df())

    def table(self, sql: str, translate: bool = True) -> tuple[list[str], list[tuple]]:
        """Column names and rows, for a query whose columns are not known in advance (`translate=False`: SQL
        already in the destination's own dialect)."""
        with self.client.execute_query(self.translate(sql) if translate else sql) as cursor:
            names = [column[0] for column in cursor.description or ()]
            return names, [tuple(_in_utc(value) for value in row) for row in cursor.fetchall()]

    def last_extraction(self, dataset: str | None = None) -> LastExtraction | None:
        """The raw dataset's (or `dataset`'s) newest `extraction_runs` row (None: no run has loaded it).

        Read as `select *`: a dataset loaded before consoles were recorded has no identity columns, and
        the extraction_runs table exists only once a run has loaded.
        """
        try:
            names, rows = self.table(
                f"select * from {dataset or self.dataset_name}.extraction_runs order by started_at desc limit 1"
            )
        except DatabaseUndefinedRelation:
            return None
        if not rows:
            return None
        row = dict(zip(names, rows[0]))
        base_url = row.get("console_base_url")
        console = ConsoleIdentity(base_url, row.get("console_key_fingerprint")) if base_url else None
        return LastExtraction(row.get("service_time") or row.get("started_at"), console)


def _with_values(sql: str, values: Mapping[str, str]) -> str:
    for name, text in values.items():
        sql = sql.replace(f"'{name}'", text)
    return sql


def _in_utc(value: Any) -> Any:
    tzinfo = getattr(value, "tzinfo", None)
    return value.astimezone(UTC) if tzinfo is not None and hasattr(value, "astimezone") else value


def _same_dtypes(frame: Any) -> Any:
    """The frame a DuckDB read gives, from any driver: instants as UTC datetimes, numerics as floats.

    Drivers other than DuckDB's hand dlt Python objects (datetimes with a fixed offset, `Decimal`s),
    which pandas keeps as `object` columns; the notebooks' `.dt` and arithmetic need real dtypes.
    """
    import datetime as dt
    from decimal import Decimal

    import pandas as pd

    for column in frame.columns:
        series = frame[column]
        if series.dtype != object:
            if isinstance(series.dtype, pd.DatetimeTZDtype):
                frame[column] = series.dt.tz_convert("UTC")
            continue
        values = series.dropna()
        if values.empty:
            continue
        if all(isinstance(v, dt.date) for v in values):  # dates too: DuckDB's reads give them as datetime64
            frame[column] = pd.to_datetime(series, utc=any(getattr(v, "tzinfo", None) is not None for v in values))
        elif all(isinstance(v, Decimal) for v in values):
            frame[column] = series.astype(float)
    return frame
