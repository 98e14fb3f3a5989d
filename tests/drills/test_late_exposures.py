"""The service's daily exposure computation runs late, then catches up.

While it is late every running experiment's series ends days before the service's clock. Such a
series must not be taken for a concluded one (concluded series are requested only weekly): it is
requested on every run, the views call it late rather than stalled, and the days the service catches
up on load on the first run after it did.
"""

from __future__ import annotations

import duckdb
import pytest

from gatehouse.console_twin import ConsoleTwin
from gatehouse.sources.console.constants import CUMULATIVE_EXPOSURES_PATH
from gatehouse.sources.console.settings import DEFAULT_LATE_EXPOSURE_DAYS


def served_rows(twin: ConsoleTwin) -> list[tuple]:
    """Every (experiment, group, day, count) the service answers now."""
    org = twin.organisation
    return sorted(
        (experiment_id, group["groupID"], point["date"], point["exposures"])
        for experiment_id in twin.experiment_ids
        for group in org.cumulative_exposures(experiment_id) or []
        for point in group["results"]
    )


def loaded_rows(path) -> list[tuple]:
    with duckdb.connect(str(path), read_only=True) as con:
        return sorted(con.execute("select experiment_id, group_id, date, exposures from console.cumulative_exposures").fetchall())


def statuses(path) -> dict[str, tuple]:
    with duckdb.connect(str(path), read_only=True) as con:
        rows = con.execute("select experiment_id, status, lag_days, is_late from analytics.exposure_growth").fetchall()
    return {experiment_id: (status, lag, late) for experiment_id, status, lag, late in rows}


def exposures_requested(twin: ConsoleTwin) -> set[str]:
    prefix, suffix = CUMULATIVE_EXPOSURES_PATH.split("{id}")
    return {r.path[len(prefix) : -len(suffix)] for r in twin.requests if r.path.startswith(prefix) and r.path.endswith(suffix)}


@pytest.mark.parametrize("late_by", [2, DEFAULT_LATE_EXPOSURE_DAYS])
def test_a_late_series_is_requested_every_run_and_catches_up_at_once(drill, reference_path, late_by):
    drill.start_loaded(reference_path)
    running = {
        experiment_id for experiment_id, experiment in drill.twin.organisation.experiments.items() if experiment.ended_on is None
    }
    assert running, "the organisation has running experiments"

    # The computation stops: days pass, the series do not move.
    drill.twin.settings.exposure_delay_days = late_by
    drill.twin.advance(days=late_by)
    for _ in range(2):  # late on two runs in a row: the first must not quieten the series for the second
        drill.twin.reset_requests()
        drill.run()
        assert running <= exposures_requested(drill.twin)
    late = statuses(drill.duckdb_path)
    assert {experiment_id: late[experiment_id][1:] for experiment_id in running} == {
        experiment_id: (late_by, True) for experiment_id in running
    }
    assert all(late[experiment_id][0] in ("late", "stalled") for experiment_id in running)

    # The service catches up: the very next run loads every missing day.
    drill.twin.settings.exposure_delay_days = 0
    drill.twin.reset_requests()
    drill.run()
    assert running <= exposures_requested(drill.twin)
    assert loaded_rows(drill.duckdb_path) == served_rows(drill.twin)
    caught_up = statuses(drill.duckdb_path)
    assert not any(caught_up[experiment_id][2] for experiment_id in running), "no series is late any more"
