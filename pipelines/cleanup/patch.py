"""One gate's patch: its checks found by the code-references scanner, rewritten to the decided value, one commit.

A file is changed only where the rewrite is sure of itself: a file in a language the rewriter reads, in UTF-8, that
parses before and after. Every other place that names the gate (a YAML file, a string that is not a check, a file
that would not parse) is left as it is and listed, for the person who reviews the branch.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field

from gatehouse.pipelines.cleanup.branches import Worktree, branch_for, branch_taken
from gatehouse.pipelines.cleanup.decisions import Choice, evidence_rows
from gatehouse.pipelines.cleanup.rewrite import Unsafe, language_of, parse_errors, rewrite_checks
from gatehouse.pipelines.cleanup.tsconfig import TsConfigs
from gatehouse.pipelines.code_refs.scan import CHECK_CALL, GATE, LITERAL, Entity, Hit, Matcher, Repository, scan_repository
from gatehouse.pipelines.untrusted import visible
from gatehouse.pipelines.wording import counted

log = logging.getLogger("gatehouse.cleanup")


@dataclass(frozen=True)
class FileRewrite:
    path: str
    replaced: int
    todos: int
    fields_kept: int = 0  # private fields only the removed code read, kept for their values' effect (`Rewrite`)

    def said(self) -> str:
        todo = f", {self.todos} left with a TODO(gatehouse) comment" if self.todos else ""
        return f"{counted(self.replaced, 'check')} replaced{todo}{kept_fields(self.fields_kept)}"


def kept_fields(number: int) -> str:
    """What a person reviewing the branch reads about the private fields only the removed code read, kept for their
    values' effect: ', 1 private field kept for its value's effect, with a TODO(gatehouse)' ('' for none)."""
    if not number:
        return ""
    whose = "its value's" if number == 1 else "their values'"
    return f", {counted(number, 'private field')} kept for {whose} effect, with a TODO(gatehouse)"


@dataclass
class GatePatch:
    """What the cleanup did, or would do, for one gate."""

    choice: Choice
    branch: str
    files: list[FileRewrite] = field(default_factory=list)
    left: dict[str, str] = field(default_factory=dict)  # path -> why it was not changed
    diff: str = ""
    commit: str | None = None
    skipped: str | None = None  # why no branch was made

    @property
    def replaced(self) -> int:
        return sum(rewrite.replaced for rewrite in self.files)

    @property
    def todos(self) -> int:
        return sum(rewrite.todos for rewrite in self.files)

    @property
    def fields_kept(self) -> int:
        return sum(rewrite.fields_kept for rewrite in self.files)


def find_checks(worktree: Worktree, gate_ids: Sequence[str], excludes: Sequence[str]) -> dict[str, list[str]]:
    """gate id -> the files of the base commit that name it as a string literal or in a check, in path order."""
    matcher = Matcher(Entity(GATE, gate_id) for gate_id in gate_ids)
    tree = Repository(worktree.path, worktree.path.name, True, None, worktree.base_commit)
    hits, _ = scan_repository(tree, matcher, excludes)
    found: dict[str, list[str]] = {}
    for hit in hits:
        if _counts(hit):
            paths = found.setdefault(hit.entity_id, [])
            if hit.path not in paths:
                paths.append(hit.path)
    return found


def _counts(hit: Hit) -> bool:
    return hit.entity_type == GATE and hit.match_kind in (LITERAL, CHECK_CALL)


def patch_gate(
    worktree: Worktree,
    choice: Choice,
    paths: Sequence[str],
    *,
    dry_run: bool,
    message: Callable[[GatePatch], str],
    settings: TsConfigs | None = None,
) -> GatePatch:
    """Rewrites `paths` in the work tree for one decided gate; commits them on its branch unless `dry_run`.
    The work tree is back at the base commit afterwards. `settings`: the checkout's TypeScript settings, read once
    for the whole cleanup (`patch_gates`)."""
    settings = settings or checkout_settings(worktree)
    assert choice.value is not None
    patch = GatePatch(choice, branch_for(choice.gate_id))
    taken = branch_taken(worktree.root, choice.gate_id)
    if taken:  # said by --dry-run too: the run would leave it as it is
        patch.skipped = taken
        return patch
    try:
        for path in paths:
            _rewrite_file(worktree, patch, path, choice.value, settings)
        changed = [rewrite.path for rewrite in patch.files]
        if not changed:
            patch.skipped = "no check of it to rewrite" + (" (see the places left below)" if patch.left else "")
            return patch
        patch.diff = worktree.diff(changed)
        if not dry_run:
            patch.commit = worktree.commit_branch(patch.branch, message(patch), changed)
    finally:
        if patch.files:  # nothing written, nothing to undo
            worktree.reset()
    return patch


def checkout_settings(worktree: Worktree) -> TsConfigs:
    """The tsconfig.json files of the base commit, and the packages they extend installed in the user's checkout
    (`node_modules` is not tracked: the work tree has none)."""
    return TsConfigs(worktree.path, (worktree.root,))


def _rewrite_file(worktree: Worktree, patch: GatePatch, path: str, value: bool, settings: TsConfigs) -> None:
    language = language_of(path)
    if language is None:
        patch.left[path] = "not a language the rewrite reads"
        return
    try:
        text = worktree.read(path).decode("utf-8")
    except UnicodeDecodeError:
        patch.left[path] = "not UTF-8 text"
        return
    # a byte-order mark is the file's, not the code's (Python's compiler refuses it in text): kept as it was
    bom = "\ufeff" if text.startswith("\ufeff") else ""
    text = text[len(bom) :]
    if parse_errors(text, language):
        patch.left[path] = f"does not parse as {language} before the rewrite"
        return
    try:
        # tsc's noUnusedParameters and noUnusedLocals, where the file's tsconfig.json sets them, refuse a parameter and a
        # private member the rewrite left unread
        typescript = language in ("typescript", "tsx")
        rewrite = rewrite_checks(
            text,
            language,
            patch.choice.gate_id,
            value,
            no_unused_parameters=typescript and settings.no_unused_parameters(path),
            no_unused_locals=typescript and settings.no_unused_locals(path),
            no_unused_locals_in_doubt=typescript and settings.no_unused_locals_in_doubt(path),
        )
    except Unsafe as why:
        patch.left[path] = str(why)
        return
    if rewrite.replaced == 0:
        patch.left[path] = "names the gate, but not in a check the rewrite knows"
        return
    errors = parse_errors(rewrite.text, language)
    if errors:
        log.warning(
            "%s: the rewrite of %s would not parse (%s); left as it is",
            visible(path),
            visible(patch.choice.gate_id),
            visible(errors[0]),
        )
        patch.left[path] = "the rewrite would not parse"
        return
    worktree.write(path, (bom + rewrite.text).encode("utf-8"))
    patch.files.append(FileRewrite(path, rewrite.replaced, rewrite.todos, rewrite.fields_kept))
    if any(f"{quote}{patch.choice.gate_id}{quote}" in rewrite.text for quote in "\"'`"):
        patch.left[path] = "still names the gate after the rewrite, in a use the rewrite does not know"


def commit_message(patch: GatePatch, other_repositories: Sequence[str], loaded_as_of: str) -> str:
    """The commit's message: what changed, the evidence the value rests on, and what is left for a person."""
    choice = patch.choice
    value = str(choice.value).lower()
    todos = f"; {patch.todos} left with the value and a TODO(gatehouse) comment for a person" if patch.todos else ""
    rows = evidence_rows(choice, {rewrite.path: rewrite.said() for rewrite in patch.files}, other_repositories)
    rows += [("left as it is", f"{path}: {why}") for path, why in patch.left.items()]
    width = max(len(what) for what, _ in rows)
    lines = [
        f"Remove stale gate {choice.gate_id}: it is always {value}",
        "",
        f"Its checks are replaced by {value} and the code that makes dead is removed"
        f" ({counted(patch.replaced, 'check')} in {counted(len(patch.files), 'file')}{todos}{kept_fields(patch.fields_kept)}).",
        "",
        *(f"{what.ljust(width)}  {said}" for what, said in rows),
        "",
        f"Made by gatehouse cleanup from the console data loaded as of {loaded_as_of}.",
    ]
    # a gate's id and name were typed in the console: nothing in them may hide or rewrite a line of `git log`
    return "\n".join(visible(line) for line in lines) + "\n"


def patch_gates(
    worktree: Worktree,
    choices: Sequence[Choice],
    found: Mapping[str, Sequence[str]],
    *,
    dry_run: bool,
    message: Callable[[GatePatch], str],
) -> Iterator[GatePatch]:
    """Each decided gate's patch, in order, over the files `found` names for it (`find_checks`)."""
    settings = checkout_settings(worktree)
    for choice in choices:
        if choice.value is not None:
            paths = found.get(choice.gate_id, [])
            yield patch_gate(worktree, choice, paths, dry_run=dry_run, message=message, settings=settings)
