"""Every column of every model in the dbt package is described (the package's schema files are written from the model
files' own documentation, and list every column each view has), and a column described nowhere stops `make dbt`."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from gatehouse.pipelines.errors import GatehouseError
from gatehouse.pipelines.models import dbt_package
from gatehouse.pipelines.models.graph import ViewDefinition

MODELS = Path(__file__).resolve().parents[2] / "dbt" / "models"


def test_every_column_of_every_model_has_a_description():
    described, missing = 0, []
    for schema in sorted(MODELS.rglob("schema.yml")):
        for model in yaml.safe_load(schema.read_text()).get("models", []):
            for column in model.get("columns", []):
                described += bool(column.get("description"))
                if not column.get("description"):
                    missing.append(f"{model['name']}.{column['name']}")
    assert not missing, f"columns without a description: {missing}"
    assert described > 600


def test_a_column_is_described_by_its_model_then_the_model_it_reads_then_its_raw_table():
    staging = ViewDefinition(
        name="stg_things",
        grain="one row per thing",
        key=("project", "thing_id"),
        sql="",
        doc="From `console.things`: `thing_id` ← `id`; `colour`.",
    )
    mart = ViewDefinition(
        name="things", grain="", key=("thing_id",), sql="", depends_on=("stg_things",), doc="| `size` | how big |"
    )
    described = dbt_package.every_column_described(
        [staging, mart], {"stg_things": ["project", "thing_id", "colour"], "things": ["thing_id", "size"]}
    )
    assert described == {
        "stg_things": {
            "project": dbt_package._SHARED_COLUMNS["project"],
            "thing_id": "`thing_id` ← `id`",
            "colour": "`colour`, from the raw table `things`",
        },
        "things": {"thing_id": "`thing_id` ← `id` (as in `stg_things`)", "size": "how big"},
    }


def test_a_column_described_nowhere_is_refused():
    bare = ViewDefinition(name="things", grain="", key=("thing_id",), sql="", doc="| `thing_id` | the thing |")
    with pytest.raises(GatehouseError, match=r"described nowhere .*: things\.weight$"):
        dbt_package.every_column_described([bare], {"things": ["thing_id", "weight"]})
