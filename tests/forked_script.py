"""An environment's `bin/gatehouse` whose commands are forks of one process that has imported gatehouse.

The docs' blocks call `.venv/bin/gatehouse` as a user types it, a dozen times; each paid Python's start and the
imports of dlt, pyarrow and the commands (a second and more of processor), the same each time. Here `bin/gatehouse`
is a small script (Python without `site`, standard library only) that hands its argv, environment, folder and its
own standard input, output and error (the descriptors themselves) over a Unix socket to a server started once;
the server forks, the fork takes them as its own and runs what the installed script runs
(`gatehouse.pipelines.cli.command`), exiting as the script does (exit handlers and all), and the script exits with
the fork's code. What a command prints goes where the shell pointed the script's output: pipes and redirections
hold.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

SERVER = """\
import json, os, socket, sys

from gatehouse.pipelines.cli import command, main
import duckdb, gatehouse.pipelines.run.steps
main.build_parser()

listener = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
listener.bind(sys.argv[1])
listener.listen()
os.write(1, b"ready\\n")
while True:
    connection, _ = listener.accept()
    message, fds, _, _ = socket.recv_fds(connection, 1 << 20, 3)
    pid = os.fork()
    if pid == 0:
        listener.close()
        connection.close()
        request = json.loads(message)
        for fd, passed in enumerate(fds):
            os.dup2(passed, fd)
            os.close(passed)
        os.chdir(request["cwd"])
        os.environ.clear()
        os.environ.update(request["env"])
        sys.argv = request["argv"]
        sys.exit(command())
    for passed in fds:
        os.close(passed)
    _, status = os.waitpid(pid, 0)
    connection.send(str(os.waitstatus_to_exitcode(status)).encode())
    connection.close()
"""

CLIENT = """\
#!{python} -S
import json, os, socket, sys

connection = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
connection.connect({socket!r})
request = {{"argv": sys.argv, "env": dict(os.environ), "cwd": os.getcwd()}}
socket.send_fds(connection, [json.dumps(request).encode()], [0, 1, 2])
code = int(connection.recv(64))
sys.exit(128 - code if code < 0 else code)
"""


class ForkedScript:
    """`environment(folder)`: a copy of this environment in `folder`, every entry a link to this one's but
    `bin/gatehouse`, which forks its commands from the server (started with `env` in `cwd`); `close()` stops it."""

    def __init__(self, env: dict[str, str], cwd: Path, socket_path: Path) -> None:
        self.socket = socket_path
        self._server = subprocess.Popen([sys.executable, "-c", SERVER, str(socket_path)], env=env, cwd=cwd,
                                        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE)  # fmt: skip
        assert self._server.stdout is not None
        assert self._server.stdout.readline() == b"ready\n", "the command server did not start (its error is above)"

    def environment(self, folder: Path) -> Path:
        prefix = Path(sys.prefix)
        folder.mkdir()
        for entry in prefix.iterdir():
            if entry.name == "pyvenv.cfg":
                shutil.copyfile(entry, folder / entry.name)
            elif entry.name != "bin":
                (folder / entry.name).symlink_to(entry, target_is_directory=entry.is_dir())
        (folder / "bin").mkdir()
        for entry in (prefix / "bin").iterdir():
            if entry.name != "gatehouse":
                (folder / "bin" / entry.name).symlink_to(entry)
        script = folder / "bin" / "gatehouse"
        script.write_text(CLIENT.format(python=sys.executable, socket=str(self.socket)), encoding="utf-8")
        os.chmod(script, 0o755)
        return folder

    def close(self) -> None:
        self._server.kill()
        self._server.wait()
