"""The reports' SVG charts (pipelines/reports/charts.py): scales, where each bar and line is drawn, and text as text."""

from __future__ import annotations

import re
from datetime import date
from xml.etree import ElementTree

import numpy as np
import pytest

from gatehouse.pipelines.reports import charts

SVG = "{http://www.w3.org/2000/svg}"


def parsed(svg: str) -> ElementTree.Element:
    return ElementTree.fromstring(svg)


def rects(svg: str) -> list[dict]:
    """The filled shapes of the data (the white background and the legend's boxes left out: those of 16 px)."""
    return [
        {k: (float(v) if k in ("x", "y", "width", "height") else v) for k, v in r.attrib.items()}
        for r in parsed(svg).iter(f"{SVG}rect")
        if r.get("width") != "100%" and r.get("width") != "16.0" and r.get("fill") != "none"
    ]


def texts(svg: str) -> list[str]:
    return [t.text or "" for t in parsed(svg).iter(f"{SVG}text")]


@pytest.mark.parametrize(
    ("low", "high", "whole", "expected"),
    [
        (0, 10, False, [0, 2, 4, 6, 8, 10]),
        (0, 12, False, [0, 2.5, 5, 7.5, 10, 12.5]),
        (0, 12, True, [0, 5, 10, 15]),  # counts: never a step of 2.5
        (0, 3, True, [0, 1, 2, 3]),  # nor less than 1
        (0, 0.3, False, [0, 0.1, 0.2, 0.30000000000000004]),
        (0, 0, False, [0, 0.2, 0.4, 0.6000000000000001, 0.8, 1]),  # nothing to tell apart: a unit's scale
        (0, 100, False, [0, 20, 40, 60, 80, 100]),
    ],
)
def test_ticks_are_round_numbers_covering_the_values(low, high, whole, expected):
    assert charts.nice_ticks(low, high, whole=whole) == pytest.approx(expected)


def test_day_ticks_are_whole_days_weekly_on_mondays():
    start, end = date(2026, 9, 1).toordinal(), date(2026, 11, 1).toordinal()  # 61 days
    ticks = [date.fromordinal(int(t)) for t in charts.day_ticks(start, end, 6)]
    assert ticks == [date(2026, 9, 7), date(2026, 9, 21), date(2026, 10, 5), date(2026, 10, 19)]
    assert all(day.weekday() == 0 for day in ticks)
    assert charts.day_ticks(start, start + 3, 6) == [start, start + 1, start + 2, start + 3]


def test_stacked_bars_across_the_first_category_at_the_top():
    svg = charts.bars(
        ["owner a", "owner b"],
        [("marked stale", [3, 1], "#c0392b"), ("approaching", [1, 0], "#f1c40f")],
        title="Stale gates by owner",
        value_label="gates",
        width=600,
    )
    drawn = rects(svg)
    # owner a: 3 then 1 stacked on it; owner b: 1 (a segment of 0 is not drawn)
    assert [(r["fill"], r["width"]) for r in drawn] == [
        ("#c0392b", pytest.approx(drawn[0]["width"])),
        ("#f1c40f", pytest.approx(drawn[0]["width"] / 3, abs=0.1)),
        ("#c0392b", pytest.approx(drawn[0]["width"] / 3, abs=0.1)),
    ]
    assert drawn[1]["x"] == pytest.approx(drawn[0]["x"] + drawn[0]["width"], abs=0.1)  # stacked, not overlapping
    assert drawn[0]["y"] < drawn[2]["y"]  # the first category above the second
    words = texts(svg)
    assert words[:4] == ["Stale gates by owner", "marked stale", "approaching", "0"]
    assert {"owner a", "owner b", "gates"} <= set(words)
    # the value axis: whole numbers to 4 (the largest stack)
    assert [w for w in words if w.isdigit()] == ["0", "1", "2", "3", "4"]


def test_bars_up_a_colour_per_bar_and_a_rule():
    svg = charts.bars(
        ["10-01", "10-02", "10-03"],
        [("failed", [0, 50, 100], ["#27ae60", "#c0392b", "#c0392b"])],
        horizontal=False,
        legend=False,
        value_range=(0, 100),
        rule=charts.Rule(25, "p = 0.001"),
        title="t",
        value_label="%",
    )
    drawn = rects(svg)
    assert [r["fill"] for r in drawn] == ["#c0392b", "#c0392b"]  # a bar of 0 is not drawn
    assert drawn[1]["height"] == pytest.approx(2 * drawn[0]["height"], abs=0.1)
    assert drawn[0]["y"] + drawn[0]["height"] == pytest.approx(drawn[1]["y"] + drawn[1]["height"])  # one baseline
    dashed = [p for p in parsed(svg).iter(f"{SVG}polyline") if p.get("stroke-dasharray")]
    assert len(dashed) == 2  # the rule, and its sample in the legend
    assert "p = 0.001" in texts(svg)


def test_a_histogram_counts_as_numpy_does():
    ages = [31, 35, 40, 90, 120, 121, 400, 700, 700]
    svg = charts.histogram([("all", ages, "#c0392b")], bins=20, title="Age", value_label="days", count_label="gates")
    heights = [r["height"] for r in rects(svg) if r["fill"] == "#c0392b"]
    counts, _ = np.histogram(ages, bins=20)
    unit = min(heights)
    assert [round(h / unit) for h in heights] == [c for c in counts if c]


def test_line_panels_draw_each_group_and_cap_the_first_week():
    days = [date(2026, 10, d) for d in range(1, 21)]
    panel = charts.Panel(
        "exp_1 [SRM]\nholdout",
        [("Control", days, [900] + [100] * 19), ("Test", days, [90] * 20)],
        "#c0392b",
        y_max=130,
        note="first week up to 900 ↑",
    )
    svg = charts.panels([panel, charts.Panel("exp_2 [running]", [("Control", days[:1], [5])])], title="New exposures")
    lines = [p for p in parsed(svg).iter(f"{SVG}polyline") if p.get("stroke-width") not in (None, "1")]
    data = [p for p in lines if len(p.get("points").split()) == 20]
    assert len(data) == 2 and data[0].get("stroke-dasharray") is None and data[1].get("stroke-dasharray") == "7 3"
    # the 900 is drawn at the cap, the top of the axis, no higher than the 130 the panel stops at
    ys = [float(point.split(",")[1]) for point in data[0].get("points").split()]
    assert min(ys) == pytest.approx(ys[0]) and ys[0] < ys[1]
    words = texts(svg)
    assert {"exp_1 [SRM]", "holdout", "first week up to 900 ↑", "Control", "Test", "exp_2 [running]"} <= set(words)
    assert [t for t in parsed(svg).iter(f"{SVG}text") if t.text == "exp_1 [SRM]"][0].get("fill") == "#c0392b"
    # one day of data is a dot, not a line
    assert len(list(parsed(svg).iter(f"{SVG}circle"))) == 1


def test_a_panel_without_data_is_drawn_empty():
    svg = charts.panels([charts.Panel("exp_3 [concluded]", [])], title="Cumulative exposures")
    assert "exp_3 [concluded]" in texts(svg) and not list(parsed(svg).iter(f"{SVG}polyline"))[1:]


def test_markup_in_a_name_is_text():
    svg = charts.bars(['<script>alert(1)</script>"&'], [("a", [1], "#000")], title="<b>t</b>", legend=False)
    assert "<script>" not in svg and "<b>" not in svg
    assert texts(svg)[:2] == ["<b>t</b>", "0"]
    assert '<script>alert(1)</script>"&' in texts(svg)
    assert not re.search(r"<(?!/?(svg|rect|line|polyline|polygon|circle|text)\b)", svg)


NAN = re.compile(r"[\"\s,(]-?nan\b", re.I)


def test_a_missing_value_is_not_drawn():
    nan = float("nan")
    bars = charts.bars(["a", "b"], [("x", [nan, 2], "#111")], title="t")
    assert not NAN.search(bars) and [r["fill"] for r in rects(bars)] == ["#111"]
    days = [date(2026, 10, 1), date(2026, 10, 2), date(2026, 10, 3)]
    lines = charts.panels([charts.Panel("p", [("g", days, [1, nan, 3])])], title="t")
    assert not NAN.search(lines) and len(lines.split("<polyline")) == 4  # the frame, the line of 2 points, its legend
    assert not NAN.search(charts.histogram([("g", [1, nan, 5], "#111")], title="t", value_label="d", count_label="n"))
