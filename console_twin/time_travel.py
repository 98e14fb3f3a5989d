"""Time travel: the twin plays an organisation day by day, its gates living scripted lives, the truth kept.

A `Life` is what happens to one gate, and to the code that checks it, on scheduled days: created partly rolled
out, launched to everyone, rolled back, left partial, turned off, no longer checked, archived; its checks
written into some repositories and removed from one, then another. `Play` moves the twin's clock one day at a
time with its random changes off (`Clock.scripted`), makes each day's changes at times inside the day that
passed, and records every day's truth: the answer each gate gives every user (`True`, `False`, `MIXED`, or
`ARCHIVED`) and the gates each repository's code references.

Days count from the day the play starts (day 0, the twin's clock then). A life may begin on a negative day:
its changes up to day 0 are made when the play starts, stamped at their own days, so a gate arrives with a
history. The answer is the twin's own reading of the rules (`gates.answer_to_everyone`).
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from gatehouse.console_twin.gates import DAY_MS, GateFacts, answer_to_everyone, is_everyone_rule
from gatehouse.console_twin.generator import HOUR_MS, MINUTE_MS, build_gate, everyone_condition, make_rule, mark_created
from gatehouse.console_twin.generator import set_pass_percentage as set_percentage
from gatehouse.console_twin.twin import ConsoleTwin

MIXED = "mixed"  # its rules pass some users only
ARCHIVED = "archived"
Answer = bool | str

ChangeKind = Literal[
    "create", "create unwired", "partial", "launch", "turn off", "checks", "stop checks", "archive", "add code", "remove code"
]
REPOSITORIES = ("web", "api", "mobile")
CHECKS_PER_HOUR = 120  # a wired gate's checks, until its last deploy without it


@dataclass(frozen=True)
class Change:
    """One scheduled change: to the gate in the console, to its checks, or to one repository's code."""

    day: int
    kind: ChangeKind
    percentage: int = 0  # `create`, `partial`: the everyone rule's pass percentage
    repository: str = ""  # `add code`, `remove code`
    checks_per_hour: int = 0  # `checks`: the gate's checks per hour from that day, as the console counts them


@dataclass(frozen=True)
class Life:
    gate_id: str
    archetype: str  # what kind of life, for the reports
    changes: tuple[Change, ...]
    permanent: bool = False


@dataclass
class Play:
    """The twin's organisation over time: `advance` a day, read the truth of any day played."""

    twin: ConsoleTwin
    lives: Sequence[Life]
    day: int = 0
    truth: dict[str, dict[int, Answer]] = field(default_factory=dict)  # gate -> day -> its answer that day
    code: dict[str, set[str]] = field(default_factory=dict)  # repository -> gates its code references now
    code_history: dict[int, dict[str, frozenset[str]]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.twin.clock.scripted = True
        self._day_zero_ms = self.twin.organisation.now_ms
        self._rng = random.Random(f"console-twin:time-travel:{self.twin.seed}")
        self.code = {repository: set() for repository in REPOSITORIES}
        first_day = min((change.day for _, change in self._changes()), default=0)
        with self.twin.lock:
            # the days before the play, replayed so their truth is recorded too
            for self.day in range(min(first_day, 0), 1):
                self._make_changes()
            self.twin.organisation.reclassify_gates()

    def advance(self, days: int = 1) -> None:
        """Moves the twin's clock by whole days, making each day's changes, and records each day's truth."""
        for _ in range(days):
            self.twin.advance(1)
            self.day += 1
            with self.twin.lock:
                self._make_changes()
                self.twin.organisation.reclassify_gates()

    def advance_to(self, day: int) -> None:
        self.advance(day - self.day)

    # --- the truth ---------------------------------------------------------------------------------------
    def answer(self, gate_id: str, day: int) -> Answer | None:
        """The gate's answer to every user on `day` (None before it existed, or a day not played)."""
        return self.truth.get(gate_id, {}).get(day)

    def one_answer_since(self, gate_id: str, day: int) -> int | None:
        """The first day of the stretch of one answer the gate gives on `day`; None when it gives none."""
        answer = self.answer(gate_id, day)
        if not isinstance(answer, bool):
            return None
        start = day
        while self.answer(gate_id, start - 1) == answer:
            start -= 1
        return start

    def referenced_in(self, gate_id: str, day: int) -> list[str]:
        """The repositories whose code references the gate on `day`."""
        return sorted(repository for repository, gates in self.code_history[day].items() if gate_id in gates)

    def write_code(self, root: Path) -> dict[str, Path]:
        """Each repository's code as it is today, as files under `root`: one file per referenced gate, checking
        it the way an application does, beside a file that checks none. Returns each repository's folder."""
        folders = {}
        for repository, gates in sorted(self.code.items()):
            folder = root / repository
            source = folder / "src"
            source.mkdir(parents=True, exist_ok=True)
            (source / "app.ts").write_text("export const app = () => render();\n")
            for stale in source.glob("gate_*.ts"):
                if stale.stem.removeprefix("gate_") not in gates:
                    stale.unlink()
            for gate_id in sorted(gates):
                check = f'if (statsig.checkGate("{gate_id}")) {{\n  enable();\n}}\n'
                (source / f"gate_{gate_id}.ts").write_text(check)
            folders[repository] = folder
        return folders

    # --- making the changes ------------------------------------------------------------------------------
    def _changes(self) -> Iterable[tuple[Life, Change]]:
        return ((life, change) for life in self.lives for change in life.changes)

    def _make_changes(self) -> None:
        for position, (life, change) in enumerate(pair for pair in self._changes() if pair[1].day == self.day):
            self._apply(life, change, position)
        self._record()

    def _at(self, day: int, position: int) -> int:
        # inside the day that ends at day `day`'s clock: four hours in, a minute apart in the day's order
        return self._day_zero_ms + (day - 1) * DAY_MS + 4 * HOUR_MS + position * MINUTE_MS

    def _apply(self, life: Life, change: Change, position: int) -> None:
        org = self.twin.organisation
        at = self._at(change.day, position)
        if change.kind in ("add code", "remove code"):
            gates = self.code[change.repository]
            (gates.add if change.kind == "add code" else gates.discard)(life.gate_id)
            return
        if change.kind in ("create", "create unwired"):
            self._create(life, change, at)
            return
        gate, facts = org.gates[life.gate_id], org.gate_facts[life.gate_id]
        if change.kind == "checks":
            gate["checksPerHour"] = change.checks_per_hour
            return
        if change.kind == "stop checks":
            facts.still_checked, facts.last_check_ms = False, at
            gate["checksPerHour"] = 0
            return
        if change.kind == "partial":
            gate["status"], gate["isEnabled"] = "In Progress", True
            _set_everyone(self._rng, gate, change.percentage)
        elif change.kind == "launch":
            gate["status"], gate["isEnabled"] = "Launched", True
            _set_everyone(self._rng, gate, 100)
        elif change.kind == "turn off":
            gate["status"], gate["isEnabled"] = "Disabled", False
        else:
            gate["status"], gate["isEnabled"] = "Archived", False
        org.touch(gate, org.people[0], at)

    def _create(self, life: Life, change: Change, at: int) -> None:
        org = self.twin.organisation
        gate, facts = build_gate(self._rng, org, "fresh", taken=org.gates)
        wired = change.kind == "create"
        gate.update(id=life.gate_id, name=life.gate_id, holdoutIDs=[], status="In Progress", isEnabled=True)
        gate["rules"] = [make_rule(self._rng, change.percentage, [everyone_condition()])] if wired else []
        gate["checksPerHour"] = CHECKS_PER_HOUR if wired else None
        mark_created(gate, at)
        lifetime: Literal["PERMANENT", "TEMPORARY"] = "PERMANENT" if life.permanent else "TEMPORARY"
        gate["type"] = lifetime
        org.add_gate(
            gate,
            GateFacts(
                lifetime=lifetime,
                order=facts.order,
                first_check_ms=at + HOUR_MS if wired else None,
                still_checked=wired,
                audience="some",
            ),
        )

    def _record(self) -> None:
        org = self.twin.organisation
        for life in self.lives:
            gate = org.gates.get(life.gate_id)
            if gate is not None:
                answer = answer_to_everyone(gate)
                self.truth.setdefault(life.gate_id, {})[self.day] = (
                    ARCHIVED if gate["status"] == "Archived" else MIXED if answer is None else answer
                )
        self.code_history[self.day] = {repository: frozenset(gates) for repository, gates in self.code.items()}


def _set_everyone(rng: random.Random, gate: dict, percentage: int) -> None:
    everyone = next((rule for rule in gate["rules"] if is_everyone_rule(rule)), None)
    if everyone is None:
        gate["rules"].append(make_rule(rng, percentage, [everyone_condition()]))
    elif everyone["passPercentage"] != percentage:
        set_percentage(everyone, percentage)


ARCHETYPES = {
    # launched to everyone, then its code removed from one repository, then another; some are forgotten in
    # one, some archived once nothing checks them
    "launched": 34,
    "rolled back": 12,  # launched, rolled back after a few days (rarely weeks), then launched again or left
    "turned off": 12,  # the experiment failed: turned off, then cleaned up like a launch
    "left partial": 12,  # partly rolled out, and left so
    "toggled": 6,  # an operations switch, turned off and on for weeks at a time, never declared permanent
    "permanent": 8,
    "never wired": 6,  # created, no rules, never checked, in no code
}


def organisation_lives(seed: int, days: int, count: int) -> list[Life]:
    """`count` gates living over `days` days, drawn from `ARCHETYPES`; seeded, the same for the same arguments.
    Some start before day 0, so the first load finds gates with a past."""
    rng = random.Random(f"console-twin:lives:{seed}:{days}:{count}")
    kinds, weights = zip(*ARCHETYPES.items(), strict=True)
    lives = []
    for number in range(count):
        archetype = rng.choices(kinds, weights)[0]
        created = rng.randint(-60, max(-59, days - 60))
        changes = _life(rng, archetype, created)
        lives.append(
            Life(f"life_{number:03d}_{archetype.replace(' ', '_')}", archetype, tuple(changes), archetype == "permanent")
        )
    return lives


def _life(rng: random.Random, archetype: str, created: int) -> list[Change]:
    if archetype == "never wired":
        return [Change(created, "create unwired")]
    repositories = rng.sample(REPOSITORIES, k=rng.choice((1, 2, 2, 3)))
    changes = [
        Change(created, "create", rng.choice((5, 10, 25))),
        *(Change(created, "add code", repository=r) for r in repositories),
    ]
    ramp = created + rng.randint(3, 20)
    changes.append(Change(ramp, "partial", 50))
    settled = ramp + rng.randint(3, 20)
    if archetype == "left partial":
        return changes
    if archetype == "permanent":
        return [*changes, Change(settled, "launch")]
    if archetype == "toggled":
        day, on = settled, False
        while day < created + 400:
            changes.append(Change(day, "launch" if on else "turn off"))
            day, on = day + rng.randint(5, 40), not on
        return changes
    changes.append(Change(settled, "turn off" if archetype == "turned off" else "launch"))
    if archetype == "rolled back":
        # most rollbacks come within days of the launch; a few weeks later
        back = settled + 1 + min(60, int(rng.expovariate(1 / 4)))
        changes.append(Change(back, "partial", 50))
        if rng.random() < 0.5:
            return changes
        settled = back + rng.randint(5, 30)
        changes.append(Change(settled, "launch"))
    return changes + _cleanup(rng, settled, repositories)


def _cleanup(rng: random.Random, settled: int, repositories: Sequence[str]) -> list[Change]:
    """The code removed from one repository, then the next; a fifth are forgotten in the last one. Once
    removed everywhere, its checks stop with the last deploy, and most are archived."""
    changes: list[Change] = []
    day = settled + 14 + rng.randint(0, 40)
    forgotten = rng.random() < 0.2
    for index, repository in enumerate(repositories):
        if forgotten and index == len(repositories) - 1:
            return changes
        changes.append(Change(day, "remove code", repository=repository))
        day += rng.randint(1, 30)
    last_deploy = changes[-1].day + rng.randint(1, 10)
    changes.append(Change(last_deploy, "stop checks"))
    if rng.random() < 0.7:
        changes.append(Change(last_deploy + rng.randint(2, 30), "archive"))
    return changes
