"""Who owns a file, from the repository's CODEOWNERS file as GitHub and GitLab read it: pure, no dlt, no database.

Where: the first of CODEOWNERS_LOCATIONS that is a regular file (GitHub looks in `.github/`, the root, `docs/`;
GitLab in the root, `docs/`, `.gitlab/`).

A line is a comment (`#`), blank, a GitLab section header, or a rule: a pattern and its owners (`@user`,
`@org/team`, GitLab's `@@role`, an email). A pattern follows gitignore's rules as GitHub documents them: a `/` at
the start or in the middle anchors it at the root, otherwise it matches at any depth; a trailing `/` matches only a
folder (and so every file below it); `*` and `?` never cross a `/`; `**/` is any number of folders, a trailing
`/**` everything below; a pattern naming a folder owns every file below it, except one whose last part has a
wildcard (`docs/*` owns `docs/a.md`, not `docs/a/b.md`, as GitHub's documentation says). `\\#` starts a pattern with
`#`, `\\ ` is a space in it. In GitLab's file (found in `.gitlab/`, or with a section header), only a leading `/`
anchors: GitLab reads `docs/api` as `**/docs/api`. Not supported, as by GitHub: `!` negation (the line is skipped;
GitLab's exclusions are not applied) and `[ ]` ranges (read as the characters themselves).

Sections (GitLab): `[Name]`, `^[Name]` (optional), `[Name][2]` (approvals), each optionally followed by default
owners, which a rule of the section without owners of its own takes. Headers of one name (any case) are one
section. Rules before the first header are the default section. A path takes the last matching rule of each
section, and its owners are those of all these rules, in file order; with no header (GitHub's files), that is
the last matching rule of the file. A rule with no owners (and no default) makes a path unowned in its section.

Owner strings come from the repository, so are untrusted: they are stored as written, and escaped where shown.
"""

from __future__ import annotations

import logging
import os
import re
import stat
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

log = logging.getLogger("gatehouse.code_refs")

CODEOWNERS_LOCATIONS = (".github/CODEOWNERS", "CODEOWNERS", "docs/CODEOWNERS", ".gitlab/CODEOWNERS")
# GitHub ignores a CODEOWNERS file over 3 MB; so does this reader (and never reads a huge file whole)
MAX_CODEOWNERS_BYTES = 3_000_000
# `[Name]`, `^[Name]`, `[Name][2]`, then default owners
SECTION_HEADER = re.compile(r"\^?\[([^\]]+)\](?:\[\d+\])?(?:\s+(.*))?$")
OWNER = re.compile(r"@\S+|[^@\s]+@[^@\s]+")
# a run of whitespace not escaped by a backslash
UNESCAPED_SPACE = re.compile(r"(?<!\\)\s+")


@dataclass(frozen=True)
class Rule:
    pattern: str
    matches: re.Pattern[str]
    owners: tuple[str, ...]


@dataclass(frozen=True)
class Section:
    name: str  # "" for the rules before any header
    rules: tuple[Rule, ...]


@dataclass(frozen=True)
class CodeOwners:
    path: str  # the file's, from the repository root
    sections: tuple[Section, ...]

    def owners(self, path: str) -> tuple[str, ...]:
        """The owners of `path` (`/`-separated, from the root): of the last matching rule of each section, in file
        order, each once."""
        found: dict[str, None] = {}
        for section in self.sections:
            for rule in reversed(section.rules):
                if rule.matches.fullmatch(path):
                    found.update(dict.fromkeys(rule.owners))
                    break
        return tuple(found)


def pattern_regex(pattern: str, gitlab: bool = False) -> re.Pattern[str]:
    """The paths (of files, from the root, `/`-separated) a CODEOWNERS pattern owns (module docstring); `gitlab`:
    only a leading `/` anchors, as GitLab reads `a/b` as `/**/a/b`."""
    folder_only = pattern.endswith("/")
    core = pattern.rstrip("/")
    anchored = core.startswith("/") or ("/" in core.lstrip("/") and not gitlab) or not core
    core = core.lstrip("/")
    parts = core.split("/") if core else []
    pieces = []
    for at, part in enumerate(parts):
        last = at == len(parts) - 1
        if part == "**":
            # `**/` any folders (none too); a trailing `/**` everything below
            pieces.append(".*" if last else "(?:[^/]+/)*")
            continue
        piece = "".join(
            "[^/]*" if char == "*" else "[^/]" if char == "?" else re.escape(char) for char in re.sub(r"\*+", "*", part)
        )
        pieces.append(piece if last else piece + "/")
    body = "".join(pieces)
    if folder_only or not parts:
        tail = "/.*" if parts else ".*"
    elif parts[-1] == "**" or ("*" in parts[-1] or "?" in parts[-1]):
        tail = ""  # `docs/*` owns the files in docs, not those of its folders
    else:
        tail = "(?:/.*)?"  # a file of that name, or every file below a folder of that name
    return re.compile(("" if anchored else "(?:.*/)?") + body + tail, re.DOTALL)


def _unescape(text: str) -> str:
    return re.sub(r"\\(.)", r"\1", text)


def parse_codeowners(text: str, path: str = "CODEOWNERS") -> CodeOwners:
    """The sections and rules of a CODEOWNERS file's text; a line that is none of these is skipped, as GitHub
    skips an invalid line."""
    order: list[str] = []  # the sections' keys, in file order
    names: dict[str, str] = {"": ""}
    rules: dict[str, list[Rule]] = {"": []}
    key = ""
    defaults: tuple[str, ...] = ()
    lines = text.splitlines()
    # GitLab's file: where GitLab alone looks, or with a section header, which GitHub does not know
    gitlab = path.startswith(".gitlab/") or any(SECTION_HEADER.match(line.strip()) for line in lines)
    for number, raw in enumerate(lines, start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        header = SECTION_HEADER.match(line)
        if header:
            key = header[1].strip().casefold()
            names.setdefault(key, header[1].strip())
            rules.setdefault(key, [])
            if key not in order:
                order.append(key)
            defaults = _owners(header[2] or "")
            continue
        pattern, *rest = UNESCAPED_SPACE.split(line, maxsplit=1)
        if pattern.startswith("!"):
            log.debug("%s:%d: a negated pattern, not supported: skipped", path, number)
            continue
        owners = _owners(rest[0] if rest else "") or defaults
        rules[key].append(Rule(_unescape(pattern), pattern_regex(_unescape(pattern), gitlab), owners))
    sections = [Section("", tuple(rules[""]))] if rules[""] else []
    sections += [Section(names[key], tuple(rules[key])) for key in order if rules[key]]
    return CodeOwners(path, tuple(sections))


def _owners(text: str) -> tuple[str, ...]:
    """The owners of a rule or header: each whitespace-separated word up to a comment that is an owner, each once."""
    owners: dict[str, None] = {}
    for word in text.split():
        if word.startswith("#"):
            break
        if OWNER.fullmatch(word) and word != "@":
            owners[word] = None
    return tuple(owners)


def read_codeowners(root: Path) -> CodeOwners | None:
    """The repository's CODEOWNERS file, parsed: the first location holding a regular file (a link is not
    followed: it may lead out of the repository); None where there is none, or it cannot be read."""
    for location in CODEOWNERS_LOCATIONS:
        full = os.path.join(root, location)
        try:
            status = os.lstat(full)
            if not stat.S_ISREG(status.st_mode):
                continue
            if status.st_size > MAX_CODEOWNERS_BYTES:
                log.warning(
                    "%s: larger than %d bytes, not read (as GitHub does not): no code owners", location, MAX_CODEOWNERS_BYTES
                )
                return None
            with open(full, "rb") as file:
                data = file.read(MAX_CODEOWNERS_BYTES + 1)
        except FileNotFoundError:
            continue
        except OSError as err:
            log.warning("cannot read %s (%s): no code owners", location, err.strerror)
            return None
        return parse_codeowners(data.decode("utf-8", errors="replace"), location)
    return None


def file_owners(root: Path, paths: Iterable[str]) -> dict[str, str]:
    """The owners of each of `paths` that has some, space-separated in file order, by the repository's
    CODEOWNERS file (none: no path has owners)."""
    codeowners = read_codeowners(root)
    if codeowners is None:
        return {}
    found = {}
    for path in set(paths):
        owners = codeowners.owners(path)
        if owners:
            found[path] = " ".join(owners)
    return found
