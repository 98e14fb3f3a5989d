"""The headless browser the report test opens the HTML reports in, and how `make test` gets it.

pip cannot install a browser, so `make test` runs this first, with the venv's Python before any package
is in it: silent when the browser is on PATH; as root it installs Debian's `chromium` with apt-get and
says so in one line; otherwise it stops with one line naming the command to run. No registry package
serves instead: pip's and npm's browser packages download a build when installed or first used, which
this project's machines cannot, and the one that ships its binary (npm's @sparticuz/chromium) never
finishes loading a page on Debian 12 (docs/decisions.md, "The headless browser").

The report test finds the browser with `find()`, the same lookup.
"""

from __future__ import annotations

import logging
import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Mapping

BROWSER = "chromium"  # Debian's package installs the command of the same name
DEBIAN_PACKAGE = "chromium"
INSTALL_COMMAND = f"apt-get install -y {DEBIAN_PACKAGE}"
# 2: the status `gatehouse` uses for "the machine or the input needs fixing", distinct from a test failure
NEEDS_THE_USER = 2

log = logging.getLogger("make test")

Runner = Callable[..., subprocess.CompletedProcess]


def find(path: str | None = None) -> str | None:
    """The browser's executable on PATH (or on `path`), or None."""
    return shutil.which(BROWSER, path=path)


def missing_line(*, apt_available: bool) -> str:
    """What a user who cannot install system packages here is told to do."""
    todo = f"run `sudo {INSTALL_COMMAND}`" if apt_available else f"install your system's {BROWSER} package"
    return (
        f"the report test opens the reports in the headless browser {BROWSER}, which is not installed: "
        f"{todo}, then `make test` again"
    )


def ensure(*, env: Mapping[str, str] | None = None, euid: int | None = None, run: Runner = subprocess.run) -> int:
    """Exit status for `make test`: 0 when the browser is there (installing it if root can), else 2."""
    env = dict(os.environ if env is None else env)
    euid = os.geteuid() if euid is None else euid
    search_path = env.get("PATH", os.defpath)
    if find(search_path):
        return 0
    apt_available = shutil.which("apt-get", path=search_path) is not None
    if euid != 0 or not apt_available:
        log.error(missing_line(apt_available=apt_available))
        return NEEDS_THE_USER
    log.warning("installing the headless browser for the report test: %s", INSTALL_COMMAND)
    # apt-get's own progress would bury the test results; only its reason for failing is shown
    apt_env = {**env, "DEBIAN_FRONTEND": "noninteractive"}
    # another install on the machine holds dpkg's lock for a while: wait for it rather than fail the tests
    install = ["apt-get", "install", "-y", "-qq", "-o", "DPkg::Lock::Timeout=300", DEBIAN_PACKAGE]
    for command in (["apt-get", "update", "-qq"], install):
        result = run(command, env=apt_env, capture_output=True, text=True, check=False)
        if result.returncode != 0:
            reason = next((line.strip() for line in reversed(result.stderr.splitlines()) if line.strip()), "no message")
            log.error(
                "could not install %s: `%s` exited %d (%s); run `%s` yourself to see why, then `make test` again",
                BROWSER,
                " ".join(command),
                result.returncode,
                reason,
                INSTALL_COMMAND,
            )
            return NEEDS_THE_USER
    if not find(search_path):
        log.error(
            "apt-get installed %s but no `%s` command is on PATH (%s): add its folder to PATH, then `make test` again",
            DEBIAN_PACKAGE,
            BROWSER,
            search_path,
        )
        return NEEDS_THE_USER
    return 0


def main() -> int:
    logging.basicConfig(format="make test: %(message)s", level=logging.INFO, stream=sys.stderr)
    return ensure()


if __name__ == "__main__":
    sys.exit(main())
