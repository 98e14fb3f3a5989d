"""Read commands against the twin over loopback: what is printed, and exactly what was asked."""

from __future__ import annotations

import json
import re

import pytest

from gatehouse.console_twin import PaginationStyle
from tests.commands.conftest import SECRETS


def first_gate(twin):
    return twin.organisation.listed_gates()[0]["id"]


# command -> (id picked from the twin, what the twin holds for it, path asked)
ENTITY_READS = {
    "gate": (
        first_gate,
        lambda twin, id_: {k: v for k, v in twin.organisation.gates[id_].items() if k != "version"},
        "/console/v1/gates/{}",
    ),
    "holdout": (lambda twin: twin.holdout_ids[0], lambda twin, id_: twin.organisation.holdouts[id_], "/console/v1/holdouts/{}"),
    "exposures": (
        lambda twin: twin.experiment_ids[0],
        lambda twin, id_: twin.organisation.cumulative_exposures(id_),
        "/console/v1/experiments/{}/cumulative_exposures",
    ),
    "ingestion-run": (
        lambda twin: twin.ingestion_run_ids[0],
        lambda twin, id_: twin.organisation.ingestion_run(id_),
        "/console/v1/ingestion/runs/{}",
    ),
}

LIST_READS = {
    "gates": (lambda twin: [g["id"] for g in twin.organisation.listed_gates()], "id", "/console/v1/gates"),
    "dynamic-configs": (
        lambda twin: [c["id"] for c in twin.organisation.listed_dynamic_configs()],
        "id",
        "/console/v1/dynamic_configs",
    ),
    "qualifying-events": (
        lambda twin: [e["name"] for e in twin.organisation.qualifying_events],
        "name",
        "/console/v1/experiments/qualifying_events",
    ),
}


@pytest.mark.parametrize("command", ENTITY_READS)
def test_entity_read_prints_the_entity_as_json(command, twin, gatehouse):
    pick, held, path = ENTITY_READS[command]
    entity_id = pick(twin)
    run = gatehouse(command, entity_id)
    assert run.code == 0, run.err
    assert run.json() == held(twin, entity_id)
    [request] = twin.requests
    assert (request.method, request.path) == ("GET", path.format(entity_id))
    assert request.headers["service-api-key"] == SECRETS["api_key"]
    assert "x-respect-review-settings" not in request.headers


@pytest.mark.parametrize("command", ENTITY_READS)
def test_entity_read_as_table(command, twin, gatehouse):
    pick, held, _ = ENTITY_READS[command]
    entity_id = pick(twin)
    run = gatehouse(command, entity_id, "--format", "table")
    assert run.code == 0, run.err
    header, rule, *rows = run.out.splitlines()
    assert set(rule) <= {"-", " "}
    if command == "exposures":
        assert header.split() == ["groupID", "groupName", "date", "exposures"]
        assert len(rows) == sum(len(group["results"]) for group in held(twin, entity_id))
    else:
        assert header.split() == ["field", "value"]
        assert len(rows) == len(held(twin, entity_id))
        assert any(row.split()[:2] == ["id" if command != "ingestion-run" else "runID", entity_id] for row in rows)


def test_table_shows_epoch_milliseconds_as_utc_times(twin, gatehouse):
    run = gatehouse("gate", first_gate(twin), "--format", "table")
    [row] = [line for line in run.out.splitlines() if line.startswith("lastModifiedTime")]
    assert re.fullmatch(r"lastModifiedTime\s+\d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ", row)


@pytest.mark.parametrize("command", LIST_READS)
def test_list_reads_every_page(command, twin, gatehouse, monkeypatch):
    expected, key, path = LIST_READS[command]
    monkeypatch.setenv("SOURCES__CONSOLE__PAGE_SIZE", "5")
    run = gatehouse(command)
    assert run.code == 0, run.err
    assert [item[key] for item in run.json()] == expected(twin)
    pages = -(-len(expected(twin)) // 5)
    assert [(r.path, r.query["page"], r.query["limit"]) for r in twin.requests] == [
        (path, [str(page)], ["5"]) for page in range(1, pages + 1)
    ]
    assert f"{len(expected(twin))} " in run.err  # progress on stderr, not mixed into the JSON


@pytest.mark.parametrize("command", LIST_READS)
def test_list_as_table_has_one_row_per_item(command, twin, gatehouse):
    expected, key, _ = LIST_READS[command]
    run = gatehouse(command, "--format", "table")
    assert run.code == 0, run.err
    header, _, *rows = run.out.splitlines()
    assert header.split()[0] == key
    second_column = header.index(header.split()[1])
    assert [row[:second_column].rstrip() for row in rows] == expected(twin)


GATE_FILTERS = [
    (["--type", "STALE"], {"type": ["STALE"]}, lambda gate, facts: gate["type"] == "STALE"),
    (
        ["--typeReason", "STALE_PROBABLY_DEAD_CHECK"],
        {"typeReason": ["STALE_PROBABLY_DEAD_CHECK"]},
        lambda gate, facts: gate["typeReason"] == "STALE_PROBABLY_DEAD_CHECK",
    ),
    (
        ["--id-type", "userID", "--idType", "stableID"],
        {"idType": ["userID", "stableID"]},
        lambda gate, facts: gate["idType"] in ("userID", "stableID"),
    ),
    (["--rollout-rate", "0", "--rollout-rate", "100"], {"rolloutRate": ["0", "100"]}, None),
    (["--pass-rate", "INBETWEEN"], {"passRate": ["INBETWEEN"]}, None),
    (["--release-pipeline-id", "rp-none"], {"releasePipelineID": ["rp-none"]}, lambda gate, facts: False),
    (
        ["--creator-id", "nobody", "--creator-name", "Nobody"],
        {"creatorID": ["nobody"], "creatorName": ["Nobody"]},
        lambda gate, facts: False,
    ),
]


@pytest.mark.parametrize("args, query, keep", GATE_FILTERS, ids=lambda v: " ".join(v) if isinstance(v, list) else "")
def test_gate_filters_are_sent_as_the_interface_names_them(args, query, keep, twin, gatehouse):
    run = gatehouse("gates", *args)
    assert run.code == 0, run.err
    [request] = twin.requests
    assert {name: values for name, values in request.query.items() if name not in ("page", "limit")} == query
    if keep is not None:
        facts = twin.organisation.gate_facts
        assert [g["id"] for g in run.json()] == [g["id"] for g in twin.organisation.listed_gates() if keep(g, facts[g["id"]])]


def test_gate_tags_filter_repeats(twin, gatehouse):
    tags = sorted({tag for gate in twin.organisation.listed_gates() for tag in gate["tags"]})[:2]
    run = gatehouse("gates", "--tag", tags[0], "--tags", tags[1])
    assert run.code == 0, run.err
    assert twin.requests[0].query["tags"] == tags
    assert [g["id"] for g in run.json()] == [g["id"] for g in twin.organisation.listed_gates() if set(tags) & set(g["tags"])]


def test_dynamic_config_filters(twin, gatehouse):
    creator = twin.organisation.listed_dynamic_configs()[0]["creatorID"]
    run = gatehouse("dynamic-configs", "--creator-id", creator)
    assert run.code == 0, run.err
    assert twin.requests[0].query["creatorID"] == [creator]
    expected = [c["id"] for c in twin.organisation.listed_dynamic_configs() if c["creatorID"] == creator]
    assert [c["id"] for c in run.json()] == expected


def test_page_and_limit_read_that_page_only(twin, gatehouse):
    run = gatehouse("gates", "--page", "2", "--limit", "5")
    assert run.code == 0, run.err
    assert [g["id"] for g in run.json()] == [g["id"] for g in twin.organisation.listed_gates()[5:10]]
    # The chosen page is asked for directly: one request.
    assert [(r.query["page"], r.query["limit"]) for r in twin.requests] == [(["2"], ["5"])]
    assert "next: --page 3" in run.err


def test_a_page_of_a_list_without_paging_information_does_not_claim_to_be_the_last(twin, gatehouse):
    # The published dynamic-configs sample has no `pagination` object: the page cannot say what follows.
    twin.settings.pagination["dynamic_configs"] = PaginationStyle(omitted=True)
    run = gatehouse("dynamic-configs", "--page", "1", "--limit", "5")
    assert run.code == 0, run.err
    assert [c["id"] for c in run.json()] == [c["id"] for c in twin.organisation.listed_dynamic_configs()[:5]]
    assert len(twin.requests) == 1
    assert "--page 2 may hold more" in run.err and "last page" not in run.err


def test_limit_alone_reads_the_first_page_of_that_size(twin, gatehouse):
    run = gatehouse("qualifying-events", "--limit", "2")
    assert run.code == 0, run.err
    assert [e["name"] for e in run.json()] == [e["name"] for e in twin.organisation.qualifying_events[:2]]
    assert len(twin.requests) == 1


def test_page_past_the_end_prints_an_empty_list(twin, gatehouse):
    run = gatehouse("dynamic-configs", "--page", "9", "--limit", "10")
    assert run.code == 0, run.err
    assert run.json() == []
    assert "past the last page" in run.err


@pytest.mark.parametrize("args", [["--page", "0"], ["--limit", "-3"], ["--type", "SOMETIMES"]])
def test_bad_list_options_are_refused_before_any_request(args, twin, gatehouse):
    with pytest.raises(SystemExit) as stop:
        gatehouse("gates", *args)
    assert stop.value.code == 2
    assert twin.requests == []


@pytest.mark.parametrize("command", ENTITY_READS)
def test_unknown_id_is_one_line_naming_the_id(command, twin, gatehouse):
    run = gatehouse(command, "no-such-id-42")
    assert run.code == 2
    assert "not found" in run.error_line and "no-such-id-42" in run.error_line and "404" in run.error_line
    assert "Traceback" not in run.err


READ_COMMANDS = [[command, "x1"] for command in ENTITY_READS] + [[command] for command in LIST_READS]


@pytest.mark.parametrize("argv", READ_COMMANDS, ids=lambda argv: argv[0])
def test_rejected_key_names_the_setting_and_never_the_key(argv, twin, gatehouse, monkeypatch):
    monkeypatch.setenv("SOURCES__CONSOLE__API_KEY", SECRETS["wrong_api_key"])
    run = gatehouse(*argv, verbose=True)
    assert run.code == 2
    assert "401" in run.error_line
    assert "sources.console.api_key" in run.error_line and "SOURCES__CONSOLE__API_KEY" in run.error_line
    # The twin quotes the key it was sent, as production does: it must not come through.
    assert twin.requests[0].headers["service-api-key"] == SECRETS["wrong_api_key"]


@pytest.mark.parametrize("argv", READ_COMMANDS, ids=lambda argv: argv[0])
def test_forbidden_key_is_one_line(argv, twin, gatehouse, monkeypatch):
    monkeypatch.setenv("SOURCES__CONSOLE__API_KEY", SECRETS["forbidden_api_key"])
    run = gatehouse(*argv)
    assert run.code == 2
    assert "403" in run.error_line


HOSTILE = "\x1b[2J\x1b]8;;http://evil.example\x07click\x1b]8;;\x07 \u202eevil\u202c gate\u200bname \x9b2J\x7f"


def test_console_text_reaches_the_terminal_as_escapes_in_both_formats(twin, gatehouse):
    gate = first_gate(twin)
    twin.organisation.gates[gate]["name"] = HOSTILE
    twin.organisation.gates[gate]["tags"] = ["\x1b[31mred", "ok"]
    table = gatehouse("gate", gate, "--format", "table")
    assert table.code == 0, table.err
    [name] = [line for line in table.out.splitlines() if line.startswith("name ")]
    # escaped, then cut to the table's cell width like any long value
    assert name.split(None, 1)[1] == "\\x1b[2J\\x1b]8;;http://evil.example\\x07click\\x1b]8;;\\x07 \\u202eevil\\u202c gate\\u…"
    listed = gatehouse("gates", "--format", "table")
    shown = gatehouse("gate", gate)  # JSON, the default: the same data, escaped
    for run in (table, listed, shown):
        assert run.code == 0, run.err
        assert not any(char in run.out for char in "\x1b\x07\x9b\x7f\u202e\u200b"), run.out[:400]
    assert shown.json()["name"] == HOSTILE and shown.json()["tags"] == ["\x1b[31mred", "ok"]


def test_a_number_json_has_no_word_for_is_printed_as_null_and_said(twin, gatehouse):
    # the console sent NaN and Infinity (Python's parser takes them); a script's JSON parser would refuse them
    gate_id = first_gate(twin)

    def not_finite(endpoint: str, item: dict) -> dict:
        if item.get("id") == gate_id:
            item = {**item, "checksPerHour": float("nan"), "rules": [{**item["rules"][0], "passPercentage": float("inf")}]}
        return item

    twin.settings.transform_item = not_finite
    run = gatehouse("gate", gate_id)
    assert run.code == 0, run.err
    printed = json.loads(run.out, parse_constant=lambda word: pytest.fail(f"not JSON: {word}"))
    assert (printed["checksPerHour"], printed["rules"][0]["passPercentage"]) == (None, None)
    assert "rules[0].passPercentage inf, checksPerHour nan: not a finite number, written as null" in run.err
