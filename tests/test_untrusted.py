"""The one rule per output for console text (pipelines/untrusted.py)."""

from __future__ import annotations

import pytest

from gatehouse.pipelines.untrusted import (
    all_visible,
    file_name,
    for_csv,
    for_html,
    for_json,
    for_slack,
    for_terminal,
    tool_message,
    visible,
)


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("plain Ünïcode name", "plain Ünïcode name"),
        ("\x1b[2J\x1b[31mred", "\\x1b[2J\\x1b[31mred"),
        ("\x1b]8;;http://evil.example\x07link", "\\x1b]8;;http://evil.example\\x07link"),
        ("a\nb\rc\td\x00", "a\\x0ab\\x0dc\\x09d\\x00"),
        ("\x7f\x85\x9b", "\\x7f\\x85\\x9b"),
        ("\u202eevil\u202c \u2066x\u2069", "\\u202eevil\\u202c \\u2066x\\u2069"),
        # what draws as nothing or reorders the rest: zero-width, the Arabic letter mark, a separator, the soft hyphen,
        # a variation selector, a Hangul filler, a tag character (which hides the text it spells)
        (
            "gate\u200bname \u061c[1-2]\u061c \u2028 so\u00adft \ufe0f \u3164",
            "gate\\u200bname \\u061c[1-2]\\u061c \\u2028 so\\xadft \\ufe0f \\u3164",
        ),
        ("x\U000e0069\U000e0067 visible", "x\\U000e0069\\U000e0067 visible"),
        (None, ""),
    ],
)
def test_control_and_bidi_characters_are_shown_as_escapes(text, shown):
    assert visible(text) == shown == for_terminal(text)


def test_html_escapes_markup_and_shows_controls():
    assert for_html('<script>alert(1)</script>"><img src=x onerror=alert(2)>\x1b') == (
        "&lt;script&gt;alert(1)&lt;/script&gt;&quot;&gt;&lt;img src=x onerror=alert(2)&gt;\\x1b"
    )
    assert for_html("it's $10 ^_^ $20") == "it&#x27;s $10 ^_^ $20"


def test_slack_mentions_never_ping_and_line_breaks_stay():
    assert for_slack("owner <!channel> <!here> <@U123> & co\nnext\x07") == (
        "owner &lt;!channel&gt; &lt;!here&gt; &lt;@U123&gt; &amp; co\nnext\\x07"
    )


def test_a_tools_colours_are_stripped_and_anything_else_shown():
    assert tool_message("\x1b[0;31mValueError\x1b[0m: bad \x1b[2J") == "ValueError: bad \\x1b[2J"


@pytest.mark.parametrize(
    ("identifier", "name"),
    [
        ("gate_1", "gate_1"),
        ("checkout-v2.beta", "checkout-v2.beta"),
        # an id that had to change gets a digest of itself: two ids never share a file
        ("../etc/passwd", "_etc_passwd-7fef78f5"),
        ("..", "id-5ec1f7e7"),
        ("a/b\x00c", "a_b_c-51a83b4c"),
        # an id typed as another's altered name gets a digest of its own: `a/b` and it never share a branch or a file
        ("a/b", "a_b-c14cddc0"),
        ("a_b-c14cddc0", "a_b-c14cddc0-10ed7bd6"),
    ],
)
def test_a_file_name_from_an_id_never_leaves_its_folder(identifier, name):
    assert file_name(identifier) == name


def test_all_visible_is_one_search_over_a_column_and_finds_what_visible_would_escape():
    assert all_visible(["plain", None, 3.5, "names typed by colleagues", ""])
    assert all_visible([])
    for hidden in ("\x1b[31m", "\u202e", "\x00", "\u2066", "line\nbreak", "\x9b"):
        assert not all_visible(["plain", None, f"a{hidden}b"]), repr(hidden)
        assert visible(f"a{hidden}b") != f"a{hidden}b"


def test_every_invisible_character_of_this_unicode_is_shown():
    import sys
    import unicodedata

    hidden = [chr(code) for code in range(sys.maxunicode + 1) if unicodedata.category(chr(code)) in ("Cc", "Cf", "Zl", "Zp")]
    assert len(hidden) > 200
    shown = [char for char in hidden if visible(char) == char]
    assert shown == [], [f"U+{ord(char):04X}" for char in shown]


def test_a_csv_cell_shows_controls_keeps_its_line_breaks_and_runs_no_formula():
    assert for_csv("\x1b[2J\x1b]52;c;ZXZpbA==\x07 name\nsecond \u202eline") == (
        "\\x1b[2J\\x1b]52;c;ZXZpbA==\\x07 name\nsecond \\u202eline"
    )
    assert for_csv('=HYPERLINK("http://evil")') == '\'=HYPERLINK("http://evil")'
    assert for_csv("plain Ünïcode") == "plain Ünïcode"


def test_json_for_a_person_escapes_what_a_terminal_runs_and_parses_to_the_same_data():
    import json

    data = {"name": "a\x1b[2J\x9b\x7f\u202eb\U000e0041 Ünïcode", "ok": ["plain"]}
    text = for_json(json.dumps(data, ensure_ascii=False, indent=2))
    assert all_visible(text.split("\n")) and "Ünïcode" in text
    assert json.loads(text) == data


def test_a_line_break_in_the_consoles_ids_stays_inside_its_line_of_the_run_summary():
    # the summary's lines go to the terminal, a scheduler's log and its mail: an id never adds a line of its own
    from gatehouse.pipelines.run.summary import RunSummary

    forged = "gate_1\ngatehouse: all values loaded, nothing left null"
    summary = RunSummary(
        rows_loaded={"gates": 1},
        new_versions={},
        retired={},
        skipped=[("gates", forged, "its rules could not be read")],
        schema_changes=[],
        requests=2,
        retries=0,
        throttled=0,
        throttle_wait_s=0.0,
        wall_time_s=1.0,
        load_id="1",
        left_null=[("gates", forged, "checksPerHour", "nan", "is not a finite number")],
    )
    assert summary.lines()[2:] == [
        "  skipped gates gate_1\\x0agatehouse: all values loaded, nothing left null: its rules could not be read",
        "  left null gates gate_1\\x0agatehouse: all values loaded, nothing left null: checksPerHour nan is not a finite number",
    ]
