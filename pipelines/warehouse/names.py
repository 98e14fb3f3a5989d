"""What gatehouse's data is called wherever it is: the dlt pipeline, the raw dataset, the default DuckDB file and
the demo's, and the settings the notebooks find the data through."""

from __future__ import annotations

from pathlib import Path

PIPELINE_NAME = "gatehouse"
DATASET_NAME = "console"
DEFAULT_NAME = "duckdb"
DEFAULT_DUCKDB = Path("gatehouse.duckdb")
# The demo keeps to its own file: `gatehouse run --demo` never writes into a real console's history.
DEMO_DUCKDB = Path("demo.duckdb")
# What to do about a database that holds nothing yet; the demo writes a file of its own, which is named.
LOAD_HINT = f"load it with `gatehouse run` (or `gatehouse run --demo`, then read it with --duckdb {DEMO_DUCKDB})"
# The notebooks, opened by hand or by `gatehouse report`, find the data through these two settings.
DESTINATION_ENV = "GATEHOUSE__DESTINATION"
DUCKDB_ENV = "GATEHOUSE__DUCKDB"
# DuckDB names a file's catalog after the file: these names would clash with the schemas.
RESERVED_DUCKDB_NAMES = (DATASET_NAME, "analytics")
