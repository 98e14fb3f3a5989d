"""`gatehouse views --dbt`: the dbt package built on the destination through dlt's dbt runner.

The package is the installed copy of `dbt/` (package data `gatehouse.dbt`, written from the models by `make dbt`).
dlt's runner (`dlt.dbt.package`, which calls `dlt.helpers.dbt.package_runner`) gives dbt the destination's own
credentials, from dlt config, as `DLT__CREDENTIALS__*` variables of the dbt process. The models go to schema
`analytics_dbt`, beside gatehouse's own views in `analytics`, which they leave alone; the vars say where the raw
tables are (the destination's dataset, every console dataset beside it) and the view parameters given with `--set`.

dbt is the extra `gatehouse-console[dbt]`: `gatehouse views` without `--dbt` never imports it.
"""

from __future__ import annotations

import contextlib
import dataclasses
import importlib
import importlib.util
import logging
import os
import shutil
import sys
import tempfile
import types
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import dlt
from dlt.common.runners import Venv
from dlt.helpers.dbt.exceptions import DBTProcessingError

from gatehouse.pipelines.errors import GatehouseError, first_line
from gatehouse.pipelines.warehouse import datasets
from gatehouse.pipelines.warehouse.destination import Destination

log = logging.getLogger("gatehouse.dbt")

DBT_SCHEMA = "analytics_dbt"
# The dbt adapter of each destination the package is written for (pipelines/models/dbt_package.py, DIALECTS).
ADAPTERS = {"duckdb": "duckdb", "postgres": "postgres"}
# dlt's own profile of DuckDB loads extensions (httpfs, iceberg) that DuckDB downloads from the internet on first
# use; these name none. Each reads the credentials dlt's runner passes, and the schema it passes as a var, as
# dlt's profiles do (dlt/helpers/dbt/profiles.yml), under the profile name dlt chooses for the destination.
PROFILES = """\
duckdb:
  target: analytics
  outputs:
    analytics:
      type: duckdb
      path: "{{ env_var('DLT__CREDENTIALS__DATABASE') }}"
      schema: "{{ var('destination_dataset_name', var('source_dataset_name')) }}"
      threads: 2
postgres:
  target: analytics
  outputs:
    analytics:
      type: postgres
      host: "{{ env_var('DLT__CREDENTIALS__HOST') }}"
      user: "{{ env_var('DLT__CREDENTIALS__USERNAME') }}"
      password: "{{ env_var('DLT__CREDENTIALS__PASSWORD') }}"
      port: "{{ env_var('DLT__CREDENTIALS__PORT', 5432) | as_number }}"
      dbname: "{{ env_var('DLT__CREDENTIALS__DATABASE') }}"
      schema: "{{ var('destination_dataset_name', var('source_dataset_name')) }}"
      threads: 4
"""


# The project is a temporary folder, removed once the build ends (`_package_copy`): dbt writes there neither its JSON
# artifacts (the manifest after each parse and command; dlt's runner has the results from dbt's own runner) nor its
# log file, a debug line of every query of every node that nobody could read. The parse it keeps for the test step
# is written all the same.
_NOTHING_KEPT = ["--no-write-json", "--log-level-file", "none"]


@dataclass(frozen=True)
class DbtBuild:
    """What `gatehouse views --dbt` built: the models and the tests that passed, by name."""

    models: tuple[str, ...]
    tests: tuple[str, ...]
    projects: tuple[str, ...]

    def lines(self, label: str) -> list[str]:
        return [
            f"gatehouse: {label}: {len(self.models)} dbt models in schema {DBT_SCHEMA}, {len(self.tests)} tests passed"
            f" (projects {', '.join(self.projects)})"
        ]


def build_with_dbt(
    destination: Destination,
    parameters: Mapping[str, float] | None = None,
    projects: Sequence[str] | None = None,
    timeout_s: float | None = None,
) -> DbtBuild:
    """Builds and tests the package's models on `destination` over its console datasets (`projects`: only these)."""
    adapter = ADAPTERS.get(destination.name)
    if adapter is None:
        raise GatehouseError(
            f"gatehouse views --dbt builds on {' and '.join(ADAPTERS)}, not {destination.name}:"
            f" `gatehouse views --destination {destination.name}` makes the same views there"
        )
    if importlib.util.find_spec("dbt") is None or importlib.util.find_spec(f"dbt.adapters.{adapter}") is None:
        raise GatehouseError(f"gatehouse views --dbt needs dbt and its {adapter} adapter: pip install 'gatehouse-console[dbt]'")
    if destination.is_duckdb_file:
        # dbt runs inside its project's folder: a relative path would name another file
        destination = dataclasses.replace(destination, duckdb_path=destination.duckdb_path.resolve(), _pipeline=[])
    loaded = datasets.console_datasets(destination, timeout_s)
    chosen = list(projects) if projects else sorted(loaded)
    unloaded = sorted(set(chosen) - set(loaded))
    if not chosen or unloaded:
        raise GatehouseError(
            f"no loaded dataset for project(s) {', '.join(unloaded) or 'any'} on {destination.label()}"
            f" (loaded: {', '.join(sorted(loaded)) or 'none'}): run `gatehouse run` first"
        )
    variables = {
        "gatehouse_schema": destination.dataset_name,
        "gatehouse_projects": chosen,
        **{f"gatehouse_{name}": value for name, value in (parameters or {}).items()},
    }
    with destination.lock.exclusive(timeout_s), _package_copy() as project, _no_usage_statistics():
        runner = dlt.dbt.package(destination.pipeline(), str(project), venv=_this_environment())
        runner.config.package_profiles_dir = str(project)
        try:
            # run and test, not dlt's run_all: the package has no dependencies and no seeds, and each step is a dbt
            # process of its own that parses the project again (seconds each)
            built = runner.run(["--fail-fast", *_NOTHING_KEPT], additional_vars=variables, destination_dataset_name=DBT_SCHEMA)
            tested = runner.test(_NOTHING_KEPT, additional_vars=variables, destination_dataset_name=DBT_SCHEMA)
        except DBTProcessingError as error:
            failed = [
                f"{result.model_name}: {_reason(result.message or result.status)}"
                for result in error.run_results or []
                if result.status in ("error", "fail")
            ]
            more = f"; and {len(failed) - 3} more" if len(failed) > 3 else ""
            cause = error.dbt_results if isinstance(error.dbt_results, BaseException) else error
            raise GatehouseError(
                f"dbt {error.command} failed on {destination.label()}: " + ("; ".join(failed[:3]) + more or first_line(cause))
            ) from error
    log.info("dbt built %d models and passed %d tests on %s", len(built), len(tested), destination.label())
    return DbtBuild(tuple(result.model_name for result in built), tuple(result.model_name for result in tested), tuple(chosen))


def _reason(message: str) -> str:
    """dbt's message in one line: the line under its heading (`Runtime Error in test x (models/...)`), else the first."""
    lines = [line.strip() for line in message.splitlines() if line.strip()]
    return lines[1] if len(lines) > 1 and " Error in " in lines[0] else (lines[0] if lines else message)


@contextlib.contextmanager
def _package_copy() -> Iterator[Path]:
    """The installed package copied into a folder of its own, with gatehouse's profiles: dbt writes its logs, its
    compiled SQL and its lock file into the project, never into site-packages or a checkout."""
    with tempfile.TemporaryDirectory(prefix="gatehouse-dbt-") as work:
        project = Path(work) / "gatehouse"
        shutil.copytree(
            installed_package(), project, ignore=shutil.ignore_patterns("target", "logs", "dbt_packages", "__pycache__")
        )
        (project / "profiles.yml").write_text(PROFILES, encoding="utf-8")
        yield project


def installed_package() -> Path:
    """The folder of the installed package, `gatehouse.dbt`.

    It is a namespace package, read through its `__path__`: an `__init__.py` in the checkout's `dbt/` would make it
    the package `dbt` itself, in place of dbt's, wherever the checkout is on `sys.path` (pytest, `python -m` in it);
    and importlib.resources cannot read a namespace package of an editable install (its path holds the installer's
    hook, which is no folder)."""
    for entry in importlib.import_module("gatehouse.dbt").__path__:
        if (Path(entry) / "dbt_project.yml").is_file():
            return Path(entry)
    raise GatehouseError(
        "gatehouse's dbt package is not installed (no gatehouse/dbt/dbt_project.yml): reinstall gatehouse-console"
    )


@contextlib.contextmanager
def _no_usage_statistics() -> Iterator[None]:
    """dbt sends anonymous usage statistics unless told not to: a build of gatehouse's views sends nothing."""
    before = os.environ.get("DBT_SEND_ANONYMOUS_USAGE_STATS")
    os.environ["DBT_SEND_ANONYMOUS_USAGE_STATS"] = "false"
    try:
        yield
    finally:
        if before is None:
            os.environ.pop("DBT_SEND_ANONYMOUS_USAGE_STATS", None)
        else:
            os.environ["DBT_SEND_ANONYMOUS_USAGE_STATS"] = before


def _this_environment() -> Venv:
    """This interpreter's environment for dlt's runner, which starts dbt in it: dlt's `Venv.restore_current()` runs
    `python` from PATH unless the environment is activated, which a scheduler or `.venv/bin/gatehouse` never does."""
    return Venv(types.SimpleNamespace(bin_path=str(Path(sys.executable).parent), env_exe=sys.executable), current=True)
