"""Display filters for hardware figures: decimal and binary units kept apart."""

from django import template

register = template.Library()


@register.filter
def tb_per_s(bytes_per_s: int | None) -> str:
    if not bytes_per_s:
        return "—"
    return f"{bytes_per_s / 1e12:g} TB/s"


@register.filter
def gb_per_s(bytes_per_s: int | None) -> str:
    if not bytes_per_s:
        return "—"
    return f"{bytes_per_s / 1e9:g} GB/s"


@register.filter
def tflops(flops: dict, precision: str) -> str:
    value = flops.get(precision) if flops else None
    return f"{value / 1e12:g}" if value else "—"


@register.filter
def billions(n: int | None) -> str:
    return f"{n / 1e9:.2f} B" if n else "—"


@register.filter
def kw(watts: int | None) -> str:
    return f"{watts / 1000:g} kW" if watts else "not published"
