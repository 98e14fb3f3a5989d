"""The scan's dlt resources declare their keys and dispositions where a reader looks first."""

from __future__ import annotations

from gatehouse.sources.code_refs import REPLACEMENT_MARKER, code_references_source
from tests.code_refs.hand_built import scans


def test_resources_declare_replacement_per_repository_and_an_appended_history():
    schema = code_references_source(scans()).discover_schema()
    references = schema.tables["code_references"]
    assert references["write_disposition"] == "merge"
    assert references["x-merge-strategy"] == "delete-insert"
    columns = references["columns"]
    assert [name for name, column in columns.items() if column.get("merge_key")] == ["repository"]
    assert [name for name, column in columns.items() if column.get("hard_delete")] == [REPLACEMENT_MARKER]
    history = schema.tables["code_reference_scans"]
    assert history["write_disposition"] == "append"
    assert [name for name, column in history["columns"].items() if column.get("primary_key")] == ["scan_id", "repository"]


def test_each_repository_sends_one_replacement_marker_then_its_references():
    rows = list(code_references_source(scans()).resources["code_references"])
    markers = [row["repository"] for row in rows if row[REPLACEMENT_MARKER]]
    assert markers == ["web", "api"]
    assert len(rows) == 2 + 9 + 4
    history = list(code_references_source(scans(), known_ids={("gate", "launch_banner")}).resources["code_reference_scans"])
    assert [
        (h["repository"], h["reference_count"], h["gate_count"], h["dynamic_config_count"], h["unknown_id_count"])
        for h in history
    ] == [
        # web: launch_banner, old_checkout, promo_rollout, retired_gate, ghost_gate + c_checkout; known here: launch_banner only
        ("web", 9, 5, 1, 5),
        ("api", 4, 2, 1, 2),
    ]
