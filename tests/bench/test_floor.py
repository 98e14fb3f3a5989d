"""The rate-limit floor: fewest requests for an organisation, divided by the rate limit."""

import pytest

from bench.floor import OrganisationShape, RateLimit, full_load_floor, list_pages, rerun_floor

SHAPE = OrganisationShape(
    size="large",
    listed={"gates": 19_210, "dynamic_configs": 4_513, "qualifying_events": 60},
    holdouts=200,
    experiments=1_000,
    ingestion_runs=2_000,
    settled_runs=1_100,
    concluded_experiments=250,
)


@pytest.mark.parametrize(
    ("items", "cap", "pages"),
    [(19_210, None, 1), (0, None, 1), (0, 1_000, 1), (1_000, 1_000, 1), (1_001, 1_000, 2), (19_210, 1_000, 20)],
)
def test_list_pages(items, cap, pages):
    assert list_pages(items, cap) == pages


def test_full_load_floor_without_a_page_cap_is_one_request_per_list_plus_one_per_entity():
    floor = full_load_floor(SHAPE, RateLimit(50, 1.0))
    assert floor.requests == 3 + 200 + 1_000 + 2_000
    assert floor.seconds == pytest.approx(3_203 / 50)


def test_full_load_floor_with_a_page_cap():
    floor = full_load_floor(SHAPE, RateLimit(100, 10.0), max_page_size=1_000)
    assert floor.list_pages == {"gates": 20, "dynamic_configs": 5, "qualifying_events": 1}
    assert floor.seconds == pytest.approx((26 + 3_200) / 10)


def test_rerun_floor_skips_concluded_experiments_and_settled_runs_but_not_holdouts():
    floor = rerun_floor(SHAPE, RateLimit(50, 1.0))
    assert floor.fan_out == {"holdouts": 200, "experiments": 750, "ingestion_runs": 900}
    assert floor.requests == 3 + 200 + 750 + 900


@pytest.mark.parametrize(("text", "requests", "window"), [("50/1", 50, 1.0), ("100/10", 100, 10.0), ("7", 7, 1.0)])
def test_rate_limit_parse(text, requests, window):
    limit = RateLimit.parse(text)
    assert (limit.requests, limit.window_s) == (requests, window)


@pytest.mark.parametrize("text", ["0/1", "5/0", "x/1"])
def test_rate_limit_parse_rejects_nonsense(text):
    with pytest.raises(ValueError):
        RateLimit.parse(text)


def test_shape_round_trips_through_a_dict():
    assert OrganisationShape.from_dict(SHAPE.to_dict()) == SHAPE
