"""Three projects, one failing at the load, the views and the snapshot (tests/drills/promise_projects.py)."""

from __future__ import annotations

import pytest

from tests.drills.promise_projects import STEP_PARTS, single_loads, three_projects_one_failing_at

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def loads(tmp_path_factory):
    return single_loads(tmp_path_factory)


@pytest.mark.parametrize("step", STEP_PARTS["warehouse"])
def test_three_projects_one_failing_at_each_step(tmp_path, monkeypatch, quick_backoff, loads, step):
    three_projects_one_failing_at(step, tmp_path, monkeypatch, loads)
