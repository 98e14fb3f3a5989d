"""The benchmark's processes: each measured job in its own child, the twin in another.

Peak memory is the job's alone, polled every few milliseconds: the resident set of the job plus
the unique set of each process it starts (dlt's forked normalize workers, whose shared pages the
job's resident set already counts), and the kernel's own high-water mark (`ru_maxrss` from `wait4`,
the largest single process of the tree); the larger of the two is reported.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psutil

REPO = Path(__file__).resolve().parents[1]
POLL_S = 0.02
TIMELINE_STEP_S = 0.5
JOB_TIMEOUT_S = 900.0  # what the benches give one measured job before killing it


@dataclass(frozen=True)
class Measured:
    returncode: int
    process_wall_s: float
    peak_rss_bytes: int
    result: dict[str, Any]
    # (seconds since the job started, resident bytes of its tree), about two a second: where memory peaks
    rss_timeline: tuple[tuple[float, int], ...] = ()


def child_environment(extra: dict[str, str] | None = None) -> dict[str, str]:
    env = dict(os.environ)
    # The job runs in its own directory (no project .dlt/ config) but imports from this checkout.
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")]))
    env["RUNTIME__DLTHUB_TELEMETRY"] = "false"
    env.setdefault("RUNTIME__LOG_LEVEL", "WARNING")
    env.update(extra or {})
    return env


def tree_rss(process: psutil.Process) -> int:
    """Resident bytes of `process` plus what its children hold alone.

    dlt forks its normalize workers: each starts with the parent's pages, shared until written, and
    summing resident sets would count those pages once per process. A child's unique set (the pages
    only it maps, copies made on write included) is what it adds to the machine's memory.
    """
    try:
        total = process.memory_info().rss
        children = process.children(recursive=True)
    except psutil.Error:
        return 0
    for child in children:
        try:
            total += child.memory_full_info().uss
        except psutil.Error:
            pass
    return total


def run_job(spec: dict[str, Any], jobdir: Path, timeout_s: float) -> Measured:
    """Runs `python -m bench.job` on `spec` in `jobdir`; returns what it measured and what it reported."""
    jobdir.mkdir(parents=True, exist_ok=True)
    spec_path, result_path = jobdir / "spec.json", jobdir / "result.json"
    spec_path.write_text(json.dumps(spec))
    result_path.unlink(missing_ok=True)
    with open(jobdir / "job.log", "ab") as log:
        started = time.perf_counter()
        child = subprocess.Popen(
            [sys.executable, "-m", "bench.job", str(spec_path), str(result_path)],
            cwd=jobdir,
            env=child_environment(),
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        watched = psutil.Process(child.pid)
        peak, status, maxrss_kb = 0, None, 0
        timeline: list[tuple[float, int]] = []
        window_peak, window_start = 0, started
        while status is None:
            rss = tree_rss(watched)
            peak, window_peak = max(peak, rss), max(window_peak, rss)
            now = time.perf_counter()
            if now - window_start >= TIMELINE_STEP_S:
                timeline.append((round(window_start - started, 2), window_peak))
                window_peak, window_start = 0, now
            pid, wait_status, usage = os.wait4(child.pid, os.WNOHANG)
            if pid:
                status, maxrss_kb = wait_status, usage.ru_maxrss
                break
            if time.perf_counter() - started > timeout_s:
                child.kill()
            time.sleep(POLL_S)
        wall = time.perf_counter() - started
        child.returncode = os.waitstatus_to_exitcode(status)
    if result_path.exists():
        result = json.loads(result_path.read_text())
    else:
        result = {"ok": False, "error": f"no result (exit code {child.returncode}); see {jobdir / 'job.log'}"}
    return Measured(child.returncode, wall, max(peak, maxrss_kb * 1024), result, tuple(timeline))


class TwinProcess:
    """`python -m bench.twin_control` in a child process, driven by JSON lines."""

    def __init__(
        self,
        size: str,
        latency_ms: int,
        rate_limit: str,
        seed: int = 0,
        max_limit: int | None = None,
        logdir: Path | None = None,
    ) -> None:
        argv = [
            sys.executable,
            "-m",
            "bench.twin_control",
            "--size",
            size,
            "--seed",
            str(seed),
            "--latency-ms",
            str(latency_ms),
            "--rate-limit",
            rate_limit,
        ]
        if max_limit is not None:
            argv += ["--max-limit", str(max_limit)]
        # the twin's log stays open as long as the twin runs: stop() closes it
        self._stderr = open(logdir / f"twin-{size}.log", "ab") if logdir else subprocess.DEVNULL  # noqa: SIM115
        self.process = subprocess.Popen(
            argv,
            cwd=REPO,
            env=child_environment(),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._stderr,
            text=True,
            bufsize=1,
        )
        ready = self._read()
        self.base_url: str = ready["base_url"]
        self.api_key: str = ready["api_key"]

    def _read(self) -> dict[str, Any]:
        line = self.process.stdout.readline()
        if not line:
            raise RuntimeError(f"the benchmark twin stopped (exit code {self.process.poll()})")
        return json.loads(line)

    def ask(self, cmd: str, **args: Any) -> dict[str, Any]:
        self.process.stdin.write(json.dumps({"cmd": cmd, **args}) + "\n")
        self.process.stdin.flush()
        return self._read()

    def close(self) -> None:
        if self.process.poll() is None:
            try:
                self.ask("quit")
                self.process.wait(timeout=10)
            except (OSError, RuntimeError, subprocess.TimeoutExpired):
                self.process.kill()
                self.process.wait()
        if self._stderr is not subprocess.DEVNULL:
            self._stderr.close()

    def __enter__(self) -> TwinProcess:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
