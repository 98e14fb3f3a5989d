"""The views translated beside the last load (steps.Run.views_ahead): a first run translates every view in the
background while its last phase loads, so the refresh after the load translates none; a run that adds no
column translates none at all (its views are current)."""

from __future__ import annotations

import threading

from gatehouse.pipelines.models import build


def test_a_first_run_translates_the_views_beside_its_last_load_and_a_rerun_translates_none(drill, monkeypatch):
    translated: list[str] = []
    render_view = build.render_view

    def counting_render_view(client, definition, raw):
        translated.append(threading.current_thread().name)
        return render_view(client, definition, raw)

    monkeypatch.setattr(build, "render_view", counting_render_view)
    monkeypatch.setattr(build, "_translated", build.Kept(8))  # a process that has translated nothing yet

    drill.run()
    assert len(translated) == len(build.view_definitions())
    assert set(translated) == {"gatehouse-views-ahead"}, "every view translated beside the load, none after it"

    translated.clear()
    drill.run()
    assert translated == []
