"""The dbt package on the warehouses it is written for but not run on here (Redshift, Snowflake, BigQuery, Databricks):
compiled by dbt with each warehouse's real adapter, offline, and each compiled model parsed by sqlglot in that
warehouse's dialect. Offline: the profiles point at an address where nothing listens (a connection attempt fails the
compile), dbt is told not to fill its cache (`--no-populate-cache`) nor run introspective queries (`--no-introspect`:
one would fail the compile), and the package's var `gatehouse_introspect: false` reads every declared column of the
raw tables instead of asking the warehouse which exist. One compile per warehouse and session: each costs seconds.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
import sqlglot
import yaml

from gatehouse.pipelines.models import dbt_package
from gatehouse.pipelines.models.graph import view_definitions

NOWHERE = "127.0.0.1"  # port 1: nothing listens there
PROFILES = {
    "redshift": {"type": "redshift", "host": NOWHERE, "port": 1, "user": "u", "password": "p", "dbname": "d"},
    "snowflake": {
        "type": "snowflake",
        "account": "nowhere",
        "host": NOWHERE,
        "port": 1,
        "user": "u",
        "password": "p",
        "database": "d",
        "warehouse": "w",
    },
    "bigquery": {"type": "bigquery", "method": "oauth-secrets", "token": "never-used", "project": "nowhere"},
    "databricks": {"type": "databricks", "host": NOWHERE, "http_path": "/sql/1.0/warehouses/none", "token": "never-used"},
}
WAREHOUSES = [adapter for adapter in dbt_package.DIALECTS if adapter not in dbt_package.BUILT_ON]
MODELS = sorted({d.name for d in view_definitions()} | set(dbt_package.PARAMETER_MODELS))


def test_every_warehouse_the_package_is_written_for_is_built_or_compiled_here():
    assert sorted(WAREHOUSES) == sorted(PROFILES)
    assert set(dbt_package.BUILT_ON) | set(WAREHOUSES) == set(dbt_package.DIALECTS)


@pytest.fixture(scope="session")
def package_copy(tmp_path_factory) -> Path:
    """The committed package and a profile of every warehouse, in a folder of their own (dbt writes into both)."""
    work = tmp_path_factory.mktemp("dbt_warehouses")
    shutil.copytree(dbt_package.PACKAGE_ROOT, work / "gatehouse", ignore=shutil.ignore_patterns(*dbt_package.TOOL_FOLDERS))
    outputs = {adapter: {**profile, "schema": "analytics", "threads": 1} for adapter, profile in PROFILES.items()}
    profiles = {dbt_package.PROJECT_NAME: {"target": WAREHOUSES[0], "outputs": outputs}}
    (work / "profiles.yml").write_text(yaml.safe_dump(profiles), encoding="utf-8")
    return work


_compiled: dict[str, Any] = {}


@pytest.fixture
def compiled(package_copy: Path, request) -> tuple[Any, dict[str, str]]:
    """dbt's result of compiling the package for one warehouse, and the compiled SQL of each model by name."""
    adapter = request.param
    if adapter not in _compiled:
        # imported here, not at the top: every worker collects this file, and only the one running it needs dbt
        from dbt.cli.main import dbtRunner

        target = package_copy / f"target_{adapter}"
        result = dbtRunner().invoke(
            [
                "compile",
                "--project-dir",
                str(package_copy / "gatehouse"),
                "--profiles-dir",
                str(package_copy),
                "--target",
                adapter,
                "--target-path",
                str(target),
                "--no-populate-cache",
                "--no-introspect",
                "--vars",
                json.dumps({"gatehouse_introspect": False}),
                "--quiet",
                # offline: no usage statistics sent; dbt's log file keeps its warnings and errors, not a line of
                # every step of every node (formatting and writing those was a share of each compile)
                "--no-send-anonymous-usage-stats",
                "--log-level-file",
                "warn",
                # what is read is the compiled SQL: neither the parse kept for a next compile (none reuses it: each
                # warehouse parses anew) nor manifest.json written (a second of JSON over the four)
                "--no-partial-parse",
                "--no-write-json",
            ]
        )
        models = target / "compiled" / dbt_package.PROJECT_NAME / "models"
        # a test's compiled SQL sits below its YAML file (`schema.yml/unique_...sql`): models only
        files = [path for path in models.rglob("*.sql") if path.parent.suffix != ".yml"] if models.is_dir() else []
        sql = {path.stem: path.read_text(encoding="utf-8") for path in files}
        _compiled[adapter] = (result, sql)
    return _compiled[adapter]


@pytest.mark.parametrize("compiled", WAREHOUSES, indirect=True)
def test_dbt_compiles_every_model_with_the_warehouses_adapter_without_connecting(compiled):
    result, sql = compiled
    assert result.success, result.exception or [r.message for r in result.result.results if r.status != "success"]
    assert sorted(sql) == MODELS
    assert not [name for name, text in sql.items() if "parsed" in text.split() or "{{" in text]


@pytest.mark.parametrize("compiled", WAREHOUSES, indirect=True)
def test_each_compiled_model_parses_in_the_warehouses_dialect(compiled, request):
    _, sql = compiled
    dialect = dbt_package.DIALECTS[request.node.callspec.params["compiled"]]
    unparsed = {}
    for name, text in sorted(sql.items()):
        try:
            sqlglot.parse_one(text, read=dialect)
        except sqlglot.errors.ParseError as error:
            unparsed[name] = str(error).splitlines()[0]
    assert not unparsed
