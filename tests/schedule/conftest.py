"""What the scheduler tests share: three projects' consoles, the third failing at one step of its run."""

from __future__ import annotations

from gatehouse.console_twin import ConsoleTwin, TwinSettings
from tests.drills.promises import AFTER_LOAD, STEPS, break_console

# The steps one project can fail at alone (the views and the snapshot are the projects' together).
PROJECT_STEPS = [step for step in STEPS if step not in AFTER_LOAD]


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
