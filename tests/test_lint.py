"""What a reviewer would run: ruff's pyflakes and bugbear checks (pyproject.toml `[tool.ruff]`), clean on every
file outside bench/."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_ruff_finds_nothing_outside_bench():
    done = subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", "--output-format", "concise",
                           "--exclude", "bench", "."], cwd=ROOT, capture_output=True, text=True)  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
