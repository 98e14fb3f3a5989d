"""The rest_api alternative's configuration: the same endpoints, paging and keys as gatehouse reads."""

import pytest

from bench.rest_api_alternative import VARIANTS, rest_api_config

IDS = {"experiment_ids": ["e1", "e2"], "holdout_ids": ["h1"], "ingestion_run_ids": ["r1", "r2", "r3"]}


def config(**overrides):
    return rest_api_config("http://127.0.0.1:8787/", "console-key", **IDS, **overrides)


def endpoints(cfg):
    return {r["name"]: r for r in cfg["resources"] if isinstance(r, dict)}


def test_client_pages_on_next_page_with_the_key_header():
    client = config()["client"]
    assert client["base_url"] == "http://127.0.0.1:8787/console/v1/"
    assert client["paginator"] == {"type": "json_link", "next_url_path": "pagination.nextPage"}
    assert client["auth"]["name"] == "SERVICE-API-KEY" and client["auth"]["location"] == "header"


def test_lists_send_no_limit_by_default_and_the_page_size_when_asked():
    assert endpoints(config())["gates"]["endpoint"]["params"] == {}
    assert endpoints(config(page_size=1000))["dynamic_configs"]["endpoint"]["params"] == {"limit": 1000}


@pytest.mark.parametrize(
    ("name", "path", "key"),
    [
        ("holdouts", "holdouts/{resources.holdout_ids.id}", "id"),
        ("cumulative_exposures", "experiments/{resources.experiment_ids.id}/cumulative_exposures", "groupID"),
        ("ingestion_runs", "ingestion/runs/{resources.ingestion_run_ids.id}", "runID"),
    ],
)
def test_child_endpoints_fan_out_in_parallel_over_the_configured_ids(name, path, key):
    resource = endpoints(config())[name]
    assert resource["endpoint"]["path"] == path
    assert resource["primary_key"] == key
    assert resource["parallelized"] is True
    assert resource["endpoint"]["paginator"] == {"type": "single_page"}


def test_id_resources_yield_one_page_of_ids_and_are_not_loaded():
    resources = [r for r in config()["resources"] if not isinstance(r, dict)]
    by_name = {r.name: r for r in resources}
    assert set(by_name) == {"holdout_ids", "experiment_ids", "ingestion_run_ids"}
    assert list(by_name["ingestion_run_ids"]) == [{"id": "r1"}, {"id": "r2"}, {"id": "r3"}]
    assert not by_name["holdout_ids"].selected


def test_the_source_builds_from_the_config():
    from bench.rest_api_alternative import alternative_source

    source = alternative_source(config())
    assert {"gates", "dynamic_configs", "qualifying_events", "holdouts", "cumulative_exposures", "ingestion_runs"} <= set(
        source.selected_resources
    )


def test_variants_differ_in_page_size_file_format_and_workers():
    assert VARIANTS["defaults"].page_size is None and VARIANTS["defaults"].loader_file_format is None
    assert VARIANTS["best"].loader_file_format == "parquet" and VARIANTS["best"].page_size == 2000
    assert "NORMALIZE__WORKERS" in VARIANTS["best"].environment
