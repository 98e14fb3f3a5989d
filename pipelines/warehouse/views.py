"""The analysis views on a destination: rendered ahead of a load, applied, dropped for a load that drops their
tables, and the table statistics PostgreSQL plans them by; where they cannot live (files), one line."""

from __future__ import annotations

import contextlib
import logging
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dlt.destinations.sql_client import SqlClientBase

from gatehouse.pipelines.errors import GatehouseError
from gatehouse.pipelines.models import build as models
from gatehouse.pipelines.projects import configured_projects
from gatehouse.pipelines.warehouse.duckdb_file import duckdb_file_client

log = logging.getLogger("gatehouse.destination")

# Destinations dlt loads raw tables into but where the analysis views cannot live, and why (docs/destinations.md).
NO_VIEWS = {
    "filesystem": "files have no SCD2 history and no merge in dlt (every run appends, nothing retires), and views"
    " over files vanish with the session; for the views and reports load into duckdb, motherduck or a warehouse"
    " (docs/destinations.md)",
}


@dataclass(frozen=True)
class Views:
    """The views of one destination (`Destination.views`), each step on dlt's SQL client of it."""

    # dlt's name of the destination, and how output names it
    name: str
    label: str
    # dlt's SQL client of the destination, opened (`Destination.sql_client`)
    sql_client: Callable[[float | None], contextlib.AbstractContextManager[Any]]
    # where the translated views are kept: with the pipeline's state
    rendered_cache: Callable[[], Path]

    @property
    def served(self) -> bool:
        return self.name not in NO_VIEWS

    def check_served(self) -> None:
        """Fails with one line, before anything is read, where the analysis views cannot live."""
        if not self.served:
            raise GatehouseError(f"destination {self.name} has no analysis views: {NO_VIEWS[self.name]}")

    def apply(
        self,
        parameters: Mapping[str, float] | None = None,
        timeout_s: float | None = None,
        projects: Sequence[str] | None = None,
        known_projects: Sequence[str] = (),
        unless_current: bool = False,
    ) -> list[str]:
        """Creates or refreshes every analysis view on the destination, next to the raw dataset, over every
        console dataset beside it (`projects`, `known_projects`, `unless_current`: not when they are already as
        this version makes them over these raw columns; as `models.build.apply_views`)."""
        with self.sql_client(timeout_s) as client:
            return models.apply_views(
                client,
                parameters=parameters,
                projects=projects,
                known_projects=known_projects_with(known_projects),
                destination_name=self.label,
                rendered_cache=self.rendered_cache(),
                unless_current=unless_current,
            )

    def refresh(self, timeout_s: float | None = None, known_projects: Sequence[str] = ()) -> None:
        """After a load: the views where they can live, applied unless they are current (a load that added no
        column and no dataset leaves them as they are); elsewhere a warning, and the raw tables stay loaded."""
        if self.served:
            self.apply(timeout_s=timeout_s, known_projects=known_projects, unless_current=True)
        else:
            log.warning("raw tables loaded; no analysis views on %s: %s", self.name, NO_VIEWS[self.name])

    def drop(self, timeout_s: float | None = None) -> None:
        """The analysis views dropped (dependants first) before a load that drops the tables they read; the run
        applies them again at its end (models/build.py `drop_views`)."""
        if not self.served:
            return
        with self.sql_client(timeout_s) as client:
            models.drop_views(client)

    def render_ahead(self, loading: Mapping[str, Iterable[str]], timeout_s: float | None = None) -> threading.Thread | None:
        """Translates the views, in a background thread, for the raw columns there will be once `loading` (tables
        of this dataset and their columns) is loaded: the translation, most of the time a first run's views take,
        then runs beside the load instead of after it (`models.build.render_views_ahead`). Join it after the load."""
        if not self.served:
            return None
        with self.sql_client(timeout_s) as client:
            raw = models.raw_tables(client, known_projects_with(()), loading=loading)
        cache = self.rendered_cache()

        def render() -> None:
            try:
                models.render_views_ahead(client, raw, cache)
            except Exception:  # the refresh after the load translates them again, and reports what fails
                log.debug("views not translated ahead", exc_info=True)

        thread = threading.Thread(target=render, name="gatehouse-views-ahead", daemon=True)
        thread.start()
        return thread

    def refresh_statistics(self, timeout_s: float | None = None) -> None:
        """After a load, on PostgreSQL: the loaded dataset's tables analyzed at once. PostgreSQL plans the views'
        joins from table statistics, which a fresh load leaves empty until autovacuum comes round: the first
        report after loading the large organisation took several times as long as the next (bench). Other
        destinations keep their statistics themselves."""
        if self.name != "postgres":
            return
        with self.sql_client(timeout_s) as client:
            tables = models.dataset_tables(client)
            if tables:
                client.execute_sql("analyze " + ", ".join(client.make_qualified_table_name(table) for table in tables))


def apply_views(target: Any, **options: Any) -> list[str]:
    """The views on dlt's SQL client of a destination, or on a DuckDB file path or open connection
    (`options` as `models.build.apply_views`: parameters, projects, known_projects, destination_name, rendered_cache)."""
    if isinstance(target, SqlClientBase):
        return models.apply_views(target, **options)
    with duckdb_file_client(target) as client:
        return models.apply_views(client, **options)


def known_projects_with(known_projects: Sequence[str]) -> list[str]:
    """The projects whose datasets are looked up one by one (BigQuery): those named, and every configured one."""
    return sorted(set(known_projects) | set(configured_projects()))
