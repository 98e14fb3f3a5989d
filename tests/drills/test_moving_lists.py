"""Lists that move while they are read: deletions and creations at every page boundary.

A deletion on a page already read pulls every later item a place up, so the item at the next page
boundary is served on no page of the pass. With as many creations as deletions `totalItems` does not
move, so the pass looks complete; a missed item must still never be retired. The rule held here, for
gates and dynamic configs, with `totalItems` unchanged, changed and absent:

> the retirements of a run are exactly the deletions: a run retires only entities deleted (or archived),
> and the next clean run retires the rest of them; no live entity's history ever shows a gap.

Every drill runs twice more after a clean first load: the churned run, then a clean one; gates and dynamic configs
move in the same runs, each list under its own churn.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import count

import duckdb
import pytest

from gatehouse.console_twin import ConsoleTwin
from gatehouse.console_twin.settings import PageServed, PaginationStyle
from gatehouse.sources.console import constants

# Five a page: the small organisation's ~57 gates make 12 pages, its ~18 configs 4.
PAGE_SIZE = 5
# Older than anything the organisation holds: a config or gate created with it is listed last, on a page
# not read yet, so it does not cancel the shift of a deletion (the service's order is not documented).
OLDEST = 1


@dataclass(frozen=True)
class Entity:
    """How a drill reaches one kind of listed entity on the twin."""

    table: str
    listed: Callable[[ConsoleTwin], list[dict]]
    create: Callable[..., dict]
    delete: Callable[[ConsoleTwin, str], None]


GATES = Entity(
    "gates",
    lambda twin: twin.organisation.listed_gates(),
    lambda twin, name, **fields: twin.create_gate(name, **fields),
    lambda twin, gate_id: twin.delete_gate(gate_id),
)
DYNAMIC_CONFIGS = Entity(
    "dynamic_configs",
    lambda twin: twin.organisation.listed_dynamic_configs(),
    lambda twin, name, **fields: twin.create_dynamic_config(name, **fields),
    lambda twin, config_id: twin.delete_dynamic_config(config_id),
)


@dataclass
class Churn:
    """`after_page` hook: after every page of `entity`'s list, deletes the `deletions` last items of the
    page just served and creates `creations` items, listed last (`newest=False`) or first."""

    entity: Entity
    deletions: int
    creations: int
    newest: bool
    deleted: list[str] = field(default_factory=list)
    created: list[str] = field(default_factory=list)
    _names: count = field(default_factory=count)

    def __call__(self, served: PageServed) -> None:
        if served.endpoint != self.entity.table or served.items == 0:
            return
        listed = [item["id"] for item in self.entity.listed(served.twin)]
        read = listed[: min(served.page * served.limit, len(listed))]
        for victim in read[-self.deletions :]:
            self.entity.delete(served.twin, victim)
            self.deleted.append(victim)
        for _ in range(self.creations):
            name = f"drill_moving_{self.entity.table}_{next(self._names)}"
            self.entity.create(served.twin, name, **({} if self.newest else {"createdTime": OLDEST}))
            self.created.append(name)


# (deletions, creations, newest first, totalItems sent)
SITUATIONS = {
    # One deleted on the page read, one created at the end: the count never moves.
    "totalItems unchanged": (1, 1, False, True),
    # Two deleted, one created first: the count drops by one a page and the boundary still moves up.
    "totalItems changed": (2, 1, True, True),
    "totalItems absent": (1, 1, False, False),
}


def history(path, table: str) -> dict[str, list[tuple]]:
    """Versions per id, oldest first: (valid_from, valid_to)."""
    with duckdb.connect(str(path), read_only=True) as con:
        rows = con.execute(
            f"select id, _dlt_valid_from, _dlt_valid_to from console.{table} order by id, _dlt_valid_from"
        ).fetchall()
    versions: dict[str, list[tuple]] = {}
    for entity_id, valid_from, valid_to in rows:
        versions.setdefault(entity_id, []).append((valid_from, valid_to))
    return versions


def retired(versions: dict[str, list[tuple]]) -> set[str]:
    return {entity_id for entity_id, spans in versions.items() if spans[-1][1] is not None}


def gaps(versions: dict[str, list[tuple]]) -> list[str]:
    """Ids whose history was closed and opened again later: a false retirement and re-creation."""
    return sorted(
        entity_id
        for entity_id, spans in versions.items()
        if any(earlier[1] != later[0] for earlier, later in zip(spans, spans[1:]))
    )


@pytest.mark.parametrize("situation", list(SITUATIONS))
def test_retirements_of_a_run_are_exactly_the_deletions(drill, reference_path, situation, monkeypatch):
    # The churn comes between pages: a rerun reads its lists in pages as small as the first run's, not larger.
    monkeypatch.setattr(constants, "SPOOLED_PAGE_FACTOR", 1)
    deletions, creations, newest, total_items = SITUATIONS[situation]
    drill.overrides = {"page_size": PAGE_SIZE}
    drill.start_loaded(reference_path)
    # gates and dynamic configs move in the same runs, each list under its own churn, and each is checked alone
    entities = (GATES, DYNAMIC_CONFIGS)
    for entity in entities:
        assert retired(history(drill.duckdb_path, entity.table)) == set(), entity.table

    churns = [Churn(entity, deletions, creations, newest) for entity in entities]

    def churn_each_list(served: PageServed) -> None:
        for churn in churns:
            churn(served)

    drill.twin.settings.after_page = churn_each_list
    if not total_items:
        for entity in entities:
            drill.twin.settings.pagination[entity.table] = PaginationStyle(
                total_items=False, all=drill.twin.settings.pagination_for(entity.table).all
            )
    drill.run()
    drill.twin.settings.after_page = None

    retired_by_churned_run, deleted = {}, {}
    for churn in churns:
        table = churn.entity.table
        after_churn = history(drill.duckdb_path, table)
        # Entities created and deleted within the run may never have been loaded: nothing to retire.
        deleted[table] = set(churn.deleted) & set(after_churn)
        assert len(churn.deleted) >= 3 and deleted[table], f"{table}: the churn deleted loaded entities on several pages"
        retired_by_churned_run[table] = retired(after_churn)
        assert retired_by_churned_run[table] <= deleted[table], (
            f"{table}: live entities retired: {sorted(retired_by_churned_run[table] - deleted[table])}"
        )

    drill.run()
    for entity in entities:
        table = entity.table
        after_clean = history(drill.duckdb_path, table)
        assert retired(after_clean) - retired_by_churned_run[table] == deleted[table] - retired_by_churned_run[table], table
        assert retired(after_clean) == deleted[table], table
        assert gaps(after_clean) == [], f"{table}: a live entity was retired and re-opened"
        listed = {item["id"] for item in entity.listed(drill.twin)}
        assert {entity_id for entity_id in after_clean if entity_id not in retired(after_clean)} == listed, table
