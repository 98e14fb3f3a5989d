"""`gatehouse cleanup` on the sample repository: a branch a decided gate holding exactly the expected files, each
parsing; the evidence in its commit; the person's checkout byte-identical; --dry-run's diff the branch's own."""

from __future__ import annotations

import duckdb

from gatehouse.pipelines.cleanup.branches import DIFF_OPTIONS
from gatehouse.pipelines.cleanup.rewrite import language_of, parse_errors
from tests.cleanup.conftest import EXPECTED, SAMPLE, git, tree_bytes

DECIDED = ("new_checkout", "old_banner")


def checkout_state(root) -> tuple:
    """What a person working in the repository sees: branch, commit, status, every file, the branches, the work trees."""
    return (
        git(root, "symbolic-ref", "HEAD"),
        git(root, "rev-parse", "HEAD"),
        git(root, "status", "--porcelain"),
        tree_bytes(root),
        git(root, "for-each-ref", "--format=%(refname) %(objectname)"),
        git(root, "worktree", "list", "--porcelain"),
    )


def with_work_in_progress(root) -> None:
    """A person's uncommitted edit and untracked file: the cleanup must leave both as they are."""
    first = sorted(path for path in SAMPLE.rglob("*") if path.is_file())[0].relative_to(SAMPLE)
    (root / first).write_bytes((root / first).read_bytes() + b"\n# my edit, not committed\n")
    (root / "notes.txt").write_text("untracked\n")


def expected_tree(gate_id: str) -> dict[str, bytes]:
    tree = tree_bytes(SAMPLE)
    tree.update(tree_bytes(EXPECTED / gate_id))
    return tree


def branch_tree(root, branch: str) -> dict[str, bytes]:
    paths = git(root, "ls-tree", "-r", "-z", "--name-only", branch).split("\0")
    return {path: git_bytes(root, f"{branch}:{path}") for path in paths if path}


def git_bytes(root, spec: str) -> bytes:
    import subprocess

    return subprocess.run(["git", "-C", str(root), "show", spec], capture_output=True, check=True).stdout


def test_each_decided_gate_gets_a_branch_of_the_expected_files_and_the_checkout_is_untouched(repository, database, gatehouse):
    with_work_in_progress(repository)
    before = checkout_state(repository)
    done = gatehouse("cleanup", *DECIDED, "half_rollout", "--repo", str(repository), "--duckdb", str(database))
    assert done.code == 0, done.err
    assert checkout_state(repository)[:4] == before[:4]
    assert git(repository, "worktree", "list", "--porcelain") == before[5]
    branches = git(repository, "for-each-ref", "--format=%(refname:short)", "refs/heads/gatehouse").split()
    assert branches == [f"gatehouse/cleanup/{gate_id}" for gate_id in DECIDED]
    base = git(repository, "rev-parse", "main").strip()
    for gate_id in DECIDED:
        branch = f"gatehouse/cleanup/{gate_id}"
        assert git(repository, "rev-parse", f"{branch}^").strip() == base, "one commit on the base"
        tree = branch_tree(repository, branch)
        assert tree == expected_tree(gate_id)
        for path in tree_bytes(EXPECTED / gate_id):
            assert parse_errors(tree[path].decode(), language_of(path)) == [], path
    assert (
        "half_rollout: needs a person: forgotten: partly rolled out for a long time; finish or roll back the rollout"
        " (named in 4 files here)"
    ) in done.out
    assert done.out.splitlines()[-1] == (
        "3 gates: made 2 branches, 1 need a person (1 named in this repository; all in analytics.cleanup_decisions),"
        " 0 without a check to rewrite here, 3 checks left with a TODO(gatehouse)"
    )


def test_the_commit_carries_the_evidence(repository, database, gatehouse):
    assert gatehouse("cleanup", "new_checkout", "--repo", str(repository), "--duckdb", str(database)).code == 0
    message = git(repository, "log", "-1", "--format=%B", "gatehouse/cleanup/new_checkout")
    lines = message.rstrip("\n").splitlines()
    assert lines[0] == "Remove stale gate new_checkout: it is always true"
    changed = sorted(tree_bytes(EXPECTED / "new_checkout"))
    evidence = {line[:35].rstrip(): line[35:] for line in lines if line[:1].isalpha() and "  " in line}
    assert evidence["console type and reason"] == "STALE, STALE_PROBABLY_LAUNCHED (service)"
    assert evidence["status"] == "Launched"
    assert evidence["days untouched"] == "172"  # 2026-06-01 to the load of 2026-11-20
    assert evidence["checks per hour"] == "250"
    assert evidence["rollout"] == "100%"
    assert evidence["value chosen"] == "true: launched in the console: every user passes since 2026-06-01 (172 days)"
    assert evidence["other repositories referencing it"] == "none: no other repository has been scanned"
    assert [line.split()[2].rstrip(":") for line in lines if line.startswith("file changed")] == changed
    assert lines[-1] == "Made by gatehouse cleanup from the console data loaded as of 2026-11-20 12:00 UTC."


def test_dry_run_prints_the_diff_the_branches_hold_and_writes_nothing(repository, database, gatehouse):
    before = checkout_state(repository)
    dry = gatehouse("cleanup", "--all", "--repo", str(repository), "--duckdb", str(database), "--dry-run")
    assert dry.code == 0, dry.err
    assert checkout_state(repository) == before
    assert "half_rollout: needs a person" in dry.err and "diff --git" not in dry.err
    made = gatehouse("cleanup", "--all", "--repo", str(repository), "--duckdb", str(database))
    assert made.code == 0, made.err
    branch_diffs = "".join(git(repository, "diff", *DIFF_OPTIONS, "main", f"gatehouse/cleanup/{gate_id}") for gate_id in DECIDED)
    # each gate's diff headed by a line naming the gate and its branch, which git apply passes over
    headed = "".join(
        f"# gatehouse cleanup: gate {gate_id}, branch gatehouse/cleanup/{gate_id}\n"
        + git(repository, "diff", *DIFF_OPTIONS, "main", f"gatehouse/cleanup/{gate_id}")
        for gate_id in DECIDED
    )
    assert dry.out == headed
    assert "".join(line for line in dry.out.splitlines(keepends=True) if not line.startswith("# gatehouse")) == branch_diffs


def test_the_worklist_shows_the_branches_and_who_must_decide(repository, database, gatehouse):
    assert gatehouse("cleanup", "--all", "--repo", str(repository), "--duckdb", str(database)).code == 0
    with duckdb.connect(str(database), read_only=True) as connection:
        rows = connection.sql(
            "select gate_id, cleanup_value, cleanup_state, cleanup_branches from analytics.cleanup_decisions order by gate_id"
        ).fetchall()
    assert rows == [
        ("half_rollout", None, "needs a person", None),
        ("new_checkout", True, "branch made", "web: gatehouse/cleanup/new_checkout"),
        ("old_banner", False, "branch made", "web: gatehouse/cleanup/old_banner"),
    ]


def test_a_branch_that_exists_is_left_as_it_is(repository, database, gatehouse):
    git(repository, "branch", "gatehouse/cleanup/new_checkout", "main")
    kept = git(repository, "rev-parse", "gatehouse/cleanup/new_checkout")
    said = "new_checkout (true): branch gatehouse/cleanup/new_checkout exists already: left as it is (delete it to make it again)"
    # --dry-run says what the run will do: leave it
    dry = gatehouse("cleanup", "new_checkout", "--repo", str(repository), "--duckdb", str(database), "--dry-run")
    assert dry.code == 0, dry.err
    assert said in dry.err and dry.out == ""  # no diff: nothing would be made
    done = gatehouse("cleanup", "new_checkout", "--repo", str(repository), "--duckdb", str(database))
    assert done.code == 0, done.err
    assert git(repository, "rev-parse", "gatehouse/cleanup/new_checkout") == kept
    assert said in done.out


def test_what_cannot_be_cleaned_up_is_one_line(repository, database, gatehouse, tmp_path):
    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "a.py").write_text("x = 1\n")
    cases = {
        (
            "cleanup",
            "--repo",
            str(plain),
            "--all",
        ): f"{plain}: not a git repository; cleanup makes a branch for each gate, so it needs one",
        ("cleanup", "--repo", str(repository)): "name the gates to clean up, or give --all for every decided one",
        (
            "cleanup",
            "--repo",
            str(repository),
            "--all",
            "--base",
            "no-such-ref",
        ): f"--base no-such-ref: no such commit in {repository}",
        # --all is every decided gate: a gate named beside it would be quietly one of them
        ("cleanup", "--repo", str(repository), "--all", "new_checkout"): (
            "--all and gates named: --all is every decided stale gate; name gates, or give --all"
        ),
    }
    for argv, line in cases.items():
        done = gatehouse(*argv, "--duckdb", str(database))
        assert (done.code, done.err) == (2, f"gatehouse: error: {line}\n")
    # a gate no console listed: one line with the nearest id, nothing written
    done = gatehouse("cleanup", "new_checkuot", "--repo", str(repository), "--duckdb", str(database))
    assert done.code == 2 and done.err.splitlines()[-1] == (
        "gatehouse: error: no gate new_checkuot has been loaded: did you mean new_checkout?; nothing was written"
    )
    assert "gatehouse/cleanup/new_checkout" not in git(repository, "branch", "--list")
    # the issue's own example: no id is near it, so none is offered
    before = git(repository, "for-each-ref")
    done = gatehouse("cleanup", "no_such_gate", "--repo", str(repository), "--duckdb", str(database))
    assert done.code == 2 and done.err.splitlines()[-1] == (
        "gatehouse: error: no gate no_such_gate has been loaded; nothing was written"
    )
    assert git(repository, "for-each-ref") == before and done.out == ""
    # a project no run loaded: a typo would leave every gate out, as if none were stale
    done = gatehouse("cleanup", "--all", "--project", "defualt", "--repo", str(repository), "--duckdb", str(database))
    assert done.code == 2 and done.err.splitlines()[-1] == (
        "gatehouse: error: no project defualt has been loaded (did you mean default?); nothing was written"
    )
    assert git(repository, "for-each-ref") == before and done.out == ""


def test_no_hook_runs_and_a_sparse_checkout_leaves_no_file_out(repository, database, gatehouse, tmp_path):
    # hooks that would mark their run, and change the files, at each step the cleanup's git commands take
    ran = tmp_path / "hooks-ran"
    hooks = repository / ".git" / "hooks"
    for hook in ("post-checkout", "post-commit", "reference-transaction", "pre-commit", "commit-msg"):
        (hooks / hook).write_text(f"#!/bin/sh\necho {hook} >> '{ran}'\necho '# formatted' >> web/src/menu.ts\nexit 0\n")
        (hooks / hook).chmod(0o755)
    # a person who works on one folder only: the checks in the other files are rewritten all the same
    git(repository, "sparse-checkout", "set", "--no-cone", "/api/")
    assert not (repository / "web").exists()
    done = gatehouse("cleanup", "new_checkout", "--repo", str(repository), "--duckdb", str(database))
    assert done.code == 0, done.err
    assert not ran.exists(), ran.read_text()
    tree = branch_tree(repository, "gatehouse/cleanup/new_checkout")
    assert tree == expected_tree("new_checkout")
    assert not (repository / "web").exists()  # the person's sparse checkout as it was


def test_a_branch_made_before_git_fails_on_another_gate_is_recorded(repository, database, gatehouse, monkeypatch):
    from gatehouse.pipelines.cleanup import branches
    from gatehouse.pipelines.errors import GatehouseError

    made = branches.Worktree.commit_branch

    def fails_the_second(self, branch, message, paths):
        if branch.endswith("old_banner"):
            raise GatehouseError("git branch failed in the repository: cannot lock ref")
        return made(self, branch, message, paths)

    monkeypatch.setattr(branches.Worktree, "commit_branch", fails_the_second)
    done = gatehouse("cleanup", "--all", "--repo", str(repository), "--duckdb", str(database))
    assert done.code != 0 and "cannot lock ref" in done.err
    with duckdb.connect(str(database), read_only=True) as connection:
        rows = connection.sql(
            "select gate_id, cleanup_state, cleanup_branches from analytics.cleanup_decisions order by gate_id"
        ).fetchall()
    assert rows == [
        ("half_rollout", "needs a person", None),
        ("new_checkout", "branch made", "web: gatehouse/cleanup/new_checkout"),
        ("old_banner", "ready", None),
    ]
