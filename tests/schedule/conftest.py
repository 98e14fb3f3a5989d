"""What the scheduler tests share: three projects' consoles, the third answering 500 to everything."""

from __future__ import annotations

from gatehouse.console_twin import ConsoleTwin, Fault, TwinSettings


def three_projects() -> dict[str, ConsoleTwin]:
    """web and mobile healthy, each its own organisation and key; tools failing every request."""
    return {
        "web": ConsoleTwin(size="small", seed=3),
        "mobile": ConsoleTwin(size="small", seed=8, settings=TwinSettings(api_key="console-Mb7Qx2Lp9Rt4Vn8Kc3")),
        "tools": ConsoleTwin(size="small", seed=9, settings=TwinSettings(
            api_key="console-Tl5Hw8Zr3Jd6Fs2Gy9", faults=[Fault("server_error", rate=1.0)])),
    }  # fmt: skip
