"""The roofline chart: attainable throughput min(peak, bandwidth x intensity) on log-log
axes, drawn on the server like the other charts (frontend.charts holds the shared SVG
helpers and colours). Its geometry is exposed so tests can check the ridge's position."""

from __future__ import annotations

import math
from dataclasses import dataclass

from frontend.charts import GRID, INK, MARK, MUTED, PALETTE, _n, _svg


def log_position(value: float, lo: float, hi: float, px_lo: float, px_hi: float) -> float:
    """Map value on a log10 axis spanning [lo, hi] to pixels."""
    span = math.log10(hi) - math.log10(lo)
    return px_lo + (math.log10(value) - math.log10(lo)) / span * (px_hi - px_lo)


def _decade_label(exponent: int) -> str:
    value = 10.0**exponent
    return f"{value:g}" if -3 <= exponent <= 5 else f"1e{exponent}"


@dataclass(frozen=True)
class Roofline:
    """The geometry behind the chart, exposed so tests can check the ridge's position."""

    peak_tflops: float
    bw_tb_s: float
    ridge: float  # FLOP per byte
    x_lo: float
    x_hi: float
    y_lo: float
    y_hi: float


def roofline_geometry(peak_flops: float, bw_bytes_per_s: float) -> Roofline:
    """Whole decades around the ridge so both roofs show: 2.5 below, 2 above."""
    if peak_flops <= 0 or bw_bytes_per_s <= 0:
        raise ValueError("peak and bandwidth must be positive")
    ridge = peak_flops / bw_bytes_per_s
    peak_t, bw_t = peak_flops / 1e12, bw_bytes_per_s / 1e12
    x_lo = 10.0 ** math.floor(math.log10(ridge) - 2.5)
    x_hi = 10.0 ** math.ceil(math.log10(ridge) + 2)
    y_hi = 10.0 ** math.ceil(math.log10(peak_t) + 0.3)
    y_lo = 10.0 ** math.floor(math.log10(bw_t * x_lo))
    return Roofline(peak_t, bw_t, ridge, x_lo, x_hi, y_lo, y_hi)


ROOF_BOX = (70, 600, 330, 20)  # x0, x1, y0 (bottom), y1 (top) of the plot area


def roofline_chart(
    peak_flops: float, bw_bytes_per_s: float, *, title: str, desc: str, width: int = 680
) -> str:
    """Attainable throughput min(peak, bandwidth x intensity) on log-log axes."""
    g = roofline_geometry(peak_flops, bw_bytes_per_s)
    x0, x1, y0, y1 = ROOF_BOX
    height = y0 + 50

    def px(i: float) -> float:
        return log_position(i, g.x_lo, g.x_hi, x0, x1)

    def py(t: float) -> float:
        return log_position(t, g.y_lo, g.y_hi, y0, y1)

    body = [
        f'<rect x="{x0}" y="{y1}" width="{x1 - x0}" height="{y0 - y1}" fill="none" '
        f'stroke="{GRID}"/>'
    ]
    for e in range(round(math.log10(g.x_lo)), round(math.log10(g.x_hi)) + 1):
        x = px(10.0**e)
        body.append(
            f'<line x1="{_n(x)}" y1="{y0}" x2="{_n(x)}" y2="{y1}" stroke="{GRID}"/>'
            f'<text class="xtick" x="{_n(x)}" y="{y0 + 16}" text-anchor="middle" '
            f'fill="{MUTED}">{_decade_label(e)}</text>'
        )
    for e in range(round(math.log10(g.y_lo)), round(math.log10(g.y_hi)) + 1):
        y = py(10.0**e)
        body.append(
            f'<line x1="{x0}" y1="{_n(y)}" x2="{x1}" y2="{_n(y)}" stroke="{GRID}"/>'
            f'<text class="ytick" x="{x0 - 6}" y="{_n(y + 4)}" text-anchor="end" '
            f'fill="{MUTED}">{_decade_label(e)}</text>'
        )
    body.append(
        f'<text x="{_n((x0 + x1) / 2)}" y="{y0 + 36}" text-anchor="middle" fill="{INK}">'
        "Arithmetic intensity (FLOP/byte, log scale)</text>"
        f'<text transform="translate(16 {_n((y0 + y1) / 2)}) rotate(-90)" '
        f'text-anchor="middle" fill="{INK}">Attainable TFLOP/s (log scale)</text>'
    )
    # The roof: memory-bound slope up to the ridge, then flat at the peak.
    start = max(g.x_lo, g.y_lo / g.bw_tb_s)
    body.append(
        f'<polyline class="roof" points="{_n(px(start))},{_n(py(g.bw_tb_s * start))} '
        f'{_n(px(g.ridge))},{_n(py(g.peak_tflops))} {_n(px(g.x_hi))},{_n(py(g.peak_tflops))}" '
        f'fill="none" stroke="{PALETTE[0]}" stroke-width="3"/>'
    )
    rx, ry = px(g.ridge), py(g.peak_tflops)
    body.append(
        f'<line x1="{_n(rx)}" y1="{_n(ry)}" x2="{_n(rx)}" y2="{y0}" stroke="{MARK}" '
        f'stroke-width="1.5" stroke-dasharray="5 3"/>'
        f'<circle class="ridge" cx="{_n(rx)}" cy="{_n(ry)}" r="5" fill="{MARK}" '
        f'data-intensity="{g.ridge:.6g}"/>'
        f'<text x="{_n(rx + 8)}" y="{_n(ry + 18)}" fill="{MARK}">'
        f"ridge: {g.ridge:.4g} FLOP/B</text>"
    )
    mid = math.sqrt(start * g.ridge)
    body.append(
        f'<text x="{_n(px(mid) + 6)}" y="{_n(py(g.bw_tb_s * mid) - 8)}" fill="{INK}">'
        f"memory: {g.bw_tb_s:.3g} TB/s</text>"
        f'<text x="{_n(x1 - 4)}" y="{_n(ry - 8)}" text-anchor="end" fill="{INK}">'
        f"compute: {g.peak_tflops:.4g} TFLOP/s</text>"
    )
    return _svg(width, height, title, desc, body, "roofline")
