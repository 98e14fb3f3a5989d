"""Finishing a load that a killed process left half done, without loading any job twice.

dlt keeps an interrupted load package and completes it on the next run. It records a load job as
done only after the destination committed it, and it loads up to 20 jobs at once: a process killed
between the two leaves jobs whose rows are in the database but which dlt would load again, and a
merge would then copy those rows twice. Before dlt resumes, each such job is checked against its
table: when every row of its file (by `_dlt_id`) is already there, it is marked completed.

The check reads the job's parquet file with the destination's own SQL (`read_parquet`), which
DuckDB can do; for other destinations the check is skipped and dlt's own recovery applies.
"""

from __future__ import annotations

import logging
import os
from typing import cast

import dlt
from dlt.common.storages import LoadStorage, LoadStorageConfiguration
from dlt.common.storages.load_package import ParsedLoadJobFileName
from dlt.destinations.job_client_impl import SqlJobClientWithStagingDataset

log = logging.getLogger("gatehouse.recovery")


def settle_committed_jobs(pipeline: dlt.Pipeline) -> int:
    """Marks completed the started jobs of pending packages whose rows already reached their table."""
    # the pipeline's load folder, read as dlt's own LoadStorage reads it (not through the pipeline's private accessor)
    storage = LoadStorage(False, [], LoadStorageConfiguration(load_volume_path=os.path.join(pipeline.working_dir, "load")))
    packages = storage.normalized_packages
    settled = 0
    if not packages.storage.has_folder(""):
        return settled  # a run that failed before it normalised anything: no package was loading
    for load_id in packages.list_packages():
        unsettled = [
            path
            for path in packages.list_started_jobs(load_id)
            # A pending transition means dlt itself knows the job's outcome.
            if packages.load_pending_transition(load_id, os.path.basename(path)) is None
        ]
        if not unsettled:
            continue
        with pipeline.destination_client() as job_client:
            # gatehouse's destinations are SQL destinations (DuckDB and the warehouses): their clients have SQL
            client = cast(SqlJobClientWithStagingDataset, job_client)
            sql = client.sql_client
            for path in unsettled:
                file_name = os.path.basename(path)
                job = ParsedLoadJobFileName.parse(file_name)
                if job.file_format != "parquet":
                    continue
                if client.should_load_data_to_staging_dataset(job.table_name):
                    with sql.with_staging_dataset():
                        table = sql.make_qualified_table_name(job.table_name)
                else:
                    table = sql.make_qualified_table_name(job.table_name)
                data_file = packages.storage.make_full_path(path).replace("'", "''")
                try:
                    [(rows, present)] = sql.execute_sql(  # type: ignore[misc]  # a query returns its rows
                        f"select count(*), count(*) filter (where _dlt_id in (select _dlt_id from {table}))"
                        f" from read_parquet('{data_file}')"
                    )
                except Exception:  # table not created yet, or a destination that cannot read the file
                    log.debug("cannot check job %s against %s", file_name, table, exc_info=True)
                    continue
                if rows and present == rows:
                    packages.save_pending_transition(load_id, file_name, "completed", None)
                    settled += 1
                    log.info("job %s was committed before the interruption: not loading it again", file_name)
    return settled
