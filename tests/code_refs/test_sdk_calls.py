"""The service SDKs' documented call forms reveal the ids the console does not have (code orphans)."""

from __future__ import annotations

import pytest

from gatehouse.pipelines.code_refs.scan import Entity, Matcher, open_repository, scan_repository
from tests.code_refs.test_scan import write

KNOWN = [Entity("gate", "new_checkout")]


@pytest.mark.parametrize(
    "path, source, expected",
    [
        ("main.go", 'if statsig.CheckGate(user, "ghost_gate") {', ("gate", "ghost_gate")),
        ("main.go", 'on := statsig.CheckGateWithExposureLoggingDisabled(user, "ghost_gate")', ("gate", "ghost_gate")),
        ("main.go", 'config := statsig.GetConfig(user, "ghost_config")', ("dynamic_config", "ghost_config")),
        ("app.js", 'if (statsig.checkGateSync(user, "ghost_gate")) {', ("gate", "ghost_gate")),
        ("App.tsx", "const { value } = useGateValue('ghost_gate');", ("gate", "ghost_gate")),
        ("Main.java", 'boolean on = Statsig.checkGateSync(user, "ghost_gate");', ("gate", "ghost_gate")),
        ("Main.java", 'Statsig.checkGateAsync(user, "ghost_gate").get();', ("gate", "ghost_gate")),
    ],
)
def test_an_orphan_call_of_each_sdk_form_is_found(tmp_path, path, source, expected):
    assert [(h.entity_type, h.entity_id, h.match_kind) for h in Matcher(KNOWN).hits(source.encode(), path)] == [
        (*expected, "check_call")
    ]
    # and through the whole scan, ripgrep's prefilter included (it must know the call's name)
    write(tmp_path, {path: source.encode() + b"\n"})
    hits, _ = scan_repository(open_repository(tmp_path), Matcher(KNOWN))
    assert [(h.path, h.line, h.entity_type, h.entity_id, h.match_kind) for h in hits] == [(path, 1, *expected, "check_call")]


@pytest.mark.parametrize(
    "source",
    [
        'on = check_gate(user, "check" + "out")',
        "on = checkGate(user, 'new_' + suffix)",
        'on = statsig.CheckGate(user, "prefix_"+name)',
    ],
)
def test_an_id_built_by_concatenation_is_no_orphan_call(source):
    # only the literal that is the whole argument is an id: "check" here is a piece of one, not a gate
    assert Matcher(KNOWN).hits(source.encode(), "app.py") == []


def test_a_call_across_lines_with_its_arguments_whole_is_found():
    source = b'on = check_gate(\n    user,\n    "ghost_gate"\n)\nother = checkGate("ghost_two", { disableExposure: true })\n'
    assert [(h.line, h.entity_id) for h in Matcher(KNOWN).hits(source, "app.py")] == [(3, "ghost_gate"), (5, "ghost_two")]
