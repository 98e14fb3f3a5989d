"""The shell commands of the README and docs/*.md run as written.

Every fenced `sh`/`bash`/`shell` block is run verbatim, in order, file by file, with bash's `-e` and `pipefail`, from a
folder laid out as a clone (`.venv` is this environment, `.dlt/config.toml` the repository's): the demo's commands
first, so the later blocks read what it loaded. A block that cannot run offline (it needs your console, your
warehouse, the package index, or would delete what you loaded) carries the mark MARK, with its reason, on the line
just before its fence; it is not run, and a block without the mark that fails fails this test.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.forked_script import ForkedScript
from tests.fresh_clone import REPO, copy_tracked_files

DOCUMENTS = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
MARK = re.compile(r"<!-- not run by the docs test: (?P<reason>.+?) -->")
FENCE = re.compile(r"^```(?P<language>\S*)[^\n]*\n(?P<body>.*?)^```\s*$", re.M | re.S)
SHELLS = {"sh", "bash", "shell"}


@dataclass(frozen=True)
class Block:
    document: Path
    line: int
    body: str
    reason: str | None  # why it is not run; None: run

    def __str__(self) -> str:
        return f"{self.document.relative_to(REPO)}:{self.line}"


def shell_blocks(document: Path) -> list[Block]:
    text = document.read_text()
    blocks = []
    for fence in FENCE.finditer(text):
        if fence["language"] not in SHELLS:
            continue
        before = text[: fence.start()].rstrip("\n").rsplit("\n", 1)[-1]
        mark = MARK.fullmatch(before.strip())
        blocks.append(Block(document, text.count("\n", 0, fence.start()) + 1, fence["body"], mark["reason"] if mark else None))
    return blocks


BLOCKS = [block for document in DOCUMENTS for block in shell_blocks(document)]


def test_every_shell_block_is_run_or_says_why_not():
    assert BLOCKS, "the README has shell blocks"
    for block in BLOCKS:
        assert block.reason is None or len(block.reason.split()) >= 3, f"{block}: say why it is not run"
    run = [block for block in BLOCKS if block.reason is None]
    assert run and "gatehouse run --demo" in run[0].body, "the demo's commands run first: the blocks after read it"


@pytest.fixture(scope="module")
def clone(tmp_path_factory) -> Iterator[tuple[Path, dict[str, str]]]:
    """A folder as a clone after `make install`, and the environment its commands run in: `.venv` (this
    environment, its `bin/gatehouse` forking each command from one process that imported gatehouse once,
    tests/forked_script.py) and the repository's `.dlt/config.toml`."""
    folder = tmp_path_factory.mktemp("clone")
    env = {name: value for name, value in os.environ.items() if name != "DLT_PROJECT_DIR"}  # the clone's own .dlt/
    env.update(
        PATH=f"{folder / '.venv' / 'bin'}{os.pathsep}{env['PATH']}",
        DLT_DATA_DIR=str(folder / "dlt-global"),
        HOME=str(folder),
        RUNTIME__LOG_LEVEL="WARNING",
    )
    with tempfile.TemporaryDirectory(prefix="gatehouse-docs-") as sockets:  # a socket's path is short
        script = ForkedScript(env, folder, Path(sockets) / "gatehouse")
        try:
            script.environment(folder / ".venv")
            (folder / ".dlt").mkdir()
            shutil.copyfile(REPO / ".dlt" / "config.toml", folder / ".dlt" / "config.toml")
            yield folder, env
        finally:
            script.close()


def test_the_docs_shell_commands_run_as_written(clone):
    folder, env = clone
    for block in (block for block in BLOCKS if block.reason is None):
        done = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", block.body], cwd=folder, env=env,
                              capture_output=True, text=True, timeout=300)  # fmt: skip
        assert done.returncode == 0, (
            f"{block} exited {done.returncode}:\n{block.body}\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}"
        )
    assert (folder / "reports" / "stale_gates.html").is_file()


def install_line() -> str:
    """The README's line that installs gatehouse for real use, as written there."""
    [block] = [block for block in shell_blocks(REPO / "README.md") if " -m venv " in block.body]
    assert block.reason is not None, "it needs the package index: not run with the others, in the demo's clone"
    return block.body


def test_the_readmes_install_line_installs_gatehouse(tmp_path):
    """The README's install line, run as written in a clone of the tracked files, offline: the package index is
    off (PIP_NO_INDEX), and every dependency is found installed already on PYTHONPATH, a folder of links to this
    environment's site-packages but for gatehouse itself and pip (the new environment's own pip runs). What a user
    gets from the index is not tested here; that `pip install .` builds gatehouse, finds every requirement met at the
    versions pyproject.toml asks for, and installs a `gatehouse` command that starts, is."""
    clone = copy_tracked_files(tmp_path / "clone")
    installed = tmp_path / "installed"
    installed.mkdir()
    for entry in Path(sysconfig.get_paths()["purelib"]).iterdir():
        if not re.match(r"(gatehouse|__editable__|pip\b|pip-)", entry.name):
            (installed / entry.name).symlink_to(entry)
    env = {name: value for name, value in os.environ.items() if not name.startswith(("PIP_", "PYTHON", "VIRTUAL_ENV"))}
    env.update(
        # `python3` is the interpreter this environment was made from: the linked packages are built for it
        PATH=f"{Path(sys._base_executable).parent}{os.pathsep}/usr/bin{os.pathsep}/bin",
        HOME=str(tmp_path),
        PYTHONPATH=str(installed),
        PIP_NO_INDEX="1",
        # pip reads this variable inverted: "0" turns build isolation off, so setuptools is the one installed here
        # (an isolated build would fetch it from the index)
        PIP_NO_BUILD_ISOLATION="0",
        PIP_CONFIG_FILE=os.devnull,
        PIP_DISABLE_PIP_VERSION_CHECK="1",
    )
    done = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", install_line()], cwd=clone, env=env,
                          capture_output=True, text=True, timeout=300)  # fmt: skip
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "Successfully installed gatehouse-console-" in done.stdout
    python = clone / ".venv" / "bin" / "python"
    where = subprocess.run([python, "-c", "import gatehouse.pipelines as p; print(p.__file__)"], cwd=tmp_path, env=env,
                           capture_output=True, text=True, check=True)  # fmt: skip
    assert where.stdout.startswith(str(clone / ".venv" / "lib")), where.stdout  # the installed copy, not the checkout's
    helped = subprocess.run([clone / ".venv" / "bin" / "gatehouse", "--help"], cwd=tmp_path, env=env,
                            capture_output=True, text=True, timeout=120)  # fmt: skip
    assert helped.returncode == 0 and "usage: gatehouse" in helped.stdout, helped.stderr
