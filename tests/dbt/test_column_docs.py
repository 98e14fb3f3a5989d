"""Every column of every mart in the dbt package is described (the package's schema files are written from the model
files' own documentation, and list every column each view has)."""

from __future__ import annotations

from pathlib import Path

import yaml

MARTS = Path(__file__).resolve().parents[2] / "dbt" / "models" / "marts"


def test_every_mart_column_has_a_description():
    described, missing = 0, []
    for schema in sorted(MARTS.rglob("schema.yml")):
        for model in yaml.safe_load(schema.read_text()).get("models", []):
            for column in model.get("columns", []):
                described += bool(column.get("description"))
                if not column.get("description"):
                    missing.append(f"{model['name']}.{column['name']}")
    assert not missing, f"columns without a description: {missing}"
    assert described > 300
