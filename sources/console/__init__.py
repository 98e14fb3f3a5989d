"""The `console` dlt source: a feature-management console's gates, dynamic configs, holdouts,
qualifying events, cumulative exposures and ingestion runs.

Only the source and its resources live here. Each resource is a module-level function of the client
and the run (`ExtractionRun`), so it can be imported and run alone; the source only wires them. The
HTTP client, paging, discovery and the rules a run decides by sit beside it, every constant in
constants.py, the settings the source is injected from in settings.py.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from datetime import date
from functools import partial
from typing import Any
from uuid import uuid4

import dlt
import pyarrow as pa
from dlt.common.schema.typing import TScd2StrategyDict
from dlt.sources import DltResource, DltSource

from gatehouse.sources.console.absence import AbsenceCheck, live_dynamic_configs, live_gates
from gatehouse.sources.console.catalogue import NoLongerFollowed, batched, unique
from gatehouse.sources.console.client import ClientOptions, ConsoleClient
from gatehouse.sources.console.clock import clock_offset_s, estimated_service_now, service_today, utc_now
from gatehouse.sources.console.columns import (
    CONFIG_ARRAYS,
    DELETED_COLUMN,
    GATE_ARRAYS,
    HOLDOUT_ARRAYS,
    JSON,
    NumberColumns,
    arrays_as_lists,
    config_hints,
    config_numbers,
    deleted_rows,
    gate_hints,
    gate_numbers,
    holdout_numbers,
    null_unfit_integers,
    unfit_integers_as_null,
)
from gatehouse.sources.console.constants import TABLES
from gatehouse.sources.console.counts import ExtractionCounts
from gatehouse.sources.console.errors import ConfigurationError, ConsoleError, NotFoundError
from gatehouse.sources.console.exposures import (
    EXPOSURE_ROW_SCHEMA,
    changed_series_rows,
    exposure_rows,
    has_concluded,
    loadable_series,
)
from gatehouse.sources.console.identity import identify
from gatehouse.sources.console.run import ExtractionRun
from gatehouse.sources.console.settings import ConsoleSettings, check_followed
from gatehouse.sources.console.settle import has_gone_quiet, is_quiet, is_settled
from gatehouse.sources.console.state import (
    SavedStates,
    answers_state,
    exposures_state,
    extraction_runs_state,
    ingestion_runs_state,
    list_state,
)
from gatehouse.sources.console.unchanged import AnswerDigests, ListContent, content_digest

SCD2: TScd2StrategyDict = {"disposition": "merge", "strategy": "scd2"}
# Series held read ahead at most. The reads go on while the run loads its first phase (load_phases), and they
# take every slot the runs leave before it, so a smaller bound filled up and left the rate budget idle for that
# load. A series is small, so the bound holds little memory.
EXPOSURES_AHEAD = 1024
# The order a run extracts and loads its tables in, each phase loaded before the next is extracted, while the
# reads a later phase needs go on in the background (read_ahead.py). The lists, holdouts and runs first, so that
# what is left for the end of the run is the exposures: flat Arrow rows, the quickest to normalise and load.
# A phase holds whole tables: each table is still loaded complete or not at all (docs/decisions.md).
LOAD_PHASES = (
    ("read_ahead", "ingestion_runs", "qualifying_events", "gates", "dynamic_configs", "holdouts"),
    ("cumulative_exposures", "extraction_runs"),
)


def listed_versions(
    run: ExtractionRun,
    table: str,
    numbers: NumberColumns,
    hints: Callable[[NumberColumns], dict],
    arrays: Sequence[str],
    read: Callable[..., Iterator[list[dict]]],
    confirm: Callable[[AbsenceCheck, list[str]], list[dict]],
    page_size: int,
) -> Iterator[Any]:
    """The pages of `gates` and `dynamic_configs`, read alike: the whole list every run, then each id
    listed last run and missing now confirmed by `confirm(absences, missing) -> the live ones` before
    the SCD2 merge retires it. Yielded only once complete, the last copy of each gate or config read (a newer
    one served later in the list replaces it), and only when it differs from the list last loaded
    (`ListContent`, resource state `loaded_digest`). The first page carries `hints(numbers)` when
    the destination stores a number column as bigint. An integer beyond 64 bits is loaded as null, and said
    (`unfit_integers_as_null`), as in every table."""
    retype = numbers.check_destination(dlt.current.source_schema())
    state = list_state()
    absences = AbsenceCheck(state, table)
    content = ListContent(state, "id")

    def hinted(page: list[dict]) -> Any:
        nonlocal retype
        if retype:
            retype = False
            return dlt.mark.with_hints(page, dlt.mark.make_hints(nested_hints=hints(numbers)))
        return page

    try:
        for page in read(check_total=not absences.confirms, page_size=content.read_page_size(page_size)):
            unfit_integers_as_null(run.counts, table, page, "id")
            arrays_as_lists(page, arrays)
            absences.saw(page)
            run.catalogue.record_list_page(table, page)
            run.counts.add(table, len(page))
            run.counts.add_fields(table, page)
            content.add(page)
        if live := absences.finish(lambda missing: confirm(absences, missing)):
            unfit_integers_as_null(run.counts, table, live, "id")
            arrays_as_lists(live, arrays)
            run.catalogue.record_list_page(table, live)
            run.counts.add(table, len(live), pages=0)
            content.add(live)
        run.catalogue.complete_list(table)
        # Only now, with the whole list in, can it be told unchanged: then nothing is yielded, so the SCD2
        # merge does not run and retires nothing; any change yields the whole list, so retirement stays exact.
        if content.same_as_loaded(state):
            run.counts.add_unchanged(table, content.items)
            return
        for page in content.pages(page_size):
            yield hinted(page)
    finally:
        content.close()


@dlt.resource(name="gates", primary_key="id", write_disposition=SCD2, nested_hints=gate_hints(gate_numbers()))
def gates(client: ConsoleClient, run: ExtractionRun) -> Iterator[list[dict]]:
    """Table `gates`, key `id`: SCD2 history of every listed gate, one version per change.

    The whole list is read every run (the service has no "modified since" filter); a gate absent
    from it is retired once confirmed gone: each gate listed last run and missing now is read by
    id, and only a 404 or an archived gate is retired (`AbsenceCheck`, resource state `listed`).
    """

    def confirm(absences: AbsenceCheck, missing: list[str]) -> list[dict]:
        # Room for every gate seen or missing, and a page of creations on top.
        room = len(absences.seen) + len(missing) + client.options.page_size
        return live_gates(client, missing, room)

    yield from listed_versions(
        run, "gates", run.gate_numbers, gate_hints, GATE_ARRAYS, client.list_gates, confirm, client.options.page_size
    )


@dlt.resource(
    name="dynamic_configs",
    primary_key="id",
    write_disposition=SCD2,
    columns={"default_value": {"name": "default_value", **JSON}},
    nested_hints=config_hints(config_numbers()),
)
def dynamic_configs(client: ConsoleClient, run: ExtractionRun) -> Iterator[list[dict]]:
    """Table `dynamic_configs`, key `id`: SCD2 history as `gates`; rules, variants and conditions nested.

    `defaultValue` and the rules' and variants' `returnValue` are JSON columns. Absences are
    confirmed as for gates, by one more read of the list as a single page (there is no single read).
    """

    def confirm(absences: AbsenceCheck, missing: list[str]) -> list[dict]:
        # Room for every config seen or missing, and a page of creations on top.
        room = len(absences.seen) + len(missing) + client.options.page_size
        return live_dynamic_configs(client, missing, room)

    yield from listed_versions(
        run,
        "dynamic_configs",
        run.config_numbers,
        config_hints,
        CONFIG_ARRAYS,
        client.list_dynamic_configs,
        confirm,
        client.options.page_size,
    )


@dlt.resource(name="qualifying_events", primary_key="name", write_disposition="merge", columns=DELETED_COLUMN)
def qualifying_events(client: ConsoleClient, run: ExtractionRun) -> Iterator[list[dict]]:
    """Table `qualifying_events`, key `name`: merged, whole list every run (the last copy of each event read),
    loaded only when it differs from the list last loaded (resource state `loaded_digest`). The list is read
    complete, so a name last loaded (resource state `loaded_keys`) and missing now was removed from the console:
    its row is deleted."""
    state = list_state()
    content = ListContent(state, "name")
    counted_apart: list[bool] = []
    try:
        for page in client.list_qualifying_events(
            page_size=content.read_page_size(client.options.page_size), counted_apart=lambda: counted_apart.append(True)
        ):
            unfit_integers_as_null(run.counts, "qualifying_events", page, "name")
            run.counts.add("qualifying_events", len(page))
            run.counts.add_fields("qualifying_events", page)
            content.add(page)
        loaded = state.get("loaded_keys")
        names = content.keys
        if counted_apart and loaded:
            # The console counts events its list does not serve: a name missing from the read may be one of
            # them, so none is deleted on this read (they stay as last loaded).
            names = list(dict.fromkeys([*names, *loaded]))
        state["loaded_keys"] = names
        if content.same_as_loaded(state):
            run.counts.add_unchanged("qualifying_events", content.items)
            return
        yield from content.pages(client.options.page_size)
        read = set(names)
        if removed := [name for name in loaded or () if name not in read]:
            yield deleted_rows("name", removed)
    finally:
        content.close()


@dlt.resource(name="read_ahead")
def read_ahead(client: ConsoleClient, run: ExtractionRun) -> Iterator[list[dict]]:
    """No table, no rows: starts the reads ahead (`start_reads_ahead`) if the caller has not already. First in the
    source's order, so after the checks a run makes before any request."""
    start_reads_ahead(client, run, dlt.current.source_state())
    yield from ()


def start_reads_ahead(client: ConsoleClient, run: ExtractionRun, source_state: Mapping[str, Any]) -> None:
    """Starts reading the holdouts and experiments this run can name before any list (those configured and those
    the last run read, by `source_state`) while the lists are paged (sources/console/read_ahead.py); only for the
    tables the run loads, once a run (a second call finds them started)."""
    saved = SavedStates(source_state)
    if "holdouts" in run.tables:
        loaded = saved.holdouts.get("loaded_digests", {})
        ids = unique([*run.holdout_ids, *loaded])
        # A holdout is one small object: all of them may be held, so the lists never page alone.
        run.read_aheads.start("holdouts", client, client.get_holdout, ids, ahead=len(ids))
    # Before any answer: the service's clock as the last run saw it (experiment_ids decides by the answered one).
    today = estimated_service_now(saved.ingestion_runs.get("clock_offset_s", 0.0)).date()
    exposures = saved.exposures
    known = unique([*run.experiment_ids, *exposures.get("last_day", {})])
    read_exposures_ahead(client, run, due_experiments(run, known, today, exposures.get("concluded", {})))


def due_experiments(
    run: ExtractionRun, experiment_ids: Sequence[str], today: date, concluded: Mapping[str, str] | None = None
) -> list[str]:
    """The experiments whose series a run reads: those not concluded, and concluded ones due a recheck
    (`concluded`: the resource state's, by default the current run's)."""
    if concluded is None:
        concluded = exposures_state().get("concluded", {})
    return [e for e in experiment_ids if not is_quiet(concluded.get(e), today, run.recheck_concluded_days)]


def read_exposures_ahead(client: ConsoleClient, run: ExtractionRun, experiment_ids: Sequence[str]) -> None:
    """Starts reading these series in the background (once a run), if the run loads them."""
    if "cumulative_exposures" in run.tables:
        run.read_aheads.start(
            "cumulative_exposures", client, client.get_cumulative_exposures, experiment_ids, ahead=EXPOSURES_AHEAD
        )


def read_found_exposures_ahead(client: ConsoleClient, run: ExtractionRun) -> None:
    """Once every holdout is answered, the experiments they name are known: their series are read ahead (unless
    some already are), so they take the rate limit's slots that the runs leave, and the next phase finds them."""
    wanted = run.catalogue.holdouts_wanted
    if wanted is None or not run.catalogue.holdouts_answered(wanted):
        return
    read_exposures_ahead(client, run, due_experiments(run, run.followed_experiment_ids(), service_today(client)))


@dlt.resource(name="holdout_ids", selected=False)
def holdout_ids_resource(client: ConsoleClient, run: ExtractionRun) -> Iterator[list[str] | NoLongerFollowed]:
    """Holdout ids, no table: configured ones plus those referenced by gates and dynamic configs, in batches
    (those read ahead first, in the order they were read); then the holdouts loaded before and no longer followed."""
    try:
        wanted = run.catalogue.holdout_ids(run.holdout_ids)
        run.catalogue.holdouts_wanted = wanted
        yield from batched(run.read_aheads.in_read_order("holdouts", wanted), run.fan_out_batch)
    finally:
        run.read_aheads.finish("holdouts")
    followed = set(wanted)
    loaded = list(answers_state("holdouts").get("loaded_digests", {}))
    if unfollowed := [holdout_id for holdout_id in loaded if holdout_id not in followed]:
        yield NoLongerFollowed(unfollowed)
    read_found_exposures_ahead(client, run)  # none wanted: the transformer never runs


@dlt.transformer(
    name="holdouts", primary_key="id", write_disposition="merge", columns={**holdout_numbers().hints(), **DELETED_COLUMN}
)
def holdouts(ids: list[str] | NoLongerFollowed, client: ConsoleClient, run: ExtractionRun) -> Iterator[Any]:
    """Table `holdouts`, key `id`: merged; fed by `holdout_ids`, fetched concurrently, unknown ids reported
    and skipped; a holdout answered as last loaded is not loaded again (resource state `loaded_digests`).

    The table holds the holdouts the run follows: a loaded one that answers 404, or that no configuration, gate
    or dynamic config names any more (`NoLongerFollowed`), is deleted (by the id it was answered as, resource
    state `answered_ids`)."""
    state = answers_state()
    answered_ids: dict[str, str] = state.setdefault("answered_ids", {})
    digests = AnswerDigests(state)
    if isinstance(ids, NoLongerFollowed):
        yield deleted_rows("id", [answered_ids.pop(holdout_id, holdout_id) for holdout_id in ids.ids])
        for holdout_id in ids.ids:
            digests.forget(holdout_id)
        return
    retype = run.holdout_numbers.check_destination(dlt.current.source_schema())
    found, changed, gone = [], [], []
    for holdout_id, holdout in run.read_aheads.fetch_many("holdouts", client, client.get_holdout, ids):
        if isinstance(holdout, ConsoleError):  # unknown or refused: reported, skipped
            run.catalogue.record_missing_holdout(holdout_id)
            run.counts.skip("holdouts", holdout_id, holdout.message)
            if isinstance(holdout, NotFoundError) and digests.loaded(holdout_id):
                gone.append(answered_ids.pop(holdout_id, holdout_id))
                digests.forget(holdout_id)
            continue
        null_unfit_integers(run.counts, "holdouts", holdout.get("id", holdout_id), holdout)
        arrays_as_lists([holdout], HOLDOUT_ARRAYS)
        run.catalogue.record_holdout(holdout_id, holdout)
        found.append(holdout)
        if holdout.get("id") not in (None, holdout_id):
            answered_ids[holdout_id] = holdout["id"]
        if digests.changed(holdout_id, holdout):
            changed.append(holdout)
    run.counts.add("holdouts", len(found), pages=0)
    run.counts.add_fields("holdouts", found)
    run.counts.add_unchanged("holdouts", digests.unchanged)
    read_found_exposures_ahead(client, run)
    if rows := [*changed, *deleted_rows("id", gone)]:
        hints = {**run.holdout_numbers.hints(), **DELETED_COLUMN}
        yield dlt.mark.with_hints(rows, dlt.mark.make_hints(columns=hints)) if retype else rows


@dlt.resource(name="experiment_ids", selected=False)
def experiment_ids_resource(client: ConsoleClient, run: ExtractionRun) -> Iterator[list[str]]:
    """Experiment ids, no table: configured ones plus the holdouts' `experimentIDs`, less concluded ones.

    An experiment whose series has been silent for more than `late_exposure_days` has concluded:
    its rows cannot change, so it is only checked again every `recheck_concluded_days` (it may be
    restarted). One lagging less is late, not concluded, and is requested on every run.
    """
    wanted = run.followed_experiment_ids()
    configured = set(run.experiment_ids)
    named = len(set(wanted) - configured)
    run.counts.follow("experiments", f"{len(wanted)}: {len(configured)} in experiment_ids, {named} more named by holdouts")
    due = due_experiments(run, wanted, service_today(client))
    try:
        yield from batched(run.read_aheads.in_read_order("cumulative_exposures", due), run.fan_out_batch)
    finally:
        run.read_aheads.finish("cumulative_exposures")


@dlt.transformer(name="cumulative_exposures", primary_key=("experiment_id", "group_id", "date"), write_disposition="merge")
def cumulative_exposures(ids: list[str], client: ConsoleClient, run: ExtractionRun) -> Iterator[pa.Table]:
    """Table `cumulative_exposures`, key (experiment_id, group_id, date): one row per group and day;
    fed by `experiment_ids`.

    Incremental per experiment (resource state `last_day`): only days on or after the last
    loaded day of its most lagging group are loaded; that day again because its count still grows
    until the day closes. A series answered as last loaded loads nothing (resource state `loaded_digests`);
    one whose earlier days differ from those loaded (re-stated by the service; resource state
    `earlier_days_digest`) loads every day again.
    """
    state = exposures_state()
    last_day: dict[str, str] = state.setdefault("last_day", {})
    concluded: dict[str, str] = state.setdefault("concluded", {})
    earlier_days: dict[str, str] = state.setdefault("earlier_days_digest", {})
    digests = AnswerDigests(state)
    rows: list[dict] = []
    answers = run.read_aheads.fetch_many("cumulative_exposures", client, client.get_cumulative_exposures, ids)
    for experiment_id, series in answers:
        if isinstance(series, ConsoleError):
            run.counts.skip("cumulative_exposures", experiment_id, series.message)
            continue
        series = loadable_series(run.counts, experiment_id, series)
        # A series as last loaded holds no day that is not loaded already, with its count (a series loaded before
        # the earlier days were digested is loaded whole once: a day it re-stated then may be stale).
        if digests.changed(experiment_id, series) or experiment_id not in earlier_days:
            new_rows, read_from, newest, earlier_days[experiment_id] = changed_series_rows(
                experiment_id, series, last_day.get(experiment_id), earlier_days.get(experiment_id)
            )
            rows.extend(new_rows)
        else:
            _, read_from, newest = exposure_rows(experiment_id, series, last_day.get(experiment_id))
        if read_from is not None:
            last_day[experiment_id] = read_from
        today = service_today(client)
        if newest is not None and has_concluded(newest, today, run.late_exposure_days):
            concluded[experiment_id] = today.isoformat()
        else:
            concluded.pop(experiment_id, None)
    run.counts.add("cumulative_exposures", len(rows), pages=0)
    run.counts.add_unchanged("cumulative_exposures", digests.unchanged)
    # Flat, typed rows: as an Arrow table they skip dlt's row-by-row normaliser (a quarter of all rows).
    if rows:
        yield pa.Table.from_pylist(rows, schema=EXPOSURE_ROW_SCHEMA)


@dlt.resource(name="ingestion_run_ids", selected=False)
def ingestion_run_ids_resource(client: ConsoleClient, run: ExtractionRun) -> Iterator[list[str]]:
    """Run ids, no table: configured ones plus loaded runs that have not completed, never a completed one,
    and a quiet run (status unchanged for `quiet_run_after_days`) only every `recheck_concluded_days`.

    All in one item: the transformer streams them from one worker thread. Several batches would
    each take one of dlt's extract workers, and once those are taken dlt waits for them instead
    of reading the lists (the gates list then started only once the runs were read).
    """
    state = ingestion_runs_state("ingestion_runs")
    complete = set(state.get("complete", []))
    pending = state.get("pending", {})
    quiet: dict[str, str] = state.get("quiet", {})
    # Runs an older version settled, errors among them: asked once more (state.IngestionRunsState).
    settled_before = state.get("settled", [])
    # This runs before any answer: the service's clock is estimated from the offset the last run saw.
    today = estimated_service_now(state.get("clock_offset_s", 0.0)).date()
    wanted = [
        r for r in unique([*run.ingestion_run_ids, *pending, *settled_before])
        if r not in complete and not is_quiet(quiet.get(r), today, run.recheck_concluded_days)
    ]  # fmt: skip
    configured = set(run.ingestion_run_ids)
    run.counts.follow(
        "ingestion runs",
        f"{len(configured)} in ingestion_run_ids"
        if configured
        else "none: the console cannot list them; name them in ingestion_run_ids",
    )
    if wanted:
        yield wanted


@dlt.transformer(
    name="ingestion_runs",
    primary_key="run_id",
    write_disposition="merge",
    # Runs depend on no list: each step of this generator runs in one of dlt's worker threads
    # while the main thread reads the lists, so the rate budget is not left idle during paging.
    parallelized=True,
)
def ingestion_runs(ids: list[str], client: ConsoleClient, run: ExtractionRun) -> Iterator[list[dict]]:
    """Table `ingestion_runs`, key `run_id`: merged; fed by `ingestion_run_ids`; `runHistory` and
    `granularHistory` nested.

    A run is requested until it completes (pulse_complete); then never again. Any other status may still move
    (an error is retried by the service), so a run whose status has not moved for `quiet_run_after_days` by the
    service's clock is quiet: requested again every `recheck_concluded_days`. A run answered as last loaded is
    not loaded again (resource state `loaded_digests`).
    """
    # Named: this runs in a worker thread, where dlt cannot tell which resource asks.
    state = ingestion_runs_state("ingestion_runs")
    complete: list[str] = state.setdefault("complete", [])
    pending: dict[str, str] = state.setdefault("pending", {})
    quiet: dict[str, str] = state.setdefault("quiet", {})
    digests = AnswerDigests(state)
    for answers in batched(client.fetch_many(client.get_ingestion_run, ids), run.fan_out_batch):
        runs, changed = [], []
        unchanged_before = digests.unchanged
        now = client.server_time or utc_now()
        for run_id, answer in answers:
            if isinstance(answer, ConsoleError):
                run.counts.skip("ingestion_runs", run_id, answer.message)
                continue
            null_unfit_integers(run.counts, "ingestion_runs", answer.get("runID", run_id), answer)
            runs.append(answer)
            if digests.changed(run_id, answer):
                changed.append(answer)
            if is_settled(answer):
                digests.forget(run_id)  # never asked again
                complete.append(run_id)
                pending.pop(run_id, None)
                quiet.pop(run_id, None)
            else:
                pending[run_id] = answer.get("latestStatus") or ""
                if has_gone_quiet(answer, now, run.quiet_after):
                    quiet[run_id] = now.date().isoformat()
                else:
                    quiet.pop(run_id, None)
        run.counts.add("ingestion_runs", len(runs), pages=0)
        run.counts.add_fields("ingestion_runs", runs)
        run.counts.add_unchanged("ingestion_runs", digests.unchanged - unchanged_before)
        if changed:
            yield changed
    # Every run an older version settled was in `ids` (ingestion_run_ids): each is now in `complete` or `pending`.
    state.pop("settled", None)
    if client.server_time is not None:
        state["clock_offset_s"] = clock_offset_s(client.server_time)


@dlt.resource(name="extraction_runs", primary_key="extraction_id", write_disposition="append")
def extraction_runs(client: ConsoleClient, run: ExtractionRun) -> Iterator[dict]:
    """Table `extraction_runs`, key `extraction_id`, appended: one row per run with the service's clock,
    the "as of" of every view, and the console it came from (a later run against another is refused).

    It records how many experiments the run followed (`followed_experiment_count`) and, when they are not those the
    last recording run followed (resource state `followed_digest`), which (`followed_experiment_ids`, nested
    `extraction_runs__followed_experiment_ids`): the views tell an experiment no longer followed from one that
    concluded, and a run that follows the same loads no list again (a no-change run stays one row). A run that does
    not load exposures records neither (the count null)."""
    started_at = utc_now()
    console_identity = identify(client.options.base_url, client.options.api_key)
    followed = run.followed_experiment_ids() if "cumulative_exposures" in run.tables else None
    recorded: list[str] = []
    if followed is not None:
        state = extraction_runs_state()
        digest = content_digest(sorted(set(followed)))
        if state.get("followed_digest") != digest:
            recorded = followed
            state["followed_digest"] = digest
    yield {
        "extraction_id": str(uuid4()),
        "service_time": client.server_time or started_at,
        "started_at": started_at,
        # never the key: its one-way fingerprint (identity.py)
        "console_base_url": console_identity.base_url,
        "console_key_fingerprint": console_identity.key_fingerprint,
        "followed_experiment_count": None if followed is None else len(followed),
        "followed_experiment_ids": recorded,
    }


@dlt.source(name="console", max_table_nesting=4, spec=ConsoleSettings)
def console(
    settings: ConsoleSettings = dlt.config.value,
    tables: list[str] | None = None,
    client: ConsoleClient | None = None,
    counts: ExtractionCounts | None = None,
) -> Sequence[DltResource]:
    """Everything the console's read operations expose, dataset `console`.

    Args:
        settings: `[sources.console]` (settings.py), injected by dlt; a project's are resolved by its caller.
        tables: load only these of `constants.TABLES` (None: all); `extraction_runs` is always loaded.
        client: the client to read through (the demo's in-process twins); None: one made from `settings`.
        counts: an ExtractionCounts the caller reads for progress and the run summary.
    """
    unknown = sorted(set(tables or ()) - set(TABLES))
    if unknown:
        raise ConfigurationError(f"unknown table(s) {', '.join(unknown)}; choose from {', '.join(TABLES)}")
    check_followed(settings)
    client = client or ConsoleClient(ClientOptions.from_settings(settings))
    run = ExtractionRun.start(
        client, counts, experiment_ids=settings.experiment_ids, holdout_ids=settings.holdout_ids,
        ingestion_run_ids=settings.ingestion_run_ids, quiet_run_after_days=settings.quiet_run_after_days,
        recheck_concluded_days=settings.recheck_concluded_days, late_exposure_days=settings.late_exposure_days,
        max_workers=settings.max_workers, tables=TABLES if tables is None else tables,
    )  # fmt: skip
    # A caller that has the pipeline's state before dlt extracts starts the reads ahead then (counts.start_reading).
    run.counts.on_start_reading(partial(start_reads_ahead, client, run))
    run_ids = ingestion_run_ids_resource(client, run)
    holdout_batches = holdout_ids_resource(client, run)
    experiment_batches = experiment_ids_resource(client, run)
    # The order matters for economy only: in dlt's fifo mode each id resource then runs after the
    # lists that feed it, so no list is read twice (see Catalogue); the runs, which need no list,
    # go first and are fetched in the background while the lists page. The short qualifying-events
    # list comes before the gates: the first request goes alone (client.py), and a page of 1,000
    # gates keeps everyone waiting most of a second before its status line arrives.
    resources = (
        read_ahead(client, run),
        run_ids,
        run_ids | ingestion_runs(client, run),
        qualifying_events(client, run),
        gates(client, run),
        dynamic_configs(client, run),
        holdout_batches,
        holdout_batches | holdouts(client, run),
        experiment_batches,
        experiment_batches | cumulative_exposures(client, run),
        extraction_runs(client, run),
    )
    for resource in resources:
        if resource.name in TABLES and resource.name not in run.tables:
            resource.selected = False
    return resources


def load_phases(source: DltSource) -> list[DltSource]:
    """The source's selected resources in `LOAD_PHASES` order, one source each (phases with none left out):
    extracted, normalised and loaded one after the other by the pipeline that runs them."""
    selected = set(source.selected_resources)
    phases = [[name for name in phase if name in selected] for phase in LOAD_PHASES]
    return [source.with_resources(*names) for names in phases if names]
