"""The gate lifecycle back-tested: a year of an organisation whose gates live their lives, with the truth known.

The twin plays the year (`console_twin.time_travel`): gates created partly rolled out, launched, rolled back,
left partial, turned off, toggled, permanent, never wired; their code removed from one repository, then
another, some forgotten in one; checks stopping with the last deploy; most archived. Every `--every` days a
real `gatehouse run` loads the twin (in process), the repositories as they are that day are written out and
scanned by gatehouse's scanner (`scan_repository`, as `gatehouse code-refs` does) and the scans loaded with
the code-references source, stamped at the twin's clock; then `analytics.gate_lifecycle` and today's snapshot
rule are read and scored against the truth (see `score`). Only the play's gates are scored: the twin's
generated organisation stays unchanged all year, so its gates would be right by construction.

Today's snapshot rule is what the console's stale rules say of today's state alone (`analytics.gate_staleness`):
a gate stale (`marked stale` or `meets stale rules`: untouched `stale_after_days`, 30) whose reason names its
value (`STALE_PROBABLY_LAUNCHED`, `STALE_ALL_TRUE`: true; `STALE_PROBABLY_UNLAUNCHED`, `STALE_ALL_FALSE`,
`STALE_NO_RULES`: false) is ready to remove from the code with that value.

    python -m bench.lifecycle_backtest [--days 365] [--every 7] [--gates 120] [--seed 0] [--no-write]
"""

from __future__ import annotations

import argparse
import logging
import os
import shutil
import statistics
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path

from bench.machine import machine_description
from bench.results_md import LIFECYCLE_SECTION, OUT_DIR, write_section
from gatehouse.console_twin import ConsoleTwin
from gatehouse.console_twin.time_travel import ARCHIVED, Play, organisation_lives
from gatehouse.pipelines.cli.code_refs import read_entities
from gatehouse.pipelines.code_refs.codeowners import file_owners
from gatehouse.pipelines.code_refs.scan import DEFAULT_EXCLUDES, Matcher, RepositoryScan, open_repository, scan_repository
from gatehouse.pipelines.run.demo import twin_source_args
from gatehouse.pipelines.run.steps import RunOptions, run_extraction
from gatehouse.pipelines.warehouse.destination import Destination
from gatehouse.sources.code_refs import code_references_source

log = logging.getLogger("bench.lifecycle_backtest")

READY = "ready: remove from code"
READY_STAGES = (READY, "removed from code", "ready: archive in the console")
KEEPS_DAYS = 30  # "ready" is right when the gate gives its value that day and the next 30
READY_AFTER_DAYS = 14  # the view's default `ready_after_days`: recall counts gates held this long
VALUE_REASONS = {
    "STALE_PROBABLY_LAUNCHED": True,
    "STALE_ALL_TRUE": True,
    "STALE_PROBABLY_UNLAUNCHED": False,
    "STALE_ALL_FALSE": False,
    "STALE_NO_RULES": False,
}
LIFECYCLE_SQL = "select gate_id, stage, cleanup_value from analytics.gate_lifecycle"
SNAPSHOT_SQL = (
    "select gate_id, stale_reason from analytics.gate_staleness where staleness in ('marked stale', 'meets stale rules')"
)
BASE_URL = "http://console-twin.backtest.invalid"


@dataclass
class TimeTravelLoads:
    """A play loaded as gatehouse would: `load(day)` moves the twin to `day`, runs, writes and scans the code."""

    play: Play
    destination: Destination
    work: Path

    def load(self, day: int) -> None:
        self.play.advance_to(day)
        twin = self.play.twin
        args = twin_source_args(twin, BASE_URL, transport=twin.transport())
        run_extraction(RunOptions(destination=self.destination, progress=False, lock_timeout_s=60, source_args=args))
        self.scan()

    def scan(self) -> None:
        """Every repository scanned as `gatehouse code-refs` scans it, stamped an hour before the run: the nightly
        scan, loaded once the run has named the ids."""
        entities = read_entities(self.destination, 60)
        matcher = Matcher(entities)
        scanned_at = self.play.twin.now - timedelta(hours=1)
        scan_id = f"{scanned_at:%Y%m%dT%H%M%SZ}-day{self.play.day}"
        scans = []
        for name, folder in self.play.write_code(self.work / "code").items():
            repository = open_repository(folder, name)
            hits, stats = scan_repository(repository, matcher, DEFAULT_EXCLUDES)
            scans.append(
                RepositoryScan(repository, hits, stats, scanned_at, scan_id, file_owners(folder, (hit.path for hit in hits)))
            )
        known = {(entity.entity_type, entity.entity_id) for entity in entities}
        pipeline = self.destination.pipeline()
        self.destination.load(pipeline, 60, step=lambda: pipeline.run(code_references_source(scans, known)), extracted=False)

    def rows(self, sql: str) -> list[tuple]:
        with self.destination.reader() as reader:
            return [tuple(row) for row in reader.rows(sql)]


@dataclass
class RuleScore:
    """One rule's judgements against the truth."""

    ready: int = 0  # gate-days judged ready
    right: int = 0  # ... whose value the gate gave that day and the next 30
    wrong_by_archetype: Counter = field(default_factory=Counter)
    held: int = 0  # gate-days one answer had held `READY_AFTER_DAYS` (recall's denominator)
    held_found: int = 0
    days_to_ready: dict[tuple[str, int], int] = field(default_factory=dict)  # (gate, stretch start) -> days

    @property
    def precision(self) -> float:
        return self.right / self.ready if self.ready else float("nan")

    @property
    def recall(self) -> float:
        return self.held_found / self.held if self.held else float("nan")

    @property
    def median_days(self) -> float:
        return statistics.median(self.days_to_ready.values()) if self.days_to_ready else float("nan")


@dataclass
class BackTest:
    lifecycle: RuleScore = field(default_factory=RuleScore)
    snapshot: RuleScore = field(default_factory=RuleScore)
    archive_while_referenced: int = 0
    archive_judgements: int = 0
    loads: int = 0
    stages: Counter = field(default_factory=Counter)


def score(play: Play, day: int, lifecycle: list[tuple], snapshot: list[tuple], result: BackTest) -> None:
    """One load's judgements, once the play has gone `KEEPS_DAYS` past the last: precision, recall and the days to
    the first "ready" of each stretch of one answer, and archive-while-referenced, over every load."""
    archetypes = {life.gate_id: life.archetype for life in play.lives if not life.permanent}
    stages = {gate: (stage, value) for gate, stage, value in lifecycle if gate in archetypes}
    snapshot_values = {gate: VALUE_REASONS[reason] for gate, reason in snapshot if gate in archetypes and reason in VALUE_REASONS}
    result.stages.update(stage for stage, _ in stages.values())
    for gate, (stage, _) in stages.items():
        if stage == "ready: archive in the console":
            result.archive_judgements += 1
            result.archive_while_referenced += bool(play.referenced_in(gate, day))
    judged = (
        (result.lifecycle, {gate: value for gate, (stage, value) in stages.items() if stage == READY}),
        (result.snapshot, snapshot_values),
    )
    found_stages = (
        {gate for gate, (stage, _) in stages.items() if stage in READY_STAGES},
        set(snapshot_values),
    )
    for (rule, ready), found in zip(judged, found_stages, strict=True):
        for gate, value in ready.items():
            start = play.one_answer_since(gate, day)
            if start is not None and play.answer(gate, day) == value:
                rule.days_to_ready.setdefault((gate, start), day - start)
            rule.ready += 1
            # archived since is no change of answer: archiving is the end of the cleanup the judgement starts
            if all(play.answer(gate, later) in (value, ARCHIVED) for later in range(day, day + KEEPS_DAYS + 1)):
                rule.right += 1
            else:
                rule.wrong_by_archetype[archetypes[gate]] += 1
        for gate in archetypes:
            start = play.one_answer_since(gate, day)
            if start is not None and day - start >= READY_AFTER_DAYS:
                rule.held += 1
                rule.held_found += gate in found


def back_test(days: int, every: int, gates: int, seed: int, work: Path) -> tuple[BackTest, float]:
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    play = Play(ConsoleTwin(size="small", seed=seed), organisation_lives(seed, days, gates))
    loads = TimeTravelLoads(play, Destination(duckdb_path=work / "gatehouse.duckdb"), work)
    judgements = []
    started = time.perf_counter()
    for day in range(0, days + 1, every):
        loads.load(day)
        judgements.append((day, loads.rows(LIFECYCLE_SQL), loads.rows(SNAPSHOT_SQL)))
        if day % 30 == 0:
            log.info("day %d of %d: %.0f s", day, days, time.perf_counter() - started)
    play.advance_to(days + KEEPS_DAYS)  # the truth of the days after the last load
    result = BackTest(loads=len(judgements))
    for day, lifecycle, snapshot in judgements:
        score(play, day, lifecycle, snapshot, result)
    return result, time.perf_counter() - started


def _figure(value: float, digits: int = 3) -> str:
    return "n/a" if value != value else f"{value:.{digits}f}"


def markdown(result: BackTest, days: int, every: int, gates: int, seed: int, seconds: float) -> Iterator[str]:
    yield LIFECYCLE_SECTION
    yield ""
    machine = machine_description()
    yield (
        f"`python -m bench.lifecycle_backtest --days {days} --every {every} --gates {gates} --seed {seed}`: the twin plays"
        f" {days} days of an organisation with {gates} scripted gates (`console_twin.time_travel.ARCHETYPES`); a real"
        f" `gatehouse run` every {every} days ({result.loads} loads, in process), each followed by a scan of the three"
        f" repositories as they are that day (gatehouse's scanner, the code-references source). {seconds:.0f} s on"
        f" {machine['cpu']} ({machine['date']}, load average at start {machine['load average at start']})."
    )
    yield ""
    yield (
        "Truth: what each gate answers every user each day, and which repositories reference it. *Precision*: the gate"
        f" gives the judged value that day and the next {KEEPS_DAYS} (the play goes on {KEEPS_DAYS} days past the last"
        " load). *Recall*: of the gate-days one answer had held"
        f" {READY_AFTER_DAYS} days or more, the share judged ready (`gate_lifecycle`: ready to remove, removed from code or"
        " ready to archive). *Days to ready*: from the first day of a stretch of one answer to its first ready"
        " judgement, median over the stretches judged ready. Today's snapshot rule: the console's stale rules on"
        " today's state (stale, with a reason that names the value). Permanent gates are left out."
    )
    yield ""
    yield "| rule | judged ready (gate-days) | precision | wrong, by life | recall | median days to ready | stretches |"
    yield "|---|---:|---:|---|---:|---:|---:|"
    for name, rule in (("`gate_lifecycle`", result.lifecycle), ("today's snapshot rule", result.snapshot)):
        wrong = ", ".join(f"{kind} {count}" for kind, count in sorted(rule.wrong_by_archetype.items())) or "none"
        yield (
            f"| {name} | {rule.ready} | {_figure(rule.precision)} | {wrong} | {_figure(rule.recall)}"
            f" | {_figure(rule.median_days, 1)} | {len(rule.days_to_ready)} |"
        )
    yield ""
    yield (
        f"Ready to archive while a repository's code referenced the gate: **{result.archive_while_referenced}** of"
        f" {result.archive_judgements} archive judgements. Stages over all loads: "
        + ", ".join(f"{stage} {count}" for stage, count in sorted(result.stages.items()))
        + "."
    )
    yield ""


def main() -> None:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    for chatty in ("httpx", "gatehouse", "console_twin"):
        logging.getLogger(chatty).setLevel(logging.WARNING)
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--days", type=int, default=365)
    parser.add_argument("--every", type=int, default=7, help="days between loads (and scans)")
    parser.add_argument("--gates", type=int, default=120)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--no-write", action="store_true", help="print the section, leave RESULTS.md")
    args = parser.parse_args()
    os.environ.setdefault("RUNTIME__LOG_LEVEL", "ERROR")
    result, seconds = back_test(args.days, args.every, args.gates, args.seed, OUT_DIR / "lifecycle_backtest")
    text = "\n".join(markdown(result, args.days, args.every, args.gates, args.seed, seconds))
    if args.no_write:
        log.info("\n%s", text)
    else:
        write_section(LIFECYCLE_SECTION, text)


if __name__ == "__main__":
    main()
