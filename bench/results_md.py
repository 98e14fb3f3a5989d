"""Where every bench writes: bench/RESULTS.md, each of whose sections one bench owns, and bench/out/.

bench.run (the load bench) writes the head of RESULTS.md and keeps what follows it; each other bench
replaces its own section. The sections' headings are here, not in the benches, so that bench.run finds
the others' sections without importing them: the benches are entry points and import only shared
modules like this one (bench.run imports bench.code_refs, which it runs after itself, and nothing imports bench.run).
"""

from __future__ import annotations

import logging
from pathlib import Path

BENCH_DIR = Path(__file__).resolve().parent
OUT_DIR = BENCH_DIR / "out"  # git-ignored: work directories, raw results, quick runs
RESULTS_MD = BENCH_DIR / "RESULTS.md"

log = logging.getLogger("bench")

# The sections after the load bench's, each written by another bench.
RULE_COSTS_SECTION = "## Rule costs"  # bench.rule_costs' figures, pasted from its rule-costs.md
ANALYSIS_LAYER_SECTION = "## The analysis layer on DuckDB and PostgreSQL"  # bench.analysis_layer
DAGSTER_SECTION = "## Dagster assets against gatehouse run"  # bench.dagster_assets
PROJECTS_SECTION = "## Three projects side by side"  # bench.projects
CLEANUP_SECTION = "## gatehouse cleanup on the bench tree"  # bench.cleanup
CLEANUP_CORPUS_SECTION = "## gatehouse cleanup on public repositories"  # bench.cleanup_corpus
SRM_SECTION = "## Sample-ratio mismatch checked every day"  # bench.srm
LIFECYCLE_SECTION = "## The gate lifecycle back-tested over a year"  # bench.lifecycle_backtest
VIEW_LATENCY_SECTION = "## Each view's latency on PostgreSQL"  # bench.view_latency
RUN_COST_SECTION = "## What one run costs in CPU"  # bench.run_cost
CODE_REFS_SECTION_START = "<!-- code-refs bench: start -->"  # bench.code_refs, between the two markers
CODE_REFS_SECTION_END = "<!-- code-refs bench: end -->"


def sections_owned_elsewhere(out: Path) -> str:
    """The sections other benches write after the load bench's (each rewrites its own): kept as they are."""
    text = out.read_text() if out.exists() else ""
    starts = [
        text.find(heading)
        for heading in (
            RULE_COSTS_SECTION,
            ANALYSIS_LAYER_SECTION,
            DAGSTER_SECTION,
            PROJECTS_SECTION,
            CLEANUP_SECTION,
            CLEANUP_CORPUS_SECTION,
            SRM_SECTION,
            LIFECYCLE_SECTION,
            VIEW_LATENCY_SECTION,
            RUN_COST_SECTION,
            CODE_REFS_SECTION_START,
        )
    ]
    starts = [start for start in starts if start >= 0]
    return text[min(starts) :] if starts else ""


def write_section(heading: str, text: str, path: Path = RESULTS_MD) -> None:
    """Replaces the section that starts with `heading` (or appends it), leaving the other sections as they are."""
    current = path.read_text(encoding="utf-8") if path.exists() else ""
    if heading in current:
        head, _, rest = current.partition(heading)
        # up to the next section: its heading, or the marker that opens the code-refs bench's section before its heading
        ends = [end for end in (rest.find("\n## "), rest.find("\n" + CODE_REFS_SECTION_START)) if end >= 0]
        following = min(ends) if ends else -1
        current = head + text.rstrip("\n") + "\n" + (rest[following:] if following >= 0 else "")
    else:
        current = current.rstrip("\n") + "\n\n" + text
    path.write_text(current, encoding="utf-8")


def publish(heading: str, text: str, no_write: bool) -> None:
    """A bench's section: printed (`--no-write`, the section is the command's output) or written into RESULTS.md."""
    if no_write:
        print(text)
    else:
        write_section(heading, text)
        log.info("wrote %s", RESULTS_MD)
