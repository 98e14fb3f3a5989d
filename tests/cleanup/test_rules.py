"""The rewrite's rules as data (pipelines/cleanup/rules.py): each call form and each rule's example becomes exactly
its `after`, which parses; without the rule's step the example comes out otherwise, so each example shows its rule
at work; and every step a rule names is one the engine has."""

from __future__ import annotations

import pytest

from gatehouse.pipelines.cleanup.rewrite import NODE_STEP_FUNCTIONS, parse_errors, rewrite_checks
from gatehouse.pipelines.cleanup.rules import ALL, CALL_FORMS, NODE_STEPS, RULES, CallForm, Rule

# the steps the engine runs once, after the node steps: the literal (always), Java's try, the locals, the imports
FINISHING_STEPS = {"literal", "java try", "locals", "imports"}


@pytest.mark.parametrize("item", [*CALL_FORMS, *RULES], ids=lambda item: item.name)
def test_each_example_becomes_exactly_its_after(item):
    example = item.example
    assert example.language in item.languages
    assert parse_errors(example.before, example.language) == []
    rewrite = rewrite_checks(example.before, example.language, "g", example.value)
    assert rewrite.text == example.after
    assert rewrite.replaced == 1
    assert parse_errors(rewrite.text, example.language) == []


@pytest.mark.parametrize("rule", [rule for rule in RULES if rule.step != "literal"], ids=lambda rule: rule.name)
def test_without_its_rule_the_example_comes_out_otherwise(rule: Rule):
    example = rule.example
    others = [other for other in RULES if other.step != rule.step]
    assert rewrite_checks(example.before, example.language, "g", example.value, others).text != example.after


@pytest.mark.parametrize("form", CALL_FORMS, ids=lambda form: form.name)
def test_a_call_form_is_a_check_only_in_its_languages(form: CallForm):
    # the same call in a language whose SDK has no such form is left as it is
    other = next(language for language in ("go", "python", "swift") if language not in form.languages)
    text = {
        "go": f'package m\n\nfunc f() {{\n\tif x.{form.name}(u, "g") {{\n\t\ta()\n\t}}\n}}\n',
        "python": f'if x.{form.name}(u, "g"):\n    a()\n',
        "swift": f'func f() {{\n    if x.{form.name}(u, "g") {{\n        a()\n    }}\n}}\n',
    }[other]
    assert rewrite_checks(text, other, "g", True).replaced == 0


def test_every_step_a_rule_names_is_the_engines():
    assert set(NODE_STEPS) == set(NODE_STEP_FUNCTIONS)
    assert {rule.step for rule in RULES} <= set(NODE_STEPS) | FINISHING_STEPS
    assert {language for item in (*CALL_FORMS, *RULES) for language in item.languages} <= set(ALL)
    # every language has its checks and its rules
    assert {language for form in CALL_FORMS for language in form.languages} == set(ALL)
