"""The order a run loads in (sources.console.LOAD_PHASES): the lists, holdouts and runs, then the exposures and
the run's own row; `tables` narrows both phases, and a table the source does not have is refused."""

from __future__ import annotations

import pytest

from gatehouse.sources.console import console, load_phases
from gatehouse.sources.console.errors import ConfigurationError
from gatehouse.sources.console.settings import resolve_settings

BASE_URL = "https://console.test"
API_KEY = "console-Vb7Np2Qx9Lk4Tz6Wm3Rc8Hd5"


def phases(**args) -> list[list[str]]:
    source = console(resolve_settings(base_url=BASE_URL, api_key=API_KEY), **args)
    return [sorted(phase.selected_resources) for phase in load_phases(source)]


def test_a_run_loads_the_lists_holdouts_and_runs_first_then_the_exposures_and_its_row():
    assert phases() == [
        ["dynamic_configs", "gates", "holdouts", "ingestion_runs", "qualifying_events", "read_ahead"],
        ["cumulative_exposures", "extraction_runs"],
    ]


def test_tables_narrow_every_phase_and_the_run_is_always_recorded():
    assert phases(tables=["gates", "cumulative_exposures"]) == [
        ["gates", "read_ahead"],
        ["cumulative_exposures", "extraction_runs"],
    ]
    assert phases(tables=["holdouts"]) == [["holdouts", "read_ahead"], ["extraction_runs"]]


def test_a_table_the_source_does_not_have_is_refused():
    with pytest.raises(ConfigurationError, match="unknown table.s. flags; choose from gates, dynamic_configs"):
        console(resolve_settings(base_url=BASE_URL, api_key=API_KEY), tables=["gates", "flags"])
