"""The notebooks of one `gatehouse report`, executed by IPython in processes of the command's own.

A Jupyter kernel is a new Python that imports IPython, ZeroMQ, pandas, matplotlib and dlt before its first cell:
a large part of a report's time, on a machine whose cores the command's own work already keeps busy. A lane
here is a process forked from the command, which starts with dlt and the package already imported: it imports
what the notebooks draw with while the command refreshes the views, waits for the word to start, then runs its
notebooks one after the other in IPython's shell (the one a Jupyter kernel runs: the same display system, `%`
magics and last-expression results), each from an empty namespace (`%reset -f`) as in a fresh kernel. What a cell
displays, prints and returns becomes the notebook's outputs, as a kernel's messages would; figures left open at
a cell's end are shown, as Jupyter's inline backend shows them. Each executed notebook (or the one line of why it
failed) goes back to the command over a pipe.

Where forking is unsafe (another thread runs in the command: a scheduler's process) or impossible (Windows), a
lane is a new Python instead (multiprocessing's spawn), which costs its imports but nothing else changes.
"""

from __future__ import annotations

import base64
import contextlib
import logging
import multiprocessing
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from importlib import resources
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from gatehouse.pipelines.errors import GatehouseError

log = logging.getLogger("gatehouse.report")

# Package data: the checkout's notebooks/ in an editable install, site-packages/gatehouse/notebooks from a wheel.
NOTEBOOK_DIR = Path(str(resources.files("gatehouse.notebooks")))
# a cell silent for this long is stopped: the report says which notebook did not finish
CELL_TIMEOUT_S = 300.0
# a lane's process not started (its imports not done) after this long is stopped: the report says so
START_TIMEOUT_S = 300.0


class LaneFailed(GatehouseError):
    """A lane's process ended, or one of its cells ran over the time limit: its notebooks did not finish."""


def run_lanes(conns: list[Connection], ended: Connection, summarise: Callable[[str], str]) -> None:
    """The lanes' whole life, from the first lane's process: what the notebooks import, imported once; then each
    further lane forked from it, everything imported, while the first runs its own (`run_lane`). How each forked
    lane ended (its exit code, a signal's negative) goes to the command on `ended`."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C stops the command, which stops its lanes
    # what a lane itself prints goes nowhere, as a kernel's own output: its notebooks' is in their outputs
    null = os.open(os.devnull, os.O_WRONLY)
    for descriptor in (1, 2):
        os.dup2(null, descriptor)
    os.chdir(NOTEBOOK_DIR)  # where Jupyter starts a notebook's kernel
    os.environ.setdefault("MPLBACKEND", "Agg")  # a cell that draws with matplotlib: no window, an image
    logging.disable(logging.CRITICAL)  # a forked lane shares the command's log handlers: it says nothing itself
    try:
        _Shell.prepare()
    except Exception as err:
        for conn in conns:
            _say_failed(conn, err)
        return
    forked = []
    for conn in conns[1:]:
        pid = os.fork()
        if pid == 0:
            for other in (*conns, ended):
                if other is not conn:
                    other.close()
            try:
                run_lane(conn, summarise)
            finally:
                os._exit(0)
        forked.append(pid)
        conn.close()
    run_lane(conns[0], summarise)
    for pid in forked:
        _, status = os.waitpid(pid, 0)
        with contextlib.suppress(OSError):
            ended.send((pid, os.waitstatus_to_exitcode(status)))  # as multiprocessing gives the first lane's


def run_lane(conn: Connection, summarise: Callable[[str], str]) -> None:
    """One lane, its process prepared: the word to start, each notebook in turn, then the terminal summary if asked
    (`summarise(label)`, after the summary's queries were read ahead while the notebooks ran). Every failure goes
    back as one line."""
    try:
        shell = _Shell.start()
        conn.send(("ready", os.getpid()))
        order = conn.recv()
        if order is None:  # the command stopped before the notebooks (the views could not be refreshed)
            return
        env, folder, names, summary = order
        from gatehouse.pipelines.reports import notebook as helpers

        os.environ.update(env)
        helpers.share_reads()
        if summary is not None:
            helpers.read_ahead(summary[1])
        for name in names:
            conn.send(("notebook", name, *shell.execute(Path(folder) / f"{name}.ipynb", conn)))
        if summary is not None:
            conn.send(("summary", summarise(summary[0])))
    except (BrokenPipeError, EOFError, ConnectionResetError):
        pass  # the command has gone: nothing to say to anyone
    except Exception as err:
        _say_failed(conn, err)


def _say_failed(conn: Connection, err: Exception) -> None:
    with contextlib.suppress(OSError):
        conn.send(("failed", str(err) if isinstance(err, GatehouseError) else f"{type(err).__name__}: {err}"))


class _Shell:
    """IPython's shell in this process, its outputs gathered into the cell being run."""

    def __init__(self, shell: Any) -> None:
        self.shell = shell

    @staticmethod
    def prepare() -> None:
        """What every notebook imports first, imported before the word to start (and before the other lanes are
        forked); then what was imported set aside from the garbage collector, which otherwise walks it all at each
        `%reset -f` and each full collection."""
        import gc

        import nbformat  # noqa: F401
        import pandas  # noqa: F401
        from IPython.core.interactiveshell import InteractiveShell  # noqa: F401

        from gatehouse.pipelines.reports import notebook

        notebook.import_readers()
        gc.freeze()

    @classmethod
    def start(cls) -> _Shell:
        """The shell of this lane, made after the fork: it holds no thread nor file (no history is kept)."""
        from IPython.core.interactiveshell import InteractiveShell

        return cls(_capturing_shell(InteractiveShell))

    def execute(self, path: Path, conn: Connection) -> tuple[str | None, str | None]:
        """(the executed notebook as JSON, None), or (None, why it failed). Each cell's start is said on `conn`: the
        command can tell a cell that runs over the limit."""
        import nbformat

        if not path.is_file():
            raise GatehouseError(f"notebook {path} is missing: gatehouse report runs from a checkout of the project")
        notebook = nbformat.read(path, as_version=4)
        self.shell.run_line_magic("reset", "-f")
        count = 0
        for cell in notebook.cells:
            if cell.cell_type != "code":
                continue
            count += 1
            conn.send(("cell", count))
            outputs: list[dict] = []
            with _gathered(self.shell, outputs, count):
                result = self.shell.run_cell(cell.source, store_history=False)
                if result.success:
                    _show_open_figures()
            cell.outputs = [nbformat.from_dict(output) for output in outputs]
            cell.execution_count = count
            failure = result.error_before_exec or result.error_in_exec
            if failure is not None:
                return None, f"notebook {path.name} failed: {type(failure).__name__}: {failure}"
        return nbformat.writes(notebook), None


def _capturing_shell(base: Any) -> Any:
    """The shell, its displays and results going to the cell's outputs (`_gathered`), not to the terminal."""
    from IPython.core.displayhook import DisplayHook
    from IPython.core.displaypub import DisplayPublisher
    from traitlets import Type

    class Publisher(DisplayPublisher):
        outputs: list | None = None

        def publish(
            self,
            data: dict,
            metadata: dict | None = None,
            source: Any = None,
            *,
            transient: Any = None,
            update: bool = False,
            **kwargs: Any,
        ) -> None:
            if self.outputs is not None:
                self.outputs.append({"output_type": "display_data", "data": _encoded(data), "metadata": metadata or {}})

        def clear_output(self, wait: bool = False) -> None:
            if self.outputs is not None:
                self.outputs.clear()

    class Results(DisplayHook):
        outputs: list | None = None
        count = 0

        def write_output_prompt(self) -> None:
            pass

        def write_format_data(self, format_dict: dict, md_dict: dict | None = None) -> None:
            if self.outputs is not None:
                self.outputs.append(
                    {
                        "output_type": "execute_result",
                        "data": _encoded(format_dict),
                        "metadata": md_dict or {},
                        "execution_count": self.count,
                    }
                )

        def finish_displayhook(self) -> None:
            pass

    class Shell(base):
        display_pub_class = Type(Publisher)
        displayhook_class = Type(Results)

    from traitlets.config import Config

    # no history: a kernel's would go to an SQLite file in the user's IPython folder, written by a thread
    config = Config()
    config.HistoryManager.enabled = False
    return Shell.instance(config=config, colors="NoColor")  # tracebacks in the outputs as plain text


@contextlib.contextmanager
def _gathered(shell: Any, outputs: list, count: int) -> Iterator[None]:
    """While a cell runs: its displays, result, printed text and tracebacks into `outputs`."""
    saved = sys.stdout, sys.stderr
    shell.display_pub.outputs = shell.displayhook.outputs = outputs
    shell.displayhook.count = count
    sys.stdout, sys.stderr = _Stream("stdout", outputs), _Stream("stderr", outputs)
    try:
        yield
    finally:
        sys.stdout, sys.stderr = saved
        shell.display_pub.outputs = shell.displayhook.outputs = None


class _Stream:
    """A cell's stdout or stderr: consecutive writes to one stream are one output, as Jupyter shows them."""

    def __init__(self, name: str, outputs: list) -> None:
        self.name, self.outputs = name, outputs

    def write(self, text: str) -> int:
        last = self.outputs[-1] if self.outputs else None
        if last is not None and last.get("output_type") == "stream" and last["name"] == self.name:
            last["text"] += text
        else:
            self.outputs.append({"output_type": "stream", "name": self.name, "text": text})
        return len(text)

    def flush(self) -> None:
        pass

    def isatty(self) -> bool:
        return False


def _encoded(data: dict) -> dict:
    """A display's data as a notebook holds it: binary (a PNG) as base64 text, as a kernel sends it."""
    return {mime: base64.b64encode(value).decode("ascii") if isinstance(value, bytes) else value for mime, value in data.items()}


def _show_open_figures() -> None:
    """Figures a cell left open, shown as Jupyter's inline backend shows them at the cell's end. The notebooks draw
    their charts as SVG (pipelines/reports/charts.py): only a cell added by hand uses matplotlib."""
    if "matplotlib.pyplot" not in sys.modules:
        return
    import matplotlib.pyplot as plt

    from gatehouse.pipelines.reports.notebook import show

    for number in plt.get_fignums():
        show(plt.figure(number), "chart")


def start_method() -> str:
    """Fork where that is safe: only this thread runs (a scheduler's process runs others, whose locks a fork would
    copy held) and the platform forks; else spawn."""
    return "fork" if "fork" in multiprocessing.get_all_start_methods() and threading.active_count() == 1 else "spawn"


class Lanes:
    """The lanes of one report: the first a process of the command's (forked where `start_method` allows, else
    spawned), the others forked from it once it has imported what the notebooks use; a pipe to each."""

    def __init__(self, count: int, summarise: Callable[[str], str]) -> None:
        method = start_method()
        log.debug("the notebooks' first lane: %s (%d thread(s) in this process)", method, threading.active_count())
        context: Any = multiprocessing.get_context(method)
        if not hasattr(os, "fork"):
            count = 1  # the other lanes are forked from the first: where nothing forks, one lane runs them all
        pipes = [context.Pipe() for _ in range(count)]
        self.ended, ended = context.Pipe(duplex=False)
        theirs = [pipe[1] for pipe in pipes]
        self.process = context.Process(target=run_lanes, args=(theirs, ended, summarise), name="gatehouse-notebooks", daemon=True)
        self.process.start()
        for conn in (*theirs, ended):
            conn.close()
        self.lanes = [Lane(self, conn) for conn, _ in pipes]
        self.lanes[0].pid = self.process.pid
        self.exit_codes: dict[int, int] = {}

    def how_it_ended(self, lane: Lane) -> str:
        """How a lane's process ended, as its exit code says: the first lane's from multiprocessing, a forked one's
        from the first lane, which waits for it."""
        if lane is self.lanes[0] or lane.pid is None:
            self.process.join(5)
            code = self.process.exitcode
        else:
            while lane.pid not in self.exit_codes and self.ended.poll(5):
                try:
                    pid, code = self.ended.recv()
                except (EOFError, OSError):
                    break
                self.exit_codes[pid] = code
            code = self.exit_codes.get(lane.pid)
        if code is None:
            return ""
        return f" (signal {signal.Signals(-code).name})" if code < 0 else f" (exit status {code})"

    def stop(self) -> None:
        """Every lane stopped and reaped, whatever it was doing."""
        for lane in self.lanes:
            lane.stop()
        self.process.join(0.5 if self.process.exitcode is None else None)
        if self.process.exitcode is None:
            self.process.kill()
            self.process.join()
        self.ended.close()


class Lane:
    """One lane of notebooks: the pipe to its process."""

    def __init__(self, group: Lanes, conn: Connection) -> None:
        self.group, self.conn = group, conn
        self.pid: int | None = None  # the first lane's from the start, a forked lane's from its first message
        self.ready = False  # its process has started: its imports are done
        self.started = False
        self.finished = False  # all it was asked for received, or its process gone: nothing of it left to stop
        self.makes_summary = False

    def start(
        self, env: dict[str, str], names: tuple[str, ...], summary: tuple[str, list[str]] | None, folder: Path = NOTEBOOK_DIR
    ) -> None:
        """The word to start: where to read, which notebooks of `folder`, and whether to make the summary afterwards
        (its label and the queries it reads, read ahead). Sent at once, not once the process has started: it reads
        the word when its imports are done, and the command meanwhile does its own part (the CSV, the exporter) on
        the core the imports leave."""
        self.conn.send((env, str(folder), names, summary))
        self.started, self.makes_summary = True, summary is not None

    def results(self, names: tuple[str, ...]) -> Iterator[tuple[str, str | None, str | None]]:
        """(name, the executed notebook's JSON, None) or (name, None, why it failed), as each finishes."""
        for name in names:
            _, done, notebook, failure = self._receive(f"notebook {name}.ipynb did not finish")
            self.finished = done == names[-1] and not self.makes_summary
            yield done, notebook, failure

    def summary(self) -> str:
        made = str(self._receive("the summary did not finish")[1])
        self.finished = True
        return made

    def _receive(self, what: str) -> tuple:
        """The lane's next message other than its start (its process id, kept) or a cell's. A lane silent for the
        time limit (its start, or a cell, over it), gone, or failing is one line."""
        while True:
            waiting, limit = (what, CELL_TIMEOUT_S) if self.ready else ("the notebooks' process did not start", START_TIMEOUT_S)
            if not self.conn.poll(limit):
                self.stop()
                raise LaneFailed(f"{waiting}: nothing finished in {limit:g} s")
            try:
                message = self.conn.recv()
            except (EOFError, OSError):
                self.finished = True
                raise LaneFailed(f"{waiting}: its process ended{self.group.how_it_ended(self)}") from None
            if message[0] == "failed":
                raise LaneFailed(f"{waiting}: {message[1]}")
            if message[0] == "ready":
                self.pid, self.ready = message[1], True
            elif message[0] != "cell":
                return message

    def kill(self) -> None:
        """The lane's process killed if it is still at work (its pipe then ends: whoever waits on it wakes). A forked
        lane that has not said its process id yet finds its pipe closed (`stop`) when it does, and ends there."""
        if self.started and self.pid is not None and not self.finished:
            self.finished = True
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGKILL)

    def stop(self) -> None:
        """The lane told to stop before it started, or killed if it runs; its pipe closed."""
        if not self.started:
            with contextlib.suppress(OSError):
                self.conn.send(None)
            self.started = True
        self.kill()
        if not self.conn.closed:
            self.conn.close()
