"""Integers the console sends that no warehouse integer holds (beyond a signed 64-bit integer, the range of
DuckDB's and PostgreSQL's `bigint`): the record is loaded with that value null, and a one-line warning names the
table, the record's id, the field and the value (cut to a sane length). One bad value never fails the run.

Against the console twin over loopback HTTP, as `gatehouse run` reads it (`transform_item` makes it send the bad
values), into a DuckDB file in tmp_path.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import duckdb
import pytest

from gatehouse.console_twin import ConsoleTwin
from gatehouse.pipelines.run.steps import RunOptions, RunSummary, run_extraction
from gatehouse.pipelines.warehouse.destination import Destination
from gatehouse.sources.console.client import ClientOptions, ConsoleClient
from gatehouse.sources.console.constants import LOGGER_NAME
from gatehouse.sources.console.counts import ExtractionCounts
from gatehouse.sources.console.exposures import exposure_count
from tests.drills.conftest import make_twin, source_args

INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1  # what a bigint column holds, in DuckDB and PostgreSQL alike
HUGE = 99999999999999999999999  # the value of the defect report
JUST_OVER = INT64_MAX + 1  # 2**63: orjson still writes it (it takes unsigned 64-bit), a bigint column does not hold it
JUST_UNDER = INT64_MIN - 1
NOT_FIT = "does not fit a 64-bit integer; loaded as null"


class BadValues:
    """What the twin sends wrong, chosen from its organisation: one of each kind of record."""

    def __init__(self, twin) -> None:
        org = twin.organisation
        gates = sorted(org.listed_gates(), key=lambda gate: gate["id"])
        self.huge_gate, self.over_gate, self.max_gate, self.min_gate = (gate["id"] for gate in gates[:4])
        self.config = min(config["id"] for config in org.listed_dynamic_configs())
        self.holdout = min(h for gate in gates for h in gate.get("holdoutIDs") or ())
        self.experiment = twin.experiment_ids[0]
        options = ClientOptions(base_url="http://console.test", api_key=twin.settings.api_key)
        with ConsoleClient(options, transport=twin.transport()) as client:
            series = client.get_cumulative_exposures(self.experiment)
            # one still moving, so the second run asks for it again (a completed run is never asked again)
            self.run = next(
                run_id
                for run_id in twin.ingestion_run_ids
                if client.get_ingestion_run(run_id)["latestStatus"] != "pulse_complete"
            )
        group = next(group for group in series if len(group.get("results") or ()) >= 2)
        self.group = group["groupID"]
        self.huge_day, self.text_day = group["results"][0]["date"], group["results"][1]["date"]
        twin.reset_requests()

    def transform(self, endpoint: str, item: dict) -> dict:
        if endpoint == "gates":
            wrong = {self.huge_gate: HUGE, self.over_gate: JUST_OVER, self.max_gate: INT64_MAX, self.min_gate: INT64_MIN}
            if item["id"] in wrong:
                item["checksPerHour"] = wrong[item["id"]]
        elif endpoint == "dynamic_configs" and item["id"] == self.config:
            item["defaultValue"] = {"limit": HUGE, "label": "kept"}  # a JSON column: the number inside it
        elif endpoint == "holdout" and item["id"] == self.holdout:
            item["createdTime"] = JUST_UNDER
        elif endpoint == "ingestion_run":
            item["rowCount"] = HUGE if item["runID"] == self.run else 7  # a count the contract does not name yet
        elif endpoint == "cumulative_exposures" and item["groupID"] == self.group:  # unique to its experiment
            results = [dict(point) for point in item["results"]]
            results[0]["exposures"] = HUGE
            results[1]["exposures"] = str(HUGE)  # a count sent as text, read as the number it spells
            item["results"] = results
        return item


class Kept(logging.Handler):
    """The messages of the warnings the console source's own logger gives while attached."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        if record.name == LOGGER_NAME and record.levelno == logging.WARNING:
            self.messages.append(record.getMessage())


def run_with_warnings(twin: ConsoleTwin, base_url: str, path: Path) -> tuple[RunSummary, list[str]]:
    """One run of the twin into the DuckDB file `path`: its summary and the source's warnings."""
    logger, kept = logging.getLogger(LOGGER_NAME), Kept()
    level = logger.level
    logger.setLevel(logging.WARNING)
    logger.addHandler(kept)
    try:
        summary = run_extraction(
            RunOptions(
                destination=Destination(duckdb_path=path), progress=False, source_args=source_args(twin, base_url, page_size=10)
            )
        )
    finally:
        logger.removeHandler(kept)
        logger.setLevel(level)
    return summary, kept.messages


@pytest.fixture(scope="module")
def loaded(tmp_path_factory: pytest.TempPathFactory):
    """Two runs against a twin that sends the bad values; the DuckDB file, the values, both summaries and the
    warnings of each run. Made once for the tests that read them (a pair of runs each)."""
    twin = make_twin()
    bad = BadValues(twin)
    twin.settings.transform_item = bad.transform
    path = tmp_path_factory.mktemp("huge_numbers") / "gatehouse.duckdb"
    summaries: list[RunSummary] = []
    warnings: list[list[str]] = []
    with twin.serve() as base_url:
        for _ in range(2):
            summary, warned = run_with_warnings(twin, base_url, path)
            summaries.append(summary)
            warnings.append(warned)
    return path, bad, summaries, warnings


def one(path: Path, sql: str, *args: Any) -> Any:
    with duckdb.connect(str(path), read_only=True) as connection:
        return connection.execute(sql, list(args)).fetchone()[0]


def test_integers_beyond_64_bits_load_as_null_and_each_is_named_in_one_warning(loaded):
    path, bad, summaries, warnings = loaded

    gate = "select checks_per_hour from console.gates where id = ? and _dlt_valid_to is null"
    assert one(path, gate, bad.huge_gate) is None
    assert one(path, gate, bad.over_gate) is None
    assert one(path, gate, bad.max_gate) == INT64_MAX, "the largest 64-bit integer fits: kept"
    assert one(path, gate, bad.min_gate) == INT64_MIN, "the smallest 64-bit integer fits: kept"
    assert one(path, "select count(*) from console.gates where checks_per_hour is not null") > 50, "the others load"
    default = "select default_value from console.dynamic_configs where id = ? and _dlt_valid_to is null"
    assert one(path, default.replace("default_value", "json_extract(default_value, '$.limit')"), bad.config) == "null"
    assert one(path, default.replace("default_value", "default_value->>'label'"), bad.config) == "kept"
    assert one(path, "select count(*) from console.holdouts where id = ? and created_time is null", bad.holdout) == 1
    assert one(path, "select count(*) from console.ingestion_runs where run_id = ? and row_count is null", bad.run) == 1
    assert one(path, "select count(*) from console.ingestion_runs where row_count = 7") == len(make_twin().ingestion_run_ids) - 1
    exposures = "select exposures from console.cumulative_exposures where experiment_id = ? and group_id = ? and date = ?"
    assert one(path, exposures, bad.experiment, bad.group, bad.huge_day) is None
    assert one(path, exposures, bad.experiment, bad.group, bad.text_day) is None

    first = warnings[0]
    assert f"gates {bad.huge_gate}: checksPerHour {HUGE} {NOT_FIT}" in first
    assert f"gates {bad.over_gate}: checksPerHour {JUST_OVER} {NOT_FIT}" in first
    assert f"dynamic_configs {bad.config}: defaultValue.limit {HUGE} {NOT_FIT}" in first
    assert f"holdouts {bad.holdout}: createdTime {JUST_UNDER} {NOT_FIT}" in first
    assert f"ingestion_runs {bad.run}: rowCount {HUGE} {NOT_FIT}" in first
    for day, shown in ((bad.huge_day, str(HUGE)), (bad.text_day, repr(str(HUGE)))):
        assert f"cumulative_exposures {bad.experiment}: exposures of group {bad.group} on {day} {shown} {NOT_FIT}" in first
    assert len(first) == 7, first
    assert not any(str(bad.max_gate) in line or str(bad.min_gate) in line for line in first)
    # the run's summary lists them too, a line each
    listed = [line for line in summaries[0].lines() if line.startswith("  left null ")]
    assert f"  left null gates {bad.huge_gate}: checksPerHour {HUGE} {NOT_FIT.split(';')[0]}" in listed
    assert len(listed) == 7, listed


def test_a_rerun_of_the_same_bad_values_loads_nothing_again_and_still_says_them(loaded):
    path, bad, summaries, warnings = loaded
    assert summaries[1].new_versions.get("gates", 0) == 0, "the list as last loaded (its bad value null both times)"
    assert summaries[1].unchanged.get("gates"), summaries[1].unchanged
    assert sorted(warnings[1]) == sorted(warnings[0]), "the console still sends them: said on every run"


def test_every_integer_of_an_item_is_checked_wherever_it_sits_and_a_long_one_is_shown_cut():
    from gatehouse.sources.console.columns import unfit_integers_as_null

    counts = ExtractionCounts()
    items = [
        {
            "id": "g1",
            "checksPerHour": 10**200,
            "isEnabled": True,
            "rules": [{"id": "r", "passPercentage": 50, "pendingAutomatedRollouts": [{"time": JUST_OVER}]}],
            "lastModifiedTime": INT64_MAX,
            "createdTime": INT64_MIN,
            "ratio": 1e300,
            "rate": float("inf"),
        }
    ]
    unfit_integers_as_null(counts, "gates", items, "id")

    assert items == [
        {
            "id": "g1",
            "checksPerHour": None,
            "isEnabled": True,
            "rules": [{"id": "r", "passPercentage": 50, "pendingAutomatedRollouts": [{"time": None}]}],
            "lastModifiedTime": INT64_MAX,
            "createdTime": INT64_MIN,
            "ratio": 1e300,
            "rate": None,
        }
    ]
    [long, infinite, nested] = counts.left_null
    assert (long.table, long.id, long.field, long.why) == ("gates", "g1", "checksPerHour", "does not fit a 64-bit integer")
    assert long.value == "1000000000000000000000000… (201 digits)"
    # JSON's `Infinity` (Python's parser reads it): written as null by orjson anyway, now said
    assert (infinite.field, infinite.value, infinite.why) == ("rate", "inf", "is not a finite number")
    assert (nested.field, nested.value) == ("rules[0].pendingAutomatedRollouts[0].time", str(JUST_OVER))


def test_an_exposure_count_beyond_64_bits_in_any_form_is_no_count():
    assert exposure_count(INT64_MAX) == INT64_MAX
    for value in (HUGE, JUST_OVER, str(HUGE), 1e23, float("inf"), "-inf", JUST_UNDER):
        assert exposure_count(value) is None, value


def test_an_exposure_count_that_cannot_be_loaded_is_null_and_said_with_its_experiment_group_and_day():
    from gatehouse.sources.console.exposures import loadable_series

    counts = ExtractionCounts()
    series = [{"groupID": "g", "groupName": "G", "results": [
        {"date": "2026-11-01", "exposures": 10},
        {"date": "2026-11-02", "exposures": 1e23},
        {"date": "2026-11-03", "exposures": float("inf")},
        {"date": "2026-11-04", "exposures": "many"},
        {"date": "2026-11-05", "exposures": 12, "uniqueUsers": HUGE},  # any other integer: the general rule
    ]}]  # fmt: skip
    loadable_series(counts, "exp", series)

    assert [point["exposures"] for point in series[0]["results"]] == [10, None, None, None, 12]
    assert series[0]["results"][4]["uniqueUsers"] is None
    assert [(v.table, v.id, v.field, v.value, v.why) for v in counts.left_null] == [
        ("cumulative_exposures", "exp", "exposures of group g on 2026-11-02", "1e+23", "does not fit a 64-bit integer"),
        ("cumulative_exposures", "exp", "exposures of group g on 2026-11-03", "inf", "is not a finite number"),
        ("cumulative_exposures", "exp", "exposures of group g on 2026-11-04", "'many'", "is not a number"),
        ("cumulative_exposures", "exp", "[0].results[4].uniqueUsers", str(HUGE), "does not fit a 64-bit integer"),
    ]


# Sent as text or as a float with an integral value, a number is what dlt reads into a column the destination stores as
# bigint (the shape drift table: "39" loads 39): the number it spells. Beyond 64 bits it failed the run at normalize or
# load, so it is null too, said as the integer sent as such is; in a column stored as anything else it is left as sent.
TEXT_HUGE, TEXT_UNDER = str(HUGE), str(JUST_UNDER)


class TextAndFloats:
    """Run 1: every number as the contract types it (an integer), so the destination stores its column as bigint (a
    rule's `evaluations` too, a field the contract does not name). Run 2: numbers beyond 64 bits as text and as floats,
    and numbers in range as text and floats, which load as before."""

    def __init__(self, twin) -> None:
        org = twin.organisation
        gates = sorted(org.listed_gates(), key=lambda gate: gate["id"])
        with_rules = [gate["id"] for gate in gates if gate["rules"]]
        self.nested_gate = with_rules[0]
        others = [gate["id"] for gate in gates if gate["id"] != self.nested_gate]
        self.checks = dict(zip(others, (TEXT_HUGE, 1e23, TEXT_UNDER, str(INT64_MAX), "39", 1e18, 12.5)))
        self.holdout = min(h for gate in gates for h in gate.get("holdoutIDs") or ())
        self.config = min(config["id"] for config in org.listed_dynamic_configs())
        self.run = BadValues(twin).run
        self.second = False

    def transform(self, endpoint: str, item: dict) -> dict:
        second = self.second
        if endpoint == "gates":
            for rule in item.get("rules") or ():
                rule["evaluations"] = 5
            if second and item["id"] in self.checks:
                item["checksPerHour"] = self.checks[item["id"]]
            if second and item["id"] == self.nested_gate:
                item["rules"] = [{**item["rules"][0], "evaluations": TEXT_HUGE, "passPercentage": TEXT_HUGE}, *item["rules"][1:]]
        elif endpoint == "dynamic_configs" and item["id"] == self.config:
            item["defaultValue"] = {"limit": TEXT_HUGE if second else 5}  # a JSON value keeps its text
        elif endpoint == "holdout" and item["id"] == self.holdout and second:
            item["createdTime"] = TEXT_HUGE
        elif endpoint == "ingestion_run":
            item["rowCount"] = 1e23 if second and item["runID"] == self.run else 7
        return item


@pytest.fixture
def retyped(tmp_path: Path):
    """Two runs: the first stores the number columns as bigint, the second sends text and floats into them; the DuckDB
    file, the values, the second run's summary and the warnings of each run."""
    twin = make_twin()
    sent = TextAndFloats(twin)
    twin.settings.transform_item = sent.transform
    path = tmp_path / "gatehouse.duckdb"
    warnings: list[list[str]] = []
    with twin.serve() as base_url:
        for second in (False, True):
            sent.second = second
            summary, warned = run_with_warnings(twin, base_url, path)
            warnings.append(warned)
    return path, sent, summary, warnings


def test_a_number_beyond_64_bits_sent_as_text_or_float_into_a_bigint_column_loads_as_null_and_is_said(retyped):
    path, sent, summary, warnings = retyped
    ids = {value: gate for gate, value in sent.checks.items()}

    assert warnings[0] == [], "the first run stores the columns: nothing to say"
    gate = "select checks_per_hour from console.gates where id = ? and _dlt_valid_to is null"
    assert one(path, gate, ids[TEXT_HUGE]) is None
    assert one(path, gate, ids[1e23]) is None
    assert one(path, gate, ids[TEXT_UNDER]) is None
    # in range, as before: text is the number it spells, an integral float the integer, a fraction the variant column
    assert one(path, gate, ids[str(INT64_MAX)]) == INT64_MAX
    assert one(path, gate, ids["39"]) == 39
    assert one(path, gate, ids[1e18]) == 10**18
    assert one(path, gate.replace("checks_per_hour", "checks_per_hour__v_double"), ids[12.5]) == 12.5
    rule = (
        "select r.{} from console.gates g join console.gates__rules r on r._dlt_parent_id = g._dlt_id"
        " where g.id = ? and g._dlt_valid_to is null and r._dlt_list_idx = 0"
    )
    assert one(path, rule.format("evaluations"), sent.nested_gate) is None
    assert one(path, rule.format("pass_percentage"), sent.nested_gate) == 1e23, "a double column holds it: kept"
    default = "select default_value->>'limit' from console.dynamic_configs where id = ? and _dlt_valid_to is null"
    assert one(path, default, sent.config) == TEXT_HUGE, "a JSON value keeps the text sent"
    assert one(path, "select count(*) from console.holdouts where id = ? and created_time is null", sent.holdout) == 1
    assert one(path, "select count(*) from console.ingestion_runs where run_id = ? and row_count is null", sent.run) == 1

    text = f"{TEXT_HUGE!r} {NOT_FIT}"
    assert sorted(warnings[1]) == sorted(
        [
            f"gates {ids[TEXT_HUGE]}: checksPerHour {text}",
            f"gates {ids[1e23]}: checksPerHour 1e+23 {NOT_FIT}",
            f"gates {ids[TEXT_UNDER]}: checksPerHour {TEXT_UNDER!r} {NOT_FIT}",
            f"gates {sent.nested_gate}: rules[0].evaluations {text}",
            f"holdouts {sent.holdout}: createdTime {text}",
            f"ingestion_runs {sent.run}: rowCount 1e+23 {NOT_FIT}",
        ]
    )
    listed = [line for line in summary.lines() if line.startswith("  left null ")]
    assert f"  left null gates {ids[1e23]}: checksPerHour 1e+23 {NOT_FIT.split(';')[0]}" in listed
    assert len(listed) == 6, listed


def test_which_text_and_floats_are_read_beyond_64_bits_in_a_bigint_column_and_which_stay_as_sent():
    """Without the twin: a schema as a run that loaded before stores it, current as in a resource."""
    from dlt.common.configuration.container import Container
    from dlt.common.schema import Schema
    from dlt.common.schema.utils import new_column, new_table
    from dlt.extract.source import SourceSchemaInjectableContext

    from gatehouse.sources.console.columns import null_unfit_integers

    schema = Schema("console")
    bigint, double, text = (lambda name, kind=kind: new_column(name, kind) for kind in ("bigint", "double", "text"))
    schema.update_table(
        new_table(
            "gates",
            columns=[bigint("checks_per_hour"), bigint("version"), double("ratio"), text("label"), bigint("owner__team_size")],
        )
    )
    schema.update_table(new_table("gates__rules", "gates", columns=[bigint("evaluations")]))
    schema.update_table(new_table("gates__counts", "gates", columns=[bigint("value")]))
    record = {
        "id": "g",
        "checksPerHour": " 9_223_372_036_854_775_808 ",
        "version": "0x8000000000000000",
        "ratio": 1e23,
        "label": TEXT_HUGE,
        "owner": {"teamSize": -1e19},
        "counts": [5, TEXT_UNDER],
        "rules": [{"evaluations": "9223372036854775807"}, {"evaluations": "99999999999999999999 runs"}],
        "defaultValue": {"limit": TEXT_HUGE},
        "checked": float(INT64_MIN),
    }
    counts = ExtractionCounts()
    with Container().injectable_context(SourceSchemaInjectableContext(schema)):
        null_unfit_integers(counts, "gates", "g", record)

    assert record == {
        "id": "g",
        "checksPerHour": None,
        "version": None,
        "ratio": 1e23,
        "label": TEXT_HUGE,
        "owner": {"teamSize": None},
        "counts": [5, None],
        "rules": [{"evaluations": "9223372036854775807"}, {"evaluations": "99999999999999999999 runs"}],
        "defaultValue": {"limit": TEXT_HUGE},
        "checked": float(INT64_MIN),
    }
    assert sorted((v.field, v.value) for v in counts.left_null) == [
        ("checksPerHour", "' 9_223_372_036_854_775_808 '"),
        ("counts[1]", repr(TEXT_UNDER)),
        ("owner.teamSize", "-1e+19"),
        ("version", "'0x8000000000000000'"),
    ]
    # outside a resource no schema is current: nothing is known to be stored as bigint, text and floats stay
    assert null_unfit_integers(ExtractionCounts(), "gates", "g", {"version": TEXT_HUGE}) == {"version": TEXT_HUGE}
