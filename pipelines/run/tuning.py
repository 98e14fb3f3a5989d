"""How a run tuned itself: the dlt settings it starts from, normalize workers, garbage collection."""

from __future__ import annotations

import contextlib
import ctypes
import gc
import multiprocessing
import os
import threading
from collections.abc import Iterator

import dlt
from dlt.common.pipeline import ExtractInfo
from dlt.common.runners.pool_runner import get_default_start_method

from gatehouse.pipelines.warehouse.duckdb_file import RUN_DEFAULTS

# Garbage-collector thresholds during a run (Python's default is 700, 10, 10): see batch_garbage_collection.
RUN_GC_THRESHOLDS = (10_000, 10, 10)
# Extract-file writer: items buffered per table before a write, and the size a file is rotated at.
EXTRACT_BUFFER_ITEMS = 500
EXTRACT_FILE_BYTES = 2_000_000
# Normalize-file writer: rows buffered per table in each normalize worker before a write (dlt's default: 5,000).
NORMALIZE_BUFFER_ITEMS = 1000


@contextlib.contextmanager
def batch_garbage_collection() -> Iterator[None]:
    """Fewer, cheaper garbage collections while a run makes and drops millions of short-lived rows.

    Rows are freed by reference counting; the collector only hunts cycles, yet with Python's defaults
    it ran full collections again and again in the large twin's normalise step, rescanning every live
    object each time: a good share of the step (bench/RESULTS.md, where the time goes). Objects alive before the run (modules,
    dlt's schemas) are frozen out of the scans and young collections come every 10,000 allocations
    instead of 700; peak memory measured the same.
    """
    global _batched_runs, _thresholds_before
    # Projects run side by side in threads: the first run in sets the thresholds, the last one out restores them.
    with _gc_guard:
        if _batched_runs == 0:
            _thresholds_before = gc.get_threshold()
            gc.freeze()
            gc.set_threshold(*RUN_GC_THRESHOLDS)
        _batched_runs += 1
    try:
        yield
    finally:
        with _gc_guard:
            _batched_runs -= 1
            if _batched_runs == 0:
                gc.set_threshold(*_thresholds_before)
                gc.unfreeze()


_gc_guard = threading.Lock()
_batched_runs = 0
_thresholds_before = gc.get_threshold()


def release_freed_memory() -> None:
    """Gives the C heap's free pages back to the system before normalise forks its workers (glibc only).

    Extraction frees most of what it parsed, but glibc keeps the freed pages in the process, so its resident
    set stayed at its extraction peak through normalise and load, when the forked workers add theirs: the
    large full load's peak. Elsewhere (macOS, musl) nothing is done."""
    try:
        libc = ctypes.CDLL("libc.so.6")
        trim = libc.malloc_trim
    except (OSError, AttributeError):
        return
    trim(0)


def normalize_workers() -> int:
    """Two normalize processes where forking them is cheap, else one.

    dlt's relational normaliser is pure Python, so a second process is the only way to use a second
    core, and the large twin's normalise step is shorter for it (bench/RESULTS.md). Forked
    workers share the parent's pages and start at once; where dlt would spawn them instead (Airflow,
    Dagster, Prefect, or a run from a thread that is not the main one) each would import dlt again and
    hold its own copy, costing seconds and memory that a run of this size does not win back.
    """
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        cores = os.cpu_count() or 1
    if cores < 2:
        return 1
    return 2 if get_default_start_method(multiprocessing.get_start_method()) == "fork" else 1


def extracted_bytes(extracted: ExtractInfo) -> int:
    """The size of the files an extract step wrote for normalise, from the step's own account of its packages
    (what `pipeline.extract` returns): reading the packages back would load each one's schema again."""
    return sum(job.file_size for package in extracted.load_packages for job in package.jobs.get("new_jobs", []))


@contextlib.contextmanager
def normalize_workers_for(extracted: int) -> Iterator[None]:
    """One normalize process for what fits in one extract file (`extracted`: the bytes the extract step wrote; a
    rerun that found everything unchanged extracts a row or two): forking a second process and dealing out one file
    costs more than it saves (no-change reruns of the medium twin side by side, one process against two)."""
    if threading.current_thread() is not threading.main_thread():
        # Projects side by side: one worker already (one_normalize_worker around them all); the
        # environment is the process's and is not touched from a thread.
        yield
        return
    if extracted >= int(dlt.config.get("sources.data_writer.file_max_bytes") or EXTRACT_FILE_BYTES):
        yield
        return
    with one_normalize_worker():
        yield


@contextlib.contextmanager
def one_normalize_worker() -> Iterator[None]:
    """One normalize process. Around runs side by side in threads: dlt would spawn its workers instead of
    forking them from a thread, each importing dlt again, for seconds; the other runs use the other core."""
    before = os.environ.get(_NORMALIZE_WORKERS)
    os.environ[_NORMALIZE_WORKERS] = "1"
    try:
        yield
    finally:
        if before is None:
            del os.environ[_NORMALIZE_WORKERS]
        else:
            os.environ[_NORMALIZE_WORKERS] = before


_NORMALIZE_WORKERS = "NORMALIZE__WORKERS"


def run_defaults() -> dict[str, str]:
    """dlt settings gatehouse runs with unless the user set them (environment or .dlt/config.toml)."""
    return {
        "extract.next_item_mode": "fifo",
        "runtime.log_level": "ERROR",
        # Arrow rows (cumulative_exposures) carry dlt's row and load ids like every other table.
        "normalize.parquet_normalizer.add_dlt_id": "true",
        "normalize.parquet_normalizer.add_dlt_load_id": "true",
        # The extract files are temporary and local: compressing them cost CPU twice, on the main
        # thread while requests were in flight and again in normalize. Small buffers keep memory to
        # about a page per table; files of a couple of MB let normalize workers share the work evenly.
        "sources.data_writer.disable_compression": "true",
        "sources.data_writer.buffer_max_items": str(EXTRACT_BUFFER_ITEMS),
        "sources.data_writer.file_max_bytes": str(EXTRACT_FILE_BYTES),
        "normalize.workers": str(normalize_workers()),
        # Each normalize worker buffers rows per table, nested tables included, as Python dicts: with dlt's
        # 5,000 the large full load peaked while normalising (bench/RESULTS.md, peak memory by step).
        "normalize.data_writer.buffer_max_items": str(NORMALIZE_BUFFER_ITEMS),
        # The destination's own defaults (DuckDB's memory cap): gatehouse.pipelines.warehouse.duckdb_file holds them.
        **RUN_DEFAULTS,
    }


def apply_run_defaults() -> None:
    for key, value in run_defaults().items():
        if dlt.config.get(key) is None:
            os.environ[key.upper().replace(".", "__")] = value
