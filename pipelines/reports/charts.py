"""The reports' charts, drawn here as SVG text: bars (stacked or not, across or up), a histogram's columns, line
panels, markers on bars, a rule.

Why not matplotlib, which drew them before: its layout and rendering of the demo's charts were more than half of
a report's work and the larger part of what `gatehouse report` took over `gatehouse views`. These charts are bars
and lines on a linear or a category scale; drawn here they cost next to nothing. An SVG chart is shown as an image
(`show`): in the HTML report, in Jupyter and in any browser it is an `<img>`, which runs nothing it holds and loads
nothing from anywhere.

Console text on a chart (owners, sources, groups, ids) is escaped for XML (`untrusted.for_html`): a name that holds
markup is drawn as written. The widths of texts are estimated (an average glyph width of DejaVu Sans, the font
asked for), enough for margins: labels are cut to `format.CHART_LABEL_CHARS` before they get here.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any

from gatehouse.pipelines.untrusted import for_html

FONT = "DejaVu Sans, Verdana, Arial, sans-serif"
TEXT = "#222"
GRID = "#dddddd"
# matplotlib's default colour cycle: the colours the charts had
CYCLE = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf")
# line styles told apart without colour: solid, dashed, dotted, dash-dot, dense dots (SVG stroke-dasharray)
DASHES = ("", "7 3", "1.5 2.5", "7 3 1.5 3", "1 1")
MARKERS = ("circle", "square", "diamond", "up", "down", "left", "right")
GLYPH_EM = 0.6  # DejaVu Sans' average advance, in ems: margins are sized from it
BAND = 24.0  # px a category takes on bars across


def text_width(text: str, size: float) -> float:
    return len(text) * size * GLYPH_EM


def finite(value: Any) -> float | None:
    """A value as a float; None when missing or not finite (a NaN from the data is not drawn)."""
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if math.isfinite(number) else None


def _number(value: float) -> str:
    """A tick's label: whole numbers with thousands separators, others with the few decimals they need."""
    if float(value).is_integer():
        return f"{int(value):,}"
    return f"{value:,.6f}".rstrip("0").rstrip(".")


def nice_ticks(low: float, high: float, count: int = 5, whole: bool = False) -> list[float]:
    """About `count` ticks at a step of 1, 2, 2.5 or 5 times a power of ten, covering low..high; `whole`: counts,
    never a step of 2.5 nor less than 1."""
    if not math.isfinite(low) or not math.isfinite(high):
        low, high = 0.0, 1.0
    if high - low < 1e-6:  # nothing to tell apart: a unit's scale
        high = low + 1.0
    raw = (high - low) / count
    power = 10 ** math.floor(math.log10(raw))
    steps = (1, 2, 5, 10) if whole else (1, 2, 2.5, 5, 10)
    step = next(power * m for m in steps if power * m >= raw and (not whole or power * m >= 1))
    first, last = math.floor(low / step + 1e-9), math.ceil(high / step - 1e-9)
    return [i * step for i in range(first, last + 1)]


def _day(value: Any) -> float:
    """A date, datetime or pandas Timestamp as a day number."""
    if hasattr(value, "to_pydatetime"):
        value = value.to_pydatetime()
    if isinstance(value, datetime):
        return value.toordinal() + (value.hour * 3600 + value.minute * 60 + value.second) / 86400
    if isinstance(value, date):
        return float(value.toordinal())
    return float(value)


def day_ticks(low: float, high: float, count: int = 6) -> list[float]:
    """Whole days about `count` apart: every 1, 2, 7, 14 or 28 days, or a multiple of 28."""
    span = max(high - low, 1.0)
    step = next((days for days in (1, 2, 7, 14, 28) if span / days <= count), 28 * math.ceil(span / 28 / count))
    first = math.ceil(low)
    if step == 7 or step % 7 == 0:  # weekly ticks on Mondays
        first += (7 - date.fromordinal(first).weekday()) % 7
    return [float(day) for day in range(first, int(math.floor(high)) + 1, step)]


@dataclass
class Legend:
    """Entries (label, colour, how drawn: "box", "line:<dash>" or "marker:<shape>"), drawn as rows under the title."""

    entries: list[tuple[str, str, str]] = field(default_factory=list)
    title: str | None = None

    def rows(self, width: float, size: float) -> list[list[tuple[str, str, str]]]:
        rows: list[list[tuple[str, str, str]]] = [[]]
        used = text_width(self.title + ":", size) + 8 if self.title else 0.0
        for entry in self.entries:
            need = 22 + text_width(entry[0], size) + 14
            if rows[-1] and used + need > width:
                rows.append([])
                used = 0.0
            rows[-1].append(entry)
            used += need
        return rows if self.entries else []


class Canvas:
    """One SVG picture: elements added in drawing order."""

    def __init__(self, width: float, height: float) -> None:
        self.width, self.height = width, height
        self.parts: list[str] = []

    def rect(self, x: float, y: float, w: float, h: float, fill: str, opacity: float = 1.0) -> None:
        if w <= 0 or h <= 0:
            return
        alpha = f' fill-opacity="{opacity:g}"' if opacity < 1 else ""
        self.parts.append(f'<rect x="{x:.1f}" y="{y:.1f}" width="{w:.1f}" height="{h:.1f}" fill="{fill}"{alpha}/>')

    def line(self, points: Sequence[tuple[float, float]], colour: str, width: float = 1.0, dash: str = "") -> None:
        if len(points) < 2:
            if len(points) == 1:  # one day: a dot, as a line needs two
                self.marker(points[0][0], points[0][1], "circle", colour, 2 + width)
            return
        path = " ".join(f"{x:.1f},{y:.1f}" for x, y in points)
        dashes = f' stroke-dasharray="{dash}"' if dash else ""
        self.parts.append(
            f'<polyline points="{path}" fill="none" stroke="{colour}" stroke-width="{width:g}" stroke-linejoin="round"{dashes}/>'
        )

    def marker(self, x: float, y: float, shape: str, colour: str, size: float = 5.0) -> None:
        r = size / 2
        if shape == "circle":
            self.parts.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{r:.1f}" fill="{colour}"/>')
            return
        if shape == "square":
            corners = [(-r, -r), (r, -r), (r, r), (-r, r)]
        elif shape == "diamond":
            corners = [(0, -r * 1.3), (r * 1.3, 0), (0, r * 1.3), (-r * 1.3, 0)]
        else:  # a triangle pointing up, down, left or right
            point = {"up": (0, -1), "down": (0, 1), "left": (-1, 0), "right": (1, 0)}[shape]
            corners = [
                (point[0] * r * 1.3, point[1] * r * 1.3),
                (-point[1] * r - point[0] * r, point[0] * r - point[1] * r),
                (point[1] * r - point[0] * r, -point[0] * r - point[1] * r),
            ]
        path = " ".join(f"{x + dx:.1f},{y + dy:.1f}" for dx, dy in corners)
        self.parts.append(f'<polygon points="{path}" fill="{colour}"/>')

    def text(
        self,
        x: float,
        y: float,
        text: str,
        size: float = 11,
        anchor: str = "start",
        colour: str = TEXT,
        rotate: float = 0,
        bold: bool = False,
        middle: bool = True,
    ) -> None:
        turn = f' transform="rotate({rotate:g} {x:.1f} {y:.1f})"' if rotate else ""
        weight = ' font-weight="bold"' if bold else ""
        baseline = ' dominant-baseline="central"' if middle else ""
        self.parts.append(
            f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size:g}" text-anchor="{anchor}"{baseline}'
            f' fill="{colour}"{weight}{turn}>{for_html(text)}</text>'
        )

    def svg(self) -> str:
        return (
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{self.width:.0f}" height="{self.height:.0f}"'
            f' viewBox="0 0 {self.width:.0f} {self.height:.0f}" font-family="{FONT}">'
            '<rect width="100%" height="100%" fill="white"/>' + "".join(self.parts) + "</svg>"
        )


@dataclass
class Axes:
    """A plot area on a canvas and its two scales: linear, or categories (one band each, the first at the top of a
    horizontal chart and at the left of a vertical one)."""

    canvas: Canvas
    left: float
    top: float
    width: float
    height: float
    x_range: tuple[float, float] = (0.0, 1.0)
    y_range: tuple[float, float] = (0.0, 1.0)

    def x(self, value: float) -> float:
        low, high = self.x_range
        return self.left + (value - low) / ((high - low) or 1.0) * self.width

    def y(self, value: float) -> float:
        low, high = self.y_range
        return self.top + self.height - (value - low) / ((high - low) or 1.0) * self.height

    def grid_x(self, ticks: Sequence[float], labels: Sequence[str], size: float = 10, rotate: bool = False) -> None:
        for tick, label in zip(ticks, labels):
            x = self.x(tick)
            self.canvas.parts.append(
                f'<line x1="{x:.1f}" y1="{self.top:.1f}" x2="{x:.1f}" y2="{self.top + self.height:.1f}" stroke="{GRID}"/>'
            )
            if rotate:
                self.canvas.text(x, self.top + self.height + 6, label, size, "end", rotate=-45, middle=False)
            else:
                self.canvas.text(x, self.top + self.height + 6 + size / 2, label, size, "middle")

    def grid_y(self, ticks: Sequence[float], labels: Sequence[str], size: float = 10) -> None:
        for tick, label in zip(ticks, labels):
            y = self.y(tick)
            self.canvas.parts.append(
                f'<line x1="{self.left:.1f}" y1="{y:.1f}" x2="{self.left + self.width:.1f}" y2="{y:.1f}" stroke="{GRID}"/>'
            )
            self.canvas.text(self.left - 5, y, label, size, "end")

    def frame(self) -> None:
        bottom = self.top + self.height
        self.canvas.parts.append(
            f'<polyline points="{self.left:.1f},{self.top:.1f} {self.left:.1f},{bottom:.1f}'
            f' {self.left + self.width:.1f},{bottom:.1f}" fill="none" stroke="#444"/>'
        )


def _header(canvas: Canvas, title: str, legend: Legend | None, size: float = 13) -> float:
    """The title and the legend's rows at the top of the canvas; the height they take."""
    lines = title.split("\n")
    y = 8.0
    for line in lines:
        canvas.text(canvas.width / 2, y + size / 2, line, size, "middle", bold=line is lines[0])
        y += size * 1.35
    if legend is None:
        return y + 4
    text_size = 10.0
    for row_number, row in enumerate(legend.rows(canvas.width - 20, text_size)):
        x = 10.0
        y += 4
        if row_number == 0 and legend.title:
            canvas.text(x, y + 6, legend.title + ":", text_size, colour="#555")
            x += text_width(legend.title + ":", text_size) + 8
        for label, colour, how in row:
            if how == "box":
                canvas.rect(x, y + 1, 16, 10, colour)
            elif how.startswith("line:"):
                canvas.line([(x, y + 6), (x + 16, y + 6)], colour, 2, how[5:])
            elif how.startswith("rule:"):
                canvas.line([(x, y + 6), (x + 16, y + 6)], colour, 1, how[5:])
            else:
                canvas.marker(x + 8, y + 6, how.split(":", 1)[1], colour, 7)
            canvas.text(x + 22, y + 6, label, text_size)
            x += 22 + text_width(label, text_size) + 14
        y += 14
    return y + 6


@dataclass
class Rule:
    """A line across the chart at a value of the value axis (a threshold), named in the legend."""

    value: float
    label: str
    colour: str = "black"
    dash: str = "5 3"


def bars(
    categories: Sequence[str],
    series: Sequence[tuple[str, Sequence[float], Any]],
    *,
    title: str,
    value_label: str = "",
    horizontal: bool = True,
    width: float = 900,
    legend: bool = True,
    legend_title: str | None = None,
    value_range: tuple[float, float] | None = None,
    rule: Rule | None = None,
    marks: Sequence[tuple[str, Sequence[float | None], str, str]] = (),
    extra_legend: Sequence[tuple[str, str, str]] = (),
    opacity: float = 1.0,
    notes: Sequence[tuple[int, str]] = (),
    category_size: float = 11,
) -> str:
    """Bars of `categories` (the first at the top, across; at the left, up), one stacked segment per series: (name,
    values, colour, or a colour per bar). `marks`: markers (name, a value per bar or None, shape, colour) on the bars;
    `notes`: a text at the start of a category's bar."""
    count = max(len(categories), 1)
    series = [(name, [finite(value) or 0.0 for value in values], colour) for name, values, colour in series]
    totals = [sum(values[i] for _, values, _ in series) for i in range(len(categories))]
    high = max([*totals, *(value for _, values, _, _ in marks for value in map(finite, values) if value is not None), 0.0])
    if rule is not None:
        high = max(high, rule.value)
    low_value, high_value = value_range or (0.0, high)
    whole = all(float(value).is_integer() for _, values, _ in series for value in values)
    ticks = nice_ticks(low_value, high_value, whole=whole)
    if value_range is None:
        low_value, high_value = ticks[0], ticks[-1]
    entries = (
        [
            (name, colour if isinstance(colour, str) else CYCLE[i % len(CYCLE)], "box")
            for i, (name, _, colour) in enumerate(series)
        ]
        if legend
        else []
    )
    entries += [(name, colour, f"marker:{shape}") for name, _, shape, colour in marks]
    if rule is not None:
        entries.append((rule.label, rule.colour, f"rule:{rule.dash}"))
    entries += list(extra_legend)
    band = BAND if horizontal else 0.0
    canvas = Canvas(width, 0)
    header = _header(canvas, title, Legend(entries, legend_title) if entries else None)
    scale = _CategoryScale(categories, ticks, (low_value, high_value), value_label, category_size)
    axes = scale.across(canvas, header) if horizontal else scale.up(canvas, header)
    for i in range(len(categories)):
        start = 0.0
        for _, values, colour in series:
            value = values[i]
            fill = colour if isinstance(colour, str) else colour[i]
            if horizontal:
                x0, x1 = axes.x(max(start, low_value)), axes.x(min(start + value, high_value))
                canvas.rect(x0, header + band * i + 4, x1 - x0, band - 8, fill, opacity)
            else:
                y0, y1 = axes.y(min(start + value, high_value)), axes.y(max(start, low_value))
                slot = axes.width / count
                canvas.rect(axes.left + slot * i + slot * 0.1, y0, slot * 0.8, y1 - y0, fill, opacity)
            start += value
    for _, reached, shape, colour in marks:
        for i, at in enumerate(map(finite, reached)):
            if at is not None and horizontal:
                canvas.marker(axes.x(at), header + band * (i + 0.5), shape, colour, 7)
    for i, note in notes:
        canvas.text(axes.x(low_value) + 4, header + band * (i + 0.5), note, 9, colour="#333")
    if rule is not None:
        if horizontal:
            x = axes.x(rule.value)
            canvas.line([(x, header), (x, header + axes.height)], rule.colour, 1.2, rule.dash)
        else:
            y = axes.y(rule.value)
            canvas.line([(axes.left, y), (axes.left + axes.width, y)], rule.colour, 1.2, rule.dash)
    axes.frame()
    return canvas.svg()


@dataclass(frozen=True)
class _CategoryScale:
    """The axes of a bar chart: its categories, named in `size` px, and its values from `values[0]` to `values[1]`,
    ticked at `ticks` and named `value_label`; laid out with the bars across or up."""

    categories: Sequence[str]
    ticks: list[float]
    values: tuple[float, float]
    value_label: str
    size: float

    def across(self, canvas: Canvas, header: float) -> Axes:
        """A band of BAND px a category, named on the left, the values along the bottom."""
        count = max(len(self.categories), 1)
        left = 12 + max([text_width(c, self.size) for c in self.categories] + [10]) + 8
        height = BAND * count
        canvas.height = header + height + 46
        axes = Axes(canvas, left, header, canvas.width - left - 20, height, self.values, (0, count))
        axes.grid_x(self.ticks, [_number(t) for t in self.ticks])
        canvas.text(axes.left + axes.width / 2, header + height + 36, self.value_label, 11, "middle")
        for i, category in enumerate(self.categories):
            canvas.text(left - 6, header + BAND * (i + 0.5), category, self.size, "end")
        return axes

    def up(self, canvas: Canvas, header: float) -> Axes:
        """A slot a category, named along the bottom (turned when many and long), the values on the left."""
        count = max(len(self.categories), 1)
        tick_labels = [_number(t) for t in self.ticks]
        rotate = any(len(c) > 3 for c in self.categories) and count > 8
        bottom = 12 + (max(text_width(c, 9) for c in self.categories) * 0.72 if rotate and self.categories else 14) + 22
        left = 16 + max(text_width(label, 10) for label in tick_labels) + 8 + (16 if self.value_label else 0)
        height = 240.0
        canvas.height = header + height + bottom
        axes = Axes(canvas, left, header, canvas.width - left - 20, height, (0, count), self.values)
        axes.grid_y(self.ticks, tick_labels)
        if self.value_label:
            canvas.text(14, header + height / 2, self.value_label, 11, "middle", rotate=-90)
        step = max(1, math.ceil(count / 40))  # at most 40 labels along the bottom
        for i, category in enumerate(self.categories):
            if i % step == 0:
                x = axes.x(i + 0.5)
                if rotate:
                    canvas.text(x, header + height + 6, category, 9, "end", rotate=-45, middle=False)
                else:
                    canvas.text(x, header + height + 12, category, 10, "middle")
        return axes


def histogram(
    groups: Sequence[tuple[str, Sequence[float], str]],
    *,
    bins: int = 20,
    title: str,
    value_label: str,
    count_label: str,
    rule: Rule | None = None,
    width: float = 900,
) -> str:
    """Stacked columns counting each group's values in `bins` equal bins over all of them (as matplotlib's hist)."""
    groups = [(name, [v for v in map(finite, group) if v is not None], colour) for name, group, colour in groups]
    values = [v for _, group, _ in groups for v in group]
    low, high = (min(values), max(values)) if values else (0.0, 1.0)
    if high <= low:
        low, high = low - 0.5, high + 0.5
    edges = [low + (high - low) * i / bins for i in range(bins + 1)]

    def counts(group: Sequence[float]) -> list[int]:
        counted = [0] * bins
        for value in group:
            counted[min(bins - 1, int((value - low) / (high - low) * bins))] += 1
        return counted

    stacked = [(name, counts(group), colour) for name, group, colour in groups]
    top = max([sum(c[i] for _, c, _ in stacked) for i in range(bins)] + [1])
    y_ticks = nice_ticks(0, top, whole=True)
    x_low, x_high = min(low, rule.value if rule else low), max(high, rule.value if rule else high)
    x_ticks = [t for t in nice_ticks(x_low, x_high, 8) if x_low - 1e-9 <= t <= x_high + 1e-9]
    entries = [(name, colour, "box") for name, _, colour in stacked]
    if rule is not None:
        entries.append((rule.label, rule.colour, f"rule:{rule.dash}"))
    canvas = Canvas(width, 0)
    header = _header(canvas, title, Legend(entries))
    left = 16 + max(text_width(_number(t), 10) for t in y_ticks) + 24
    canvas.height = header + 220 + 46
    margin = (x_high - x_low) * 0.02
    axes = Axes(canvas, left, header, width - left - 20, 220, (x_low - margin, x_high + margin), (0, y_ticks[-1]))
    axes.grid_y(y_ticks, [_number(t) for t in y_ticks])
    axes.grid_x(x_ticks, [_number(t) for t in x_ticks])
    canvas.text(14, header + 110, count_label, 11, "middle", rotate=-90)
    canvas.text(axes.left + axes.width / 2, header + 220 + 36, value_label, 11, "middle")
    for i in range(bins):
        start = 0
        for _, counted, colour in stacked:
            if counted[i]:
                x0, x1 = axes.x(edges[i]), axes.x(edges[i + 1])
                y0, y1 = axes.y(start + counted[i]), axes.y(start)
                canvas.rect(x0, y0, x1 - x0, y1 - y0, colour)
                canvas.parts.append(
                    f'<rect x="{x0:.1f}" y="{y0:.1f}" width="{x1 - x0:.1f}" height="{y1 - y0:.1f}"'
                    ' fill="none" stroke="white" stroke-width="0.5"/>'
                )
            start += counted[i]
    if rule is not None:
        x = axes.x(rule.value)
        canvas.line([(x, header), (x, header + 220)], rule.colour, 1.2, rule.dash)
    axes.frame()
    return canvas.svg()


@dataclass
class Panel:
    """One small chart of lines over days: its title (and the colour it is written in), its lines (name, days,
    values), the value its axis stops at (None: the highest) and a note in its corner."""

    title: str
    lines: list[tuple[str, Sequence[Any], Sequence[float]]]
    title_colour: str = TEXT
    y_max: float | None = None
    note: str = ""


def panels(shown: Sequence[Panel], *, title: str, columns: int = 3, width: float = 1200, panel_height: float = 250) -> str:
    """Small multiples: one panel per item, `columns` a row, each with its own scales and legend."""
    canvas = Canvas(width, 0)
    header = _header(canvas, title, None, 13)
    rows = max(1, -(-len(shown) // columns))
    canvas.height = header + rows * panel_height + 4
    cell = width / columns
    for index, panel in enumerate(shown):
        column, row = index % columns, index // columns
        x0, y0 = cell * column, header + panel_height * row
        titles = panel.title.split("\n")
        for n, line in enumerate(titles):
            canvas.text(x0 + cell / 2, y0 + 8 + 11 * n, line, 9, "middle", colour=panel.title_colour)
        drawn = [
            (name, [(d, y) for d, y in ((d, finite(y)) for d, y in zip(xs, ys)) if y is not None]) for name, xs, ys in panel.lines
        ]
        days = [_day(d) for _, points in drawn for d, _ in points]
        values = [y for _, points in drawn for _, y in points]
        top = panel.y_max if panel.y_max is not None else max(values + [0.0])
        y_ticks = nice_ticks(0, top if top > 0 else 1, 4, whole=all(v.is_integer() for v in values))
        y_labels = [_number(t) for t in y_ticks]
        left = x0 + 10 + max(text_width(label, 8) for label in y_labels) + 6
        plot_top = y0 + 14 + 11 * len(titles)
        axes = Axes(
            canvas,
            left,
            plot_top,
            x0 + cell - 14 - left,
            y0 + panel_height - 48 - plot_top,
            (min(days, default=0.0) - 0.5, max(days, default=1.0) + 0.5),
            (0, y_ticks[-1]),
        )
        axes.grid_y(y_ticks, y_labels, 8)
        x_ticks = day_ticks(*axes.x_range, 5) if days else []  # a panel with no day drawn has no dates to mark
        axes.grid_x(x_ticks, [date.fromordinal(int(t)).strftime("%m-%d") for t in x_ticks], 8, rotate=True)
        entries = []
        for n, (name, points) in enumerate(drawn):
            colour, dash = CYCLE[n % len(CYCLE)], DASHES[n % len(DASHES)]
            width_px = (3.2, 2.2, 2.0, 1.4, 1.2)[n % 5] * 0.8
            clipped = [(axes.x(_day(d)), axes.y(min(v, y_ticks[-1]))) for d, v in points]
            canvas.line(clipped, colour, width_px, dash)
            entries.append((name, colour, dash))
        if entries:  # the legend in the top right corner, on white
            canvas.rect(axes.left + axes.width - 114, plot_top, 112, 11 * min(len(entries), 8) + 2, "white", 0.8)
        for n, (name, colour, dash) in enumerate(entries[:8]):
            ly = plot_top + 6 + 11 * n
            canvas.line([(axes.left + axes.width - 110, ly), (axes.left + axes.width - 96, ly)], colour, 2, dash)
            canvas.text(axes.left + axes.width - 92, ly, name[:18], 7.5)
        if panel.note:
            canvas.text(axes.left + 4, plot_top + 6, panel.note, 7.5, colour="#555")
        axes.frame()
    return canvas.svg()
