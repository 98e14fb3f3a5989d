"""The rate-limit floor: the fewest requests that can fetch an organisation, and how long the limit makes them take.

Lists are read at the largest page size the console allows (the twin, like production, documents no
cap: then each list is one request); every fan-out entity (holdout, experiment's exposures,
ingestion run) is one request, because the interface has no batch read. Dividing by the rate limit
gives the time no client can beat, whatever its concurrency.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

LISTS = ("gates", "dynamic_configs", "qualifying_events")
FAN_OUTS = ("holdouts", "experiments", "ingestion_runs")


@dataclass(frozen=True)
class OrganisationShape:
    """What there is to fetch, as the twin counts it at one moment of its clock."""

    size: str
    listed: dict[str, int]  # list name -> items a complete read returns
    holdouts: int
    experiments: int
    ingestion_runs: int  # runs that exist at the clock
    settled_runs: int  # of those, runs settled by the rule of docs/decisions.md (complete)
    concluded_experiments: int  # series silent for more than late_exposure_days (service clock)
    # runs not settled whose status has not moved for quiet_run_after_days (an error the service gave up on, a
    # stuck run): a rerun asks for them only at their weekly re-check
    quiet_runs: int = 0

    @classmethod
    def from_dict(cls, data: dict) -> OrganisationShape:
        return cls(**data)

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class RateLimit:
    requests: int
    window_s: float

    @classmethod
    def parse(cls, text: str) -> RateLimit:
        """`50/1` -> 50 requests per 1 second (the form `gatehouse twin serve --rate-limit` takes)."""
        requests, _, window = text.partition("/")
        limit = cls(int(requests), float(window or 1))
        if limit.requests < 1 or limit.window_s <= 0:
            raise ValueError(f"a rate limit needs positive numbers, got {text!r}")
        return limit

    @property
    def per_second(self) -> float:
        return self.requests / self.window_s

    def __str__(self) -> str:
        return f"{self.requests}/{self.window_s:g}s"


@dataclass(frozen=True)
class Floor:
    list_pages: dict[str, int]
    fan_out: dict[str, int]
    rate_limit: RateLimit

    @property
    def requests(self) -> int:
        return sum(self.list_pages.values()) + sum(self.fan_out.values())

    @property
    def seconds(self) -> float:
        return self.requests / self.rate_limit.per_second


def list_pages(items: int, max_page_size: int | None) -> int:
    """Requests for one complete read: an empty list still takes one request to learn it is empty."""
    if max_page_size is None:
        return 1
    if max_page_size < 1:
        raise ValueError("a page size cap must be positive")
    return max(1, math.ceil(items / max_page_size))


def full_load_floor(shape: OrganisationShape, rate_limit: RateLimit, max_page_size: int | None = None) -> Floor:
    """Every list read once at the largest page, every holdout, experiment and run requested once."""
    return Floor(
        list_pages={name: list_pages(shape.listed.get(name, 0), max_page_size) for name in LISTS},
        fan_out={
            "holdouts": shape.holdouts,
            "experiments": shape.experiments,
            "ingestion_runs": shape.ingestion_runs,
        },
        rate_limit=rate_limit,
    )


def rerun_floor(shape: OrganisationShape, rate_limit: RateLimit, max_page_size: int | None = None) -> Floor:
    """What a rerun cannot avoid: the lists (no "modified since" filter) and holdouts (no list of
    them either), every experiment not concluded, every run neither settled nor quiet (a quiet run is asked for at
    its weekly re-check only, which a rerun of the same clock is not due for)."""
    full = full_load_floor(shape, rate_limit, max_page_size)
    return Floor(
        list_pages=full.list_pages,
        fan_out={
            "holdouts": shape.holdouts,
            "experiments": shape.experiments - shape.concluded_experiments,
            "ingestion_runs": shape.ingestion_runs - shape.settled_runs - shape.quiet_runs,
        },
        rate_limit=rate_limit,
    )
