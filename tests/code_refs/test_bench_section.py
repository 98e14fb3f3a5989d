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
    # replaced where it is: a section after it stays after it
    results.write_text(results.read_text() + "\n## gatehouse cleanup on the bench tree\n\ncleanup figures\n")
    write_section(section("third"), results)
    assert results.read_text() == (
        "# Benchmark results\n\nload figures\n\n"
        + section("third")
        + "\n## gatehouse cleanup on the bench tree\n\ncleanup figures\n"
    )


def test_the_section_puts_the_scanner_beside_git_grep_and_ripgrep():
    from bench.code_refs import Run, median_run, render

    def run(label, wall_s, lines, **detail):
        return Run(label, wall_s, 50 * 2**20, lines, True, detail)

    full = median_run([run("scanner, all files", wall, 10, files=100, bytes=4_000_000) for wall in (1.2, 0.9, 1.0)])
    rg = median_run([run("rg -F -f, 20,000 ids", wall, 40) for wall in (0.8, 1.1, 0.7)])
    runs = [
        run("scanner, first quarter", 0.5, 3, bytes=1_000_000),
        full,
        run("git grep -F -f, 20,000 ids", 600, 55),
        run("scanner, 1,000 ids", 0.8, 2, lines_not_in_git_grep=0),
        run("git grep -F -f, 1,000 ids", 30, 20),
        rg,
    ]
    text = render(runs, 2, "a machine")
    assert "| scanner, all files (median) | 1.00 | 50 | 10 |" in text
    assert "| rg -F -f, 20,000 ids (median) | 0.80 | 50 | 40 |" in text
    assert "| git grep -F -f, 20,000 ids | 600.0 | 50 | 55 |" in text
    assert "the scanner took 1.00 s (median of 3: 1.20, 0.90, 1.00), `rg -F -f` 0.80 s (median of 3: 0.80, 1.10, 0.70)" in text
    assert "1.25x rg's time (the target is rg's time: not met)" in text
    assert "CPU time (user and system, the scanner's with the rg it runs)" in text
    faster = median_run([run("scanner, all files", 0.6, 10, files=100, bytes=4_000_000)])
    assert "at or below rg's time, the target" in render([runs[0], faster, *runs[2:]], 2, "a machine")
