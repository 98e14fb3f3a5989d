"""The twin's clock: the organisation's "now", moved forward by whole days and nothing else."""

from __future__ import annotations

import logging
import threading
from datetime import datetime
from email.utils import format_datetime

from gatehouse.console_twin.evolution import advance_one_day
from gatehouse.console_twin.generator import SIZES
from gatehouse.console_twin.organisation import Organisation

log = logging.getLogger("console_twin")


class Clock:
    """Reads the time off the organisation and moves it; each day changes gates, configs, exposures and runs."""

    def __init__(self, organisation: Organisation, size: str, lock: threading.RLock) -> None:
        self.organisation = organisation
        self.size = size
        # The organisation's lock: a day never passes halfway through an operation or a drill helper.
        self.lock = lock
        self.days_advanced = 0
        # A scripted organisation (time_travel.Play) changes its gates and configs only as its script says:
        # the random changes of a day would break the truth the script records.
        self.scripted = False

    @property
    def now(self) -> datetime:
        return self.organisation.now

    def http_date(self) -> str:
        return format_datetime(self.now, usegmt=True)

    def advance(self, days: int = 1) -> None:
        """Moves the clock by whole days."""
        if days < 0:
            raise ValueError("the twin's clock only moves forward")
        size = SIZES[self.size]
        runs_per_day = max(1, round(size.ingestion_runs / size.run_history_days))
        with self.lock:
            for _ in range(days):
                self.days_advanced += 1
                advance_one_day(self.organisation, self.days_advanced, runs_per_day, evolve=not self.scripted)
        log.info("console twin advanced %d day(s): now %s", days, self.now.isoformat())
