"""The repository as a fresh clone has it: its tracked files, copied as they are in this checkout."""

from __future__ import annotations

import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def copy_tracked_files(to: Path) -> Path:
    """Every file git tracks, copied to the same place under `to` (untracked and ignored files left behind)."""
    tracked = subprocess.run(["git", "ls-files", "-z"], cwd=REPO, capture_output=True, check=True).stdout
    for name in filter(None, tracked.decode().split("\0")):
        if (REPO / name).is_file():
            (to / name).parent.mkdir(parents=True, exist_ok=True)
            (to / name).write_bytes((REPO / name).read_bytes())
    return to
