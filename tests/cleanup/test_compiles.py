"""Rewritten code compiles with the language's real toolchain and does what the original did with the gate's value, in
all six languages. The programs are in tests/cleanup/programs/<language>/, each beside a stub of the SDK that answers
the gate's value from GATE_VALUE; each is rewritten for both values, and the original and both rewrites are compiled
together, in one compiler invocation a language (the compilers start slowly), then run with the gate at each value:
the outputs are equal.

- Go: `go vet` and `go build`; the imports and the locals the removed code alone used go with it, or become `_`
  (Go refuses an unused import or local).
- Java: `javac -Xlint:all -Werror`; a `try` whose body no longer throws the checked exceptions it catches is
  unwrapped (javac refuses the catch).
- Kotlin: `kotlinc` from the system's packages, no warning but for a parameter the rewrite left unused (a local
  only the removed code read goes or becomes `_`).
- TypeScript: tsc from npm over the program's tsconfig.json, `strict` with `noUnusedLocals` and `noUnusedParameters`
  (an unused import, local or parameter is an error there), read by the rewrite as `gatehouse cleanup` reads it.
- JavaScript and Python: run by node and Python, which parse the whole file first.
- Swift: no compiler installs from the system's packages (Debian's `swift` is another program), so the rewrite is
  parsed by tree-sitter and must hold no error node; it is not run.

`make test` installs the toolchains it can (the Makefile's `toolchains`); one missing is reported by name as skipped."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from gatehouse.pipelines.cleanup.rewrite import TODO, Rewrite, parse_errors, rewrite_checks
from gatehouse.pipelines.cleanup.tsconfig import TsConfigs

PROGRAMS = Path(__file__).parent / "programs"
REPO = Path(__file__).resolve().parents[2]
# where `make test` installs TypeScript from npm
NODE_BIN = REPO / ".venv" / "node" / "node_modules" / ".bin"
GATE = "new_checkout"
VALUES = (True, False)


def toolchain(name: str) -> str:
    found = shutil.which(name) or shutil.which(name, path=str(NODE_BIN))
    if found is None:
        pytest.skip(f"{name} is not installed (make test installs it where the system's packages can): not compiled")
    return found


def run(command: list[str], cwd: Path, value: bool = False) -> str:
    env = {
        **os.environ,
        "GATE_VALUE": str(value).lower(),
        "GOFLAGS": "-mod=mod",
        "GOPROXY": "off",
        "GOCACHE": str(cwd / ".gocache"),
        "GOPATH": str(cwd / ".gopath"),
        "GO111MODULE": "on",
        "PYTHONDONTWRITEBYTECODE": "1",
    }
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


@dataclass(frozen=True)
class Built:
    """A program and its two rewrites, written (and compiled) in `folder`, one folder or package a variant:
    `before`, `after_true`, `after_false`."""

    folder: Path
    rewrites: dict[bool, Rewrite]


def variant(value: bool) -> str:
    return f"after_{str(value).lower()}"


def rewritten(language: str, program: str, **options: bool) -> tuple[dict[str, str], dict[bool, Rewrite]]:
    """The original and its rewrite for each value (with `rewrite_checks`' `options`), by variant name."""
    rewrites = {value: rewrite_checks(program, language, GATE, value, **options) for value in VALUES}
    for value, rewrite in rewrites.items():
        assert parse_errors(rewrite.text, language) == [], (value, rewrite.text)
        assert rewrite.todos + rewrite.fields_kept == rewrite.text.count(TODO), rewrite.text
    return {"before": program, **{variant(value): rewrites[value].text for value in VALUES}}, rewrites


def copied(language: str, folder: Path, texts: dict[str, str], name: str, stubs: tuple[str, ...]) -> None:
    """Each variant's text as `<variant>/<name>`, the program's stubs beside it."""
    for label, text in texts.items():
        (folder / label).mkdir(parents=True)
        (folder / label / name).write_text(text)
        for stub in stubs:
            shutil.copytree(PROGRAMS / language / stub, folder / label / stub) if (
                PROGRAMS / language / stub
            ).is_dir() else shutil.copy(PROGRAMS / language / stub, folder / label / stub)


def assert_behaves_as_before(built: Built, value: bool, command: list[str]) -> None:
    """`command` (the variant's name appended, or put in for `{}`) prints the same for the original and the rewrite."""

    def output(label: str) -> str:
        words = [word.replace("{}", label) for word in command]
        return run(words if any("{}" in word for word in command) else [*words, label], built.folder, value)

    assert output(variant(value)) == output("before")


# -- Go -----------------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def go_built(tmp_path_factory) -> Built:
    go = toolchain("go")
    folder = tmp_path_factory.mktemp("go")
    texts, rewrites = rewritten("go", (PROGRAMS / "go" / "main.go").read_text())
    shutil.copytree(PROGRAMS / "go" / "statsig", folder / "statsig")
    (folder / "statsig" / "go.mod").write_text("module github.com/statsig-io/go-sdk\n\ngo 1.19\n")
    (folder / "go.mod").write_text(
        "module example.com/app\n\ngo 1.19\n\nrequire github.com/statsig-io/go-sdk v0.0.0\n\n"
        "replace github.com/statsig-io/go-sdk => ./statsig\n"
    )
    for label, text in texts.items():
        (folder / "cmd" / label).mkdir(parents=True)
        (folder / "cmd" / label / "main.go").write_text(text)
    assert run([go, "vet", "./cmd/..."], folder) == ""
    run([go, "build", "-o", "bin/", "./cmd/..."], folder)
    return Built(folder, rewrites)


def test_go_loses_what_the_removed_code_alone_imported(go_built):
    for value, rewrite in go_built.rewrites.items():
        assert rewrite.replaced == 6
        imports = rewrite.text.split(")", 1)[0]
        assert ('"strings"' in imports) is (not value) and ('"log"' in imports) is (not value)
        assert '"fmt"' in imports and "go-sdk" in imports  # main still names statsig.User


@pytest.mark.parametrize("value", VALUES)
def test_go_compiles_and_behaves_as_before(go_built, value):
    assert_behaves_as_before(go_built, value, ["bin/{}"])


# -- Java ---------------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def java_built(tmp_path_factory) -> Built:
    javac = toolchain("javac")
    folder = tmp_path_factory.mktemp("java")
    texts, rewrites = rewritten("java", (PROGRAMS / "java" / "Checkout.java").read_text())
    copied("java", folder, {label: f"package {label};\n\n{text}" for label, text in texts.items()}, "Checkout.java", ())
    run([javac, "-Xlint:all", "-Werror", "-d", "classes", *(f"{label}/Checkout.java" for label in texts)], folder)
    return Built(folder, rewrites)


def test_java_unwraps_a_try_that_throws_nothing(java_built):
    for value, rewrite in java_built.rewrites.items():
        # a returned value and an assigned one: the literal, with a TODO for a person; a try whose body calls more
        # than the check keeps a completed future, with a TODO; the loops' and the skipped checks, simplified
        assert (rewrite.replaced, rewrite.todos) == (10, 4)
        # the first two tries' catches gone; the others' kept, their future's get() throwing what they name
        assert rewrite.text.count("catch (") == 2
        assert f"on = java.util.concurrent.CompletableFuture.completedFuture({str(value).lower()}).get();" in rewrite.text


@pytest.mark.parametrize("value", VALUES)
def test_java_compiles_and_behaves_as_before(java_built, value):
    assert_behaves_as_before(java_built, value, [toolchain("java"), "-cp", "classes", "{}.Checkout"])


# -- Kotlin -------------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def kotlin_built(tmp_path_factory) -> Built:
    kotlinc = toolchain("kotlinc")
    folder = tmp_path_factory.mktemp("kotlin")
    texts, rewrites = rewritten("kotlin", (PROGRAMS / "kotlin" / "Checkout.kt").read_text())
    copied(
        "kotlin",
        folder,
        {label: text.replace("package app\n", f"package {label}\n", 1) for label, text in texts.items()},
        "Checkout.kt",
        (),
    )
    shutil.copy(PROGRAMS / "kotlin" / "stub" / "Statsig.kt", folder / "Statsig.kt")
    done = subprocess.run(
        [kotlinc, "-d", "classes", "Statsig.kt", *(f"{label}/Checkout.kt" for label in texts)],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert done.returncode == 0, done.stderr
    # a warning is an error here but for a parameter the rewrite left unused: it is the function's API (kotlinc warns)
    warnings = [line for line in done.stderr.splitlines() if ": warning: " in line]
    assert all(re.search(r"warning: parameter '\w+' is never used$", line) for line in warnings), warnings
    return Built(folder, rewrites)


@pytest.mark.parametrize("value", VALUES)
def test_kotlin_compiles_and_behaves_as_before(kotlin_built, value):
    assert_behaves_as_before(kotlin_built, value, [toolchain("kotlin"), "-cp", "classes", "{}.CheckoutKt"])


# -- TypeScript -----------------------------------------------------------------------------------------------------

TS_STUBS = ("statsig.ts", "format.ts")
# the program's settings: strict, unused locals, imports and parameters refused (tsconfig.base.json, which
# tsconfig.json extends); the cleanup reads them as `gatehouse cleanup` does, and tsc compiles with them
TS_CONFIGS = ("tsconfig.json", "tsconfig.base.json", "node.d.ts")


@pytest.fixture(scope="module")
def typescript_built(tmp_path_factory) -> Built:
    tsc = toolchain("tsc")
    folder = tmp_path_factory.mktemp("typescript")
    settings = TsConfigs(PROGRAMS / "typescript")
    parameters, locals_ = settings.no_unused_parameters("main.ts"), settings.no_unused_locals("main.ts")
    assert parameters and locals_  # read through the extends, past its comments and trailing commas
    program = (PROGRAMS / "typescript" / "main.ts").read_text()
    texts, rewrites = rewritten("typescript", program, no_unused_parameters=parameters, no_unused_locals=locals_)
    copied("typescript", folder, texts, "main.ts", TS_STUBS)
    for name in TS_CONFIGS:
        shutil.copy(PROGRAMS / "typescript" / name, folder / name)
    run([tsc, "-p", "tsconfig.json"], folder)  # every variant in one project: one start of tsc
    return Built(folder, rewrites)


def test_typescript_switch_on_the_value_becomes_its_case_or_is_widened(typescript_built):
    for value, rewrite in typescript_built.rewrites.items():
        text = rewrite.text
        # shipping's and flow's switches are the case that runs; a module's const keeps its name, widened
        assert text.count("switch (") == (2 if value else 1)
        assert ("express heavy" in text) is value and ("standard ${weight}" in text) is (not value)
        assert ('"one-page flow"' in text) is value and ('"wizard flow"' in text) is (not value)
        assert 'const kind = "' not in text  # read by the switch alone: it goes with it
        assert f"const EXPRESS_DEFAULT = {str(value).lower()} as boolean;  // {TODO}" in text
        # steps' break inside an if is not simplified with certainty when the gate is on: the value is widened
        assert ("switch (true as boolean) {  // " + TODO in text) is value
        assert rewrite.todos == (2 if value else 1)
        # the gate off, Basket's two fields kept for their values' effect, with a TODO each: not checks
        assert rewrite.fields_kept == (0 if value else 2)


@pytest.mark.parametrize("value", VALUES)
def test_typescript_compiles_strictly_and_behaves_as_before(typescript_built, value):
    assert_behaves_as_before(typescript_built, value, [toolchain("node"), "out/{}/main.js"])


def test_typescript_parameters_only_the_removed_branch_read_get_an_underscore(typescript_built):
    # Till's (tests/cleanup/programs/typescript/main.ts): tsc -p above, with noUnusedParameters, refuses any left
    # unread; the parameter property is a field (`this.currency`) and keeps its name
    on, off = typescript_built.rewrites[True].text, typescript_built.rewrites[False].text
    assert "print(_user: { id: string }, total: number, note: string): string {" in on
    assert "print(_user: { id: string }, total: number, _note: string): string {" in off
    assert "@param _user who pays" in on and "@param note said" in on and "@param _note said" in off
    assert "constructor(private readonly currency: string) {}" in off
    assert "export function price(_user: { id: string }, total: number): string {" in on


def test_typescript_private_members_only_the_removed_branch_read_go(typescript_built):
    # Basket's (main.ts): tsc -p above, with noUnusedLocals, refuses a private member left unread (TS6133, TS6138)
    on, off = typescript_built.rewrites[True].text, typescript_built.rewrites[False].text
    for name in ("private discount", "#bonus", "private discounted(", "the discount, in percent", "discounted total"):
        assert (name in on) and (name not in off), name
    assert "private kept = 2;" in off and "kept" not in on
    assert "private readonly region: string,\n    private owner: string," in on
    assert "constructor(\n    _region: string,\n    _owner: string,\n  ) {}" in off
    # a private field whose value has an effect stays for it, no longer private (tsc asks no public field to be read)
    assert '  private readonly number = baskets.push("basket");\n' in on
    assert f'  readonly number = baskets.push("basket");  // {TODO}: only the removed code read it;' in off
    # an ES private field cannot stop being private: the line above it says tsc's unread error is expected
    assert '  #counted = baskets.push("counted");\n' in on and "@ts-expect-error" not in on
    assert f"  // @ts-expect-error {TODO}: only the removed code read it; kept for its value's effect\n  #counted =" in off


# -- JavaScript ---------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def javascript_built(tmp_path_factory) -> Built:
    node = toolchain("node")
    folder = tmp_path_factory.mktemp("javascript")
    texts, rewrites = rewritten("javascript", (PROGRAMS / "javascript" / "main.mjs").read_text())
    copied("javascript", folder, texts, "main.mjs", ("statsig.mjs", "format.mjs"))
    for label in texts:
        run([node, "--check", f"{label}/main.mjs"], folder)
    return Built(folder, rewrites)


@pytest.mark.parametrize("value", VALUES)
def test_javascript_behaves_as_before(javascript_built, value):
    assert_behaves_as_before(javascript_built, value, [toolchain("node"), "{}/main.mjs"])


# -- Python ---------------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def python_built(tmp_path_factory) -> Built:
    folder = tmp_path_factory.mktemp("python")
    texts, rewrites = rewritten("python", (PROGRAMS / "python" / "checkout.py").read_text())
    copied("python", folder, texts, "checkout.py", ("statsig",))
    return Built(folder, rewrites)


@pytest.mark.parametrize("value", VALUES)
def test_python_behaves_as_before(python_built, value):
    assert_behaves_as_before(python_built, value, [sys.executable, "-E", "-s", "{}/checkout.py"])


# -- Swift ----------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("value", VALUES)
def test_swift_parses_with_no_error_node_and_keeps_the_live_branches(value):
    program = (PROGRAMS / "swift" / "Checkout.swift").read_text()
    assert parse_errors(program, "swift") == []
    _, rewrites = rewritten("swift", program)  # which asserts no error node and no TODO
    text = rewrites[value].text
    assert rewrites[value].replaced == 6 and "checkGate" not in text
    live, dead = ("new", "old") if value else ("old", "new")
    assert f'return "{live}"' in text and f'return "{dead}"' not in text
    # the else-if decided: `} else {` with the live branch, the tablet's branch kept
    assert ('return "fresh"' in text) is value and ('return "legacy"' in text) is (not value)
    assert 'return "tablet"' in text and "} else {" in text
    assert ("guard" in text) is False


# -- Imports --------------------------------------------------------------------------------------------------------

# By language: how many checks each rewrite replaces; what neither rewrite holds any more (the SDK's import among
# them); what both keep; what only the rewrite for `false` keeps (the code removed for `true` alone imported it).
# Go's are checked above, in its import block.
IMPORTS: dict[str, tuple[int, tuple[str, ...], tuple[str, ...], tuple[str, ...]]] = {
    "kotlin": (9, ("import com.statsig.androidsdk.Statsig\n",), (), ("import java.util.Locale",)),
    "typescript": (11, ('from "./statsig"',), (), ('from "./format"',)),
    # a switch on the value: the statements that run, in its place
    "javascript": (4, ("switch (", "./statsig.mjs"), (), ("./format.mjs",)),
    # the kept code uses StatsigUser
    "python": (4, ("from statsig import statsig\n",), ("from statsig.statsig_user import StatsigUser\n",), ()),
}


@pytest.mark.parametrize("language", IMPORTS)
def test_the_sdk_and_what_the_removed_code_alone_imported_go(request, language):
    replaced, dropped, kept, kept_when_off = IMPORTS[language]
    for value, rewrite in request.getfixturevalue(f"{language}_built").rewrites.items():
        assert rewrite.replaced == replaced
        assert [line for line in dropped if line in rewrite.text] == [], value
        assert [line for line in kept if line not in rewrite.text] == [], value
        assert [line for line in kept_when_off if (line in rewrite.text) is value] == [], value


# -- Locals ---------------------------------------------------------------------------------------------------------

# The receipts (tests/cleanup/programs/<language>/) hold loops and locals that only one branch reads: the rewrite for
# each value keeps what is still read, turns to `_` what must stay bound and drops what the removed branch alone read.
# Above, go vet and go build refuse any left unused, kotlinc warns of one, tsc --noUnusedLocals refuses one; Swift
# warns of one. By language and the gate's value: what the rewrite holds, and what it no longer holds.
LOCALS: dict[str, dict[bool, tuple[tuple[str, ...], tuple[str, ...]]]] = {
    "go": {
        True: (("for _, item := range items {", "stamp := audit(len(items))", "tax := 2"), ()),
        False: (
            (
                "for i, item := range items {",
                "for i := range items {",
                "for range items {",
                # audit prints: its call stays, its value to `_`; the literal goes; err is still read, count becomes `_`
                "\t_ = audit(len(items))\n",
                '\t_, err := strconv.Atoi("3")\n',
                "\tvar _ = audit(1)\n",
            ),
            ("tax :=",),
        ),
    },
    "kotlin": {
        True: (("items.forEach { _ ->", "val stamp = audit(items.size)", "for ((name, count) in items)"), ()),
        # audit prints: its call stays; the literal goes
        False: (("for ((_, count) in items)", "val (_, second) = ", "\n    audit(items.size)\n"), ("val tax",)),
    },
    "typescript": {
        True: (
            (
                "for (const _key in order)",
                "const { id, total } = order;",
                "function shout",
                "const stamp = audit(items.length);",
            ),
            (),
        ),
        False: (
            (
                "for (const key in order)",
                "for (const _item of items)",
                "const [_first, second] = items;",
                "const { total } = order;",
                # audit logs: its call stays a statement; the literal and the helper only the removed branch called go
                "\n  audit(items.length);\n",
            ),
            ("const tax", "function shout", "read by the removed branch alone"),
        ),
    },
    "swift": {
        # audit may have an effect: its value goes to `_`; the literal goes
        True: (("for (at, item) in items.enumerated()", "\n    _ = audit(items.count)\n"), ("let tax",)),
        False: (("for (at, _) in items.enumerated()", "let stamp = audit(items.count)", "let tax = 2"), ()),
    },
}


@pytest.mark.parametrize("language", LOCALS)
def test_locals_only_the_removed_branch_read_become_blank_or_go(request, language):
    if language == "swift":  # parsed, not compiled: no toolchain to build with
        rewrites = rewritten("swift", (PROGRAMS / "swift" / "Checkout.swift").read_text())[1]
    else:
        rewrites = request.getfixturevalue(f"{language}_built").rewrites
    for value, (holds, lost) in LOCALS[language].items():
        text = rewrites[value].text
        assert [line for line in holds if line not in text] == [], value
        assert [line for line in lost if line in text] == [], value
