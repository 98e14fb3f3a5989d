"""The scanner's worker processes (without ripgrep) end when the scan ends, whatever the calling process does with
SIGTERM: a test runner's workers and some schedulers ignore it, and a pool that was stopped with it waited for ever."""

from __future__ import annotations

import subprocess
import sys
import textwrap

from tests.code_refs.test_scan import git, write

SCANS = textwrap.dedent("""
    import signal, sys
    from pathlib import Path
    from gatehouse.pipelines.code_refs.scan import Entity, Matcher, open_repository, scan_repository

    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    repository = open_repository(Path(sys.argv[1]))
    matcher = Matcher([Entity("gate", "new_checkout")])
    found = {len(scan_repository(repository, matcher, excludes=(), workers=2, use_ripgrep=False)[0]) for _ in range(40)}
    print(sorted(found))
""")


def test_forty_pool_scans_end_in_a_process_that_ignores_sigterm(tmp_path):
    write(tmp_path, {f"src/module_{index}.py": b'check_gate(user, "new_checkout")\n' for index in range(30)})
    git(tmp_path, "init", "-q")
    git(tmp_path, "add", ".")
    # subprocess.run's timeout kills with SIGKILL, which nothing ignores
    done = subprocess.run([sys.executable, "-c", SCANS, str(tmp_path)], capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stdout.strip()) == (0, "[30]"), done.stderr[-2000:]
