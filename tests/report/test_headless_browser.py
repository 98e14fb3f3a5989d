"""`make test`'s browser step (tools/headless_browser.py) against fake PATHs: the machine's browser is untouched."""

from __future__ import annotations

import logging
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tools import headless_browser

REPO = Path(__file__).resolve().parents[2]
INSTALLING = "installing the headless browser for the report test: apt-get install -y chromium"
STOP_WITH_APT = (
    "the report test opens the reports in the headless browser chromium, which is not installed: "
    "run `sudo apt-get install -y chromium`, then `make test` again"
)
STOP_WITHOUT_APT = (
    "the report test opens the reports in the headless browser chromium, which is not installed: "
    "install your system's chromium package, then `make test` again"
)
APT_COMMANDS = [["apt-get", "update", "-qq"], ["apt-get", "install", "-y", "-qq", "-o", "DPkg::Lock::Timeout=300", "chromium"]]


def executable(folder: Path, name: str, body: str = "exit 0") -> Path:
    path = folder / name
    path.write_text(f"#!/bin/sh\n{body}\n")
    path.chmod(0o755)
    return path


class FakeApt:
    """Stands in for apt-get: records each command; the install puts a `chromium` on PATH unless told not to."""

    def __init__(self, bin_dir: Path, *, fail: str | None = None, installs_on_path: bool = True):
        self.bin_dir, self.fail, self.installs_on_path = bin_dir, fail, installs_on_path
        self.commands: list[list[str]] = []
        self.environments: list[dict] = []

    def __call__(self, command, *, env, capture_output, text, check):
        assert capture_output and text and not check
        self.commands.append(command)
        self.environments.append(env)
        if command[1] == self.fail:
            stderr = "Reading package lists...\nE: Unable to locate package chromium\n"
            return subprocess.CompletedProcess(command, 100, "", stderr)
        if command[1] == "install" and self.installs_on_path:
            executable(self.bin_dir, "chromium")
        return subprocess.CompletedProcess(command, 0, "", "")


@pytest.fixture
def bin_dir(tmp_path) -> Path:
    folder = tmp_path / "bin"
    folder.mkdir()
    return folder


def lines(caplog) -> list[str]:
    return [record.getMessage() for record in caplog.records if record.name == "make test"]


@pytest.mark.parametrize("euid", [0, 1000])
def test_a_browser_on_path_is_all_it_takes(bin_dir, caplog, euid):
    executable(bin_dir, "chromium")
    executable(bin_dir, "apt-get")
    apt = FakeApt(bin_dir)
    with caplog.at_level(logging.INFO):
        assert headless_browser.ensure(env={"PATH": str(bin_dir)}, euid=euid, run=apt) == 0
    assert headless_browser.find(str(bin_dir)) == str(bin_dir / "chromium")
    assert apt.commands == [] and lines(caplog) == []


def test_root_installs_it_with_apt_and_says_so_in_one_line(bin_dir, caplog):
    executable(bin_dir, "apt-get")
    apt = FakeApt(bin_dir)
    with caplog.at_level(logging.INFO):
        assert headless_browser.ensure(env={"PATH": str(bin_dir), "HOME": "/root"}, euid=0, run=apt) == 0
    assert apt.commands == APT_COMMANDS
    assert [env["DEBIAN_FRONTEND"] for env in apt.environments] == ["noninteractive"] * 2
    assert all(env["PATH"] == str(bin_dir) and env["HOME"] == "/root" for env in apt.environments)
    assert lines(caplog) == [INSTALLING]


@pytest.mark.parametrize(
    ("euid", "with_apt", "line"),
    [
        (1000, True, STOP_WITH_APT),  # apt needs root: the user is told the exact command
        (1000, False, STOP_WITHOUT_APT),
        (0, False, STOP_WITHOUT_APT),  # not Debian: no package name to guess
    ],
)
def test_without_a_way_to_install_it_stops_in_one_line(bin_dir, caplog, euid, with_apt, line):
    if with_apt:
        executable(bin_dir, "apt-get")
    apt = FakeApt(bin_dir)
    with caplog.at_level(logging.INFO):
        assert headless_browser.ensure(env={"PATH": str(bin_dir)}, euid=euid, run=apt) == 2
    assert apt.commands == []
    assert lines(caplog) == [line]


@pytest.mark.parametrize(("failing", "ran"), [("update", APT_COMMANDS[:1]), ("install", APT_COMMANDS)])
def test_a_failed_apt_get_is_one_line_with_its_reason(bin_dir, caplog, failing, ran):
    executable(bin_dir, "apt-get")
    apt = FakeApt(bin_dir, fail=failing)
    with caplog.at_level(logging.INFO):
        assert headless_browser.ensure(env={"PATH": str(bin_dir)}, euid=0, run=apt) == 2
    assert apt.commands == ran
    command = " ".join(ran[-1])
    assert lines(caplog) == [
        INSTALLING,
        f"could not install chromium: `{command}` exited 100 (E: Unable to locate package chromium); "
        "run `apt-get install -y chromium` yourself to see why, then `make test` again",
    ]


def test_an_install_that_leaves_no_command_on_path_is_not_taken_for_success(bin_dir, caplog):
    executable(bin_dir, "apt-get")
    apt = FakeApt(bin_dir, installs_on_path=False)
    with caplog.at_level(logging.INFO):
        assert headless_browser.ensure(env={"PATH": str(bin_dir)}, euid=0, run=apt) == 2
    assert lines(caplog) == [
        INSTALLING,
        f"apt-get installed chromium but no `chromium` command is on PATH ({bin_dir}): add its folder to PATH, "
        "then `make test` again",
    ]


def run_the_script(bin_dir: Path) -> subprocess.CompletedProcess[str]:
    """tools/headless_browser.py as make runs it, with nothing on PATH but `bin_dir`."""
    return subprocess.run(
        [sys.executable, "tools/headless_browser.py"],
        cwd=REPO,
        capture_output=True,
        text=True,
        env={"PATH": str(bin_dir)},
        timeout=60,
    )


def test_the_script_as_make_runs_it(bin_dir, tmp_path):
    # the real program with a fake apt-get first on PATH: what a user sees on the terminal, whoever runs it
    log = tmp_path / "apt.log"
    executable(
        bin_dir,
        "apt-get",
        f'echo "$DEBIAN_FRONTEND $*" >> {log}\n'
        f'[ "$1" = install ] && printf "#!/bin/sh\\n" > {bin_dir}/chromium '
        f"&& /bin/chmod +x {bin_dir}/chromium\nexit 0",
    )
    result = run_the_script(bin_dir)
    if os.geteuid() == 0:
        assert (result.returncode, result.stderr) == (0, f"make test: {INSTALLING}\n")
        assert log.read_text().splitlines() == [f"noninteractive {' '.join(command[1:])}" for command in APT_COMMANDS]
        # the second time it finds what the first installed, and says nothing
        again = run_the_script(bin_dir)
        assert (again.returncode, again.stdout, again.stderr) == (0, "", "")
    else:
        assert (result.returncode, result.stderr) == (2, f"make test: {STOP_WITH_APT}\n")
        assert not log.exists()
    assert result.stdout == ""


def test_make_test_checks_the_browser_before_installing_or_testing():
    # a dry run in a folder whose .venv is absent lists every step in the order make would take them
    # under `make test` this runs inside make: without its variables, the nested make prints no "Entering directory"
    outside_make = {name: value for name, value in os.environ.items() if name not in {"MAKEFLAGS", "MFLAGS", "MAKELEVEL"}}
    result = subprocess.run(
        ["make", "--no-print-directory", "-n", "test", "VENV=.venv-dry-run-never-made"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
        env=outside_make,
    )
    assert result.returncode == 0, result.stderr
    steps = [line for line in result.stdout.splitlines() if line.strip()]
    browser = steps.index(".venv-dry-run-never-made/bin/python tools/headless_browser.py")
    assert browser == 1 and steps[0].endswith("-m venv .venv-dry-run-never-made")
    assert any(re.search(r"pip install .*-e '\.\[test,bench,dbt\]'", step) for step in steps[browser + 1 :])
    workers = min(4, (os.cpu_count() or 1) + 1)
    assert steps[-2:] == [
        ".venv-dry-run-never-made/bin/python -m compileall -q sources pipelines console_twin contract",
        f".venv-dry-run-never-made/bin/python -m pytest -q -n {workers} --dist loadgroup --no-loadscope-reorder",
    ]
