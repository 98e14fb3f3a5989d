"""Two things the cleanup must say and name exactly.

- The count of checks left with the value and a TODO(gatehouse) comment is what this rewrite did: never more than
  the checks it replaced (a local variable holding one check, inlined into two uses, is still one check), and never
  a TODO comment the file held before (an earlier run's, or one typed by hand).
- Two gate ids that differ only in letter case get branch names that differ in more than case: git keeps a branch
  as a file under .git/refs/heads, and on a case-insensitive file system (macOS, Windows) those would be one file.
"""

from __future__ import annotations

import subprocess
import textwrap
from pathlib import Path

import pytest

from gatehouse.pipelines.cleanup.branches import BRANCH_PREFIX, base_worktree, branch_for
from gatehouse.pipelines.cleanup.decisions import Choice
from gatehouse.pipelines.cleanup.patch import commit_message, patch_gate
from gatehouse.pipelines.cleanup.rewrite import TODO, Unsafe, parse_errors, rewrite_checks
from tests.cleanup.conftest import GIT_ENV, git

NOTE = "TODO(gatehouse): the gate's value, used where gatehouse cannot simplify it"

# one check held by a local variable, whose value ends up in two places the rules cannot simplify
ONE_CHECK_TWO_USES = {
    "python": """
        def f(user):
            enabled = statsig.check_gate(user, "g")
            log(enabled)
            send(enabled)
        """,
    "python, one line": """
        def f(user):
            enabled = statsig.check_gate(user, "g")
            log(enabled, enabled)
        """,
    "typescript": """
        function f(user) {
          const on = Statsig.checkGate(user, "g");
          log(on);
          send({ x: on });
        }
        """,
    "java": """
        class A {
          void f(StatsigUser user) {
            boolean on = Statsig.checkGateSync(user, "g");
            log(on);
            send(on);
          }
        }
        """,
    "go": """
        package main

        func f() {
        \ton := statsig.CheckGate(user, "g")
        \tlog(on)
        \tsend(on)
        }
        """,
    "swift": """
        func f() {
            let on = Statsig.checkGate("g")
            log(on)
            send(on)
        }
        """,
    # Kotlin's if as a value, whose branch of two statements cannot be unwrapped: its condition stays, the literal
    "kotlin, if as a value": """
        fun f() {
            val on = Statsig.checkGate("g")
            val x = if (on) {
                a()
                b()
            } else c()
            val y = if (on) {
                d()
                e()
            } else c()
            use(x, y)
        }
        """,
}


def _case(case: str) -> tuple[str, str]:
    return case.split(",")[0], textwrap.dedent(ONE_CHECK_TWO_USES[case]).lstrip("\n")


@pytest.mark.parametrize("case", ONE_CHECK_TWO_USES)
def test_one_check_in_two_uses_is_one_check_left_with_a_todo(case):
    language, before = _case(case)
    rewrite = rewrite_checks(before, language, "g", True)
    assert parse_errors(rewrite.text, language) == []
    assert '"g"' not in rewrite.text  # the check is gone...
    assert rewrite.text.count(TODO) >= 1  # ...its value marked where it is used
    assert (rewrite.replaced, rewrite.todos) == (1, 1)


def test_two_checks_in_two_uses_are_two():
    before = 'def f(user):\n    log(statsig.check_gate(user, "g"))\n    send(statsig.check_gate(user, "g"))\n'
    rewrite = rewrite_checks(before, "python", "g", False)
    assert rewrite.text == f"def f(user):\n    log(False)  # {NOTE}\n    send(False)  # {NOTE}\n"
    assert (rewrite.replaced, rewrite.todos) == (2, 2)


def test_two_checks_on_one_line_are_two_with_one_comment():
    before = 'def f(user):\n    log(statsig.check_gate(user, "g"), not statsig.check_gate(user, "g"))\n'
    rewrite = rewrite_checks(before, "python", "g", True)
    assert rewrite.text == f"def f(user):\n    log(True, False)  # {NOTE}\n"
    assert (rewrite.replaced, rewrite.todos) == (2, 2)


def test_a_todo_the_file_held_before_is_not_counted():
    # an earlier run's TODO for another gate, in the same words, a line above the check
    before = f'def f(user):\n    log(True)  # {NOTE}\n    send(statsig.check_gate(user, "g"))\n'
    rewrite = rewrite_checks(before, "python", "g", True)
    assert rewrite.text == f"def f(user):\n    log(True)  # {NOTE}\n    send(True)  # {NOTE}\n"
    assert (rewrite.replaced, rewrite.todos) == (1, 1)


@pytest.mark.parametrize(
    "language, before, after",
    [
        (
            "python",
            'def f(user):\n    log(True, statsig.check_gate(user, "g"))  # {}\n',
            "def f(user):\n    log(True, True)  # {}\n",
        ),
        (
            "typescript",
            'function f(user) {{\n  log(true, checkGate(user, "g"));  // {}\n}}\n',
            "function f(user) {{\n  log(true, true);  // {}\n}}\n",
        ),
        (
            "kotlin",
            'fun f() {{\n    log(true, Statsig.checkGate("g"))  // {}\n}}\n',
            "fun f() {{\n    log(true, true)  // {}\n}}\n",
        ),
    ],
)
def test_a_line_marked_before_is_rewritten_and_marked_once(language, before, after):
    # the line holds an earlier run's TODO already: the file is rewritten (it was refused, as if the value were
    # inside a string), the comment not repeated, and the check counted once
    try:
        rewrite = rewrite_checks(before.format(NOTE), language, "g", True)
    except Unsafe as why:
        pytest.fail(f"refused: {why}")
    assert rewrite.text == after.format(NOTE)
    assert (rewrite.replaced, rewrite.todos) == (1, 1)


def _repository(root: Path, files: dict[str, str], monkeypatch) -> Path:
    for key, value in GIT_ENV.items():
        monkeypatch.setenv(key, value)
    root.mkdir()
    for path, text in files.items():
        (root / path).write_text(text)
    git(root, "init", "--quiet", "--initial-branch=main")
    git(root, "add", ".")
    git(root, "commit", "--quiet", "-m", "base")
    return root


def _patch(root: Path, gate_id: str, paths: list[str]):
    base = git(root, "rev-parse", "HEAD").strip()
    with base_worktree(root, base) as worktree:
        return patch_gate(
            worktree,
            Choice(gate_id, (), True, "launched"),
            paths,
            dry_run=False,
            message=lambda patch: commit_message(patch, [], "2026-11-20 12:00 UTC"),
        )


def test_the_commit_message_counts_what_the_rewrite_did(tmp_path, monkeypatch):
    _, one = _case("python")
    marked = f"def g(user):\n    keep(True)  # {NOTE}\n"  # an earlier run's
    root = _repository(tmp_path / "web", {"flags.py": one, "old.py": marked + one.replace("def f", "def h")}, monkeypatch)
    patch = _patch(root, "g", ["flags.py", "old.py"])
    assert (patch.replaced, patch.todos) == (2, 2)
    message = git(root, "log", "-1", "--format=%B", patch.branch)
    assert "(2 checks in 2 files; 2 left with the value and a TODO(gatehouse) comment for a person)" in message
    assert "flags.py: 1 check replaced, 1 left with a TODO(gatehouse) comment" in message
    assert "old.py: 1 check replaced, 1 left with a TODO(gatehouse) comment" in message


# -- branch names -----------------------------------------------------------------------------------------------


def test_an_all_lower_case_id_keeps_its_branch_name():
    assert branch_for("new_checkout") == "gatehouse/cleanup/new_checkout"
    assert branch_for("checkout.v2-beta") == "gatehouse/cleanup/checkout.v2-beta"


@pytest.mark.parametrize(
    "first, second",
    [
        ("New_Checkout", "new_checkout"),
        ("New_Checkout", "NEW_CHECKOUT"),
        ("a", "A"),
        ("Ab/C", "ab/c"),
        ("X..y", "x..y"),
        ("New_Checkout", "new_checkout-" + branch_for("New_Checkout")[-8:]),
    ],
)
def test_ids_differing_only_in_case_get_branches_differing_in_more(first, second):
    one, other = branch_for(first), branch_for(second)
    assert one.lower() != other.lower()
    for branch in (one, other):
        checked = subprocess.run(["git", "check-ref-format", "--branch", branch], capture_output=True, text=True)
        assert checked.returncode == 0 and checked.stdout.strip() == branch, checked.stderr


def test_both_gates_get_a_branch_in_one_repository(tmp_path, monkeypatch):
    code = (
        'def f(user):\n    if statsig.check_gate(user, "New_Checkout"):\n        a()\n'
        '    if statsig.check_gate(user, "new_checkout"):\n        b()\n'
    )
    root = _repository(tmp_path / "web", {"flags.py": code}, monkeypatch)
    upper, lower = _patch(root, "New_Checkout", ["flags.py"]), _patch(root, "new_checkout", ["flags.py"])
    assert upper.commit and lower.commit and upper.skipped is None and lower.skipped is None
    assert lower.branch == "gatehouse/cleanup/new_checkout"
    assert upper.branch.lower() != lower.branch.lower()
    assert git(root, "for-each-ref", "--format=%(refname:short)", "refs/heads/" + BRANCH_PREFIX).split() == sorted(
        [upper.branch, lower.branch]
    )


def test_a_branch_made_under_the_earlier_name_is_recognised(tmp_path, monkeypatch):
    root = _repository(
        tmp_path / "web",
        {"flags.py": 'def f(user):\n    if statsig.check_gate(user, "New_Checkout"):\n        a()\n'},
        monkeypatch,
    )
    git(root, "branch", "gatehouse/cleanup/New_Checkout")  # what an earlier version named the gate's branch
    patch = _patch(root, "New_Checkout", ["flags.py"])
    assert patch.commit is None
    assert patch.skipped == "branch gatehouse/cleanup/New_Checkout exists already: left as it is (delete it to make it again)"
    assert git(root, "for-each-ref", "--format=%(refname:short)", "refs/heads/" + BRANCH_PREFIX).split() == [
        "gatehouse/cleanup/New_Checkout"
    ]


def test_a_branch_differing_only_in_case_is_not_taken_for_the_gates_nor_doubled(tmp_path, monkeypatch):
    # the earlier version's branch of New_Checkout: on macOS or Windows, new_checkout's would be the same file
    root = _repository(
        tmp_path / "web",
        {"flags.py": 'def f(user):\n    if statsig.check_gate(user, "new_checkout"):\n        a()\n'},
        monkeypatch,
    )
    git(root, "branch", "gatehouse/cleanup/New_Checkout")
    patch = _patch(root, "new_checkout", ["flags.py"])
    assert patch.commit is None
    assert patch.skipped is not None and "gatehouse/cleanup/New_Checkout" in patch.skipped and "case" in patch.skipped
    assert git(root, "for-each-ref", "--format=%(refname:short)", "refs/heads/" + BRANCH_PREFIX).split() == [
        "gatehouse/cleanup/New_Checkout"
    ]


def test_the_commit_message_and_the_command_name_a_private_field_kept_for_its_value(tmp_path, monkeypatch):
    """A TypeScript field only the removed code read, whose value has an effect (tsc's noUnusedLocals would refuse
    it unread): kept, and the person reviewing the branch reads so in its message and in the command's lines."""
    from gatehouse.pipelines.cli.cleanup import _patch_lines, _summary

    basket = (
        'import Statsig from "statsig-node";\n\n'
        "const baskets: string[] = [];\n\n"
        "export class Basket {\n"
        '  private readonly number = baskets.push("basket");\n\n'
        "  total(user: { id: string }): number {\n"
        '    if (Statsig.checkGateSync(user, "g")) {\n'
        "      return 1;\n"
        "    }\n"
        "    return this.number;\n"
        "  }\n"
        "}\n"
    )
    tsconfig = '{"compilerOptions": {"strict": true, "noUnusedLocals": true}}\n'
    root = _repository(tmp_path / "web", {"basket.ts": basket, "tsconfig.json": tsconfig}, monkeypatch)
    patch = _patch(root, "g", ["basket.ts"])
    assert (patch.replaced, patch.todos, patch.fields_kept) == (1, 0, 1)
    message = git(root, "log", "-1", "--format=%B", patch.branch)
    assert "(1 check in 1 file, 1 private field kept for its value's effect, with a TODO(gatehouse))" in message
    assert "basket.ts: 1 check replaced, 1 private field kept for its value's effect, with a TODO(gatehouse)" in message
    assert _patch_lines(patch, dry_run=True)[0] == (
        "g (true): 1 check in 1 file, 1 private field kept for its value's effect, with a TODO(gatehouse),"
        f" would go on {patch.branch}"
    )
    assert _summary([patch.choice], [patch], {"g": ["basket.ts"]}, dry_run=True).endswith(
        ", 1 private field kept for its value's effect, with a TODO(gatehouse)"
    )
