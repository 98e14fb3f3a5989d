"""The one rule per output for console text (pipelines/untrusted.py)."""

from __future__ import annotations

import pytest

from gatehouse.pipelines.untrusted import all_visible, file_name, for_html, for_slack, for_terminal, tool_message, visible


@pytest.mark.parametrize(("text", "shown"), [
    ("plain Ünïcode name", "plain Ünïcode name"),
    ("\x1b[2J\x1b[31mred", "\\x1b[2J\\x1b[31mred"),
    ("\x1b]8;;http://evil.example\x07link", "\\x1b]8;;http://evil.example\\x07link"),
    ("a\nb\rc\td\x00", "a\\x0ab\\x0dc\\x09d\\x00"),
    ("\x7f\x85\x9b", "\\x7f\\x85\\x9b"),
    ("\u202eevil\u202c \u2066x\u2069", "\\u202eevil\\u202c \\u2066x\\u2069"),
    (None, ""),
])
def test_control_and_bidi_characters_are_shown_as_escapes(text, shown):
    assert visible(text) == shown == for_terminal(text)


def test_html_escapes_markup_and_shows_controls():
    assert for_html('<script>alert(1)</script>"><img src=x onerror=alert(2)>\x1b') == (
        "&lt;script&gt;alert(1)&lt;/script&gt;&quot;&gt;&lt;img src=x onerror=alert(2)&gt;\\x1b")
    assert for_html("it's $10 ^_^ $20") == "it&#x27;s $10 ^_^ $20"


def test_slack_mentions_never_ping_and_line_breaks_stay():
    assert for_slack("owner <!channel> <!here> <@U123> & co\nnext\x07") == (
        "owner &lt;!channel&gt; &lt;!here&gt; &lt;@U123&gt; &amp; co\nnext\\x07")


def test_a_tools_colours_are_stripped_and_anything_else_shown():
    assert tool_message("\x1b[0;31mValueError\x1b[0m: bad \x1b[2J") == "ValueError: bad \\x1b[2J"


@pytest.mark.parametrize(("identifier", "name"), [
    ("gate_1", "gate_1"),
    ("checkout-v2.beta", "checkout-v2.beta"),
    # an id that had to change gets a digest of itself: two ids never share a file
    ("../etc/passwd", "_etc_passwd-7fef78f5"),
    ("..", "id-5ec1f7e7"),
    ("a/b\x00c", "a_b_c-51a83b4c"),
])
def test_a_file_name_from_an_id_never_leaves_its_folder(identifier, name):
    assert file_name(identifier) == name


def test_all_visible_is_one_search_over_a_column_and_finds_what_visible_would_escape():
    assert all_visible(["plain", None, 3.5, "names typed by colleagues", ""])
    assert all_visible([])
    for hidden in ("\x1b[31m", "\u202e", "\x00", "\u2066", "line\nbreak", "\x9b"):
        assert not all_visible(["plain", None, f"a{hidden}b"]), repr(hidden)
        assert visible(f"a{hidden}b") != f"a{hidden}b"
