"""Inline SVG charts drawn on the server.

Pure functions from numbers to SVG text: nothing is fetched, nothing runs in the browser,
pages stay light, and a test can parse the result as XML and measure it. Every chart has
a <title> and <desc> for screen readers; pages also print the numbers as a table.

Text is 12 user units, so a chart shown smaller than its width shrinks its text with it:
a 680-wide chart on a 390 px phone had 6 px labels. A chart drawn narrower than
COMPACT_WIDTH lays itself out for a phone instead (bar labels above their bars, one
legend column, fewer ticks), and `responsive` puts the two drawings side by side in the
page for the stylesheet to show the one that fits, so text stays 12 px at any width.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from xml.sax.saxutils import escape

# Colours chosen for at least 3:1 contrast against white (WCAG 1.4.11, graphics).
PALETTE = ("#0b5cad", "#b3261e", "#1e7b34", "#7a4fb5", "#8a4b00", "#00727a", "#5b6470")
INK = "#1b1f24"
MUTED = "#4a5360"
GRID = "#d6dbe1"
MARK = "#8a4b00"

FONT = 'font-family="system-ui, sans-serif"'
COMPACT_WIDTH = 480  # narrower than this, a chart takes its phone layout
PHONE_WIDTH = 340  # the phone drawing: shown 1:1 in a 390 px screen's content box


def _e(text: object) -> str:
    return escape(str(text), {'"': "&quot;"})


def _n(x: float) -> str:
    """Coordinates to two decimals: enough for a screen, short for the page weight."""
    return f"{x:.2f}".rstrip("0").rstrip(".")


def _svg(width: float, height: float, title: str, desc: str, body: list[str], cls: str) -> str:
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" class="chart {cls}" role="img" '
        f'viewBox="0 0 {_n(width)} {_n(height)}" width="{_n(width)}" height="{_n(height)}" '
        f'aria-labelledby="{cls}-t {cls}-d" {FONT} font-size="12">'
        f'<title id="{cls}-t">{_e(title)}</title><desc id="{cls}-d">{_e(desc)}</desc>'
        + "".join(body)
        + "</svg>"
    )


def _clip(label: str, limit: int) -> str:
    return label if len(label) <= limit else label[: limit - 1] + "…"


def responsive(wide: str, compact: str) -> str:
    """Both drawings of one chart; site.css shows the compact one on a narrow screen and
    hides the other (display: none, so a screen reader meets the chart once)."""
    return f'<div class="chart-wide">{wide}</div><div class="chart-compact">{compact}</div>'


# --------------------------------------------------------------------------- bar chart


@dataclass(frozen=True)
class Bar:
    label: str
    value: float | None  # None: no data yet, drawn as a note rather than a zero bar
    note: str = ""


def linear(value: float, lo: float, hi: float, px_lo: float, px_hi: float) -> float:
    """Map value in [lo, hi] to pixels, clamped to the plot."""
    value = min(max(value, lo), hi)
    return px_lo + (value - lo) / (hi - lo) * (px_hi - px_lo)


def bar_chart(
    bars: Sequence[Bar],
    *,
    title: str,
    desc: str,
    lo: float = 0.0,
    hi: float = 1.0,
    marker: float | None = None,
    marker_label: str = "",
    fmt: str = "{:.2f}",
    width: int = 680,
    label_width: int = 250,
    css_class: str = "bars",
) -> str:
    """Horizontal bars from the zero line (or lo, if zero is outside [lo, hi]); narrower
    than COMPACT_WIDTH, each label sits above its bar with the value beside it."""
    if width < COMPACT_WIDTH:
        return _stacked_bars(bars, title, desc, lo, hi, marker, marker_label, fmt, width, css_class)
    row, bottom = 24, 26
    top = 28 if marker is not None else 12  # room for the marker's label
    x0, x1 = label_width, width - 56
    height = top + row * max(len(bars), 1) + bottom
    base = linear(0.0 if lo <= 0.0 <= hi else lo, lo, hi, x0, x1)
    body = [
        f'<line x1="{_n(x)}" y1="{top - 6}" x2="{_n(x)}" y2="{height - bottom}" stroke="{GRID}"/>'
        for x in (x0, x1)
    ]
    for tick in (lo, (lo + hi) / 2, hi):
        x = linear(tick, lo, hi, x0, x1)
        body.append(
            f'<text x="{_n(x)}" y="{height - 8}" text-anchor="middle" fill="{MUTED}">'
            f"{_e(fmt.format(tick))}</text>"
        )
    if lo < 0.0 < hi:
        body.append(
            f'<line x1="{_n(base)}" y1="{top - 6}" x2="{_n(base)}" y2="{height - bottom}" '
            f'stroke="{MUTED}"/>'
        )
    for i, bar in enumerate(bars):
        y = top + i * row
        label = _clip(bar.label, 34)
        body.append(
            f'<text x="{label_width - 8}" y="{y + 15}" text-anchor="end" fill="{INK}">'
            f"<title>{_e(bar.label)}</title>{_e(label)}</text>"
        )
        if bar.value is None:
            body.append(
                f'<text x="{_n(x0 + 6)}" y="{y + 15}" fill="{MUTED}">'
                f"{_e(bar.note or 'no data')}</text>"
            )
            continue
        end = linear(bar.value, lo, hi, x0, x1)
        left, w = min(base, end), abs(end - base)
        body.append(
            f'<rect class="bar" x="{_n(left)}" y="{y + 4}" width="{_n(w)}" height="{row - 8}" '
            f'fill="{PALETTE[0]}" data-value="{bar.value:.6g}"/>'
        )
        text = fmt.format(bar.value) + (f" {bar.note}" if bar.note else "")
        tx = max(end, base) + 4
        body.append(f'<text x="{_n(tx)}" y="{y + 15}" fill="{INK}">{_e(text)}</text>')
    if marker is not None:
        mx = linear(marker, lo, hi, x0, x1)
        body.append(
            f'<line class="marker" x1="{_n(mx)}" y1="{top - 8}" x2="{_n(mx)}" '
            f'y2="{height - bottom}" stroke="{MARK}" stroke-width="2" stroke-dasharray="5 3" '
            f'data-value="{marker:g}"/>'
        )
        body.append(
            f'<text x="{_n(mx)}" y="{top - 12}" text-anchor="middle" fill="{MARK}">'
            f"{_e(marker_label or fmt.format(marker))}</text>"
        )
    return _svg(width, height, title, desc, body, css_class)


def _stacked_bars(
    bars: Sequence[Bar],
    title: str,
    desc: str,
    lo: float,
    hi: float,
    marker: float | None,
    marker_label: str,
    fmt: str,
    width: int,
    css_class: str,
) -> str:
    """The phone layout: a label line (the name, its value at the right end), then the
    bar across the whole width; ticks under the last bar."""
    row, bottom, char = 40, 24, 6.6  # char: a 12-unit character's usual advance
    top = 22 if marker is not None else 6
    x0, x1 = 4, width - 4
    height = top + row * max(len(bars), 1) + bottom
    base = linear(0.0 if lo <= 0.0 <= hi else lo, lo, hi, x0, x1)
    body = [
        f'<line x1="{_n(x)}" y1="{top}" x2="{_n(x)}" y2="{height - bottom}" stroke="{GRID}"/>'
        for x in (x0, x1)
    ]
    for tick, anchor in ((lo, "start"), ((lo + hi) / 2, "middle"), (hi, "end")):
        body.append(
            f'<text x="{_n(linear(tick, lo, hi, x0, x1))}" y="{height - 8}" '
            f'text-anchor="{anchor}" fill="{MUTED}">{_e(fmt.format(tick))}</text>'
        )
    for i, bar in enumerate(bars):
        y = top + i * row
        if bar.value is None:
            value = bar.note or "no data"
        else:
            value = fmt.format(bar.value) + (f" {bar.note}" if bar.note else "")
        room = max(8, int((x1 - x0 - len(value) * char) / char) - 2)
        body.append(
            f'<text x="{x0}" y="{y + 13}" fill="{INK}"><title>{_e(bar.label)}</title>'
            f"{_e(_clip(bar.label, room))}</text>"
            f'<text x="{x1}" y="{y + 13}" text-anchor="end" '
            f'fill="{MUTED if bar.value is None else INK}">{_e(value)}</text>'
        )
        if bar.value is None:
            continue
        end = linear(bar.value, lo, hi, x0, x1)
        body.append(
            f'<rect class="bar" x="{_n(min(base, end))}" y="{y + 19}" '
            f'width="{_n(abs(end - base))}" height="14" fill="{PALETTE[0]}" '
            f'data-value="{bar.value:.6g}"/>'
        )
    if marker is not None:
        mx = linear(marker, lo, hi, x0, x1)
        body.append(
            f'<line class="marker" x1="{_n(mx)}" y1="{top - 4}" x2="{_n(mx)}" '
            f'y2="{height - bottom}" stroke="{MARK}" stroke-width="2" stroke-dasharray="5 3" '
            f'data-value="{marker:g}"/>'
            f'<text x="{_n(min(mx + 4, x1))}" y="{top - 8}" text-anchor="end" fill="{MARK}">'
            f"{_e(marker_label or fmt.format(marker))}</text>"
        )
    return _svg(width, height, title, desc, body, css_class)


# -------------------------------------------------------------------------- line chart


@dataclass(frozen=True)
class Series:
    label: str
    points: Sequence[tuple[datetime, float]]


def _time_label(t: datetime, span: timedelta) -> str:
    if span <= timedelta(minutes=10):
        return t.strftime("%H:%M:%S")
    if span <= timedelta(days=2):
        return t.strftime("%H:%M")
    if span <= timedelta(days=300):
        return t.strftime("%d %b")
    return t.strftime("%b %Y")


def line_chart(
    series: Sequence[Series],
    *,
    title: str,
    desc: str,
    lo: float = 0.0,
    hi: float = 1.0,
    marker: float | None = None,
    marker_label: str = "",
    width: int = 680,
    height: int = 320,
    css_class: str = "lines",
    fmt: str = "{:g}",
) -> str:
    """Values after each answer, one polyline with point markers per series, a legend.

    The x axis counts answers in time order, labelled with when they were given: a
    session of answers seconds apart stays readable next to one spread over weeks,
    which a linear time axis would squash into a single column of points.
    """
    compact = width < COMPACT_WIDTH  # one legend column, three ticks, fewer dots
    columns, n_ticks, dots = (1, 3, 20) if compact else (2, 5, 80)
    left, right, top = (32, 8, 16) if compact else (44, 16, 16)
    legend_rows = math.ceil(len(series) / columns)
    bottom = 52 + 18 * legend_rows
    if compact:  # the legend grows downwards; the plot keeps 150 units of height
        height = max(height, top + 150 + bottom)
    x0, x1, y0, y1 = left + 8, width - right - 8, height - bottom, top
    times = sorted({t for s in series for t, _ in s.points})
    body: list[str] = []
    if not times:
        body.append(
            f'<text x="{_n(width / 2)}" y="{_n(height / 2)}" text-anchor="middle" '
            f'fill="{MUTED}">No answers yet</text>'
        )
        return _svg(width, height, title, desc, body, css_class)
    rank = {t: i for i, t in enumerate(times)}
    last = max(len(times) - 1, 1)
    span = times[-1] - times[0]

    def tx(t: datetime) -> float:
        return x0 + rank[t] / last * (x1 - x0) if len(times) > 1 else (x0 + x1) / 2

    for tick in (lo, (lo + hi) / 2, hi):
        y = linear(tick, lo, hi, y0, y1)
        body.append(
            f'<line x1="{x0}" y1="{_n(y)}" x2="{x1}" y2="{_n(y)}" stroke="{GRID}"/>'
            f'<text x="{left - 6}" y="{_n(y + 4)}" text-anchor="end" fill="{MUTED}">'
            f"{_e(fmt.format(tick))}</text>"
        )
    ticks = sorted({round(k * (len(times) - 1) / (n_ticks - 1)) for k in range(n_ticks)})
    for i in ticks:
        x = tx(times[i])
        # On a phone the end ticks align inwards, so a time label stays inside the chart.
        anchor = "middle"
        if compact and len(times) > 1 and i in (0, len(times) - 1):
            anchor = "start" if i == 0 else "end"
        body.append(
            f'<text class="xtick" x="{_n(x)}" y="{y0 + 16}" text-anchor="{anchor}" '
            f'fill="{MUTED}">#{i + 1}</text>'
            f'<text x="{_n(x)}" y="{y0 + 30}" text-anchor="{anchor}" fill="{MUTED}">'
            f"{_e(_time_label(times[i], span))}</text>"
        )
    body.append(
        f'<text x="{_n(x1)}" y="{y0 + 44}" text-anchor="end" fill="{MUTED}">'
        "answer number and time (UTC)</text>"
    )
    if marker is not None:
        my = linear(marker, lo, hi, y0, y1)
        body.append(
            f'<line class="marker" x1="{x0}" y1="{_n(my)}" x2="{x1}" y2="{_n(my)}" '
            f'stroke="{MARK}" stroke-width="2" stroke-dasharray="5 3"/>'
            f'<text x="{x1}" y="{_n(my - 4)}" text-anchor="end" fill="{MARK}">'
            f"{_e(marker_label)}</text>"
        )
    for i, s in enumerate(series):
        colour = PALETTE[i % len(PALETTE)]
        pts = [(tx(t), linear(v, lo, hi, y0, y1), v) for t, v in s.points]
        if len(pts) > 1:
            coords = " ".join(f"{_n(x)},{_n(y)}" for x, y, _ in pts)
            body.append(
                f'<polyline class="series" points="{coords}" fill="none" stroke="{colour}" '
                f'stroke-width="2"/>'
            )
        body.extend(
            f'<circle cx="{_n(x)}" cy="{_n(y)}" r="3" fill="{colour}">'
            f"<title>{_e(s.label)}: {v:.2f}</title></circle>"
            for x, y, v in pts[-dots:]
        )
        lx = x0 + (i % columns) * (x1 - x0) / columns
        ly = y0 + 62 + 18 * (i // columns)
        body.append(
            f'<rect x="{_n(lx)}" y="{_n(ly - 9)}" width="12" height="10" fill="{colour}"/>'
            f'<text x="{_n(lx + 16)}" y="{_n(ly)}" fill="{INK}">{_e(_clip(s.label, 40))}</text>'
        )
    return _svg(width, height, title, desc, body, css_class)
