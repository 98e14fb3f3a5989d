"""The rewrite of one file (pipelines/cleanup/rewrite.py) on the sample repository: for each gate and value, exactly
the expected file (tests/cleanup/expected/<gate>/), which parses; what the rewrite does not know stays byte-identical."""

from __future__ import annotations

import pytest

from gatehouse.pipelines.cleanup.rewrite import TODO, language_of, parse_errors, rewrite_checks
from tests.cleanup.conftest import EXPECTED, SAMPLE

VALUES = {"new_checkout": True, "old_banner": False}
SOURCES = sorted(str(path.relative_to(SAMPLE)) for path in SAMPLE.rglob("*") if path.is_file() and language_of(path.name))
# (gate, file): checks replaced, of which left with the literal and a TODO; files not named check no such gate
COUNTS = {
    ("new_checkout", "android/app/Checkout.kt"): (1, 0),
    ("new_checkout", "api/checkout/CheckoutController.java"): (2, 0),
    ("new_checkout", "api/flags/banner.go"): (1, 0),
    ("new_checkout", "ios/App/Checkout.swift"): (2, 0),
    # `cart.small and True` is True, not cart.small, when cart.small is a truthy non-boolean; `record(…, True)`
    ("new_checkout", "service/app/checkout.py"): (4, 2),
    ("new_checkout", "web/src/Banner.tsx"): (1, 0),
    ("new_checkout", "web/src/menu.ts"): (2, 0),
    ("old_banner", "android/app/Checkout.kt"): (2, 0),
    ("old_banner", "api/checkout/CheckoutController.java"): (2, 0),
    ("old_banner", "api/flags/banner.go"): (1, 0),
    ("old_banner", "api/flags/ribbon.go"): (1, 0),
    ("old_banner", "ios/App/Checkout.swift"): (1, 0),
    ("old_banner", "service/app/checkout.py"): (2, 0),
    ("old_banner", "web/src/Banner.tsx"): (1, 0),
    ("old_banner", "web/src/menu.ts"): (2, 1),  # a CustomEvent's detail
}


def test_the_sample_covers_every_language():
    assert sorted({language_of(path) for path in SOURCES}) == ["go", "java", "kotlin", "python", "swift", "tsx", "typescript"]


@pytest.mark.parametrize("gate_id", VALUES)
@pytest.mark.parametrize("path", SOURCES)
def test_each_file_becomes_exactly_the_expected_one(gate_id, path):
    source = (SAMPLE / path).read_text()
    expected_file = EXPECTED / gate_id / path
    rewrite = rewrite_checks(source, language_of(path), gate_id, VALUES[gate_id])
    assert (rewrite.replaced, rewrite.todos) == COUNTS.get((gate_id, path), (0, 0))
    if expected_file.exists():
        assert rewrite.text == expected_file.read_text()
        assert parse_errors(rewrite.text, language_of(path)) == []
        assert rewrite.text.count(TODO) == rewrite.todos
    else:
        assert rewrite.text == source  # no check of the gate: byte-identical
    # the undecided gate's checks are untouched
    assert rewrite.text.count('"half_rollout"') == source.count('"half_rollout"')
    # a second rewrite finds nothing left to do
    again = rewrite_checks(rewrite.text, language_of(path), gate_id, VALUES[gate_id])
    assert (again.text, again.replaced) == (rewrite.text, 0)


def test_every_sample_file_parses_as_it_is():
    for path in SOURCES:
        assert parse_errors((SAMPLE / path).read_text(), language_of(path)) == [], path


@pytest.mark.parametrize(
    "language, broken",
    [
        ("python", "if True\n    pass\n"),
        ("typescript", "if (a { b(); }\n"),
        ("tsx", "const x = <div>;\n"),
        ("java", "class A { void f() { if (true) { } }\n"),
        ("kotlin", "fun f() { val x = }\n"),
        ("go", "package m\nfunc f() {\n"),
        ("swift", "func f() { let x = }\n"),
    ],
)
def test_parse_errors_finds_what_does_not_parse(language, broken):
    assert parse_errors(broken, language) != []


def test_a_check_of_another_gate_with_a_longer_id_is_not_this_gate():
    source = 'if statsig.check_gate(user, "new_checkout_v2"):\n    go()\n'
    assert rewrite_checks(source, "python", "new_checkout", True).text == source


def test_languages_by_file_name():
    assert [language_of(name) for name in ("a.py", "b.TS", "c.tsx", "d.jsx", "e.mjs", "f.kt", "g.go", "h.swift", "i.yaml")] == [
        "python",
        "typescript",
        "tsx",
        "tsx",
        "javascript",
        "kotlin",
        "go",
        "swift",
        None,
    ]
