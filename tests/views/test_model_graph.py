"""The models' lineage: the build order derived from their refs, and what is refused (unknown refs, cycles, layers
read out of order, a view read without ref), and the docs generated from the model files."""

from __future__ import annotations

import re

import pytest

from gatehouse.pipelines.errors import GatehouseError
from gatehouse.pipelines.models.docs import DATA_MODEL, render
from gatehouse.pipelines.models.graph import LAYERS, SCHEMA, build_order, view_definitions

DEFINITIONS = view_definitions()
HEADER = "-- grain: one row; key: id\n"


def write_models(root, files: dict[str, str]):
    for path, sql in files.items():
        target = root / "views" / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(HEADER + sql, encoding="utf-8")
    return root / "views"


def test_the_build_order_is_a_topological_order_of_the_refs():
    position = {definition.name: index for index, definition in enumerate(DEFINITIONS)}
    for definition in DEFINITIONS:
        assert definition.depends_on or definition.is_staging, f"{definition.name} reads no model"
        for read in definition.depends_on:
            assert position[read] < position[definition.name], f"{definition.name} is built before {read}, which it reads"
    # derived, never listed: the same order comes out of the refs alone, layer by layer
    derived = build_order({d.name: d.depends_on for d in DEFINITIONS}, rank=lambda name: LAYERS.index(_layer(name)))
    assert derived == [d.name for d in DEFINITIONS]
    layers = [LAYERS.index(d.layer) for d in DEFINITIONS]
    assert layers == sorted(layers)


def _layer(name: str) -> str:
    return next(d.layer for d in DEFINITIONS if d.name == name)


def test_each_model_reads_exactly_what_it_refs():
    names = {d.name for d in DEFINITIONS}
    for definition in DEFINITIONS:
        assert "{{ ref(" not in definition.sql and "{%" not in definition.sql, definition.name
        code = "\n".join(line.split("--")[0] for line in definition.sql.splitlines())
        read = set(re.findall(rf"\b{SCHEMA}\.([a-z0-9_]+)", code)) & names
        assert read == set(definition.depends_on), definition.name
        assert definition.path == f"{definition.folder}/{definition.name}.sql" and definition.path.startswith(
            f"{definition.layer}/"
        )


def test_ties_go_to_the_lower_layer_then_the_name():
    reads = {"b": [], "a": [], "c": ["a"], "m": [], "z": []}
    rank = {"a": 0, "b": 0, "c": 0, "m": 1, "z": 0}.get
    assert build_order(reads) == ["a", "b", "c", "m", "z"]
    assert build_order(reads, rank=rank) == ["a", "b", "c", "z", "m"]


def test_a_cycle_is_refused_in_one_line_naming_it():
    with pytest.raises(GatehouseError) as refused:
        build_order({"a": ["c"], "b": ["a"], "c": ["b"], "d": [], "e": ["a"]})
    assert str(refused.value) == "view models read each other in a cycle: a -> c -> b -> a"
    with pytest.raises(GatehouseError, match=r"^view models read each other in a cycle: self -> self$"):
        build_order({"self": ["self"]})


def test_an_unknown_ref_is_refused_in_one_line_naming_it(tmp_path):
    with pytest.raises(GatehouseError) as refused:
        build_order({"a": ["b"], "c": ["nope", "a"]})
    assert str(refused.value) == "view models read unknown models (no such file): a -> b, c -> nope"
    folder = write_models(tmp_path, {"marts/x.sql": "with final as (select * from {{ ref('stg_nope') }}) select * from final\n"})
    with pytest.raises(GatehouseError, match=r"^view models read unknown models \(no such file\): x -> stg_nope$"):
        view_definitions(folder)


REFUSED_FOLDERS = [
    pytest.param(
        {
            "staging/stg_a.sql": "select 1 as id\n",
            "marts/x.sql": "with final as (select * from {{ ref('y') }}) select * from final\n",
            "marts/y.sql": "with final as (select * from {{ ref('x') }} cross join {{ ref('stg_a') }}) select * from final\n",
        },
        r"^view models read each other in a cycle: x -> y -> x$",
        id="a cycle in the model files",
    ),
    pytest.param(
        {
            "staging/stg_a.sql": "select * from {{ ref('int_b') }}\n",
            "intermediate/int_b.sql": "with final as (select 1 as id) select * from final\n",
        },
        r"^view model stg_a \(staging\) reads int_b \(intermediate\): ",
        id="a model reading a later layer",
    ),
    pytest.param(
        {
            "staging/stg_a.sql": "select 1 as id\n",
            "marts/x.sql": (
                "-- analytics.stg_a in a comment is fine\nwith final as (select * from analytics.stg_a) select * from final\n"
            ),
        },
        r"^view model x reads stg_a without ref\(\)",
        id="a view read without ref",
    ),
    pytest.param(
        {"analysis/x.sql": "select 1 as id\n"},
        r"^view model file analysis/x\.sql is not in a layer folder",
        id="a model outside the layer folders",
    ),
]


@pytest.mark.parametrize(("files", "message"), REFUSED_FOLDERS)
def test_model_files_that_break_a_rule_are_refused_in_one_line(tmp_path, files, message):
    folder = write_models(tmp_path, files)
    with pytest.raises(GatehouseError, match=message):
        view_definitions(folder)


def test_every_model_documents_itself_and_the_data_model_is_generated_from_them():
    undocumented = [d.name for d in DEFINITIONS if not d.doc.strip()]
    assert not undocumented
    current = DATA_MODEL.read_text(encoding="utf-8")
    assert render(current, DEFINITIONS) == current, "docs/data-model.md is behind the model files: run `make docs`"
