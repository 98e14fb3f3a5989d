"""How report tables and the terminal write values: human durations, minutes, shortened ids, alignment."""

from __future__ import annotations

import re
from datetime import date, datetime

import pandas as pd
import pytest

from gatehouse.pipelines.reports.format import Column, and_more, human_duration, minute, short, table


@pytest.mark.parametrize(
    ("seconds", "text"),
    [
        (None, ""),
        (float("nan"), ""),
        (0, "0 s"),
        (42.4, "42 s"),
        (59.6, "1 min"),
        (60, "1 min"),
        (3599, "59 min"),
        (3600, "1 h"),
        (18720, "5 h 12 min"),
        (86400, "1 d"),
        (268424, "3 d 2 h"),
        (90000, "1 d 1 h"),
    ],
)
def test_durations_are_human(seconds, text):
    assert human_duration(seconds) == text


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (datetime(2026, 11, 2, 5, 53, 12, 944000), "2026-11-02 05:53"),
        (pd.Timestamp("2026-11-02 05:53:12.944"), "2026-11-02 05:53"),
        (date(2026, 11, 2), "2026-11-02"),
        (pd.NaT, ""),
        (None, ""),
    ],
)
def test_instants_have_minute_precision(value, text):
    assert minute(value) == text


def test_long_ids_are_shortened_with_the_whole_on_hover():
    assert short("olJmOaqhFu1oHR8uvAKZpx", 8) == ("olJmOaqh…", "olJmOaqhFu1oHR8uvAKZpx")
    assert short("abcdefghi", 8) == ("abcdefghi", None)  # one character more is not worth an ellipsis
    cell = Column("id", "Experiment", "id", keep=8).cell("olJmOaqhFu1oHR8uvAKZpx")
    assert cell == '<td class="text"><abbr title="olJmOaqhFu1oHR8uvAKZpx">olJmOaqh…</abbr></td>'


def test_a_table_aligns_text_left_and_numbers_right_groups_rows_and_says_how_many_more():
    frame = pd.DataFrame(
        {"owner": ["Ann", "Ann", "Bob"], "gate": ["a", "b<c", "d"], "days": [1200, 3, None], "took": [268424.0, 60.0, None]}
    )
    html = table(
        frame,
        [Column("gate", "Gate"), Column("days", "Untouched, d", "number"), Column("took", "Took", "duration")],
        group_key="owner",
        limit=2,
        more=" gates",
    )
    assert re.findall(r"<th class=\"(\w+)\">([^<]*)</th>", html) == [("text", "Gate"), ("num", "Untouched, d"), ("num", "Took")]
    rows = re.findall(r"<tr.*?</tr>", html.split("<tbody>")[1])
    assert rows == [
        '<tr class="gh-group"><th colspan="3">Ann</th></tr>',
        '<tr><td class="text">a</td><td class="num">1,200</td><td class="num">3 d 2 h</td></tr>',
        '<tr><td class="text">b&lt;c</td><td class="num">3</td><td class="num">1 min</td></tr>',
    ]
    assert html.endswith('<div class="gh-more">…and 1 more gates</div>')
    assert "…and" not in table(frame, [Column("gate", "Gate")])


def test_a_grouped_table_caps_rows_per_group_and_says_how_many_more_for_each():
    frame = pd.DataFrame({"owner": ["Ann"] * 5 + ["Bob"] * 2 + ["Cy"] * 3, "gate": list("abcdefghij")})
    html = table(
        frame, [Column("gate", "Gate")], group_key="owner", per_group=2, group_more=" for this owner", limit=5, more=" gates"
    )
    rows = re.findall(r"<tr.*?</tr>", html.split("<tbody>")[1])
    assert rows == [
        '<tr class="gh-group"><th colspan="1">Ann</th></tr>',
        '<tr><td class="text">a</td></tr>',
        '<tr><td class="text">b</td></tr>',
        '<tr class="gh-group-more"><td colspan="1">…and 3 more for this owner</td></tr>',
        '<tr class="gh-group"><th colspan="1">Bob</th></tr>',
        '<tr><td class="text">f</td></tr>',
        '<tr><td class="text">g</td></tr>',
        '<tr class="gh-group"><th colspan="1">Cy</th></tr>',
        '<tr><td class="text">h</td></tr>',
    ]
    # the limit counts the rows shown: Cy's second row is past it, and Cy's third was never a candidate
    assert html.endswith('<div class="gh-more">…and 1 more gates</div>')


def test_a_terminal_list_ends_with_how_many_more():
    assert and_more(38, 5) == "  …and 33 more"
    assert and_more(5, 5) == ""


def test_a_chart_label_is_cut_in_its_middle_and_keeps_ids_apart():
    from gatehouse.pipelines.reports.format import CHART_LABEL_CHARS, chart_label

    assert chart_label("Emma Johansson") == "Emma Johansson"
    assert chart_label(None) == ""
    long_a, long_b = "checkout_" + "x" * 60 + "_variant_a", "checkout_" + "x" * 60 + "_variant_b"
    assert len(chart_label(long_a)) == CHART_LABEL_CHARS
    assert chart_label(long_a) != chart_label(long_b)
    assert chart_label(long_a).startswith("checkout_") and chart_label(long_a).endswith("_variant_a")


def test_the_experiments_no_longer_followed_are_named_as_text_whatever_their_ids_hold():
    # an id is the console's (a holdout names it): markup in it is shown, never made part of the page
    from gatehouse.pipelines.reports.lists import unfollowed_paragraph

    unfollowed = pd.DataFrame(
        {
            "project": ["web", "web"],
            "experiment_id": ['<img src=x onerror="alert(1)">', "[x](javascript:alert(2)) \u202eexp"],
            "last_followed_date": [date(2026, 11, 2), None],
            "last_date": [date(2026, 11, 2), date(2026, 11, 3)],
        }
    )
    assert unfollowed_paragraph(unfollowed, several=True) == (
        "<p><strong>2 no longer followed</strong>, neither concluded nor stalled: web: &lt;img src=x"
        " onerror=&quot;alert(1)&quot;&gt; (its exposures end at 2026-11-02, the last run that followed it), web:"
        " [x](javascript:alert(2)) \\u202eexp (its exposures end at 2026-11-03). Add an id to <code>experiment_ids</code>"
        " (<code>SOURCES__CONSOLE__EXPERIMENT_IDS</code>) to follow it again.</p>"
    )
