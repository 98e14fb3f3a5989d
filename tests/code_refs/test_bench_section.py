"""The scan bench owns one section of RESULTS.md: written once, replaced by the next run, kept by the load bench."""

from __future__ import annotations

from bench.code_refs import SECTION_END, SECTION_START, existing_section, write_section


def section(body: str) -> str:
    return f"{SECTION_START}\n## Code references\n{body}\n{SECTION_END}\n"


def test_section_is_added_then_replaced(tmp_path):
    results = tmp_path / "RESULTS.md"
    results.write_text("# Benchmark results\n\nload figures\n")
    write_section(section("first"), results)
    write_section(section("second"), results)
    assert results.read_text() == "# Benchmark results\n\nload figures\n\n" + section("second")
    assert existing_section(results) == section("second")
    assert existing_section(tmp_path / "missing.md") == ""
