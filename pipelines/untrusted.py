"""Text from the console, made safe for each place gatehouse shows it: one rule per output, one home.

Console text (gate names, descriptions, owners' display names, teams, tags, config names, event and source
names) was typed by colleagues of the reader. It must never run, never hide and never change what a person
sees of anything else. Every value that reaches a page, a terminal, a Slack message, a CSV cell, a chart or
a file name passes through the function for that place:

| output | function | rule |
|---|---|---|
| HTML (reports, tooltips) | `for_html` | control and bidi characters made visible, then `& < > " '` as entities |
| terminal, logs, errors | `for_terminal` | C0 (newlines included), DEL, C1 and bidi overrides shown as `\\x1b`, `\\u202e` |
| Slack text | `for_slack` | as the terminal (line breaks kept), then `& < >` as Slack's entities: no `<!channel>` or `<@U…>` pings |
| a tool's message quoted, a log line | `tool_message` | its colours (`ESC[...m`) stripped, the rest as the terminal |
| a CSV cell (`gatehouse sql --format csv`, the report's export) | `for_csv` | a cell a spreadsheet would run as a formula (`= + - @`, tab, CR first) gets a leading `'` |
| a file or branch name from an id | `file_name` | one path component of `[A-Za-z0-9._-]`, never `.`/`..`, with a digest when altered |

Charts draw data as plain text: `pipelines/reports/notebook.py` turns matplotlib's mathtext off (`$`, `^`, `_`).
"""

from __future__ import annotations

import hashlib
import html
import re
from typing import Any, Iterable

# C0 controls, DEL and C1 controls; the bidirectional embeddings, overrides and isolates.
_INVISIBLE = re.compile("[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
# The colours tools print (ANSI SGR, `ESC[...m`): stripped from a tool's message. Any other sequence, a screen
# clear or a hyperlink, is shown as its escape like every control character: it is no tool's colour.
_COLOURS = re.compile(r"\x1b\[[0-9;]*m")
_FILE_NAME_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")
_FILE_NAME_MAX = 100
# What a spreadsheet reads as the start of a formula in a text cell.
_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def _shown(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


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
    """A CSV text cell: one a spreadsheet would run as a formula (`=`, `+`, `-`, `@`, a tab or a carriage return
    first) gets a leading `'`, as OWASP advises, so opening the file never runs what a console user typed."""
    return "'" + text if text[:1] in _FORMULA_STARTS else text


def file_name(value: Any) -> str:
    """One safe path component made from an id: it never leaves its folder, whatever the id holds.

    An id that is already safe is kept as it is; any other gets its unsafe runs replaced by `_` and a short
    digest of the whole id appended, so two ids never share a file."""
    text = "" if value is None else str(value)
    safe = _FILE_NAME_UNSAFE.sub("_", text).strip(".")[:_FILE_NAME_MAX]
    if safe == text and safe:
        return safe
    digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:8]
    return f"{safe or 'id'}-{digest}"
