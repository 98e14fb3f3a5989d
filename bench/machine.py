"""The machine a bench ran on, as the benches' sections of RESULTS.md describe it."""

from __future__ import annotations

import datetime as dt
import os
import platform
from importlib import metadata
from pathlib import Path

import psutil


def machine_description() -> dict[str, str]:
    cpu = platform.processor() or "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    versions = []
    for package in ("dlt", "duckdb", "pyarrow", "httpx", "requests"):
        try:
            versions.append(f"{package} {metadata.version(package)}")
        except metadata.PackageNotFoundError:
            pass
    return {
        "date": dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "cpu": f"{cpu}, {psutil.cpu_count(logical=True)} logical cores ({os.cpu_count()} usable)",
        "memory": f"{psutil.virtual_memory().total / (1 << 30):.1f} GiB",
        "system": platform.platform(),
        "python": platform.python_version(),
        "packages": ", ".join(versions),
        "load average at start": " ".join(f"{value:.2f}" for value in os.getloadavg()),
    }
