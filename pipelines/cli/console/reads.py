"""Read commands: one entity by id, or a list (every page, or the one page asked for)."""

from __future__ import annotations

import argparse
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from gatehouse import contract
from gatehouse.pipelines.cli.console.connection import open_client
from gatehouse.pipelines.cli.console.output import FORMATS, print_entity, print_list
from gatehouse.pipelines.cli.parser import add_command, positive_int
from gatehouse.sources.console import constants as console_constants
from gatehouse.sources.console.client import ConsoleClient

log = logging.getLogger("gatehouse.console")


@dataclass(frozen=True)
class ListFilter:
    """A query parameter of a list, as an option (`--id-type`, also spelt like the interface: `--idType`)."""

    param: str
    option: str
    help: str
    choices: tuple[str, ...] | None = None
    repeatable: bool = False


@dataclass(frozen=True)
class EntityRead:
    command: str
    noun: str  # "gate": names the entity in messages
    metavar: str
    summary: str
    example: str
    fetch: Callable[[ConsoleClient, str], Any]
    # Flattens the entity into table rows; None shows the entity as a field/value table.
    rows: Callable[[Any], list[dict]] | None = None
    columns: tuple[str, ...] = ()


@dataclass(frozen=True)
class ListRead:
    command: str
    noun: str  # plural: "gates"
    path: str
    key: str  # identity of an item, for de-duplication across pages
    summary: str
    example: str
    columns: tuple[str, ...]
    filters: tuple[ListFilter, ...] = field(default_factory=tuple)


CREATION_FILTERS = (
    ListFilter("releasePipelineID", "--release-pipeline-id", "only those using this release pipeline"),
    ListFilter("creatorName", "--creator-name", "only those created by this person (name)"),
    ListFilter("creatorID", "--creator-id", "only those created by this user id"),
    ListFilter("tags", "--tag", "only those with this tag (repeat for several)", repeatable=True),
)
RATE_HELP = "repeat for several; INBETWEEN is more than 0 and less than 100"

GATE_FILTERS = (
    ListFilter("idType", "--id-type", "unit id type, e.g. userID (repeat for several)", repeatable=True),
    ListFilter("type", "--type", "gate type", choices=contract.GATE_TYPES),
    ListFilter("typeReason", "--type-reason", "why the gate has its type", choices=contract.GATE_TYPE_REASONS),
    ListFilter("passRate", "--pass-rate", f"sampled pass rate, {RATE_HELP}", choices=contract.RATE_FILTERS, repeatable=True),
    ListFilter(
        "rolloutRate",
        "--rollout-rate",
        f"rollout rate of the rules, {RATE_HELP}",
        choices=contract.RATE_FILTERS,
        repeatable=True,
    ),
    *CREATION_FILTERS,
)


def _exposure_rows(series: list[dict]) -> list[dict]:
    return [
        {"groupID": group.get("groupID"), "groupName": group.get("groupName"), **point}
        for group in series
        for point in group.get("results") or ()
    ]


GATE = EntityRead(
    "gate",
    "gate",
    "ID",
    "read one feature gate",
    "gatehouse console gate checkout_redesign --format table",
    lambda client, id_: client.get_gate(id_),
)
GATES = ListRead(
    "gates",
    "gates",
    console_constants.GATES_PATH,
    "id",
    "list feature gates (every page unless --page/--limit)",
    "gatehouse console gates --type STALE --type-reason STALE_PROBABLY_DEAD_CHECK --format table\n"
    "  gatehouse console gates --tag checkout --tag web --page 2 --limit 50",
    ("id", "name", "type", "typeReason", "status", "isEnabled", "checksPerHour", "lastModifiedTime", "tags"),
    GATE_FILTERS,
)
HOLDOUT = EntityRead(
    "holdout",
    "holdout",
    "ID",
    "read one holdout",
    "gatehouse console holdout h2_growth_holdout",
    lambda client, id_: client.get_holdout(id_),
)
DYNAMIC_CONFIGS = ListRead(
    "dynamic-configs",
    "dynamic configs",
    console_constants.DYNAMIC_CONFIGS_PATH,
    "id",
    "list dynamic configs (every page unless --page/--limit)",
    "gatehouse console dynamic-configs --creator-name 'Ada Lovelace' --format table",
    ("id", "name", "status", "isEnabled", "releasePipelineID", "version", "lastModifiedTime", "tags"),
    CREATION_FILTERS,
)
QUALIFYING_EVENTS = ListRead(
    "qualifying-events",
    "qualifying events",
    console_constants.QUALIFYING_EVENTS_PATH,
    "name",
    "list the qualifying events experiments can use (every page unless --page/--limit)",
    "gatehouse console qualifying-events --format table",
    ("name", "tableName", "timestampColumn", "timestampAsDay", "tags", "description"),
)
EXPOSURES = EntityRead(
    "exposures",
    "experiment",
    "EXPERIMENT_ID",
    "read the cumulative exposures of an experiment (every group, every day)",
    "gatehouse console exposures pricing_page_test --format table",
    lambda client, id_: client.get_cumulative_exposures(id_),
    rows=_exposure_rows,
    columns=("groupID", "groupName", "date", "exposures"),
)
INGESTION_RUN = EntityRead(
    "ingestion-run",
    "ingestion run",
    "ID",
    "read one data-ingestion run with its history",
    "gatehouse console ingestion-run 0b7c5a8e-2f55-4c11-9a0e-6d2d3c1f4e21",
    lambda client, id_: client.get_ingestion_run(id_),
)
READS = (GATE, GATES, HOLDOUT, DYNAMIC_CONFIGS, QUALIFYING_EVENTS, EXPOSURES, INGESTION_RUN)


def register(commands, parents: list[argparse.ArgumentParser]) -> None:
    output = argparse.ArgumentParser(add_help=False)
    output.add_argument("--format", choices=FORMATS, default="json", help="json (default, for scripts) or an aligned text table")
    for read in READS:
        parser = add_command(
            commands,
            read.command,
            help=read.summary,
            description=f"{read.summary[0].upper()}{read.summary[1:]}.",
            epilog=f"example{'s' if chr(10) in read.example else ''}:\n  {read.example}",
            parents=[*parents, output],
        )
        if isinstance(read, EntityRead):
            parser.add_argument("id", metavar=read.metavar, help=f"{read.noun} id")
            parser.set_defaults(handler=_entity_handler(read))
            continue
        filters = parser.add_argument_group("filters (each also spelt as the interface names it, e.g. --creatorID)")
        for spec in read.filters:
            aliases = [f"--{spec.param}"] if f"--{spec.param}" != spec.option else []
            filters.add_argument(
                spec.option,
                *aliases,
                dest=f"filter_{spec.param}",
                metavar=spec.param,
                choices=spec.choices,
                action="append" if spec.repeatable else "store",
                help=spec.help + (f"; one of {', '.join(spec.choices)}" if spec.choices else ""),
            )
        paging = parser.add_argument_group("paging (without these, every page is read)")
        paging.add_argument("--page", type=positive_int, help="read only this page (1-based)")
        paging.add_argument("--limit", type=positive_int, help="items per page; alone, reads page 1 of this size")
        parser.set_defaults(handler=_list_handler(read))


def _entity_handler(read: EntityRead):
    def handle(args: argparse.Namespace) -> int:
        with open_client(args) as client:
            entity = read.fetch(client, args.id)
        if read.rows and args.format == "table":
            print_list(read.rows(entity), read.columns, args.format)
        else:
            print_entity(entity, args.format)
        return 0

    return handle


def _key_of(item: Any, key: str, at: int) -> Any:
    """An item's key in a list read; an item without a usable one is its own (never merged with another)."""
    value = item.get(key) if isinstance(item, dict) else None
    return value if isinstance(value, (str, int, float)) else ("unkeyed", at)


def _list_handler(read: ListRead):
    def handle(args: argparse.Namespace) -> int:
        filters = {spec.param: getattr(args, f"filter_{spec.param}") for spec in read.filters}
        with open_client(args) as client:
            if args.page is None and args.limit is None:
                # a key yielded again is a newer copy of its item (edited while the list was paged): the last wins
                by_key = {
                    _key_of(item, read.key, at): item
                    for at, item in enumerate(
                        item for batch in client.iter_list(read.path, filters, key=read.key) for item in batch
                    )
                }
                items = list(by_key.values())
                requests = client.stats.snapshot()["requests"]
                log.info("%d %s (%d request%s)", len(items), read.noun, requests, "" if requests == 1 else "s")
            else:
                items = _one_page(client, read, filters, args.page or console_constants.FIRST_PAGE, args.limit)
        print_list(items, read.columns, args.format)
        return 0

    return handle


def _one_page(client: ConsoleClient, read: ListRead, filters: dict, number: int, limit: int | None) -> list[dict]:
    for page in client.paginate(read.path, filters, page_size=limit, start_page=number):
        if page.number == number and page.items:
            total = "" if page.total_items is None else f" of {page.total_items}"
            if not page.described:
                more = f"; the console sends no paging information: --page {number + 1} may hold more"
            else:
                more = f"; next: --page {number + 1}" if page.next_page else "; last page"
            log.info("%s page %d: %d items%s%s", read.noun, number, len(page.items), total, more)
            return page.items
    log.info("%s: page %d is past the last page", read.noun, number)
    return []
