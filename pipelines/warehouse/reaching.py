"""What dlt raises when a destination cannot be reached from here (not a destination, no SQL client, credentials
missing, the driver not installed), as one line that says what to do."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from dlt.common.configuration.exceptions import ConfigFieldMissingException, ConfigurationValueError
from dlt.common.destination.exceptions import SqlClientNotAvailable, UnknownDestinationModule
from dlt.common.exceptions import MissingDependencyException

from gatehouse.pipelines.errors import GatehouseError, explain

# The pip extra that brings each destination's driver (dlt's extras carry the same names).
DRIVER_EXTRAS = {
    "postgres": "postgres",
    "snowflake": "snowflake",
    "bigquery": "bigquery",
    "databricks": "databricks",
    "motherduck": "motherduck",
    "mssql": "mssql",
    "redshift": "redshift",
    "clickhouse": "clickhouse",
    "athena": "athena",
    "synapse": "synapse",
    "filesystem": "filesystem",
}


@contextlib.contextmanager
def reaching(name: str) -> Iterator[None]:
    """dlt's failures to reach destination `name` as one line each."""
    try:
        yield
    except UnknownDestinationModule as err:
        raise GatehouseError(
            f"--destination {name}: not a dlt destination (e.g. duckdb, motherduck, snowflake, bigquery, databricks, postgres)"
        ) from err
    except SqlClientNotAvailable as err:
        raise GatehouseError(
            f"destination {name} has no SQL client: the views and reports need a SQL destination"
            " (duckdb, postgres, snowflake, bigquery, databricks, motherduck...)"
        ) from err
    except (ConfigFieldMissingException, ConfigurationValueError) as err:
        # credentials are resolved when the client is made: the same line as `gatehouse run` gives
        raise GatehouseError(explain(err)) from err
    except MissingDependencyException as err:
        # dlt imports a driver when the pipeline, its client or its connection first needs it
        extra = DRIVER_EXTRAS.get(name, name)
        raise GatehouseError(
            f'destination {name}: its driver is not installed; pip install "dlt[{extra}]" (or gatehouse[{extra}])'
        ) from err
