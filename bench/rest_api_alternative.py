"""The alternative a dlt user would write: dlt's generic `rest_api` source over the same endpoints.

The three lists page with `json_link` on `pagination.nextPage`; holdouts, cumulative exposures and
ingestion runs are child endpoints of resources that yield the configured ids (the interface lists
none of them), with the same primary keys as gatehouse and `merge` loading, and the source is
`parallelized=True`.

Two variants are measured:
- `defaults`: what a user gets from that config: no page size (the console answers 100 items a
  page), dlt's default loader file format for DuckDB (`insert_values`) and default workers;
- `best`: the best settings we found for it: pages of 1,000 items (as gatehouse asks), parquet,
  and the worker counts in `BEST_WORKERS`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from gatehouse.sources.console import constants as source_constants
from gatehouse.sources.console import settings as source_settings

SOURCE_NAME = "console_rest_api"
PIPELINE_NAME = "rest_api_alternative"
DATASET_NAME = "console"
# Worker counts are dlt settings, set through its environment variables. Normalising in two
# processes on a two-core machine beats one (the twin's process is mostly asleep on latency).
BEST_WORKERS = {"EXTRACT__WORKERS": "8", "NORMALIZE__WORKERS": "2", "LOAD__WORKERS": "4"}


@dataclass(frozen=True)
class AlternativeVariant:
    name: str
    page_size: int | None
    loader_file_format: str | None  # None: dlt's default for the destination
    environment: dict[str, str] = field(default_factory=dict)


VARIANTS: dict[str, AlternativeVariant] = {
    "defaults": AlternativeVariant("defaults", page_size=None, loader_file_format=None),
    "best": AlternativeVariant(
        "best",
        page_size=source_settings.DEFAULT_PAGE_SIZE,
        loader_file_format="parquet",
        environment=BEST_WORKERS,
    ),
}


def rest_api_config(
    base_url: str,
    api_key: str,
    *,
    experiment_ids: list[str],
    holdout_ids: list[str],
    ingestion_run_ids: list[str],
    page_size: int | None = None,
) -> dict[str, Any]:
    """The `RESTAPIConfig` of the alternative; the id resources are plain dlt resources."""
    import dlt

    list_params: dict[str, Any] = {"limit": page_size} if page_size else {}
    single = {"type": "single_page"}
    # On a child endpoint, `parallelized` makes each parent item's request a deferred call of its own;
    # the source-level flag only runs each resource's generator in a thread, one request at a time.
    child = {"parallelized": True, "write_disposition": "merge"}

    def ids_resource(name: str, ids: list[str]) -> Any:
        # One page holding every id, as a list: rest_api deep-copies its config (a generator cannot be
        # copied), and its child endpoints iterate each parent item as a page of records.
        return dlt.resource([[{"id": id_} for id_ in ids]], name=name, selected=False)

    api = source_constants.API_PREFIX.strip("/")
    return {
        "client": {
            "base_url": f"{base_url.rstrip('/')}/{api}/",
            "auth": {
                "type": "api_key",
                "name": source_constants.API_KEY_HEADER,
                "api_key": api_key,
                "location": "header",
            },
            "paginator": {"type": "json_link", "next_url_path": "pagination.nextPage"},
        },
        "resource_defaults": {
            "write_disposition": "merge",
            "endpoint": {"data_selector": "data"},
        },
        "resources": [
            {"name": "gates", "primary_key": "id", "endpoint": {"path": "gates", "params": dict(list_params)}},
            {
                "name": "dynamic_configs",
                "primary_key": "id",
                "endpoint": {"path": "dynamic_configs", "params": dict(list_params)},
            },
            {
                "name": "qualifying_events",
                "primary_key": "name",
                "endpoint": {"path": "experiments/qualifying_events", "params": dict(list_params)},
            },
            ids_resource("holdout_ids", holdout_ids),
            ids_resource("experiment_ids", experiment_ids),
            ids_resource("ingestion_run_ids", ingestion_run_ids),
            {
                "name": "holdouts",
                "primary_key": "id",
                **child,
                "endpoint": {"path": "holdouts/{resources.holdout_ids.id}", "paginator": single},
            },
            {
                "name": "cumulative_exposures",
                "primary_key": "groupID",
                **child,
                "include_from_parent": ["id"],
                "endpoint": {
                    "path": "experiments/{resources.experiment_ids.id}/cumulative_exposures",
                    "paginator": single,
                },
            },
            {
                "name": "ingestion_runs",
                "primary_key": "runID",
                **child,
                "endpoint": {"path": "ingestion/runs/{resources.ingestion_run_ids.id}", "paginator": single},
            },
        ],
    }


def alternative_source(config: dict[str, Any]) -> Any:
    from dlt.sources.rest_api import rest_api_source

    return rest_api_source(config, name=SOURCE_NAME, parallelized=True)
