"""Entities that left a list: which ids listed last run are missing now, and the reads that confirm
each is gone (deleted or archived) before the SCD2 merge may retire it."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from gatehouse.sources.console.client import ConsoleClient
from gatehouse.sources.console.constants import GATES_PATH as LIST_GATES_PATH
from gatehouse.sources.console.constants import LOGGER_NAME
from gatehouse.sources.console.errors import NotFoundError, PaginationError, ValidationError
from gatehouse.sources.console.state import ListState

log = logging.getLogger(LOGGER_NAME)

# A gate or config with this status has left the lists on purpose: its absence is a retirement.
ARCHIVED = "Archived"


class AbsenceCheck:
    """What one list resource listed last run, and the confirmation of what this run's read lacks.

    The SCD2 merge retires every entity missing from a run's list. A list that moves while it is read
    (an entity deleted on a page already read pulls a later one past the page boundary) can lack live
    entities, and `totalItems` cannot tell: creations balance deletions, or it is not sent. So each id
    listed last run (resource state `listed`, id -> `version`) and missing now is confirmed before it may
    be retired; a live one is added to the run's items. A run where nothing left the list asks nothing
    more. Without a record (the first run, or the first after upgrading) the read is the strict one:
    `totalItems` checked, one re-read; a count that still disagrees is accepted only when the two passes
    served the same items, each once, with an unchanging count, to a null `nextPage` (nothing moved, so the
    count counts what the console does not list), and is a `PaginationError` otherwise (paging.read_complete).
    """

    def __init__(self, state: ListState, name: str) -> None:
        self.name = name
        self._state = state
        self.before: dict[str, Any] | None = state.get("listed")
        self.seen: dict[str, Any] = {}

    @property
    def confirms(self) -> bool:
        """True when absences can be confirmed, so the read needs no `totalItems` check."""
        return self.before is not None

    def saw(self, items: Sequence[dict[str, Any]]) -> None:
        for item in items:
            self.seen[item["id"]] = item.get("version")

    def missing(self) -> list[str]:
        return [entity_id for entity_id in self.before or {} if entity_id not in self.seen]

    def finish(self, confirm: Callable[[list[str]], list[dict[str, Any]]]) -> list[dict[str, Any]]:
        """Confirms the missing ids with `confirm(ids) -> the live ones`; returns those and records this run's list."""
        missing = self.missing()
        live: list[dict[str, Any]] = []
        if missing:
            live = [item for item in confirm(missing) if item["id"] not in self.seen]
            self.saw(live)
            log.info(
                "%s: %d listed last run missing from this read; %d still live (the list moved while read), "
                "%d deleted or archived",
                self.name,
                len(missing),
                len(live),
                len(missing) - len(live),
            )
        self._state["listed"] = self.seen
        return live


def live_gates(client: ConsoleClient, ids: Sequence[str], room: int) -> list[dict[str, Any]]:
    """The gates among `ids` that still exist and are not archived, as the list shows them.

    Each is confirmed by its single read: a 404 or an archived gate is gone, and when every missing gate is, that
    is all. The single read has no `version`, and a gate may have been edited since it was last listed (what moved
    the list): the live ones are taken from one more read of the list, as for configs (`listed_again`).
    """
    confirmed = []
    for gate_id, gate in client.fetch_many(client.get_gate, ids):
        if isinstance(gate, ValidationError):
            raise gate  # neither gone nor live: a gate must not be retired on an answer that says neither
        if isinstance(gate, NotFoundError) or gate.get("status") == ARCHIVED:
            continue
        confirmed.append(gate_id)
    if not confirmed:
        return []
    live = listed_again(client.list_gates, confirmed, room, client.options.page_size)
    if lost := sorted(gate_id for gate_id in confirmed if gate_id not in {gate["id"] for gate in live}):
        # Live by its own read, yet absent from two reads of the list: the list is what is wrong, and a gate must
        # not be retired while the console still answers for it (whatever characters its id holds).
        shown = ", ".join(repr(gate_id) for gate_id in lost[:3]) + (f" and {len(lost) - 3} more" if len(lost) > 3 else "")
        raise PaginationError(
            f"GET {LIST_GATES_PATH}: {len(lost)} gate(s) answer their own read but two reads "
            f"of the list lack them ({shown}); the list is not loaded, so no gate is retired by mistake: the next run "
            "reads it again",
            method="GET",
            path=LIST_GATES_PATH,
        )
    return live


def live_dynamic_configs(client: ConsoleClient, ids: Sequence[str], room: int) -> list[dict[str, Any]]:
    """The dynamic configs among `ids` still listed, by a second read of the list (there is no single read)."""
    return listed_again(client.list_dynamic_configs, ids, room, client.options.page_size)


def listed_again(
    read: Callable[..., Iterator[list[dict[str, Any]]]], ids: Sequence[str], room: int, page_size: int
) -> list[dict[str, Any]]:
    """The items among `ids` that a second read of the list holds, as it holds them.

    Asked as one page of `room` items: one answer is a snapshot no deletion can shift. A console that
    serves fewer a page gets the strict complete read (`totalItems` checked, and when it disagrees twice, two
    passes that must agree with each other), which fails rather than confirm an absence it could not see.
    """
    wanted = set(ids)
    live: dict[str, dict[str, Any]] = {}
    for page in read(page_size=max(room, page_size)):
        # the last copy of an item wins: the complete read yields one again only when it is newer
        live.update((item["id"], item) for item in page if item["id"] in wanted)
    return list(live.values())
