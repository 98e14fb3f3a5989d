"""A resource is a module-level function of the client and the run: imported, built and read alone,
without the source, against the console twin in-process."""

from __future__ import annotations

import dlt

from gatehouse.console_twin import ConsoleTwin
from gatehouse.sources.console import qualifying_events
from gatehouse.sources.console.client import ClientOptions, ConsoleClient
from gatehouse.sources.console.constants import QUALIFYING_EVENTS_PATH
from gatehouse.sources.console.counts import ResourceProgress
from gatehouse.sources.console.run import ExtractionRun

PAGE_SIZE = 2


def test_qualifying_events_alone_yields_every_event_of_every_page(tmp_path):
    # Outside a run, dlt's resource state is the active pipeline's: a new one holds none (no list loaded before).
    dlt.pipeline(pipeline_name="resources_alone", pipelines_dir=str(tmp_path))
    twin = ConsoleTwin(size="small", seed=0)
    events = twin.organisation.qualifying_events
    options = ClientOptions(base_url="http://console.test", api_key=twin.settings.api_key, page_size=PAGE_SIZE)
    with ConsoleClient(options, transport=twin.transport()) as client:
        run = ExtractionRun.start(client)
        rows = list(qualifying_events(client, run))

    assert len(events) > 2 * PAGE_SIZE  # three pages at least
    assert rows == events
    pages = -(-len(events) // PAGE_SIZE)
    assert run.counts.snapshot() == {"qualifying_events": ResourceProgress(pages=pages, items=len(events))}
    assert run.counts.fields_seen["qualifying_events"] == set().union(*events)
    assert [(r.path, r.query["page"]) for r in twin.requests] == [
        (QUALIFYING_EVENTS_PATH, [str(page)]) for page in range(1, pages + 1)
    ]
