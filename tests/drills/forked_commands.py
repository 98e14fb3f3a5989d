"""`gatehouse` commands, each in a process of its own, forked from one that has imported the command's modules.

A drill that runs dozens of commands as a user runs them paid each one's start: Python's and the imports of dlt,
pyarrow and the commands (about a second and a half of processor each), the same for every command and touching
no setting. Here one server process, started with the drill's environment, imports them once; each command is then
a fork of it, which sets its own environment, folder and argv, points its standard output and error at files of its
own, runs what the installed script runs (`gatehouse.pipelines.cli.command`) and exits as the script does (exit
handlers and all). Whatever a command prints, logs or leaves behind is its own process's, as from the script.
"""

from __future__ import annotations

import itertools
import json
import subprocess
import sys
import threading
from concurrent.futures import Future
from pathlib import Path

from tests.secret_scan import CommandOutput

# The server: one request a line on stdin ({"id", "argv", "env", "cwd", "out", "err", "first"}), one fork each, several
# at once; "<id> <exit code>" on stdout as each ends. Its own lines are written with os.write, unbuffered, so that no
# fork inherits a half-written one.
SERVER = """\
import gc, importlib, json, os, select, sys

gc.disable()
from gatehouse.pipelines.cli import command, main
import duckdb, gatehouse.pipelines.run.steps
main.build_parser()
gc.freeze()
gc.enable()


def child(request):
    os.chdir(request["cwd"])
    os.environ.clear()
    os.environ.update(request["env"])
    for fd, path in ((0, os.devnull), (1, request["out"]), (2, request["err"])):
        target = os.open(path, os.O_RDONLY if fd == 0 else os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
        os.dup2(target, fd)
        os.close(target)
    sys.argv = ["gatehouse", *request["argv"]]
    if request["first"]:
        importlib.import_module(request["first"])
    return command()


def serve():
    pending, buffered, reading = {}, b"", True
    while reading or pending:
        if reading and select.select([0], [], [], 0.05)[0]:
            chunk = os.read(0, 65536)
            reading = bool(chunk)
            buffered += chunk
            while b"\\n" in buffered:
                line, buffered = buffered.split(b"\\n", 1)
                request = json.loads(line)
                pid = os.fork()
                if pid == 0:
                    return request
                pending[pid] = request["id"]
        while pending:
            pid, status = os.waitpid(-1, 0 if not reading else os.WNOHANG)
            if pid == 0:
                break
            os.write(1, f"{pending.pop(pid)} {os.waitstatus_to_exitcode(status)}\\n".encode())
    return None


request = serve()
if request is not None:
    sys.exit(child(request))
"""


class ForkedCommands:
    """`run(argv, env, cwd)`: a command's exit code, stdout and stderr, as `subprocess.run` of the script gives them;
    safe to call from several threads at once (the commands then run side by side). The server starts in `cwd` with
    `env`; each command's output is kept in `outputs` (a folder of the drill's)."""

    def __init__(self, env: dict[str, str], cwd: Path, outputs: Path) -> None:
        self._server = subprocess.Popen([sys.executable, "-c", SERVER], env=env, cwd=cwd,
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE)  # fmt: skip
        self._outputs = outputs
        self._numbers = itertools.count()
        self._lock = threading.Lock()
        self._waiting: dict[int, Future] = {}
        self._reader = threading.Thread(target=self._read_exits, daemon=True)
        self._reader.start()

    def _read_exits(self) -> None:
        for line in self._server.stdout:
            number, code = line.split()
            with self._lock:
                self._waiting.pop(int(number)).set_result(int(code))

    def run(
        self, argv: list[str], env: dict[str, str], cwd: Path, timeout: float = 300, first: str | None = None
    ) -> CommandOutput:
        """`first`: a module the command imports before it runs (one that patches what the drill breaks, e.g.
        tests.drills.kill_during_load; the server's environment must let it be found)."""
        done: Future = Future()
        with self._lock:
            number = next(self._numbers)
            out, err = self._outputs / f"{number}.out", self._outputs / f"{number}.err"
            self._waiting[number] = done
            request = {"id": number, "argv": argv, "env": env, "cwd": str(cwd), "out": str(out), "err": str(err), "first": first}
            self._server.stdin.write(json.dumps(request).encode() + b"\n")
            self._server.stdin.flush()
        code = done.result(timeout)
        return CommandOutput(argv, code, out.read_text(), err.read_text())

    def close(self) -> None:
        self._server.stdin.close()
        self._server.wait(timeout=300)
        self._reader.join(timeout=60)
