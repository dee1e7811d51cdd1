"""Catalog reads for the comparison and roofline pages."""

from __future__ import annotations

from dataclasses import dataclass

from frontend.roofline_chart import roofline_chart
from hardware_db import catalog

# Display order of precisions, widest first.
PRECISION_ORDER = ("fp64", "fp32", "tf32", "bf16", "fp16", "fp8", "int8", "fp6", "fp4", "int4")


@dataclass(frozen=True)
class Comparison:
    a: catalog.Accelerator
    b: catalog.Accelerator
    rows: list[tuple[str, str, str, str]]  # label, first, second, second / first


def _ratio(x: float | None, y: float | None) -> str:
    return f"{y / x:.2f}×" if x and y else ""


def accelerator_comparison(a_slug: str, b_slug: str) -> Comparison:
    a, b = catalog.accelerator(a_slug), catalog.accelerator(b_slug)

    def num(label: str, x: float | None, y: float | None, fmt: str, unit: str):
        def show(v):
            return f"{fmt.format(v)} {unit}".strip() if v else "not published"

        return (label, show(x), show(y), _ratio(x, y))

    rows = [
        ("Vendor", a.vendor, b.vendor, ""),
        ("Form factor", a.form_factor, b.form_factor, ""),
        ("Memory (as labelled)", a.memory_label, b.memory_label, ""),
        num("Memory usable for sizing", a.usable_gib, b.usable_gib, "{:.4g}", "GiB"),
        num(
            "Memory bandwidth",
            a.mem_bw_bytes_per_s / 1e12,
            b.mem_bw_bytes_per_s / 1e12,
            "{:.3g}",
            "TB/s",
        ),
    ]
    for p in [p for p in PRECISION_ORDER if p in a.dense_flops or p in b.dense_flops]:
        x, y = a.dense_flops.get(p), b.dense_flops.get(p)
        rows.append(num(f"Dense {p.upper()}", x and x / 1e12, y and y / 1e12, "{:.4g}", "TFLOP/s"))
    if "bf16" in a.dense_flops and "bf16" in b.dense_flops:
        rows.append(
            num(
                "Ridge point, BF16",
                a.dense_flops["bf16"] / a.mem_bw_bytes_per_s,
                b.dense_flops["bf16"] / b.mem_bw_bytes_per_s,
                "{:.4g}",
                "FLOP/B",
            )
        )
    rows += [
        num("Power (TDP)", a.tdp_watts, b.tdp_watts, "{:g}", "W"),
        (
            "Scale-up link",
            a.scale_up_link or "none",
            b.scale_up_link or "none",
            "",
        ),
        num(
            "Scale-up bandwidth per direction",
            (a.scale_up_bw_bytes_per_s_per_direction or 0) / 1e9,
            (b.scale_up_bw_bytes_per_s_per_direction or 0) / 1e9,
            "{:g}",
            "GB/s",
        ),
        ("Figures as of", a.as_of.isoformat(), b.as_of.isoformat(), ""),
    ]
    return Comparison(a=a, b=b, rows=rows)


@dataclass(frozen=True)
class RooflinePage:
    accelerator: catalog.Accelerator
    precision: str
    peak_tflops: float
    bw_tb_s: float
    ridge: float
    chart: str
    samples: list[tuple[float, float, str]]  # intensity, attainable TFLOP/s, bound by


def roofline(slug: str, precision: str) -> RooflinePage:
    acc = catalog.accelerator(slug)
    peak, bw = acc.dense_flops[precision], acc.mem_bw_bytes_per_s
    ridge = peak / bw
    name = f"{acc.vendor} {acc.name}"
    chart = roofline_chart(
        peak,
        bw,
        title=f"Roofline of the {name}, dense {precision.upper()}",
        desc=f"Attainable throughput rises with arithmetic intensity at {bw / 1e12:.3g} TB/s "
        f"until the ridge at {ridge:.4g} FLOP per byte, then stays at the "
        f"{peak / 1e12:.4g} TFLOP/s peak. Both axes are logarithmic.",
    )
    samples = [
        (i, min(peak, bw * i) / 1e12, "memory" if i < ridge else "compute")
        for i in sorted({1.0, 10.0, 100.0, 1000.0, ridge})
    ]
    return RooflinePage(acc, precision, peak / 1e12, bw / 1e12, ridge, chart, samples)
