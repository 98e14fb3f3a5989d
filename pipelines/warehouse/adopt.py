"""`gatehouse projects adopt NAME`: a single console's history carried into project NAME, as it is.

A setup that moves from `[sources.console]` to `[sources.console.projects.NAME]` would otherwise load NAME from
scratch into `console_NAME`, beside the old `console` dataset the views then count as project `default`. Adopting
moves the dataset (every table, every version, dlt's own bookkeeping) and the pipeline's state (its working folder,
and the state row the warehouse keeps) to the project's names, so the next run of NAME is a no-change rerun. It
refuses, in one line and before it changes anything, when there is no single console's dataset or NAME has one.
"""

from __future__ import annotations

import json
import logging
import shutil
from dataclasses import dataclass
from typing import Any

from dlt.common.versioned_state import compress_state, decompress_state

from gatehouse.pipelines.errors import GatehouseError
from gatehouse.pipelines.models.build import DEFAULT_PROJECT
from gatehouse.pipelines.projects import check_name
from gatehouse.pipelines.warehouse import datasets
from gatehouse.pipelines.warehouse.destination import Destination

log = logging.getLogger("gatehouse.projects")

STATE_TABLE = "_dlt_pipeline_state"


@dataclass(frozen=True)
class Adopted:
    project: str
    dataset: str
    tables: int
    versions: int

    def lines(self, label: str) -> list[str]:
        return [
            f"gatehouse: {label}: dataset console is now {self.dataset} (project {self.project}):"
            f" {self.tables} tables, {self.versions} gate and config versions kept; its next run continues the"
            " history"
        ]


def adopt(destination: Destination, project: str, timeout_s: float | None = None) -> Adopted:
    """Moves the single console's dataset and dlt state to `project`; see the module's docstring."""
    check_name(project)
    if destination.is_project:
        raise GatehouseError("adopt moves the single console's dataset: give the database, not a project's")
    target = destination.for_project(project)
    with destination.lock.exclusive(timeout_s), target.lock.exclusive(timeout_s):
        held = datasets.console_datasets(destination, timeout_s, [project])
        if DEFAULT_PROJECT not in held:
            raise GatehouseError(f"{destination.label()} holds no single console's dataset (console) to adopt")
        if project in held:
            raise GatehouseError(
                f"project {project} already has dataset {target.dataset_name} in {destination.label()}:"
                " adopt never merges two histories; drop one of them first"
            )
        destination.views.drop(timeout_s)  # they read the tables that move; applied again over the new names
        with destination.sql_client(timeout_s) as client:
            tables, versions = _move_dataset(client, destination, target)
        _move_local_state(destination, target)
    destination.views.refresh(timeout_s, known_projects=[project])
    destination.snapshot.publish(timeout_s)
    return Adopted(project, target.dataset_name, tables, versions)


def _move_dataset(client: Any, source: Destination, target: Destination) -> tuple[int, int]:
    old, new = source.dataset_name, target.dataset_name
    if source.is_duckdb_file:
        # DuckDB renames no schema: each table made again under the new one with its own definition, then filled
        ddl = client.execute_sql("select table_name, sql from duckdb_tables() where schema_name = %s", old)
        client.execute_sql(f'create schema "{new}"')
        for table, create in ddl:
            client.execute_sql(create.replace(f"CREATE TABLE {old}.", f'CREATE TABLE "{new}".', 1))
            client.execute_sql(f'insert into "{new}"."{table}" select * from "{old}"."{table}"')
            client.execute_sql(f'drop table "{old}"."{table}"')
        client.execute_sql(f'drop schema "{old}"')
    else:
        [(count,)] = client.execute_sql("select count(*) from information_schema.tables where table_schema = %s", old)
        ddl = [None] * int(count)
        client.execute_sql(f'alter schema "{old}" rename to "{new}"')
    # dlt's scratch dataset for merges: made again by the project's next load
    client.execute_sql(f'drop schema if exists "{old}_staging" cascade')
    _rename_state_rows(client, new, source.pipeline_name, target)
    [(versions,)] = client.execute_sql(
        f'select (select count(*) from "{new}".gates) + (select count(*) from "{new}".dynamic_configs)'
    )
    return len(ddl), int(versions)


def _rename_state_rows(client: Any, dataset: str, old_pipeline: str, target: Destination) -> None:
    """The state dlt restores a fresh machine from, under the project's pipeline and dataset."""
    rows = client.execute_sql(f'select version, state from "{dataset}".{STATE_TABLE} where pipeline_name = %s', old_pipeline)
    for version, state in rows:
        restored = decompress_state(state)
        restored.update(pipeline_name=target.pipeline_name, dataset_name=target.dataset_name)
        client.execute_sql(
            f'update "{dataset}".{STATE_TABLE} set pipeline_name = %s, state = %s where pipeline_name = %s and version = %s',
            target.pipeline_name,
            compress_state(restored),  # type: ignore[arg-type]
            old_pipeline,
            version,
        )


def _move_local_state(source: Destination, target: Destination) -> None:
    """The pipeline's working folder under the project's pipeline name, its state naming the project's dataset."""
    old = source.working_dir() / source.pipeline_name
    new = target.working_dir() / target.pipeline_name
    if not old.is_dir():
        return  # a fresh machine: the next run restores the state from the rows renamed above
    shutil.move(str(old), str(new))
    state_file = new / "state.json"
    if state_file.is_file():
        state = json.loads(state_file.read_text())
        state.update(pipeline_name=target.pipeline_name, dataset_name=target.dataset_name)
        state_file.write_text(json.dumps(state))
    log.info("pipeline state %s moved to %s", old, new)
