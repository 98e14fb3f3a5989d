"""`make bench`, cleanup: `gatehouse cleanup --all` on the code-references bench tree.

The tree is bench.code_refs' copy of site-packages (hundreds of MB of real code), cloned (`git clone --shared`,
no copy of its objects) with a folder of service code planted in it: for each of CHECKED_GATES gates that the
console data decides, one Python and one TypeScript file checking it in an `if`. The console data is the twin's
large organisation's gates (20,000; launched, disabled, partly rolled out), loaded into a DuckDB file as the
console source loads them, with the views applied. The run is timed as a whole process, `--dry-run` first (the
diffs only), then for real (a branch a gate); peak memory is polled as in the load benchmark.

    python -m bench.cleanup           # writes its section of bench/RESULTS.md
"""

from __future__ import annotations

import argparse
import logging
import shutil
import subprocess
import sys
from pathlib import Path

from bench.code_refs import OUT_DIR as CODE_REFS_OUT
from bench.code_refs import Run, build_tree, measure
from bench.gates_db import load_gates
from bench.processes import REPO
from bench.results_md import CLEANUP_SECTION, RESULTS_MD, write_section

log = logging.getLogger("bench.cleanup")

OUT_DIR = CODE_REFS_OUT.parent / "cleanup"
CHECKED_GATES = 200
SERVICE_FOLDER = "gatehouse_bench_service"
PYTHON_CHECK = """from statsig import statsig


def {name}(user):
    if statsig.check_gate(user, "{gate}"):
        return "new"
    return "old"
"""
TYPESCRIPT_CHECK = """import {{ statsig }} from "./statsig";

export function {name}(user: string): string {{
  if (statsig.checkGate(user, "{gate}")) {{
    return "new";
  }}
  return "old";
}}
"""


def load_console(database: Path) -> None:
    """The twin's large organisation's gates in `database`, as the console source loads them, views applied."""
    from gatehouse.console_twin import ConsoleTwin

    twin = ConsoleTwin(size="large")
    # archived gates are not listed, as the console source would not load them
    gates = [gate for gate in twin.organisation.gates.values() if gate.get("status") != "Archived"]
    stamp = twin.clock.now.isoformat()  # the views' "as of": the twin's clock, as a run records it
    load_gates(database, gates, stamp, "bench_cleanup", database.parent / "dlt")


def decided_gates(database: Path, count: int) -> list[str]:
    import duckdb

    with duckdb.connect(str(database), read_only=True) as connection:
        rows = connection.sql(
            f"select gate_id from analytics.cleanup_decisions where is_decided order by gate_id limit {count}"
        ).fetchall()
    return [gate_id for (gate_id,) in rows]


def planted_clone(tree: Path, clone: Path, gates: list[str]) -> None:
    """The bench tree cloned, with a folder of service code that checks `gates`, committed on branch main."""
    shutil.rmtree(clone, ignore_errors=True)
    # no `git gc --auto` in the background while cleanup is measured (its 200 commits add loose objects)
    subprocess.run(["git", "clone", "--quiet", "--shared", "-c", "gc.auto=0", str(tree), str(clone)], check=True)
    service = clone / SERVICE_FOLDER
    service.mkdir()
    for number, gate in enumerate(gates):
        name = f"check_{number}"
        (service / f"{name}.py").write_text(PYTHON_CHECK.format(name=name, gate=gate))
        (service / f"{name}.ts").write_text(TYPESCRIPT_CHECK.format(name=name, gate=gate))
    git = ["git", "-C", str(clone), "-c", "user.email=bench@example.com", "-c", "user.name=bench"]
    subprocess.run(git + ["add", SERVICE_FOLDER], check=True)
    subprocess.run(git + ["commit", "-q", "-m", "service code"], check=True)


def run() -> tuple[list[Run], int, int]:
    tree = CODE_REFS_OUT / "tree"
    build_tree(tree)
    OUT_DIR.mkdir(parents=True, exist_ok=True)
    database = OUT_DIR / "flags.duckdb"
    if not database.exists():
        load_console(database)
    gates = decided_gates(database, CHECKED_GATES)
    clone = OUT_DIR / "clone"
    planted_clone(tree, clone, gates)
    files = int(subprocess.run(["git", "-C", str(clone), "ls-files"], check=True, capture_output=True).stdout.count(b"\n"))
    command = [
        str(Path(sys.executable).with_name("gatehouse")),
        "cleanup",
        "--all",
        "--repo",
        str(clone),
        "--duckdb",
        str(database),
        "--lock-timeout",
        "60",
    ]
    runs = [
        measure("cleanup --all --dry-run", [*command, "--dry-run"], REPO, 1800, OUT_DIR / "dry-run.diff"),
        measure("cleanup --all", command, REPO, 1800, OUT_DIR / "cleanup.out"),
    ]
    branches = subprocess.run(
        ["git", "-C", str(clone), "for-each-ref", "refs/heads/gatehouse/cleanup"], check=True, capture_output=True
    ).stdout.count(b"\n")
    return runs, files, branches


def render(runs: list[Run], files: int, branches: int) -> str:
    rows = "\n".join(f"| {run.label} | {run.wall_s:.1f} | {run.peak_rss_bytes / 1e6:,.0f} |" for run in runs)
    return f"""{CLEANUP_SECTION}

`python -m bench.cleanup`: `gatehouse cleanup --all` on a clone of the code-references bench tree ({files:,} tracked
files) with {CHECKED_GATES} decided gates checked in a Python and a TypeScript file each, against the twin's large
organisation's gates in DuckDB (one process each, `--dry-run` first). Branches made: {branches:,}.

| command | wall s | peak memory, MB |
|---|---:|---:|
{rows}
"""


def main(argv: list[str] | None = None) -> int:
    argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter).parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    runs, files, branches = run()
    section = render(runs, files, branches)
    write_section(CLEANUP_SECTION, section, RESULTS_MD)
    print(section)
    return 0


if __name__ == "__main__":
    sys.exit(main())
