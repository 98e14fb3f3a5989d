"""What the scheduler tests share: several projects' consoles, web and mobile healthy beside one failing at each step
a project can fail at alone (tests/drills/promises.py), all in one run."""

from __future__ import annotations

from gatehouse.console_twin import ConsoleTwin, TwinSettings
from tests.drills.promises import PROJECT_STEPS, break_console, failing_project

HEALTHY = ("web", "mobile")
# Each failing project and the step it fails at (the console's steps here, the warehouse's through
# `tests.drills.promises.broken_warehouse`); the views and the snapshot are the projects' together.
FAILING = {failing_project(step): step for step in PROJECT_STEPS}


def projects_failing_each_at_its_step() -> dict[str, ConsoleTwin]:
    """web and mobile healthy, each its own organisation and key; beside them a project of tools' organisation
    failing at each step of `FAILING`."""
    twins = {
        "web": ConsoleTwin(size="small", seed=3),
        "mobile": ConsoleTwin(size="small", seed=8, settings=TwinSettings(api_key="console-Mb7Qx2Lp9Rt4Vn8Kc3")),
    }
    for project, step in FAILING.items():
        twins[project] = ConsoleTwin(size="small", seed=9, settings=TwinSettings(api_key="console-Tl5Hw8Zr3Jd6Fs2Gy9"))
        break_console(twins[project], step)
    return twins


def failing_datasets() -> dict[str, str]:
    """`FAILING` as `broken_warehouse` takes it: each failing project's dataset and its step."""
    return {f"console_{project}": step for project, step in FAILING.items()}
