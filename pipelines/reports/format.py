"""How the reports and the terminal summary write values and tables a person reads at a glance.

Durations are human (`3 d 2 h`), instants have minute precision, long ids are shortened with the full id
on hover, and a table is HTML of its own: text left-aligned, numbers right-aligned, human headers, and a
box that scrolls sideways by itself when it is wider than the page (the page never does). The notebooks
display `table(...)`; the same CSS rides along in every table, so a notebook opened in Jupyter shows what
the HTML report shows.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import UTC, date, datetime
from typing import Any
from urllib.parse import quote

from gatehouse.pipelines.errors import GatehouseError
from gatehouse.pipelines.settings import setting
from gatehouse.pipelines.untrusted import for_html

ELLIPSIS = "…"

# Scoped to .gh-table, doubled to outrank JupyterLab's own table rules (`:not(.jp-RenderedMarkdown)
# .jp-RenderedHTMLCommon td` right-aligns every cell; its tables are fixed-layout and centred).
TABLE_CSS = """\
div.gh-table.gh-table{max-width:100%;overflow-x:auto;margin:0.4em 0 1.2em 0}
div.gh-table.gh-table table{border-collapse:collapse;table-layout:auto;margin:0;font-size:13px;width:auto}
div.gh-table.gh-table table th,div.gh-table.gh-table table td{padding:3px 10px;border:none;border-bottom:1px solid #e3e3e3;
vertical-align:top;white-space:nowrap;text-align:left}
div.gh-table.gh-table table thead th{border-bottom:2px solid #888;font-weight:600}
div.gh-table.gh-table table .num{text-align:right;font-variant-numeric:tabular-nums}
div.gh-table.gh-table table td.wrap{white-space:normal;min-width:20em;max-width:32em}
div.gh-table.gh-table table tr.gh-group th{background:#f2f4f7;font-weight:600;padding-top:6px;white-space:normal}
div.gh-table.gh-table table tr.gh-group th span.gh-aside{font-weight:400;color:#555}
div.gh-table.gh-table table td.flag{color:#b03a2e;font-weight:600}
div.gh-table.gh-table table abbr{text-decoration:none;border-bottom:1px dotted #999;cursor:help}
div.gh-table.gh-table table tr.gh-group-more td{color:#555;font-style:italic}
div.gh-more{color:#555;margin:-0.6em 0 1.2em 0}
"""


def human_duration(seconds: Any) -> str:
    """`3 d 2 h`, `5 h 12 min`, `12 min`, `42 s`; empty for a missing value."""
    if missing(seconds):
        return ""
    total = int(round(float(seconds)))
    if total < 60:
        return f"{total} s"
    minutes = total // 60
    if minutes < 60:
        return f"{minutes} min"
    hours, minutes = divmod(minutes, 60)
    if hours < 24:
        return f"{hours} h {minutes} min" if minutes else f"{hours} h"
    days, hours = divmod(hours, 24)
    return f"{days} d {hours} h" if hours else f"{days} d"


def minute(value: Any) -> str:
    """An instant to the minute (`2026-11-02 05:53`), a date as a date; empty for a missing value."""
    if missing(value):
        return ""
    if isinstance(value, datetime) or hasattr(value, "to_pydatetime"):
        return f"{value:%Y-%m-%d %H:%M}"
    if isinstance(value, date):
        return f"{value:%Y-%m-%d}"
    return str(value)


def short(text: Any, keep: int = 10) -> tuple[str, str | None]:
    """The text shortened to `keep` characters (an ellipsis marks the cut) and the full text, if it was cut."""
    if missing(text):
        return "", None
    full = str(text)
    if len(full) <= keep + 1:
        return full, None
    return full[:keep] + ELLIPSIS, full


# A chart's tick label or panel title, at most this long: one long name (an owner's, typed in the console) would
# otherwise take the chart's width and squeeze the layout until every other label is cut.
CHART_LABEL_CHARS = 40


def chart_label(text: Any) -> str:
    """`text` for a chart's axis or panel title, its middle cut (an ellipsis marks it) when longer than
    CHART_LABEL_CHARS: ids that share a start, or an end, still read apart."""
    full = "" if missing(text) else str(text)
    if len(full) <= CHART_LABEL_CHARS:
        return full
    head = (CHART_LABEL_CHARS - 1) * 3 // 5
    return full[:head] + ELLIPSIS + full[len(full) - (CHART_LABEL_CHARS - 1 - head) :]


def number(value: Any, digits: int = 0) -> str:
    if missing(value):
        return ""
    return f"{float(value):,.{digits}f}" if digits or not float(value).is_integer() else f"{int(value):,}"


def percent(value: Any) -> str:
    return "" if missing(value) else f"{float(value):.0%}"


def p_value(value: Any) -> str:
    if missing(value):
        return ""
    value = float(value)
    return "< 1e-300" if value < 1e-300 else f"{value:.2g}"


def missing(value: Any) -> bool:
    """None, NaN, NaT or pandas' NA: a value a cell leaves empty."""
    import pandas as pd

    try:
        return bool(pd.isna(value))
    except (TypeError, ValueError):  # a list or an array: a value, not a missing one
        return False


@dataclass(frozen=True)
class Column:
    """One column of a report table: the frame's column, its header, and how a value is written.

    kind: `text`, `wrap` (text that may wrap), `id` (shortened to `keep` characters, full on hover),
    `number`, `duration` (seconds), `minute` (an instant), `date`, `percent`, `p` (a p-value), `flag` (a bool shown
    as its header's word when true).
    """

    name: str
    header: str
    kind: str = "text"
    digits: int = 0
    keep: int = 10
    # The address a value links to (the console's page of a gate), or None: `link_to(template)`.
    link: Callable[[Any], str | None] | None = None
    # What an empty cell says, when empty means something ("never checked"); blank otherwise.
    empty: str = ""

    @property
    def numeric(self) -> bool:
        return self.kind in {"number", "duration", "percent", "p"}

    def cell(self, value: Any) -> str:
        classes = ["num" if self.numeric else "text"]
        if self.kind == "wrap":
            classes.append("wrap")
        if self.kind == "id":
            shown, full = short(value, self.keep)
            body = f'<abbr title="{for_html(full)}">{for_html(shown)}</abbr>' if full else for_html(shown)
        else:
            body = for_html(self.text(value))
        href = self.link(value) if self.link is not None and not missing(value) else None
        if href:
            body = f'<a href="{for_html(href)}">{body}</a>'
        return f'<td class="{" ".join(classes)}">{body}</td>'

    def text(self, value: Any) -> str:
        if self.empty and missing(value):
            return self.empty
        if self.kind == "number":
            return number(value, self.digits)
        if self.kind == "duration":
            return human_duration(value)
        if self.kind == "minute":
            return minute(value)
        if self.kind == "date":
            return "" if missing(value) else f"{value:%Y-%m-%d}"
        if self.kind == "percent":
            return percent(value)
        if self.kind == "p":
            return p_value(value)
        if self.kind == "flag":
            return self.header.lower() if (not missing(value) and bool(value)) else ""
        return "" if missing(value) else str(value)


def table(
    frame: Any,
    columns: Iterable[Column],
    *,
    group: Callable[[Any], str] | None = None,
    group_key: str | None = None,
    limit: int | None = None,
    more: str = "",
    per_group: int | None = None,
    group_more: str = "",
    group_anchor: Callable[[Any], str] | None = None,
) -> str:
    """The frame's rows as a report table (HTML), at most `limit` of them followed by "…and N more".

    With `group_key`, a heading row (`group(row)`, HTML) starts each run of rows sharing that column's value;
    with `per_group` too, each run shows at most that many rows, then a row "…and N more" + `group_more`
    (e.g. " for this owner"), so that one large group does not push the others out of the `limit`.
    `more` completes the "…and N more" line, e.g. "gates: every one is in analytics.stale_gates".
    `group_anchor(row)`: the id of a group's place in the page (`anchor()`); with `per_group` its "…and N more"
    links there (the whole group, in another table), without it the heading row carries that id.
    """
    columns = list(columns)
    if group_key is not None and per_group is not None:
        run = frame[group_key].ne(frame[group_key].shift()).cumsum()
        place = frame.groupby(run, sort=False).cumcount()
        hidden = frame.groupby(run, sort=False)[group_key].transform("size") - per_group
        frame = frame.assign(gh_hidden_in_group=hidden.where(place == per_group - 1, 0).clip(lower=0))[place < per_group]
    shown = frame if limit is None else frame.head(limit)
    head = "".join(f'<th class="{"num" if c.numeric else "text"}">{for_html(c.header)}</th>' for c in columns)
    body: list[str] = []
    previous: Any = object()
    for row in shown.itertuples(index=False):
        values = row._asdict()
        if group_key is not None and values[group_key] != previous:
            previous = values[group_key]
            place = f' id="{group_anchor(values)}"' if group_anchor is not None and per_group is None else ""
            body.append(
                f'<tr class="gh-group"{place}><th'
                f' colspan="{len(columns)}">{group(values) if group else for_html(str(previous))}</th></tr>'
            )
        body.append("<tr>" + "".join(c.cell(values[c.name]) for c in columns) + "</tr>")
        if values.get("gh_hidden_in_group", 0) > 0:
            said = f"{ELLIPSIS}and {int(values['gh_hidden_in_group']):,} more{for_html(group_more)}"
            if group_anchor is not None:
                said = f'<a href="#{group_anchor(values)}">{said}</a>'
            body.append(f'<tr class="gh-group-more"><td colspan="{len(columns)}">{said}</td></tr>')
    rest = len(frame) - len(shown)
    tail = f'<div class="gh-more">{ELLIPSIS}and {rest:,} more{for_html(more)}</div>' if rest > 0 else ""
    return (
        f'<style>{TABLE_CSS}</style><div class="gh-table"><table><thead><tr>{head}</tr></thead>'
        f"<tbody>{''.join(body)}</tbody></table></div>{tail}"
    )


def anchor(prefix: str, *parts: Any) -> str:
    """An id for a place in a page, from values a console user typed: their digest, never their text."""
    digest = hashlib.sha256("\x1f".join(str(part) for part in parts).encode("utf-8")).hexdigest()[:12]
    return f"{prefix}-{digest}"


# The console's page of a gate, for the reports' links: `[gatehouse.report] gate_url = "https://…/gates/{id}"`
# (GATEHOUSE__REPORT__GATE_URL). None by default: gatehouse does not know where your console's pages are.
GATE_URL_SETTING = "gatehouse.report.gate_url"


def gate_url_template() -> str | None:
    """The configured template of a gate's page in the console, checked; None when not set."""
    template: Any = setting("report.gate_url")
    if not template:
        return None
    template = str(template)
    if not template.startswith(("https://", "http://")) or "{id}" not in template:
        raise GatehouseError(
            f"{GATE_URL_SETTING} must be an http(s) address holding {{id}} (the gate's id),"
            f" e.g. https://console.example.com/gates/{{id}}; got {template!r}"
        )
    return template


def link_to(template: str | None) -> Callable[[Any], str | None] | None:
    """A column's link from a URL template holding `{id}` (the value, URL-quoted); None without a template."""
    if not template:
        return None
    return lambda value: template.replace("{id}", quote(str(value), safe=""))


def heading(title: Any, *asides: Any) -> str:
    """A group's heading row in a table (HTML): its title, then its asides, dimmed; every part escaped, so a
    name a console user typed reads as text."""
    parts = " · ".join(for_html(aside) for aside in asides if isinstance(aside, str) and aside)
    return for_html(title) + (f' <span class="gh-aside">{parts}</span>' if parts else "")


def and_more(total: int, shown: int) -> str:
    """The line that ends a top list in the terminal: `  …and 33 more` (empty when all are shown)."""
    return f"  {ELLIPSIS}and {total - shown:,} more" if total > shown else ""


AS_OF_SQL = "select project, as_of_at from analytics.as_of order by as_of_at, project"


def as_of_phrase(rows: Iterable[tuple[Any, Any]]) -> str | None:
    """ "as of …" for the report's heading and the terminal summary alike, from `AS_OF_SQL`'s rows: the earliest
    console's clock (ages are counted from each project's own), and when the projects' clocks differ, each one's.
    None before any extraction recorded a time."""
    clocks = [
        (project, at if getattr(at, "tzinfo", None) is None else at.astimezone(UTC)) for project, at in rows if at is not None
    ]
    if not clocks:
        return None
    phrase = f"as of {clocks[0][1]:%Y-%m-%d %H:%M} UTC"
    if len({at for _, at in clocks}) > 1:
        phrase += " (by project: " + ", ".join(f"{project} {at:%Y-%m-%d %H:%M}" for project, at in clocks) + ")"
    return phrase
