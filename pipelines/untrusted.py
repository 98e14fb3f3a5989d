"""Text from the console, made safe for each place gatehouse shows it: one rule per output, one home.

Console text (gate names, descriptions, owners' display names, teams, tags, config names, event and source
names) was typed by colleagues of the reader. It must never run, never hide and never change what a person
sees of anything else. Every value that reaches a page, a terminal, a Slack message, a CSV cell, a chart or
a file name passes through the function for that place:

| output | function | rule |
|---|---|---|
| HTML (reports, tooltips) | `for_html` | control and bidi characters made visible, then `& < > " '` as entities |
| terminal, logs, errors | `for_terminal` | C0 (newlines too), DEL, C1, bidi, any other invisible one as `\\x1b`, `\\u202e` |
| Slack text | `for_slack` | as the terminal (line breaks kept), `& < >` as Slack's entities: no `<!channel>`, `<@U…>` pings |
| a tool's message quoted, a log line | `tool_message` | its colours (`ESC[...m`) stripped, the rest as the terminal |
| CSV (`gatehouse sql --format csv`, the report's export) | `for_csv` | as the terminal, line breaks kept; a formula* led by `'` |
| JSON to read (`gatehouse console ... --format json`) | `for_json` | what the terminal escapes, as JSON escapes (`\\u202e`) |
| a file or branch name from an id | `file_name` | one path component of `[A-Za-z0-9._-]`, not `.`/`..`, a digest if altered |

*A formula: a cell a spreadsheet would run (`= + - @`, tab or CR first).
Charts draw data as plain text: `pipelines/reports/charts.py` writes every label as escaped SVG text.
"""

from __future__ import annotations

import hashlib
import html
import re
from collections.abc import Iterable
from typing import Any

# What a reader cannot see, or what changes how the rest reads: C0 controls, DEL and C1 controls; every format
# character (Unicode's Cf: the bidirectional marks, embeddings, overrides and isolates, zero-width spaces and joiners,
# the soft hyphen, the byte-order mark, the invisible operators, interlinear annotations, the tag characters that
# hide text); the line and paragraph separators; variation selectors and the combining grapheme joiner; the fillers
# that draw as blanks (Hangul's). An emoji sequence joined by U+200D shows its joiner as an escape: the price of
# never letting `gate\u200bname` pass for `gatename`. tests/test_untrusted.py checks every Cf character is here.
_INVISIBLE = re.compile(
    "[\x00-\x1f\x7f-\x9f\u00ad\u034f\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u115f\u1160\u180b-\u180f"
    "\u200b-\u200f\u2028-\u202e\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff9-\ufffb\U000110bd\U000110cd"
    "\U00013430-\U0001345f\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0000-\U000e0fff]"
)
# The colours tools print (ANSI SGR, `ESC[...m`): stripped from a tool's message. Any other sequence, a screen
# clear or a hyperlink, is shown as its escape like every control character: it is no tool's colour.
_COLOURS = re.compile(r"\x1b\[[0-9;]*m")
_FILE_NAME_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")
_FILE_NAME_MAX = 100
_DIGESTED = re.compile(r"-[0-9a-f]{8}$")  # how `file_name` ends a name it altered
# What a spreadsheet reads as the start of a formula in a text cell.
_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def _shown(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


def _json_escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    code -= 0x10000  # beyond the first plane: JSON's escape is a surrogate pair
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


def visible(value: Any) -> str:
    """The text with every control and bidi character shown as an escape (`\\x1b`, `\\u202e`)."""
    return _INVISIBLE.sub(_shown, "" if value is None else str(value))


def all_visible(values: Iterable[Any]) -> bool:
    """Whether no text among `values` holds a character `visible` would escape: one search over all of them, not one
    call a value (a frame's column of 10,000 names is searched in a millisecond)."""
    return _INVISIBLE.search(" ".join(value for value in values if isinstance(value, str))) is None


def for_terminal(value: Any) -> str:
    """A value for a terminal line, a log record or an error message."""
    return visible(value)


def for_html(value: Any) -> str:
    """A value for HTML text or a quoted attribute: nothing in it becomes markup."""
    return html.escape(visible(value), quote=True)


def for_slack(text: Any) -> str:
    """Slack's `text`: `&`, `<`, `>` as Slack documents them, so a mention in data never pings; its line breaks
    kept as lines (a message's own), every other control character shown as an escape."""
    lines = ("" if text is None else str(text)).split("\n")
    return "\n".join(visible(line).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;") for line in lines)


def tool_message(message: Any) -> str:
    """A message from another tool (a notebook's traceback line, a database's error) without its colours."""
    return visible(_COLOURS.sub("", "" if message is None else str(message)))


def for_csv(text: str) -> str:
    """A CSV text cell: its control and invisible characters shown as escapes (as the terminal shows them: a CSV
    printed or `cat` runs no escape sequence, a spreadsheet shows no reordered text), its line breaks kept (the
    cell is quoted); then one a spreadsheet would run as a formula (`=`, `+`, `-`, `@`, a tab or a carriage return
    first) gets a leading `'`, as OWASP advises, so opening the file never runs what a console user typed."""
    if not all_visible((text,)):
        text = "\n".join(visible(line) for line in text.split("\n"))
    return "'" + text if text[:1] in _FORMULA_STARTS else text


def for_json(dumped: str) -> str:
    """JSON text (`json.dumps(..., ensure_ascii=False)`) with every character `visible` would escape written as a
    JSON escape (`\\u202e`): the same data for a program that parses it, nothing a terminal runs or reorders for a
    person who reads it; other text (accents, scripts) stays as it is. A raw tab or line break in `dumped` is its
    layout (`indent=`): json.dumps writes those of a string as `\\t`, `\\n`."""
    return _INVISIBLE.sub(lambda match: match.group() if match.group() in "\t\n\r" else _json_escape(match), dumped)


def file_name(value: Any) -> str:
    """One safe path component made from an id: it never leaves its folder, whatever the id holds.

    An id that is already safe is kept as it is; any other gets its unsafe runs replaced by `_` and a short
    digest of the whole id appended, so two ids never share a file. A safe id that ends as such a name does
    (`a_b-c14cddc0`, which `a/b` becomes) gets a digest too: typed as an id, it would take `a/b`'s name."""
    text = "" if value is None else str(value)
    safe = _FILE_NAME_UNSAFE.sub("_", text).strip(".")[:_FILE_NAME_MAX]
    if safe == text and safe and not _DIGESTED.search(safe):
        return safe
    digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:8]
    return f"{safe or 'id'}-{digest}"
