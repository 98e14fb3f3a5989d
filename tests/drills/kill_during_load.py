"""`gatehouse ARGS...`, killed with SIGKILL the moment dlt has committed its first completed load job (with
`KILL_AFTER_JOB=<prefix>` in the environment: its first completed job whose file name starts so, e.g. `gates.`).

The fault drills run a command that imports this first (`ForkedCommands.run(..., first=...)`), or run it instead of
the `gatehouse` script, to stop a run in the middle of its load step at a precise, repeatable point: the extraction
and normalisation are done, one load job has reached the destination and been recorded as completed in the load
package, the others have not.
"""

from __future__ import annotations

import os
import signal
import sys

from dlt.common.storages.load_package import PackageStorage

from gatehouse.pipelines.cli.main import main

_complete_job = PackageStorage.complete_job


def _complete_job_then_die(self: PackageStorage, load_id: str, file_name: str) -> str:
    moved = _complete_job(self, load_id, file_name)
    if not file_name.startswith(os.environ.get("KILL_AFTER_JOB", "")):
        return moved
    sys.stdout.flush()
    sys.stderr.write(f"kill_during_load: SIGKILL after completing {file_name}\n")
    sys.stderr.flush()
    os.kill(os.getpid(), signal.SIGKILL)
    return moved


PackageStorage.complete_job = _complete_job_then_die

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
