"""One run of the console source: what it follows beyond discovery, the rules it decides by, and what
its resources share. Every resource takes the client and this run, so each can be built alone."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import timedelta

from gatehouse.sources.console import constants, settings
from gatehouse.sources.console.catalogue import Catalogue, unique
from gatehouse.sources.console.client import ConsoleClient
from gatehouse.sources.console.columns import NumberColumns, config_numbers, gate_numbers, holdout_numbers
from gatehouse.sources.console.counts import ExtractionCounts
from gatehouse.sources.console.read_ahead import ReadAheads


@dataclass(frozen=True)
class ExtractionRun:
    """What a run's resources share: the counts, the discovery catalogue, the ids and rules; made by `start`."""

    counts: ExtractionCounts
    catalogue: Catalogue
    # Followed beyond those discovered (the interface lists neither experiments nor runs).
    experiment_ids: list[str]
    holdout_ids: list[str]
    ingestion_run_ids: list[str]
    quiet_after: timedelta
    recheck_concluded_days: int
    late_exposure_days: int
    fan_out_batch: int  # ids per batch fanned out to the client's worker pool
    # The tables this run loads, whichever of its phases extracts them (`load_phases`): what is read ahead.
    tables: frozenset[str]
    # Per run: a destination that stores one as bigint keeps it bigint (see NumberColumns).
    gate_numbers: NumberColumns = field(default_factory=gate_numbers)
    config_numbers: NumberColumns = field(default_factory=config_numbers)
    holdout_numbers: NumberColumns = field(default_factory=holdout_numbers)
    # Per-id reads started while the lists are paged (read_ahead.py); stopped when the counts close.
    read_aheads: ReadAheads = field(default_factory=ReadAheads)

    @classmethod
    def start(
        cls,
        client: ConsoleClient,
        counts: ExtractionCounts | None = None,
        *,
        experiment_ids: Sequence[str] | None = None,
        holdout_ids: Sequence[str] | None = None,
        ingestion_run_ids: Sequence[str] | None = None,
        quiet_run_after_days: float = settings.DEFAULT_QUIET_RUN_AFTER_DAYS,
        recheck_concluded_days: int = settings.DEFAULT_RECHECK_CONCLUDED_DAYS,
        late_exposure_days: int = settings.DEFAULT_LATE_EXPOSURE_DAYS,
        max_workers: int = settings.DEFAULT_MAX_WORKERS,
        tables: Sequence[str] = constants.TABLES,
    ) -> ExtractionRun:
        """A run reading through `client`, counted in `counts` (a new one when None), which is bound to the
        client; the rules as the source's arguments give them, and sixteen ids a batch per worker."""
        counts = counts if counts is not None else ExtractionCounts()
        counts.bind_client(client)
        run = cls(
            counts=counts,
            catalogue=Catalogue(client),
            experiment_ids=unique(experiment_ids or []),
            holdout_ids=unique(holdout_ids or []),
            ingestion_run_ids=unique(ingestion_run_ids or []),
            quiet_after=timedelta(days=quiet_run_after_days),
            recheck_concluded_days=recheck_concluded_days,
            late_exposure_days=late_exposure_days,
            # Each batch is one call of a transformer and one pool that drains before the next call starts:
            # the last answers of a batch leave the rate budget idle for about a round trip. Sixteen a worker
            # (128 by default) makes that seven times in a large rerun instead of 25; an experiment's series
            # is a few kB, so a batch's memory stays small.
            fan_out_batch=max(1, max_workers * 16),
            tables=frozenset(tables),
        )
        # A run that fails before its resources took what was read ahead stops those reads with the client.
        counts.on_close(run.read_aheads.close)
        return run

    def followed_experiment_ids(self) -> list[str]:
        """The experiments the run follows: those in `experiment_ids`, then those its holdouts name (the catalogue
        reads what it lacks, so the answer does not depend on which resource asks first)."""
        return self.catalogue.experiment_ids(self.experiment_ids, self.holdout_ids)
