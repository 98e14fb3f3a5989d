"""What the scheduler tests share: three projects' consoles, the third failing at one step of its run."""

from __future__ import annotations

from gatehouse.console_twin import ConsoleTwin, TwinSettings
from tests.drills.promises import AFTER_LOAD, STEPS, break_console

# The steps one project can fail at alone (the views and the snapshot are the projects' together).
PROJECT_STEPS = [step for step in STEPS if step not in AFTER_LOAD]
# The steps each scheduler drives tools to fail at. Both hand the projects' outcomes of `run_scheduled` to the same
# one line and alerts, whatever the step; that a failure at each step costs the healthy projects nothing is drilled
# through `run_scheduled` itself at every step (tests/drills/promise_projects.py). So each scheduler is driven at a
# console step before anything of tools loaded, at its exposures (its first phase loaded, kept out of the views) and
# at a warehouse step; between them, every step. Each step here is three projects' first loads: all seven in both
# schedulers were a minute of the suite's processor time.
SCHEDULER_STEPS = {
    "airflow": ["first_request", "holdouts", "exposures", "load"],
    "dagster": ["mid_list", "ingestion_runs", "exposures", "normalize"],
}
assert {step for steps in SCHEDULER_STEPS.values() for step in steps} == set(PROJECT_STEPS)


def three_projects(step: str = "first_request") -> dict[str, ConsoleTwin]:
    """web and mobile healthy, each its own organisation and key; tools failing at `step` (the console's steps here,
    the warehouse's through `tests.drills.promises.broken_warehouse`)."""
    twins = {
        "web": ConsoleTwin(size="small", seed=3),
        "mobile": ConsoleTwin(size="small", seed=8, settings=TwinSettings(api_key="console-Mb7Qx2Lp9Rt4Vn8Kc3")),
        "tools": ConsoleTwin(size="small", seed=9, settings=TwinSettings(api_key="console-Tl5Hw8Zr3Jd6Fs2Gy9")),
    }
    break_console(twins["tools"], step)
    return twins
