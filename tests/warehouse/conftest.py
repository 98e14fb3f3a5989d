"""dlt SQL clients of destinations this machine cannot reach, for translating (not running) the views.

A real client of Snowflake, BigQuery or Databricks needs its driver and an account; what the views
layer asks of one is only its capabilities (dialect, identifier case and quoting) and the path of a
name (catalog / database / project, dataset, table). `OfflineSqlClient` is dlt's `SqlClientBase` with
the destination's own capabilities from its dlt factory and the catalog part its real client adds.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import dlt
from dlt.destinations.sql_client import SqlClientBase


@dataclass(frozen=True)
class Destination:
    name: str  # dlt's destination name
    catalog: str | None  # what the real client puts before the dataset: database, project, catalog
    executed: bool  # the tests run the views on a real server of it


# The destinations the docs table lists, in its order.
DESTINATIONS = (
    Destination("duckdb", None, executed=True),
    Destination("postgres", None, executed=True),
    Destination("motherduck", "my_db", executed=False),
    Destination("snowflake", "analytics_db", executed=False),
    Destination("bigquery", "my-project", executed=False),
    Destination("databricks", "main", executed=False),
)


class OfflineSqlClient(SqlClientBase[Any]):
    """Qualifies and quotes names exactly as the destination's client does; never connects."""

    def __init__(self, destination: Destination, dataset_name: str = "console") -> None:
        capabilities = getattr(dlt.destinations, destination.name)().capabilities()
        super().__init__(destination.catalog, dataset_name, f"{dataset_name}_staging", capabilities)
        self.destination = destination

    def catalog_name(self, quote: bool = True, casefold: bool = True) -> str | None:
        catalog = self.database_name
        if catalog is None:
            return None
        if casefold:
            catalog = self.capabilities.casefold_identifier(catalog)
        return self.capabilities.escape_identifier(catalog) if quote else catalog

    # offline: anything that would reach the server is a test error
    def open_connection(self) -> Any:
        raise AssertionError("an offline client does not connect")

    def close_connection(self) -> None:
        pass

    def begin_transaction(self) -> Any:
        raise AssertionError("an offline client does not connect")

    @property
    def native_connection(self) -> Any:
        return None

    def execute_sql(self, sql: Any, *args: Any, **kwargs: Any) -> Any:
        raise AssertionError(f"an offline client does not execute: {sql}")

    def execute_query(self, query: Any, *args: Any, **kwargs: Any) -> Any:
        raise AssertionError(f"an offline client does not execute: {query}")

    @staticmethod
    def _make_database_exception(ex: Exception) -> Exception:
        return ex
