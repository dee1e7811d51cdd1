"""charts.py: pure functions, so no database; the SVG must parse and measure right."""

import math
import xml.etree.ElementTree as ET
from datetime import UTC, datetime, timedelta

import pytest

from frontend import charts
from frontend.roofline_chart import ROOF_BOX, roofline_chart, roofline_geometry

NS = {"s": "http://www.w3.org/2000/svg"}


def parse(svg: str) -> ET.Element:
    root = ET.fromstring(svg)  # noqa: S314 (our own output, not untrusted input)
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    assert root.get("role") == "img"
    assert root.find("s:title", NS).text and root.find("s:desc", NS).text
    return root


def bars(root):
    return root.findall(".//s:rect[@class='bar']", NS)


def test_bars_scale_with_their_values():
    root = parse(
        charts.bar_chart(
            [charts.Bar("a", 0.25), charts.Bar("b", 0.5), charts.Bar("c", 1.0)],
            title="t",
            desc="d",
        )
    )
    widths = [float(r.get("width")) for r in bars(root)]
    assert widths[1] == pytest.approx(2 * widths[0], abs=0.02)
    assert widths[2] == pytest.approx(4 * widths[0], abs=0.02)
    assert [r.get("data-value") for r in bars(root)] == ["0.25", "0.5", "1"]


def test_mastered_line_sits_at_095_of_the_axis():
    root = parse(
        charts.bar_chart(
            [charts.Bar("full", 1.0), charts.Bar("zero", 0.0)],
            title="t",
            desc="d",
            marker=0.95,
            marker_label="mastered",
        )
    )
    full = bars(root)[0]
    x0, width = float(full.get("x")), float(full.get("width"))
    marker = root.find(".//s:line[@class='marker']", NS)
    assert float(marker.get("x1")) == pytest.approx(x0 + 0.95 * width, abs=0.02)


def test_missing_values_are_a_note_not_a_zero_bar():
    svg = charts.bar_chart([charts.Bar("new", None, "not started")], title="t", desc="d")
    root = parse(svg)
    assert bars(root) == [] and "not started" in svg


def test_negative_values_grow_left_of_zero():
    root = parse(
        charts.bar_chart(
            [charts.Bar("pos", 0.5), charts.Bar("neg", -0.5)], title="t", desc="d", lo=-1, hi=1
        )
    )
    pos, neg = bars(root)
    assert float(neg.get("x")) + float(neg.get("width")) == pytest.approx(float(pos.get("x")))
    assert float(neg.get("width")) == pytest.approx(float(pos.get("width")))


def test_labels_are_escaped():
    svg = charts.bar_chart([charts.Bar("<script>&", 0.3)], title="a < b", desc="d")
    parse(svg)
    assert "<script>" not in svg


def test_line_chart_one_polyline_per_series_in_time_order():
    t0 = datetime(2026, 1, 1, tzinfo=UTC)
    series = [
        charts.Series("A", [(t0, 0.2), (t0 + timedelta(hours=1), 0.5)]),
        charts.Series("B", [(t0 + timedelta(minutes=30), 0.9)]),
    ]
    root = parse(charts.line_chart(series, title="t", desc="d", marker=0.95))
    (line,) = root.findall(".//s:polyline[@class='series']", NS)
    (a, b) = [tuple(map(float, p.split(","))) for p in line.get("points").split()]
    assert a[0] < b[0] and a[1] > b[1]  # later is right, higher value is up
    assert len(root.findall(".//s:circle", NS)) == 3


def test_line_chart_without_points_says_so():
    assert "No answers yet" in charts.line_chart([], title="t", desc="d")


@pytest.mark.parametrize(
    ("peak", "bw"), [(989.4e12, 3.35e12), (197e12, 819e9), (2.5e15, 8e12), (19.5e12, 2.039e12)]
)
def test_roofline_marks_the_ridge_at_peak_over_bandwidth(peak, bw):
    svg = roofline_chart(peak, bw, title="t", desc="d")
    root = parse(svg)
    ridge = root.find(".//s:circle[@class='ridge']", NS)
    g = roofline_geometry(peak, bw)
    x0, x1, y0, y1 = ROOF_BOX
    expected_x = x0 + (math.log10(peak / bw) - math.log10(g.x_lo)) / (
        math.log10(g.x_hi) - math.log10(g.x_lo)
    ) * (x1 - x0)
    assert float(ridge.get("cx")) == pytest.approx(expected_x, abs=0.01)
    assert float(ridge.get("data-intensity")) == pytest.approx(peak / bw, rel=1e-5)
    expected_y = y0 + (math.log10(peak / 1e12) - math.log10(g.y_lo)) / (
        math.log10(g.y_hi) - math.log10(g.y_lo)
    ) * (y1 - y0)
    assert float(ridge.get("cy")) == pytest.approx(expected_y, abs=0.01)
    assert g.x_lo < peak / bw < g.x_hi and g.y_lo < peak / 1e12 < g.y_hi
    assert "Arithmetic intensity" in svg and "TFLOP/s" in svg and "log scale" in svg


def test_roofline_axes_are_whole_decades_and_labelled():
    root = parse(roofline_chart(989.4e12, 3.35e12, title="t", desc="d"))
    xs = [t.text for t in root.findall(".//s:text[@class='xtick']", NS)]
    assert xs == ["0.1", "1", "10", "100", "1000", "10000", "100000"]
    ys = [t.text for t in root.findall(".//s:text[@class='ytick']", NS)]
    assert ys[0] == "0.1" and ys[-1] == "10000"


def test_roofline_refuses_nonsense():
    with pytest.raises(ValueError):
        roofline_geometry(0, 1e12)


# ---------------------------------------------------------------- the phone drawings

PHONE_CONTENT_PX = 358  # a 390 px screen less the page's 1rem padding on each side


def text_px(root) -> float:
    """The smallest text size, in CSS px, once the chart is shown as wide as a phone's
    content box allows (never wider than its own width)."""
    width = float(root.get("viewBox").split()[2])
    shown = min(float(root.get("width")), PHONE_CONTENT_PX)
    return float(root.get("font-size")) * shown / width


def inside(root) -> bool:
    """Every text's anchor lies within the viewBox (end-anchored text at its right end)."""
    width = float(root.get("viewBox").split()[2])
    return all(0 <= float(t.get("x", 0)) <= width for t in root.iter(f"{{{NS['s']}}}text"))


def lesson_bars():
    return [
        charts.Bar("Prefill, Decode and the Cost of a Token, in Detail", 0.25, "(1 of 4 skills)"),
        charts.Bar("GPU Memory Math", 1.0, "(6 of 6 skills)"),
        charts.Bar("The KV Cache", None, "not started"),
    ]


def test_a_wide_chart_on_a_phone_would_shrink_its_text_the_phone_drawing_does_not():
    wide = parse(charts.bar_chart(lesson_bars(), title="t", desc="d"))
    phone = parse(charts.bar_chart(lesson_bars(), title="t", desc="d", width=charts.PHONE_WIDTH))
    assert text_px(wide) < 7  # the issue's ~5-6 px labels
    assert text_px(phone) >= 11
    assert inside(phone)


def test_phone_bars_put_each_label_above_its_bar_and_keep_scale():
    root = parse(
        charts.bar_chart(lesson_bars(), title="t", desc="d", width=charts.PHONE_WIDTH, marker=0.95)
    )
    quarter, full = bars(root)
    assert float(full.get("width")) == pytest.approx(4 * float(quarter.get("width")), abs=0.02)
    marker = root.find(".//s:line[@class='marker']", NS)
    x0 = float(full.get("x"))
    assert float(marker.get("x1")) == pytest.approx(x0 + 0.95 * float(full.get("width")), abs=0.02)
    texts = root.findall("s:text", NS)
    label = next(t for t in texts if t.find("s:title", NS) is not None)
    assert float(label.get("y")) < float(quarter.get("y"))  # the name sits above its bar
    assert label.find("s:title", NS).text.endswith("in Detail")  # full name kept as a title
    assert any(t.text == "not started" for t in texts)  # no bar for a missing value


def test_phone_line_chart_has_one_legend_column_and_readable_text():
    t0 = datetime(2026, 1, 1, tzinfo=UTC)
    series = [
        charts.Series(f"skill-{i}", [(t0 + timedelta(minutes=m), 0.1 * m) for m in range(8)])
        for i in range(4)
    ]
    wide = parse(charts.line_chart(series, title="t", desc="d"))
    phone = parse(charts.line_chart(series, title="t", desc="d", width=charts.PHONE_WIDTH))
    assert text_px(wide) < 7 and text_px(phone) >= 11
    assert inside(phone)
    swatches = [r for r in phone.findall("s:rect", NS)]
    assert len({r.get("x") for r in swatches}) == 1 and len(swatches) == 4  # one column
    assert len(phone.findall(".//s:text[@class='xtick']", NS)) == 3


def test_responsive_holds_both_drawings_for_the_stylesheet_to_choose():
    html = charts.responsive("<svg>wide</svg>", "<svg>phone</svg>")
    assert html.index('class="chart-wide"') < html.index("wide")
    assert html.index('class="chart-compact"') < html.index("phone")
