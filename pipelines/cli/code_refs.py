"""`gatehouse code-refs PATH...`: scan repositories for gate and config ids, load the references with dlt."""

from __future__ import annotations

import argparse
import difflib
import logging
import os
import uuid
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from dlt.common.exceptions import DltException
from dlt.destinations.exceptions import DatabaseUndefinedRelation
from dlt.pipeline.exceptions import PipelineStepFailed

from gatehouse.pipelines.cli.parser import add_command, add_destination_arguments, destination_from, given
from gatehouse.pipelines.cli.terminal import say
from gatehouse.pipelines.code_refs.codeowners import file_owners
from gatehouse.pipelines.code_refs.scan import (
    DEFAULT_DELIMITERS,
    DEFAULT_EXCLUDES,
    DEFAULT_MAX_FILE_BYTES,
    DYNAMIC_CONFIG,
    GATE,
    Entity,
    Matcher,
    MatchRules,
    RepositoryScan,
    ScanInputError,
    open_repository,
    scan_repository,
)
from gatehouse.pipelines.errors import GatehouseError, explain
from gatehouse.pipelines.models.build import DEFAULT_PROJECT
from gatehouse.pipelines.untrusted import for_terminal
from gatehouse.pipelines.warehouse import datasets
from gatehouse.pipelines.warehouse.destination import Destination
from gatehouse.pipelines.wording import counted
from gatehouse.sources.code_refs import code_references_source
from gatehouse.sources.code_refs.scans import reference_counts

log = logging.getLogger("gatehouse.code_refs")
# ids in more than one project named in the summary (then "…and N more")
SHARED_IDS_SHOWN = 5

EPILOG = """\
examples:
  gatehouse code-refs .                                   # this repository, into ./gatehouse.duckdb
  gatehouse code-refs ~/src/web ~/src/api --duckdb /data/flags.duckdb
  gatehouse code-refs . --repository-name acme/web --destination motherduck   # in the repository's CI
  gatehouse code-refs deploy/ --whole-token               # unquoted ids too (YAML, .env, INI)
  gatehouse code-refs . --alias new_checkout=NEW_CHECKOUT_GATE --exclude 'generated/*'

An id counts where it is a whole string literal ("new_checkout", 'new_checkout', `new_checkout`),
case-sensitive; "new_checkout_v2" and new_checkout_enabled do not count. A rescan of a repository
replaces its references in table console.code_references; each scan adds a row per repository to
console.code_reference_scans and one per id found to console.code_reference_sightings. A file's
owners are read from the repository's CODEOWNERS file. See docs/code-refs.md.
"""


HELP = "find where gates and dynamic configs are referenced in code, load it beside the console data"
DESCRIPTION = (
    "Scan git repositories (tracked files only) or plain folders for the ids of the gates and"
    " dynamic configs loaded by `gatehouse run`, and load every reference into console.code_references."
)


def register(subparsers: Any) -> None:
    parser = add_command(subparsers, "code-refs", help=HELP, description=DESCRIPTION, epilog=EPILOG)
    parser.add_argument("paths", nargs="+", metavar="PATH", help="a repository's folder (or a plain folder)")
    parser.add_argument(
        "--repository-name",
        type=given,
        metavar="NAME",
        help="the name the references are stored under (default: the folder's name); one PATH only",
    )
    parser.add_argument(
        "--branch",
        type=given,
        metavar="NAME",
        help="the branch to record (default: git's current branch; CI checkouts are often detached)",
    )
    add_destination_arguments(parser)
    parser.add_argument(
        "--delimiters",
        default="",
        metavar="CHARS",
        help=f"more characters that delimit an id, besides {DEFAULT_DELIMITERS}, e.g. '<>' or ':'",
    )
    parser.add_argument(
        "--whole-token", action="store_true", help="also count an id that is a whole token, unquoted (YAML, .env, INI files)"
    )
    parser.add_argument(
        "--alias",
        action="append",
        default=[],
        metavar="ID=STRING",
        help="another string that stands for ID (a constant's name); repeatable",
    )
    parser.add_argument("--aliases", type=Path, metavar="FILE", help='JSON or YAML file {"id": ["STRING", ...]}')
    parser.add_argument(
        "--exclude",
        action="append",
        default=[],
        metavar="GLOB",
        help="skip matching paths (a glob without / matches any path component); repeatable",
    )
    parser.add_argument("--no-default-excludes", action="store_true", help=f"do not skip {', '.join(DEFAULT_EXCLUDES)}")
    parser.add_argument(
        "--max-file-size",
        type=int,
        default=DEFAULT_MAX_FILE_BYTES,
        metavar="BYTES",
        help="skip larger files, with a note (default: %(default)s; 0: no limit)",
    )
    parser.add_argument(
        "--workers",
        type=int,
        default=min(2, os.cpu_count() or 1),
        metavar="N",
        help="processes reading files when ripgrep (rg) is not installed (default: %(default)s)",
    )
    parser.set_defaults(handler=handle)


def parse_aliases(pairs: Sequence[str], file: Path | None) -> dict[str, list[str]]:
    """alias string -> the ids it stands for."""
    by_id: dict[str, list[str]] = {}
    if file is not None:
        try:
            text = file.read_text(encoding="utf-8-sig")  # a byte-order mark, as some Windows editors write, is fine
        except OSError as err:
            raise GatehouseError(f"--aliases {file}: cannot read it ({err.strerror})") from err
        except UnicodeDecodeError as err:
            raise GatehouseError(f"--aliases {file}: not UTF-8 text (save it as UTF-8)") from err
        import yaml

        try:
            loaded = yaml.safe_load(text)  # JSON is YAML too
        except yaml.YAMLError as err:
            raise GatehouseError(f"--aliases {file}: not JSON or YAML ({str(err).splitlines()[0]})") from err
        if not isinstance(loaded, dict) or not all(
            isinstance(v, str) or (isinstance(v, list) and all(isinstance(s, str) for s in v)) for v in loaded.values()
        ):
            raise GatehouseError(
                f'--aliases {file}: expected a mapping of id to a list of strings, e.g. {{"new_checkout": ["NEW_CHECKOUT"]}}'
            )
        for entity_id, strings in loaded.items():
            by_id.setdefault(str(entity_id), []).extend([strings] if isinstance(strings, str) else strings)
    for pair in pairs:
        entity_id, sep, alias = pair.partition("=")
        if not sep or not entity_id or not alias:
            raise GatehouseError(f"--alias {pair!r}: expected ID=STRING, e.g. new_checkout=NEW_CHECKOUT_GATE")
        by_id.setdefault(entity_id, []).append(alias)
    aliases: dict[str, list[str]] = {}
    for entity_id, strings in by_id.items():
        for alias in strings:
            aliases.setdefault(alias, []).append(entity_id)
    return aliases


def read_entities(destination: Destination, timeout_s: float | None = None) -> dict[Entity, list[str]]:
    """Every gate and config id a console has or had (the SCD2 history keeps deleted ones), with the projects
    that hold it: the single console's (`default`) and every project's; a repository's code is no one project's."""
    entities: dict[Entity, list[str]] = {}
    found_table = False
    held = datasets.console_datasets(destination, timeout_s) or {DEFAULT_PROJECT: destination.dataset_name}
    with destination.sql_client(timeout_s) as client:
        for project, dataset in sorted(held.items()):
            for table, entity_type in (("gates", GATE), ("dynamic_configs", DYNAMIC_CONFIG)):
                name = ".".join(client.make_qualified_table_name_path(table, dataset_name=dataset))
                try:
                    rows = client.execute_sql(f"select distinct id from {name} where id is not null")
                except DatabaseUndefinedRelation:
                    continue
                found_table = True
                for (entity_id,) in rows:
                    entities.setdefault(Entity(entity_type, entity_id), []).append(project)
    if not found_table:
        raise GatehouseError("no console data loaded yet: run `gatehouse run` first, then scan")
    return entities


def handle(args: argparse.Namespace) -> int:
    if args.repository_name and len(args.paths) > 1:
        raise GatehouseError("--repository-name names one repository: give one PATH with it")
    if args.workers < 1:
        raise GatehouseError("--workers: give 1 or more")
    if args.max_file_size < 0:
        # every file would be skipped as too large, and the rescan would replace the references with none
        raise GatehouseError(f"--max-file-size {args.max_file_size}: give a number of bytes, or 0 for no limit")
    if any(not char.isascii() or char.isalnum() or char.isspace() or char == "_" for char in args.delimiters):
        # ids are made of letters, digits and _; the candidates are found in bytes, one byte a delimiter
        raise GatehouseError(f"--delimiters {args.delimiters!r}: give ASCII punctuation only, e.g. '<>' or ':'")
    excludes = tuple(args.exclude) + (() if args.no_default_excludes else DEFAULT_EXCLUDES)
    rules_aliases = parse_aliases(args.alias, args.aliases)
    # Every path is checked before the database is touched: a bad one loads nothing and keeps what is loaded.
    try:
        repositories = [open_repository(Path(path), args.repository_name, args.branch) for path in args.paths]
    except ScanInputError as err:
        raise GatehouseError(str(err)) from err
    names = [repository.name for repository in repositories]
    duplicates = sorted({name for name in names if names.count(name) > 1})
    if duplicates:
        raise GatehouseError(f"two paths are both repository {duplicates[0]!r}: scan them one at a time with --repository-name")

    destination = destination_from(args)
    try:
        # No run loaded yet: every id would be an orphan, and the worklist would say all clear.
        datasets.check_loaded(destination, args.lock_timeout)
        entities = read_entities(destination, args.lock_timeout)
    except DltException as err:
        # a missing credential, a table dlt cannot read: run's one-line explanation
        raise GatehouseError(f"cannot read the console data from destination {destination.label()}: {explain(err)}") from err
    loaded_ids = sorted({entity.entity_id for entity in entities})
    unknown = sorted({entity_id for ids in rules_aliases.values() for entity_id in ids} - set(loaded_ids))
    if unknown:
        # the scan matches an alias only to an id it knows: a typo would be skipped, its references never found
        close = difflib.get_close_matches(unknown[0], loaded_ids, n=1, cutoff=0.6)
        raise GatehouseError(
            f"alias of {for_terminal(unknown[0])}: no gate or dynamic config of that id has been loaded"
            + (f" (did you mean {for_terminal(close[0])}?)" if close else "")
            + "; nothing scanned, the references already loaded are kept"
        )
    matcher = Matcher(entities, MatchRules(DEFAULT_DELIMITERS + args.delimiters, args.whole_token, rules_aliases))
    scanned_at = datetime.now(UTC)
    scan_id = f"{scanned_at:%Y%m%dT%H%M%SZ}-{uuid.uuid4().hex[:8]}"
    scans = []
    for repository in repositories:
        try:
            hits, stats = scan_repository(repository, matcher, excludes, args.max_file_size or None, args.workers)
        except ScanInputError as err:
            raise GatehouseError(str(err)) from err
        if stats.files_listed == 0:
            what = "tracks no file (an empty repository or an unfinished checkout)" if repository.is_git else "holds no file"
            raise GatehouseError(f"{repository.root}: {what}; nothing scanned, the references already loaded are kept")
        owners = file_owners(repository.root, (hit.path for hit in hits))
        scans.append(RepositoryScan(repository, hits, stats, scanned_at, scan_id, owners))

    known = {(entity.entity_type, entity.entity_id) for entity in entities}
    # The same lock and wait as `gatehouse run`: a scan in CI and the scheduled run never load at once.
    with destination.lock.exclusive(args.lock_timeout):
        pipeline = destination.pipeline()
        try:
            # Run again after a wait for the file: what a first try extracted is pending, and dlt loads it first.
            destination.load(
                pipeline, args.lock_timeout, step=lambda: pipeline.run(code_references_source(scans, known)), extracted=False
            )
        except PipelineStepFailed as err:
            raise GatehouseError(
                f"loading the references failed at the {err.step} step (nothing replaced): {explain(err)}"
            ) from err
        destination.views.refresh(args.lock_timeout)
        destination.snapshot.publish(args.lock_timeout)
    say(*summary_lines(scans, known), *project_lines(scans, entities))
    return 0


def project_lines(scans: Sequence[RepositoryScan], entities: Mapping[Entity, list[str]]) -> list[str]:
    """With several projects: the references each project's ids got, and the ids more than one project has
    (a reference to one is counted for each: which project's flag the code checks, the code does not say)."""
    projects = sorted({project for holders in entities.values() for project in holders})
    if len(projects) < 2:
        return []
    referenced = {(hit.entity_type, hit.entity_id) for scan in scans for hit in scan.hits}
    by_project = {
        project: sum(
            1
            for entity, holders in entities.items()
            if project in holders and (entity.entity_type, entity.entity_id) in referenced
        )
        for project in projects
    }
    lines = ["referenced ids by project: " + ", ".join(f"{project} {count}" for project, count in by_project.items())]
    shared = sorted(
        (entity.entity_id, holders)
        for entity, holders in entities.items()
        if len(holders) > 1 and (entity.entity_type, entity.entity_id) in referenced
    )
    if shared:
        shown = "; ".join(f"{entity_id} ({', '.join(holders)})" for entity_id, holders in shared[:SHARED_IDS_SHOWN])
        more = f"; …and {len(shared) - SHARED_IDS_SHOWN} more" if len(shared) > SHARED_IDS_SHOWN else ""
        lines.append(f"{len(shared)} referenced ids are in more than one project: {shown}{more}")
    return lines


def summary_lines(scans: Sequence[RepositoryScan], known: set[tuple[str, str]]) -> list[str]:
    lines = []
    for scan in scans:
        # The counts code_reference_scans stores. Counting only the ids the console has printed "19 references
        # to 0 gates and 0 dynamic configs" for a repository whose every reference was a check of an unknown id.
        counts = reference_counts(scan, known)
        where = " ".join(filter(None, [scan.repository.branch, scan.repository.commit[:12] if scan.repository.commit else None]))
        lines.append(
            f"{scan.repository.name}{f' ({where})' if where else ''}: {counted(counts.references, 'reference')} to"
            f" {counted(counts.gates, 'gate')} and {counted(counts.dynamic_configs, 'dynamic config')},"
            f" {counts.unknown_ids} of these ids the console does not have"
        )
        stats = scan.stats
        skipped = []
        if stats.skipped_binary:
            skipped.append(f"{stats.skipped_binary} binary")
        if stats.skipped_large:
            skipped.append(f"{len(stats.skipped_large)} too large")
        if stats.skipped_excluded:
            skipped.append(f"{stats.skipped_excluded} excluded")
        if stats.skipped_special:
            skipped.append(f"{stats.skipped_special} symlinks or special files")
        if stats.unreadable:
            skipped.append(f"{len(stats.unreadable)} unreadable")
        lines.append(
            f"  {stats.files_scanned} files scanned ({stats.bytes_scanned / 1e6:.1f} MB)"
            + (f", skipped: {', '.join(skipped)}" if skipped else "")
        )
    return lines
