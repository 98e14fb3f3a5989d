"""`gatehouse cleanup [GATE...] --repo PATH`: stale gates' checks rewritten to their decided value, a branch a gate."""

from __future__ import annotations

import argparse
import logging
import sys
import uuid
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from dlt.common.exceptions import DltException

from gatehouse.pipelines.cleanup.branches import (
    base_branch,
    base_worktree,
    check_remote,
    push_branch,
    resolve_commit,
    review_address,
)
from gatehouse.pipelines.cleanup.decisions import (
    Choice,
    check_known,
    check_projects,
    choose,
    read_decisions,
    read_loaded_gate_ids,
    read_loaded_projects,
    read_referencing_repositories,
)
from gatehouse.pipelines.cleanup.patch import GatePatch, commit_message, find_checks, kept_fields, patch_gates
from gatehouse.pipelines.cli import recording
from gatehouse.pipelines.cli.parser import add_command, add_destination_arguments, destination_from, given
from gatehouse.pipelines.cli.terminal import say
from gatehouse.pipelines.code_refs.scan import DEFAULT_EXCLUDES, Repository, ScanInputError, open_repository
from gatehouse.pipelines.errors import GatehouseError, explain
from gatehouse.pipelines.untrusted import for_terminal
from gatehouse.pipelines.warehouse import datasets
from gatehouse.pipelines.warehouse.destination import Destination
from gatehouse.pipelines.wording import counted
from gatehouse.sources.code_refs import cleanup_branches_source

log = logging.getLogger("gatehouse.cleanup")

HELP = "rewrite stale gates' checks to their decided value, each gate on a branch of its own"
DESCRIPTION = (
    "For each gate whose value the loaded console data decides (launched: true; unlaunched: false), replace its"
    " checks in the repository by that value and remove the code it makes dead, on a new branch"
    " gatehouse/cleanup/<gate> with one commit whose message holds the evidence. The checkout you work in is"
    " never touched and nothing is pushed. Which gates are decided, and why the others are not:"
    " analytics.cleanup_decisions."
)
EPILOG = """\
examples:
  gatehouse cleanup new_checkout --repo ~/src/web --dry-run   # the diff, nothing written
  gatehouse cleanup new_checkout old_banner --repo ~/src/web  # a branch for each
  gatehouse cleanup --all --repo ~/src/web                    # every decided gate; the others listed with why
  git -C ~/src/web push origin gatehouse/cleanup/new_checkout # then open a pull request from it

Python, TypeScript/JavaScript (React hooks too), Java, Kotlin, Go and Swift checks are rewritten. A check whose
value is used in a way the rules cannot simplify gets the value and a TODO(gatehouse) comment. A branch that
exists already is left alone. Load the data with `gatehouse run` and scan with `gatehouse code-refs` first.
See docs/cleanup.md.
"""


def register(subparsers: Any) -> None:
    parser = add_command(subparsers, "cleanup", help=HELP, description=DESCRIPTION, epilog=EPILOG)
    parser.add_argument("gates", nargs="*", metavar="GATE", help="a gate's id")
    parser.add_argument("--all", action="store_true", help="every decided stale gate; the undecided ones listed with why")
    parser.add_argument("--repo", required=True, type=Path, metavar="PATH", help="the git repository to clean up")
    parser.add_argument(
        "--repository-name",
        type=given,
        metavar="NAME",
        help="its name as `gatehouse code-refs` stored it (default: the folder's name)",
    )
    parser.add_argument("--base", default="HEAD", metavar="REF", help="the commit the branches start from (default: HEAD)")
    parser.add_argument(
        "--project",
        action="append",
        default=[],
        metavar="NAME",
        help="only the gates of this project (several consoles in one database); repeatable",
    )
    parser.add_argument("--dry-run", action="store_true", help="print the diff each branch would hold; write nothing")
    parser.add_argument(
        "--push",
        metavar="REMOTE",
        help="push each new branch to REMOTE (never forced, never over a branch it has) and print the"
        " address that opens its pull request on GitHub, GitLab or Bitbucket; the commit message is"
        " the request's description",
    )
    add_destination_arguments(parser)
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    if not args.gates and not args.all:
        raise GatehouseError("name the gates to clean up, or give --all for every decided one")
    if args.gates and args.all:
        raise GatehouseError("--all and gates named: --all is every decided stale gate; name gates, or give --all")
    repository = _repository(args)
    base_commit = resolve_commit(repository.root, args.base)
    if args.push is not None:
        if args.dry_run:
            raise GatehouseError("--push and --dry-run: a dry run writes nothing, so it pushes nothing; choose one")
        check_remote(repository.root, args.push)
    destination = destination_from(args)
    try:
        last = datasets.check_loaded(destination, args.lock_timeout)
        # the decisions are this version's view's: an older version's views are replaced first, as the report does
        destination.views.apply(timeout_s=args.lock_timeout, unless_current=True)
        with destination.reader(args.lock_timeout) as reader:
            check_known(args.gates, read_loaded_gate_ids(reader))
            check_projects(args.project, read_loaded_projects(reader))
            choices = choose(read_decisions(reader), args.gates, args.all, args.project)
            referencing = read_referencing_repositories(reader)
    except DltException as err:
        raise GatehouseError(f"cannot read the console data from destination {destination.label()}: {explain(err)}") from err
    as_of = f"{last.service_time:%Y-%m-%d %H:%M} UTC" if last.service_time else "an unknown time"
    # the diffs go to standard output (for `git apply`), what happened to standard error
    out = sys.stderr if args.dry_run else sys.stdout

    def message(patch: GatePatch) -> str:
        others = [name for name in referencing.get(patch.choice.gate_id, []) if name != repository.name]
        return commit_message(patch, others, as_of)

    patches: list[GatePatch] = []
    found: dict[str, list[str]] = {}
    try:
        with base_worktree(repository.root, base_commit) as worktree:
            # one scan of the base commit for every gate, decided or not: an undecided gate this code names is listed
            found.update(find_checks(worktree, [choice.gate_id for choice in choices], DEFAULT_EXCLUDES))
            for choice in choices:
                if choice.value is None and (not args.all or choice.gate_id in found):
                    said = "needs a person" if choice.decisions else "left alone"
                    where = f" (named in {counted(len(found[choice.gate_id]), 'file')} here)" if choice.gate_id in found else ""
                    say(for_terminal(f"{choice.gate_id}: {said}: {choice.reason}{where}"), file=out)
            for patch in patch_gates(worktree, choices, found, dry_run=args.dry_run, message=message):
                patches.append(patch)
                if args.dry_run and patch.diff:
                    # a line git apply passes over, naming the gate and the branch its diff would be
                    sys.stdout.write(
                        f"# gatehouse cleanup: gate {for_terminal(patch.choice.gate_id)}, branch {patch.branch}\n{patch.diff}"
                    )
                if not (args.all and patch.skipped and not patch.left and patch.choice.gate_id not in found):
                    say(*_patch_lines(patch, args.dry_run), file=out)  # --all: a gate this code never names goes unsaid
    finally:
        # the branches made are recorded whatever stopped the others (git failing on one gate): they exist
        made = [patch for patch in patches if patch.commit]
        if made:
            _record(destination, repository, base_commit, made, args.lock_timeout)
    if args.push is not None:
        base = base_branch(repository.root, args.base)
        for patch in made:
            push_branch(repository.root, args.push, patch.branch)
            address = review_address(repository.root, args.push, patch.branch, base)
            say(
                f"{for_terminal(patch.choice.gate_id)}: pushed {patch.branch} to {args.push}"
                + (f"; open its pull request: {address}" if address else ""),
                file=out,
            )
    say(_summary(choices, patches, found, args.dry_run), file=out)
    return 0


def _repository(args: argparse.Namespace) -> Repository:
    try:
        repository = open_repository(args.repo, args.repository_name)
    except ScanInputError as err:
        raise GatehouseError(str(err)) from err
    if not repository.is_git:
        raise GatehouseError(f"{args.repo}: not a git repository; cleanup makes a branch for each gate, so it needs one")
    if repository.commit is None:
        raise GatehouseError(f"{args.repo}: the repository has no commit yet; nothing to branch from")
    return repository


def _patch_lines(patch: GatePatch, dry_run: bool) -> list[str]:
    gate = f"{patch.choice.gate_id} ({str(patch.choice.value).lower()})"
    if patch.skipped:
        lines = [f"{gate}: {patch.skipped}"]
    else:
        where = f"would go on {patch.branch}" if dry_run else f"on {patch.branch} ({patch.commit[:12] if patch.commit else ''})"
        todos = f", {patch.todos} left with a TODO(gatehouse)" if patch.todos else ""
        kept = kept_fields(patch.fields_kept)
        lines = [f"{gate}: {counted(patch.replaced, 'check')} in {counted(len(patch.files), 'file')}{todos}{kept}, {where}"]
    lines += [f"  left as it is: {path}: {why}" for path, why in patch.left.items()]
    return [for_terminal(line) for line in lines]  # each a line, whatever the gate's id or a file's name holds


def _summary(choices: Sequence[Choice], patches: Sequence[GatePatch], found: Mapping[str, Sequence[str]], dry_run: bool) -> str:
    branched = [patch for patch in patches if patch.diff]
    existing = sum(1 for patch in patches if patch.skipped and patch.skipped.startswith("branch "))
    undecided = [choice for choice in choices if choice.value is None and choice.decisions]
    named_here = sum(1 for choice in undecided if choice.gate_id in found)
    parts = [
        f"{'would make' if dry_run else 'made'} {counted(len(branched), 'branch', 'branches')}",
        f"{len(undecided)} need a person ({named_here} named in this repository; all in analytics.cleanup_decisions)",
        f"{len(patches) - len(branched) - existing} without a check to rewrite here",
    ]
    not_stale = sum(1 for choice in choices if not choice.decisions)
    if not_stale:
        parts.append(f"{not_stale} not stale")
    if existing:
        parts.append(f"{existing} whose branch exists already")
    todos = sum(patch.todos for patch in branched)
    if todos:
        parts.append(f"{counted(todos, 'check')} left with a TODO(gatehouse)")
    kept = kept_fields(sum(patch.fields_kept for patch in branched))
    if kept:
        parts.append(kept.removeprefix(", "))
    return f"{counted(len(choices), 'gate')}: " + ", ".join(parts)


def _record(
    destination: Destination, repository: Repository, base_commit: str, made: Sequence[GatePatch], timeout_s: Any
) -> None:
    """The branches made, into console.cleanup_branches: the worklist shows which gates have one."""
    made_at = datetime.now(UTC)
    cleanup_id = f"{made_at:%Y%m%dT%H%M%SZ}-{uuid.uuid4().hex[:8]}"
    rows = [
        {
            "cleanup_id": cleanup_id,
            "made_at": made_at,
            "project": decision.project,
            "gate_id": patch.choice.gate_id,
            "repository": repository.name,
            "branch": patch.branch,
            "base_commit": base_commit,
            "commit": patch.commit,
            "cleanup_value": patch.choice.value,
            "files_changed": len(patch.files),
            "checks_replaced": patch.replaced,
            "todos": patch.todos,
        }
        for patch in made
        for decision in patch.choice.decisions
    ]
    recording.record(destination, cleanup_branches_source(rows), timeout_s, "the branches are made, but recording them failed")
