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
        assert rewrite.todos == rewrite.text.count(TODO), rewrite.text
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


def test_go_locals_only_the_removed_branch_read_become_blank_or_go(go_built):
    # Receipt's loops and locals (tests/cleanup/programs/go/main.go): go vet and go build above refuse any left unused
    on, off = go_built.rewrites[True].text, go_built.rewrites[False].text
    assert "for _, item := range items {" in on and "for i, item := range items {" in off
    assert "for i := range items {" in off and "for range items {" in off
    # audit prints: its call stays, its value to `_`; the literal goes; err is still read, count becomes `_`
    assert "\t_ = audit(len(items))\n" in off and "tax :=" not in off
    assert '\t_, err := strconv.Atoi("3")\n' in off and "\tvar _ = audit(1)\n" in off
    assert "stamp := audit(len(items))" in on and "tax := 2" in on


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
    for rewrite in java_built.rewrites.values():
        # a returned value and an assigned one: the literal, with a TODO for a person
        assert (rewrite.replaced, rewrite.todos) == (2, 2)
        assert "ExecutionException" not in rewrite.text  # the catch and the import it alone used, gone


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


def test_kotlin_loses_the_sdk_import_and_what_the_removed_code_alone_imported(kotlin_built):
    for value, rewrite in kotlin_built.rewrites.items():
        assert rewrite.replaced == 6
        assert "import com.statsig.androidsdk.Statsig\n" not in rewrite.text
        assert ("import java.util.Locale" in rewrite.text) is (not value)


@pytest.mark.parametrize("value", VALUES)
def test_kotlin_compiles_and_behaves_as_before(kotlin_built, value):
    assert_behaves_as_before(kotlin_built, value, [toolchain("kotlin"), "-cp", "classes", "{}.CheckoutKt"])


def test_kotlin_locals_only_the_removed_branch_read_become_blank_or_go(kotlin_built):
    # receipt's (tests/cleanup/programs/kotlin/Checkout.kt): kotlinc above warns of any left unused
    on, off = kotlin_built.rewrites[True].text, kotlin_built.rewrites[False].text
    assert "for ((_, count) in items)" in off and "val (_, second) = " in off and "items.forEach { _ ->" in on
    # audit prints: its call stays; the literal goes
    assert "\n    audit(items.size)\n" in off and "val tax" not in off
    assert "val stamp = audit(items.size)" in on and "for ((name, count) in items)" in on


# -- TypeScript -----------------------------------------------------------------------------------------------------

TS_STUBS = ("statsig.ts", "format.ts")
# the program's settings: strict, unused locals, imports and parameters refused (tsconfig.base.json, which
# tsconfig.json extends); the cleanup reads them as `gatehouse cleanup` does, and tsc compiles with them
TS_CONFIGS = ("tsconfig.json", "tsconfig.base.json", "node.d.ts")


@pytest.fixture(scope="module")
def typescript_built(tmp_path_factory) -> Built:
    tsc = toolchain("tsc")
    folder = tmp_path_factory.mktemp("typescript")
    parameters = TsConfigs(PROGRAMS / "typescript").no_unused_parameters("main.ts")
    assert parameters  # read through the extends, past its comments and trailing commas
    program = (PROGRAMS / "typescript" / "main.ts").read_text()
    texts, rewrites = rewritten("typescript", program, no_unused_parameters=parameters)
    copied("typescript", folder, texts, "main.ts", TS_STUBS)
    for name in TS_CONFIGS:
        shutil.copy(PROGRAMS / "typescript" / name, folder / name)
    run([tsc, "-p", "tsconfig.json"], folder)  # every variant in one project: one start of tsc
    return Built(folder, rewrites)


def test_typescript_loses_the_sdk_and_what_the_removed_code_alone_imported(typescript_built):
    for value, rewrite in typescript_built.rewrites.items():
        assert rewrite.replaced == 10
        assert 'from "./statsig"' not in rewrite.text
        assert ('from "./format"' in rewrite.text) is (not value)


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


@pytest.mark.parametrize("value", VALUES)
def test_typescript_compiles_strictly_and_behaves_as_before(typescript_built, value):
    assert_behaves_as_before(typescript_built, value, [toolchain("node"), "out/{}/main.js"])


def test_typescript_locals_only_the_removed_branch_read_get_an_underscore_or_go(typescript_built):
    # receipt's loops and locals (tests/cleanup/programs/typescript/main.ts): tsc --noUnusedLocals above refuses any
    # left unread
    on, off = typescript_built.rewrites[True].text, typescript_built.rewrites[False].text
    assert "for (const _key in order)" in on and "for (const key in order)" in off
    assert "for (const _item of items)" in off and "const [_first, second] = items;" in off
    assert "const { total } = order;" in off and "const { id, total } = order;" in on
    # audit logs: its call stays a statement; the literal and the helper only the removed branch called go
    assert "\n  audit(items.length);\n" in off and "const tax" not in off
    assert "function shout" not in off and "read by the removed branch alone" not in off
    assert "function shout" in on and "const stamp = audit(items.length);" in on


def test_typescript_parameters_only_the_removed_branch_read_get_an_underscore(typescript_built):
    # Till's (tests/cleanup/programs/typescript/main.ts): tsc -p above, with noUnusedParameters, refuses any left
    # unread; the parameter property is a field (`this.currency`) and keeps its name
    on, off = typescript_built.rewrites[True].text, typescript_built.rewrites[False].text
    assert "print(_user: { id: string }, total: number, note: string): string {" in on
    assert "print(_user: { id: string }, total: number, _note: string): string {" in off
    assert "@param _user who pays" in on and "@param note said" in on and "@param _note said" in off
    assert "constructor(private readonly currency: string) {}" in off
    assert "export function price(_user: { id: string }, total: number): string {" in on


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


def test_javascript_loses_the_sdk_and_what_the_removed_code_alone_imported(javascript_built):
    for value, rewrite in javascript_built.rewrites.items():
        assert rewrite.replaced == 4
        assert "switch (" not in rewrite.text  # the statements that run, in its place
        assert "./statsig.mjs" not in rewrite.text
        assert ("./format.mjs" in rewrite.text) is (not value)


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


def test_python_loses_the_sdk_import(python_built):
    for rewrite in python_built.rewrites.values():
        assert rewrite.replaced == 4
        assert "from statsig import statsig\n" not in rewrite.text
        assert "from statsig.statsig_user import StatsigUser\n" in rewrite.text  # the kept code uses it


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


def test_swift_locals_only_the_removed_branch_read_become_blank_or_go():
    # receipt's (tests/cleanup/programs/swift/Checkout.swift): Swift warns of any left unused
    _, rewrites = rewritten("swift", (PROGRAMS / "swift" / "Checkout.swift").read_text())
    on, off = rewrites[True].text, rewrites[False].text
    assert "for (at, _) in items.enumerated()" in off and "for (at, item) in items.enumerated()" in on
    # audit may have an effect: its value goes to `_`; the literal goes
    assert "\n    _ = audit(items.count)\n" in on and "let tax" not in on
    assert "let stamp = audit(items.count)" in off and "let tax = 2" in off
