"""Hardware pages read the cached catalog (the data files), not the database copy: the
same figures the problems are drawn from, with their sources."""

from __future__ import annotations

from django.shortcuts import render

from frontend import queries
from frontend.forms import CompareForm, RooflineForm
from hardware_db import catalog

DEFAULT_PAIR = {"a": "h100-sxm", "b": "mi300x"}
DEFAULT_ROOFLINE = {"accelerator": "h100-sxm", "precision": "bf16"}


def hardware_index(request):
    context = {
        "accelerators": catalog.accelerators(),
        "links": catalog.links(),
        "servers": catalog.servers(),
        "models": catalog.models(),
    }
    return render(request, "frontend/hardware/index.html", context)


def hardware_compare(request):
    form = CompareForm(request.GET or DEFAULT_PAIR)
    cmp = None
    if form.is_valid():
        cmp = queries.accelerator_comparison(form.cleaned_data["a"], form.cleaned_data["b"])
    return render(request, "frontend/hardware/compare.html", {"form": form, "cmp": cmp})


def hardware_roofline(request):
    form = RooflineForm(request.GET or DEFAULT_ROOFLINE)
    page = None
    if form.is_valid():
        page = queries.roofline(form.cleaned_data["accelerator"], form.cleaned_data["precision"])
    return render(request, "frontend/hardware/roofline.html", {"form": form, "page": page})
