"""`make bench`, cleanup on real code: `gatehouse cleanup --dry-run` over public repositories that check gates through
the service's SDKs, for every gate id they check, once with every gate launched (`true`) and once with every gate
disabled (`false`).

Each repository is fetched at run time (`git clone --depth 1` into bench/out/cleanup_corpus/, not committed; a clone
already there is used again). The gate ids are those the repository checks with a literal id in one of the SDKs'
call forms (`pipelines/cleanup/rewrite.py`); the console data is one gate a id, Launched or Disabled, loaded into
DuckDB as the console source loads it. Each gate's diff is applied to the clone in turn, and each changed file is:

- parsed: Python's compiler, tree-sitter for the others (no error node);
- compiled where the toolchain is installed, alone, its dependencies not fetched: the rewrite must add no compiler
  error the original did not have (Python's compiler, `node --check`, `tsc --noResolve`, `javac`, `kotlinc`). A
  file whose dependencies are absent already fails, so an error of a later compiler phase may be masked there; Go
  (its packages need their modules) and Swift (no compiler installs) are parsed only.

The TODOs are the `TODO(gatehouse)` lines the diffs add: checks whose value the rules could not simplify.

    python -m bench.cleanup_corpus                      # clones from GitHub
    python -m bench.cleanup_corpus --mirror /srv/git    # clones <DIR>/<owner>+<name>/repo instead (a local copy)
"""

from __future__ import annotations

import argparse
import logging
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from bench.gates_db import load_gates
from bench.results_md import CLEANUP_CORPUS_SECTION, RESULTS_MD, write_section
from bench.results_md import OUT_DIR as BENCH_OUT_DIR
from gatehouse.pipelines.cleanup.rewrite import TODO, language_of, parse_errors
from gatehouse.pipelines.cleanup.rules import CALL_FORMS

log = logging.getLogger("bench.cleanup_corpus")

OUT_DIR = BENCH_OUT_DIR / "cleanup_corpus"
# Public repositories that check gates through the SDKs, in six languages: the SDKs' own tests and samples (many
# call sites, everyday shapes), a sample shop, and the service's code-references action's test files.
REPOSITORIES = (
    "statsig-io/python-sdk",
    "statsig-io/go-sdk",
    "statsig-io/java-server-sdk",
    "statsig-io/android-sdk",
    "statsig-io/ios-sdk",
    "statsig-io/samples",
    "oliver-statsig/fictshop",
    "statsig-io/github-code-references",
)
SKIPPED_FOLDERS = ("node_modules/", "dist/", "build/", "vendor/", "Pods/")
CALL = re.compile(
    r"\b(?:" + "|".join(sorted({form.name for form in CALL_FORMS})) + r")"
    r"\s*\(\s*(?:[^,()]{0,80},\s*)?(?:withName:\s*)?[\"'`]([A-Za-z0-9_.\-]{1,100})[\"'`]"
)
HEADER = re.compile(r"^# gatehouse cleanup: gate (.+), branch (\S+)$", re.M)
# what the command says of a file that names a gate and is left as it is (pipelines/cli/cleanup.py)
LEFT = re.compile(r"^  left as it is: .+?: ([^(\n]+)", re.M)
# a compiler's position, after the file's name (`:12:5:` javac and kotlinc, `(12,5):` tsc) or within (`line 12`)
POSITION = re.compile(r"^(:\d+)+:\s*|^\(\d+,\d+\):\s*|\b(line|col) \d+")


@dataclass
class Corpus:
    """What the bench found: by language, the repositories fetched and not, and the files left by why."""

    tallies: dict[str, Tally]
    fetched: list[str]
    missing: list[str]
    gate_ids: int
    left: Counter[str]
    seconds: float


@dataclass
class Tally:
    """What one language's changed files came to, over every gate and value."""

    files: int = 0
    parse: int = 0
    compiled: int = 0  # of those compiled: no error the original lacked
    compile_checked: int = 0
    todos: int = 0
    gates: set[str] = field(default_factory=set)


def clone(repository: str, mirror: Path | None) -> Path | None:
    """The repository's clone in OUT_DIR (one depth), None when it cannot be fetched."""
    target = OUT_DIR / "repos" / repository.replace("/", "+")
    if (target / ".git").exists():
        # an earlier run stopped half way may have left a gate's diff applied
        subprocess.run(["git", "-C", str(target), "checkout", "-q", "--", "."], check=True)
        return target
    source = f"file://{mirror / repository.replace('/', '+') / 'repo'}" if mirror else f"https://github.com/{repository}.git"
    done = subprocess.run(
        ["git", "clone", "--quiet", "--depth", "1", source, str(target)], capture_output=True, text=True, timeout=600
    )
    if done.returncode != 0:
        log.warning("%s: not fetched: %s", repository, done.stderr.strip().splitlines()[-1:] or done.returncode)
        return None
    return target


def checked_gate_ids(folder: Path) -> set[str]:
    """The gate ids the repository's code checks with a literal id in one of the SDKs' call forms."""
    listed = subprocess.run(["git", "-C", str(folder), "ls-files", "-z"], check=True, capture_output=True).stdout
    ids: set[str] = set()
    for name in listed.decode().split("\0"):
        if name and language_of(name) and not any(part in f"/{name}" for part in ("/" + s for s in SKIPPED_FOLDERS)):
            text = (folder / name).read_text(encoding="utf-8", errors="replace")
            ids |= set(CALL.findall(text))
    return ids


def console(database: Path, gate_ids: set[str], value: bool) -> None:
    """Every gate of `gate_ids` in `database`, launched (`value`) or disabled, marked stale, the views applied."""
    stamp = "2026-11-01T00:00:00+00:00"
    modified = 1_746_057_600_000  # 2025-05-01: long unchanged
    gates = [
        {
            "id": gate_id,
            "name": gate_id,
            "description": "",
            "idType": "userID",
            "lastModifierID": "console",
            "lastModifiedTime": modified,
            "lastModifierName": "CONSOLE API",
            "lastModifierEmail": None,
            "creatorID": "console",
            "createdTime": modified,
            "creatorName": "CONSOLE API",
            "creatorEmail": None,
            "targetApps": [],
            "holdoutIDs": [],
            "tags": [],
            "isEnabled": value,
            "status": "Launched" if value else "Disabled",
            "rules": [
                {
                    "id": "r1",
                    "baseID": "r1",
                    "name": "everyone",
                    "passPercentage": 100 if value else 0,
                    "conditions": [{"type": "public", "targetValue": None, "operator": None, "field": None, "customID": None}],
                    "environments": [],
                }
            ],
            "checksPerHour": 10,
            "type": "STALE",
            "typeReason": "STALE_PROBABLY_LAUNCHED" if value else "STALE_PROBABLY_UNLAUNCHED",
            "team": None,
            "reviewSettings": {"requiredReview": False, "allowedReviewers": []},
        }
        for gate_id in sorted(gate_ids)
    ]
    shutil.rmtree(database.parent / f"dlt-{value}", ignore_errors=True)
    database.unlink(missing_ok=True)
    load_gates(database, gates, stamp, f"bench_cleanup_corpus_{str(value).lower()}", database.parent / f"dlt-{value}")


def dry_run(folder: Path, database: Path, gate_ids: set[str]) -> tuple[str, str]:
    """`gatehouse cleanup --dry-run` of `gate_ids` on `folder`: (the diffs, what it said)."""
    command = [
        str(Path(sys.executable).with_name("gatehouse")),
        "cleanup",
        *sorted(gate_ids),
        "--repo",
        str(folder),
        "--duckdb",
        str(database),
        "--dry-run",
        "--lock-timeout",
        "60",
    ]
    done = subprocess.run(command, capture_output=True, text=True, timeout=1800)
    if done.returncode != 0:
        raise RuntimeError(f"gatehouse cleanup failed on {folder.name}: {done.stderr[-2000:]}")
    return done.stdout, done.stderr


def sections(diffs: str) -> list[tuple[str, str]]:
    """(gate id, its diff) for each gate the dry run changed."""
    heads = list(HEADER.finditer(diffs))
    return [
        (head.group(1), diffs[head.end() + 1 : heads[number + 1].start() if number + 1 < len(heads) else len(diffs)])
        for number, head in enumerate(heads)
    ]


def changed_files(diff: str) -> list[str]:
    return [line[len("+++ b/") :] for line in diff.splitlines() if line.startswith("+++ b/")]


# -- compiling the changed files alone ------------------------------------------------------------------------------

Errors = dict[str, Counter[str]]  # the kinds of a compiler's errors by file (each once), positions left out
SUMMARY = re.compile(r"^\d+ (errors?|warnings?)$")


def diagnostics(language: str, folder: Path, names: list[str], scratch: Path, cache: dict) -> Errors | None:
    """The compiler's errors for `names` (files of `language` in `folder`), compiled together and without their
    dependencies, by file (None: no compiler for the language here). Kept by content: a file set is compiled once."""
    key = (language, tuple((name, hash((folder / name).read_bytes())) for name in names))
    if key not in cache:
        cache[key] = _diagnostics(language, folder, names, scratch)
    return cache[key]


def _diagnostics(language: str, folder: Path, names: list[str], scratch: Path) -> Errors | None:
    if language == "python":
        return {
            name: Counter(
                set(POSITION.sub("", error) for error in parse_errors((folder / name).read_text(encoding="utf-8"), "python"))
            )
            for name in names
        }
    if language == "javascript":
        if not shutil.which("node"):
            return None
        return {
            name: _errors(
                subprocess.run(["node", "--check", name], cwd=folder, capture_output=True, text=True, timeout=600), [name]
            )[name]
            for name in names
        }
    command = _compiler(language, scratch)
    if command is None:
        return None
    return _errors(subprocess.run([*command, *names], cwd=folder, capture_output=True, text=True, timeout=1200), names)


def _errors(done: subprocess.CompletedProcess, names: list[str]) -> Errors:
    """The kinds of error in a compiler's output, each given to the file it names (to all when it names none).
    Kinds, not counts: without its dependencies a file's errors shift (javac reports `assertTrue` unknown once its
    argument resolves), so only an error of a kind the original did not have is the rewrite's. javac's "cannot
    find symbol" is told apart by the symbol's name, on the line after it."""
    found: Errors = {name: Counter() for name in names}
    lines = (done.stdout + done.stderr).splitlines()
    for number, line in enumerate(lines):
        if "error" not in line.lower() or "warning" in line.lower() or SUMMARY.match(line.strip()):
            continue
        owners = [name for name in names if line.startswith(name)] or names
        message = POSITION.sub("", line[len(owners[0]) :] if line.startswith(owners[0]) else line).strip()
        symbol = next(
            (
                later.split(":", 1)[1].split("(")[0].strip()
                for later in lines[number + 1 : number + 4]
                if later.strip().startswith("symbol:")
            ),
            "",
        )
        for name in owners:
            found[name][f"{message} {symbol}".strip()] = 1
    if done.returncode != 0 and not any(found.values()):
        for name in names:
            found[name][f"exit {done.returncode}"] = 1
    return found


def _compiler(language: str, scratch: Path) -> list[str] | None:
    node_bin = Path(__file__).resolve().parents[1] / ".venv" / "node" / "node_modules" / ".bin"
    if language in ("typescript", "tsx"):
        tsc = shutil.which("tsc") or shutil.which("tsc", path=str(node_bin))
        return (
            None
            if tsc is None
            else [
                tsc,
                "--noEmit",
                "--noResolve",
                "--isolatedModules",
                "--skipLibCheck",
                "--jsx",
                "preserve",
                "--target",
                "es2020",
                "--module",
                "esnext",
            ]
        )
    if language == "java" and shutil.which("javac"):
        return ["javac", "-proc:none", "-nowarn", "-Xmaxerrs", "100000", "-d", str(scratch)]
    if language == "kotlin" and shutil.which("kotlinc"):
        return ["kotlinc", "-nowarn", "-d", str(scratch)]
    return None


# -- the measure ----------------------------------------------------------------------------------------------------


def measure_gate(folder: Path, gate_id: str, diff: str, tallies: dict[str, Tally], cache: dict) -> None:
    """`diff` applied to the clone, its changed files parsed and compiled beside the originals, then undone."""
    by_language: dict[str, list[str]] = {}
    for name in changed_files(diff):
        by_language.setdefault(language_of(name) or "", []).append(name)
    with tempfile.TemporaryDirectory() as scratch_dir:
        scratch = Path(scratch_dir)
        before = {language: diagnostics(language, folder, names, scratch, cache) for language, names in by_language.items()}
        originals = {name: (folder / name).read_text(encoding="utf-8") for names in by_language.values() for name in names}
        subprocess.run(["git", "-C", str(folder), "apply", "-"], input=diff, text=True, check=True)
        try:
            for language, names in by_language.items():
                tally = tallies.setdefault(language, Tally())
                tally.files += len(names)
                tally.gates.add(gate_id)
                tally.parse += sum(not parse_errors((folder / name).read_text(encoding="utf-8"), language) for name in names)
                earlier = before[language]
                later = diagnostics(language, folder, names, scratch, cache) if earlier is not None else None
                if earlier is None or later is None:
                    continue
                tally.compile_checked += len(names)
                for name in names:
                    after = (folder / name).read_text(encoding="utf-8")
                    new = [error for error in later[name] - earlier[name] if not _dependency(error, originals[name], after, diff)]
                    tally.compiled += not new
                    if new:
                        log.warning("%s: %s, gate %s: new compiler errors %s", folder.name, name, gate_id, list(new)[:3])
            for line in diff.splitlines():
                if line.startswith("+") and TODO in line:
                    tallies[language_of(_file_of(diff, line)) or ""].todos += 1
        finally:
            subprocess.run(["git", "-C", str(folder), "checkout", "-q", "--", "."], check=True)


def _dependency(error: str, original: str, after: str, diff: str) -> bool:
    """Whether `error` is a symbol the original named too, the diff removed no import of and the rewrite does not
    read from a literal (`true.getEvalDetails()`): a symbol of the absent dependencies, which the compiler reports
    once what surrounded it resolves (javac's `assertTrue(true)`, where `assertTrue(client.checkGate(…))` stopped at
    `client`), not the rewrite's."""
    found = re.search(r"(?:cannot find symbol \w+|unresolved reference:) (\w+)", error)
    if found is None or not re.search(rf"\b{found.group(1)}\b", original):
        return False
    if re.search(rf"\b(true|false|True|False)\s*\.\s*{found.group(1)}\b", after):
        return False
    return not any(line.startswith("-") and "import" in line and found.group(1) in line for line in diff.splitlines())


def _file_of(diff: str, line: str) -> str:
    """The file whose hunk holds `line` (the last `+++ b/` header before it)."""
    at = diff.index(line)
    return changed_files(diff[:at])[-1]


def run(mirror: Path | None) -> Corpus:
    OUT_DIR.mkdir(parents=True, exist_ok=True)
    clones = {repository: clone(repository, mirror) for repository in REPOSITORIES}
    fetched = {repository: folder for repository, folder in clones.items() if folder is not None}
    missing = [repository for repository, folder in clones.items() if folder is None]
    ids = {repository: checked_gate_ids(folder) for repository, folder in fetched.items()}
    every_id = set().union(*ids.values()) if ids else set()
    tallies: dict[str, Tally] = {}
    left: Counter[str] = Counter()  # files that name a gate, left as they are, by why
    cache: dict = {}
    started = time.perf_counter()
    for value in (True, False):
        database = OUT_DIR / f"flags-{str(value).lower()}.duckdb"
        if every_id:
            console(database, every_id, value)
        for repository, folder in fetched.items():
            if not ids[repository]:
                continue
            diffs, said = dry_run(folder, database, ids[repository])
            (OUT_DIR / f"{folder.name}-{str(value).lower()}.diff").write_text(diffs)
            (OUT_DIR / f"{folder.name}-{str(value).lower()}.out").write_text(said)
            for gate_id, diff in sections(diffs):
                measure_gate(folder, f"{repository}:{gate_id}:{value}", diff, tallies, cache)
            left.update(reason.strip() for reason in LEFT.findall(said))
    return Corpus(tallies, sorted(fetched), missing, len(every_id), left, time.perf_counter() - started)


LANGUAGE_NAMES = {
    "python": "Python",
    "typescript": "TypeScript",
    "tsx": "TSX/JSX",
    "javascript": "JavaScript",
    "java": "Java",
    "kotlin": "Kotlin",
    "go": "Go",
    "swift": "Swift",
}


def render(corpus: Corpus) -> str:
    head = f"{CLEANUP_CORPUS_SECTION}\n\n`python -m bench.cleanup_corpus`: "
    if not corpus.fetched:
        return (
            f"{head}not measured: no repository could be fetched ({', '.join(corpus.missing)}; no network to GitHub?)."
            " Run it where `git clone https://github.com/...` works, or with `--mirror DIR` over local copies.\n"
        )
    rows = []
    tallies = corpus.tallies
    for language, tally in sorted(tallies.items(), key=lambda item: LANGUAGE_NAMES.get(item[0], item[0])):
        compiled = f"{tally.compiled} of {tally.compile_checked}" if tally.compile_checked else "not compiled"
        rows.append(
            f"| {LANGUAGE_NAMES.get(language, language)} | {len(tally.gates)} | {tally.files} | "
            f"{tally.parse} of {tally.files} | {compiled} | {tally.todos} |"
        )
    files, parse = sum(t.files for t in tallies.values()), sum(t.parse for t in tallies.values())
    compiled, checked = sum(t.compiled for t in tallies.values()), sum(t.compile_checked for t in tallies.values())
    rows.append(
        f"| all | {len(set().union(*(t.gates for t in tallies.values())))} | {files} | {parse} of {files} | "
        f"{compiled} of {checked} | {sum(t.todos for t in tallies.values())} |"
    )
    left = "\n".join(f"| {reason} | {count} |" for reason, count in corpus.left.most_common())
    not_fetched = f" Not fetched, so not measured: {', '.join(corpus.missing)}." if corpus.missing else ""
    return f"""{head}`gatehouse cleanup --dry-run` over {len(corpus.fetched)} public repositories that check
gates through the SDKs ({", ".join(corpus.fetched)}), for each of the {corpus.gate_ids} gate ids they check with a
literal id, once launched (`true`) and once disabled (`false`); each gate's diff applied and its changed files
checked.{not_fetched} A branch is a gate at a value in one repository. "Compile" is the changed files compiled
together without their dependencies: no kind of error the original did not have (an unknown symbol the original
named too, and whose import the diff did not remove, is its absent dependencies'); Go's packages need their modules,
so Go is parsed only; Swift has no compiler here. {corpus.seconds:.0f} s.

| language | branches | changed files | parse | compile: no new error | TODOs left |
|---|---:|---:|---:|---:|---:|
{chr(10).join(rows)}

Files that name a gate and were left as they are (a file once for each gate and value):

| why | files |
|---|---:|
{left}
"""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mirror", type=Path, metavar="DIR", help="clone DIR/<owner>+<name>/repo instead of GitHub's")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    corpus = run(args.mirror)
    if not corpus.fetched:
        log.warning("no repository could be fetched (no network to GitHub?): the cleanup corpus is not measured")
    section = render(corpus)
    write_section(CLEANUP_CORPUS_SECTION, section, RESULTS_MD)
    print(section)
    return 0


if __name__ == "__main__":
    sys.exit(main())
