"""The TypeScript settings of the repository being cleaned up that change what the rewrite must do: whether a file is
compiled with `noUnusedParameters` (tsc's TS6133 on a parameter never read) or `noUnusedLocals` (TS6133 on a local
or a private member never read, TS6138 on a private parameter property), read from its tsconfig.json.

A file's settings are those of the nearest `tsconfig.json` walking up from its folder, never above the checkout,
read as tsc reads it: JSON with comments and trailing commas, its `extends` followed (a relative path, with or
without `.json`; a package under `node_modules`; several, as TypeScript 5 takes them, the later winning) and its own
`compilerOptions` winning over what it extends. A solution-style tsconfig.json (Vite's, which compiles nothing itself
and names its projects in `references`) counts as set when a project it references that takes the file (by its
`files`, `include` and `exclude`, its own or inherited through `extends`; every one where none does) sets it: the
rename is accepted by tsc whether the option is set or not, so in doubt it is made (`no_unused_locals_in_doubt` says
where what is written must hold either way). Any other tsconfig.json gives its own options, whatever projects it
references; a file it does not take is in doubt (an editor reads it with those options, tsc's build leaves it out).
What cannot be found or read (a package not installed, a file outside the checkout, text that is not JSON) counts as
not set, and is logged at debug level.

Each folder's nearest tsconfig.json and each file's options are read once per cleanup: a monorepo's thousands of
files share a few configurations.
"""

from __future__ import annotations

import functools
import json
import logging
import posixpath
import re
from collections.abc import Sequence
from pathlib import Path, PurePosixPath
from typing import Any

log = logging.getLogger("gatehouse.cleanup")

CONFIG = "tsconfig.json"
# in tsconfig.json, what plain JSON refuses: comments, and a comma before a closing bracket; strings are matched first
# so that neither is looked for inside one
_JSONC = re.compile(
    r'"(?:[^"\\\n]|\\.)*"|//[^\n]*|/\*.*?\*/|,(?=(?:\s|//[^\n]*|/\*.*?\*/)*[}\]])',
    re.DOTALL,
)


def loads_jsonc(text: str) -> Any:
    """`text` read as tsc reads a tsconfig.json: JSON, with `//` and `/* */` comments and trailing commas allowed.
    Raises ValueError where it is not that."""

    def plain(found: re.Match[str]) -> str:
        said = found.group(0)
        return said if said.startswith('"') else "" if said == "," else " "

    return json.loads(_JSONC.sub(plain, text.removeprefix("\ufeff")))


class TsConfigs:
    """The tsconfig.json settings of the files of a checkout at `top`, memoised per folder and per configuration.
    A package `extends` names is looked for in `node_modules` folders under `top` and under each of `packages` (the
    user's checkout, where an install leaves them: the cleanup's own work tree holds only tracked files)."""

    def __init__(self, top: Path, packages: Sequence[Path] = ()) -> None:
        self.roots = [top.resolve(), *(path.resolve() for path in packages)]
        self._nearest: dict[Path, Path | None] = {}
        self._options: dict[Path, dict[str, Any]] = {}
        self._files: dict[Path, dict[str, Any]] = {}
        self._taking: dict[str, tuple[list[Path], bool]] = {}
        self._patterns: dict[tuple[Path, str], tuple[Path, list[str] | None]] = {}

    def no_unused_parameters(self, path: str) -> bool:
        """Whether the file at `path` (relative to the top, `/`-separated) is compiled with noUnusedParameters:
        its nearest tsconfig.json sets it, or inherits it, as `true` (`strict` does not imply it: tsc's own rule)."""
        return self._refuses(path, "noUnusedParameters")

    def no_unused_locals(self, path: str) -> bool:
        """Whether the file at `path` is compiled with noUnusedLocals, read as `no_unused_parameters` reads its own."""
        return self._refuses(path, "noUnusedLocals")

    def no_unused_locals_in_doubt(self, path: str) -> bool:
        """Whether the file at `path` may be compiled with noUnusedLocals or without it: its nearest tsconfig.json sets
        it but its `files` and `include` less `exclude` do not take the file (tsc's build of that project leaves it out;
        an editor, another tool may still read it with those options); or that tsconfig.json is solution-style, and the
        projects it references that take the file differ, or none of them takes it and one sets it (`_compiling`)."""
        config = self._nearest_config(self.roots[0].joinpath(*PurePosixPath(path).parent.parts))
        if config is None:
            return False
        if not self._is_solution(config):
            return self._sets(config, "noUnusedLocals") and not self._takes(config, self._file(path))
        projects, taken = self._compiling(config, path)
        sets = [self._sets(project, "noUnusedLocals") for project in projects]
        return any(sets) and (not all(sets) or not taken)

    def _refuses(self, path: str, option: str) -> bool:
        config = self._nearest_config(self.roots[0].joinpath(*PurePosixPath(path).parent.parts))
        if config is None:
            return False
        if not self._is_solution(config):
            return self._sets(config, option)
        return any(self._sets(project, option) for project in self._compiling(config, path)[0])

    def _is_solution(self, config: Path) -> bool:
        """A solution-style tsconfig.json: it compiles nothing itself (`"files": []` and no `include`) and names the
        projects that do in `references`. Any other compiles its own files with its own options, whatever it
        references (another project, built first)."""
        data = self._read(config)
        return data.get("files") == [] and "include" not in data and bool(self._references(config))

    def _compiling(self, config: Path, path: str) -> tuple[list[Path], bool]:
        """The projects the solution-style `config` references that take the file at `path` by their `files` and
        `include` less `exclude` (`_takes`), and True; where none does, every one it references, and False."""
        if path not in self._taking:  # asked for each setting of the file
            projects, file = self._references(config), self._file(path)
            taking = [project for project in projects if self._takes(project, file)]
            self._taking[path] = (taking, True) if taking else (projects, False)
        return self._taking[path]

    def _file(self, path: str) -> Path:
        return self.roots[0].joinpath(*PurePosixPath(path).parts).resolve()

    def _takes(self, project: Path, file: Path) -> bool:
        """Whether `project`'s `files`, or its `include` less its `exclude`, name `file`, as tsc reads them: each its
        own or, where it names none, that of what it extends (`_paths`), relative to the folder of the tsconfig that
        names it; `*` and `?` within a folder's name, `**/` any folders, and a last part with neither a wildcard nor an
        extension a folder and all under it; no `files` and no `include` is every file under the project's folder."""
        target = file.as_posix()
        (files_at, files), (include_at, include), (exclude_at, exclude) = (
            self._paths(project, key) for key in ("files", "include", "exclude")
        )
        if files is not None and target in (_within(files_at, name) for name in files):
            return True
        if include is None:
            include_at, include = project.parent, ["**/*"] if files is None else []
        if exclude is None:  # tsc's own, where a project names none
            out_dir = self.options(project).get("outDir")
            exclude_at, exclude = project.parent, [*DEFAULT_EXCLUDE, *([out_dir] if isinstance(out_dir, str) else [])]
        return any(_included(include_at, pattern, target) for pattern in include) and not any(
            _glob(exclude_at, pattern).match(target) for pattern in exclude
        )

    def _paths(self, config: Path, key: str, seen: frozenset[Path] = frozenset()) -> tuple[Path, list[str] | None]:
        """`config`'s `files`, `include` or `exclude` (`key`) and the folder they are relative to: its own, else those
        of the last configuration it extends that names them, as tsc inherits them (whole, never merged)."""
        if (config, key) in self._patterns:
            return self._patterns[config, key]
        found: tuple[Path, list[str] | None] = (config.parent, _strings(self._read(config).get(key)))
        for _, base in reversed(self._bases(config, seen)):
            if found[1] is not None:
                break
            if base is not None:
                inherited = self._paths(base, key, seen | {config})
                found = inherited if inherited[1] is not None else found
        if not seen:  # a chain read from its start: what a cycle cut short is not kept
            self._patterns[config, key] = found
        return found

    def _sets(self, config: Path, option: str) -> bool:
        return self.options(config).get(option) is True

    def _nearest_config(self, folder: Path) -> Path | None:
        if folder not in self._nearest:
            candidate = folder / CONFIG
            if candidate.is_file():
                self._nearest[folder] = candidate
            elif folder == self.roots[0] or self.roots[0] not in folder.parents:  # never above the checkout
                self._nearest[folder] = None
            else:
                self._nearest[folder] = self._nearest_config(folder.parent)
        return self._nearest[folder]

    def options(self, config: Path, seen: frozenset[Path] = frozenset()) -> dict[str, Any]:
        """The `compilerOptions` of `config` with those it extends beneath them (a cycle's repeat read as empty)."""
        if config in self._options:
            return self._options[config]
        options: dict[str, Any] = {}
        for name, base in self._bases(config, seen):
            if base is None:
                log.debug("%s: extends %r, which is not found (or circular): read as not set", config, name)
                continue
            options.update(self.options(base, seen | {config}))
        own = self._read(config).get("compilerOptions")
        options.update(own if isinstance(own, dict) else {})
        self._options[config] = options
        return options

    def _bases(self, config: Path, seen: frozenset[Path]) -> list[tuple[Any, Path | None]]:
        """Each name `config` extends, in its order (the later winning), with the configuration it names, or None where
        that is not found, is outside the roots, or repeats one of `seen` (a cycle)."""
        extends = self._read(config).get("extends")
        bases: list[tuple[Any, Path | None]] = []
        for name in [extends] if isinstance(extends, str) else extends if isinstance(extends, list) else []:
            base = self._extended(name, config.parent) if isinstance(name, str) else None
            bases.append((name, None if base is None or base in seen or base == config else base))
        return bases

    def _read(self, config: Path) -> dict[str, Any]:
        if config not in self._files:
            self._files[config] = _configuration(config)
        return self._files[config]

    def _extended(self, name: str, folder: Path) -> Path | None:
        """The file an `extends` of a configuration in `folder` names, as tsc resolves it, inside the roots only."""
        if name.startswith(("./", "../", "/")) or name in (".", ".."):
            return self._inside(self._config_file(folder / name))
        for ancestor in self._ancestors(folder):
            found = self._inside(self._config_file(ancestor / "node_modules" / name, package=True))
            if found is not None:
                return found
        return None

    def _ancestors(self, folder: Path) -> list[Path]:
        """`folder` and the folders above it up to its root, and the same folders under the other roots."""
        root = next((root for root in self.roots if folder == root or root in folder.parents), None)
        if root is None:
            return []
        inside = folder.relative_to(root)
        relatives = [inside, *inside.parents]
        return [other / relative for relative in relatives for other in self.roots]

    @staticmethod
    def _config_file(path: Path, package: bool = False) -> Path | None:
        """`path` as a configuration: itself, with `.json` added, or (a package's folder) the file its package.json
        names as `tsconfig`, else its tsconfig.json."""
        if path.is_file():
            return path
        if path.suffix != ".json" and path.with_name(path.name + ".json").is_file():
            return path.with_name(path.name + ".json")
        if path.is_dir():
            named = _package_tsconfig(path) if package else None
            return path / (named or CONFIG) if (path / (named or CONFIG)).is_file() else None
        return None

    def _inside(self, path: Path | None) -> Path | None:
        """`path`, resolved, when it is under one of the roots: a repository's file never leads the cleanup to read
        one elsewhere."""
        if path is None:
            return None
        resolved = path.resolve()
        return resolved if any(root == resolved or root in resolved.parents for root in self.roots) else None

    def _references(self, config: Path) -> list[Path]:
        """The projects a solution-style `config` names in `references` (a folder's tsconfig.json, or a file)."""
        references = self._read(config).get("references")
        found = []
        for reference in references if isinstance(references, list) else []:
            name = reference.get("path") if isinstance(reference, dict) else None
            project = self._inside(self._config_file(config.parent / name)) if isinstance(name, str) else None
            if project is not None and project != config.resolve():
                found.append(project)
        return found


# what a project leaves out where its tsconfig names no `exclude` (besides its `outDir`)
DEFAULT_EXCLUDE = ("node_modules", "bower_components", "jspm_packages")


def _included(folder: Path, pattern: str, target: str) -> bool:
    """Whether an `include` pattern takes `target`: as `_glob`, except that, as in tsc, what its wildcards match never
    starts with a dot nor goes into node_modules, and a pattern ending in `**` takes nothing."""
    if pattern.rstrip("/").endswith("**") or not _glob(folder, pattern).match(target):
        return False
    full = _within(folder, pattern)
    wild = min((full.find(mark) for mark in "*?" if mark in full), default=len(full))
    fixed = full[: full.rfind("/", 0, wild) + 1] if wild < len(full) else full + "/"
    return not any(part.startswith(".") or part == "node_modules" for part in target[len(fixed) :].split("/"))


def _strings(value: Any) -> list[str] | None:
    """A tsconfig list of paths or patterns (None: not a list), its other items passed over."""
    return [item for item in value if isinstance(item, str)] if isinstance(value, list) else None


def _within(folder: Path, name: str) -> str:
    return posixpath.normpath(posixpath.join(folder.as_posix(), name))


@functools.lru_cache(maxsize=256)
def _glob(folder: Path, pattern: str) -> re.Pattern[str]:
    """A tsconfig `include`/`exclude` pattern of a project in `folder` as a regular expression over a file's path."""
    full = _within(folder, pattern)
    last = full.rsplit("/", 1)[-1]
    if not any(mark in last for mark in "*?.") or last == "**":
        full += "/**/*"  # a folder: every file under it
    parts = re.split(r"(\*\*/|\*|\?)", full)
    wildcards = {"**/": "(?:[^/]+/)*", "*": "[^/]*", "?": "[^/]"}
    return re.compile("".join(wildcards.get(part, re.escape(part)) for part in parts) + "$")


def _configuration(config: Path) -> dict[str, Any]:
    try:
        data = loads_jsonc(config.read_text(encoding="utf-8"))
    except (OSError, ValueError) as err:
        log.debug("%s is not read as a tsconfig (%s): its settings are read as not set", config, err)
        return {}
    return data if isinstance(data, dict) else {}


def _package_tsconfig(folder: Path) -> str | None:
    try:
        named = json.loads((folder / "package.json").read_text(encoding="utf-8")).get("tsconfig")
    except (OSError, ValueError, AttributeError):
        return None
    return named if isinstance(named, str) else None
