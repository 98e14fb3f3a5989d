"""The git side of `gatehouse cleanup`: a temporary work tree at the base commit, and a branch of one commit per gate.

The user's checkout is never touched: its branch, index and files stay as they are, whatever it holds. Every
rewrite happens in a work tree of its own (`git worktree add --detach`, in a temporary folder outside the
repository), which is removed when the cleanup ends, failed or not. A branch is only ever created, never moved:
one that exists already (a person may be working on it) is left alone. Nothing is pushed but with `--push REMOTE`:
then each new branch, never forced nor over one the remote has, with the address that opens its pull request.

No hook of the repository runs (every git command here is told of no hooks folder, and commits are made with
`--no-verify`): the hooks are programs of whoever wrote them, and one that formats or lints at a checkout or commit
would change the reviewed diff that `--dry-run` showed. The temporary work tree holds every tracked file, whatever
sparse checkout the repository uses: a check in a file outside the sparse set is rewritten too.
"""

from __future__ import annotations

import hashlib
import logging
import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote, urlsplit

from gatehouse.pipelines.errors import GatehouseError
from gatehouse.pipelines.untrusted import file_name

log = logging.getLogger("gatehouse.cleanup")

BRANCH_PREFIX = "gatehouse/cleanup/"
# Who commits when the repository names no one (a CI machine): git refuses to commit without a name.
FALLBACK_IDENTITY = ("gatehouse", "gatehouse@localhost")
# git's own messages are told apart by their words: never translated
_GIT_ENV = {"LC_ALL": "C", "GIT_TERMINAL_PROMPT": "0"}
# given to every git command of the cleanup: no hook (`post-checkout`, `post-commit`, `reference-transaction`) nor
# file-system monitor runs, and a sparse checkout does not leave files out of the temporary work tree
_GIT_CONFIG = ("-c", f"core.hooksPath={os.devnull}", "-c", "core.fsmonitor=false", "-c", "core.sparseCheckout=false")
# the diff a person reviews and `git apply` reads: the same options for --dry-run and the branch
DIFF_OPTIONS = ("--no-color", "--no-ext-diff", "--no-textconv", "--src-prefix=a/", "--dst-prefix=b/")


def git(root: Path, *args: str, stdin: bytes | None = None, env: dict[str, str] | None = None) -> bytes:
    """Runs git in `root`; its error, when it fails, is the one line raised."""
    done = subprocess.run(
        ["git", *_GIT_CONFIG, "-C", str(root), *args],
        input=stdin,
        capture_output=True,
        check=False,
        env={**os.environ, **_GIT_ENV, **(env or {})},
    )
    if done.returncode != 0:
        said = done.stderr.decode("utf-8", errors="replace").strip()
        message = (said.splitlines()[0] if said else "").removeprefix("fatal: ")
        raise GatehouseError(f"git {args[0]} failed in {root}: {message or f'exit code {done.returncode}'}")
    return done.stdout


def branch_for(gate_id: str) -> str:
    """`gatehouse/cleanup/<gate>`: the id as one safe name (pipelines/untrusted.py), never a ref git refuses, and
    never one that differs from another id's only in letter case. git keeps a branch as a file under .git/refs/heads,
    one file on a case-insensitive file system (macOS, Windows) for `New_Checkout` and `new_checkout`: an id with an
    upper-case letter gets the id's digest appended, as `file_name` appends it to an id it alters (its digest is in
    lower case, and differs between the two ids). An all-lower-case id, the common one, keeps its name as it was."""
    name = _earlier_name(gate_id)
    if name == gate_id and name != name.lower():
        name = f"{name}-{_digest(gate_id)}"
    return BRANCH_PREFIX + name


def _earlier_name(gate_id: str) -> str:
    """The branch name gatehouse gave a gate before ids differing in case were told apart, without the prefix."""
    name = file_name(gate_id)
    if ".." in name or name.endswith(".lock") or name.startswith("-"):
        # shapes git refuses in a ref's component: the dots made `_` and the whole id's digest appended (file_name's
        # own, of an id it changed), so two ids never share a branch
        name = file_name(f"\0{gate_id}").replace(".", "_").lstrip("-")
    return name


def _digest(gate_id: str) -> str:
    return hashlib.sha256(gate_id.encode("utf-8", "surrogatepass")).hexdigest()[:8]


def branch_taken(root: Path, gate_id: str) -> str | None:
    """Why the gate's branch (`branch_for`) is not made, or None when nothing stands in its way: a branch of that
    name exists, or one of the name gatehouse gave the gate before (the id as it is, upper case and all; it is the
    gate's, recognised as such), or one whose name differs from it only in case (another gate's, from before: on a
    case-insensitive file system the two would be one file, and git would refuse or mix them up)."""
    branch, earlier = branch_for(gate_id), BRANCH_PREFIX + _earlier_name(gate_id)
    names = _branches(root)
    for name in (branch, earlier):
        if name in names:
            return f"branch {name} exists already: left as it is (delete it to make it again)"
    folded = sorted(name for name in names if name.lower() == branch.lower())
    if folded:
        return (
            f"branch {folded[0]} exists, whose name differs from {branch} only in letter case (one branch on"
            " macOS and Windows): left as it is (delete or rename it to make this one)"
        )
    return None


def _branches(root: Path) -> set[str]:
    """The cleanup's branches in `root`, loose or packed, each name as git stores it (case and all)."""
    listed = git(root, "for-each-ref", "--format=%(refname)", f"refs/heads/{BRANCH_PREFIX}")
    return {line.removeprefix("refs/heads/") for line in listed.decode("utf-8", errors="surrogateescape").splitlines()}


def resolve_commit(root: Path, ref: str) -> str:
    """The commit `ref` names, as a full hash; one line when it names none."""
    if ref.startswith("-"):
        raise GatehouseError(f"--base {ref!r}: give a branch, a tag or a commit")
    try:
        return git(root, "rev-parse", "--verify", "--quiet", "--end-of-options", f"{ref}^{{commit}}").decode().strip()
    except GatehouseError:
        raise GatehouseError(f"--base {ref}: no such commit in {root}") from None


@dataclass
class Worktree:
    """A detached work tree at the base commit, for this cleanup only."""

    root: Path  # the repository the branches are made in
    path: Path
    base_commit: str

    def reset(self) -> None:
        """Back to the base commit, every change of the gate before undone (a rewrite only ever changes tracked
        files: no file to clean). git compares the index with the commit, so this costs little in a large tree."""
        git(self.path, "checkout", "--quiet", "--detach", "--force", self.base_commit)

    def read(self, path: str) -> bytes:
        return (self.path / path).read_bytes()

    def write(self, path: str, data: bytes) -> None:
        (self.path / path).write_bytes(data)

    def diff(self, paths: Sequence[str]) -> str:
        """The unified diff of `paths` against the base commit: what the branch will hold."""
        if not paths:
            return ""
        return git(self.path, "diff", *DIFF_OPTIONS, self.base_commit, "--", *paths).decode("utf-8", errors="replace")

    def commit_branch(self, branch: str, message: str, paths: Sequence[str]) -> str:
        """Creates `branch` at a commit of `paths` on top of the base and returns the commit. The work tree stays
        detached (at that commit, until `reset`): the branch is checked out nowhere."""
        git(self.path, "add", "--", *paths)
        git(self.path, "commit", "--quiet", "--no-verify", "--file=-", stdin=message.encode("utf-8"), env=_identity(self.root))
        commit = git(self.path, "rev-parse", "HEAD").decode().strip()
        # `branch` creates, never moves: a branch made meanwhile by someone else makes this fail, not vanish
        git(self.path, "branch", "--no-track", "--end-of-options", branch, commit)
        return commit


def _identity(root: Path) -> dict[str, str]:
    """The repository's own author when it has one; otherwise gatehouse's, so a CI machine can commit."""
    env: dict[str, str] = {}
    for key, variable, fallback in (
        ("user.name", "GIT_AUTHOR_NAME", FALLBACK_IDENTITY[0]),
        ("user.email", "GIT_AUTHOR_EMAIL", FALLBACK_IDENTITY[1]),
    ):
        done = subprocess.run(["git", "-C", str(root), "config", "--get", key], capture_output=True, check=False)
        if done.returncode != 0 and variable not in os.environ:
            env[variable] = env[variable.replace("AUTHOR", "COMMITTER")] = fallback
    return env


@contextmanager
def base_worktree(root: Path, base_commit: str) -> Iterator[Worktree]:
    """A temporary detached work tree of `root` at `base_commit`, removed afterwards, whatever happens."""
    folder = Path(tempfile.mkdtemp(prefix="gatehouse-cleanup-"))
    path = folder / "tree"
    git(root, "worktree", "add", "--quiet", "--detach", str(path), base_commit)
    try:
        yield Worktree(root, path, base_commit)
    finally:
        try:
            git(root, "worktree", "remove", "--force", str(path))
        except GatehouseError as err:
            log.warning("%s; removing the folder and pruning", err)
            shutil.rmtree(path, ignore_errors=True)
            subprocess.run(["git", "-C", str(root), "worktree", "prune"], capture_output=True, check=False)
        shutil.rmtree(folder, ignore_errors=True)


# -- pushing for review ---------------------------------------------------------------------------------------------

# Where a hosted remote opens a pull (merge) request for a pushed branch: (host's name pattern, address template).
REVIEW_PAGES = (
    ("github", "https://{host}/{path}/compare/{base}...{branch}?expand=1"),
    (
        "gitlab",
        "https://{host}/{path}/-/merge_requests/new?merge_request%5Bsource_branch%5D={branch}"
        "&merge_request%5Btarget_branch%5D={base}",
    ),
    ("bitbucket", "https://{host}/{path}/pull-requests/new?source={branch}&dest={base}"),
)


def check_remote(root: Path, remote: str) -> None:
    """A remote the repository names, before anything is made: one line otherwise."""
    try:
        git(root, "remote", "get-url", remote)
    except GatehouseError:
        raise GatehouseError(f"--push {remote}: {root} has no remote of that name (see `git remote -v`)") from None


def base_branch(root: Path, base: str) -> str:
    """The branch a pull request goes onto: `base` when it names a branch, else the branch checked out (`HEAD`)."""
    if base != "HEAD":
        return base
    name = git(root, "rev-parse", "--abbrev-ref", "HEAD").decode().strip()
    return name if name != "HEAD" else "main"


def push_branch(root: Path, remote: str, branch: str) -> None:
    """Pushes a new branch to `remote`: never forced, and never over a branch the remote has already (a person may
    be working on it): git refuses the push, and its one line is raised."""
    # asked where the push goes (a remote's pushurl may differ from the address it is fetched from)
    pushed_to = git(root, "remote", "get-url", "--push", remote).decode().strip()
    if git(root, "ls-remote", "--heads", pushed_to, f"refs/heads/{branch}").strip():
        raise GatehouseError(f"{remote} has a branch {branch} already: not pushed over it (delete it there to push this one)")
    git(root, "push", "--no-verify", remote, f"refs/heads/{branch}:refs/heads/{branch}")


def review_address(root: Path, remote: str, branch: str, base: str) -> str | None:
    """The address that opens a pull request from `branch` onto `base` on GitHub, GitLab or Bitbucket (cloud or a
    host whose name says which), from the remote's URL; None for any other remote (a bare repository, a file path)."""
    url = git(root, "remote", "get-url", remote).decode().strip()
    host, path = _host_and_path(url)
    if host is None:
        return None
    for name, template in REVIEW_PAGES:
        if name in host.lower():
            return template.format(host=host, path=path, base=quote(base, safe=""), branch=quote(branch, safe=""))
    return None


def _host_and_path(url: str) -> tuple[str | None, str]:
    """(host, owner/repository) of an https, ssh or scp-like git URL; (None, "") for a local one."""
    scp = re.fullmatch(r"(?:[^@/]+@)?([^:/]+):(?!//)(.+?)(?:\.git)?/?", url)
    if scp and "://" not in url:
        return scp.group(1), scp.group(2)
    parts = urlsplit(url)
    if parts.scheme in ("http", "https", "ssh", "git") and parts.hostname:
        return parts.hostname, parts.path.strip("/").removesuffix(".git")
    return None, ""
