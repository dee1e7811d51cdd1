"""Read queries for the hardware tables; views call these rather than building querysets."""

from __future__ import annotations

from django.db.models import QuerySet

from hardware_db.models import Accelerator, Link, ModelArchitecture, Server


def accelerator_list(*, vendor: str | None = None) -> QuerySet[Accelerator]:
    qs = Accelerator.objects.select_related("scale_up_link", "host_link")
    if vendor:
        qs = qs.filter(vendor__iexact=vendor)
    return qs


def accelerator_get(*, slug: str) -> Accelerator:
    return accelerator_list().get(slug=slug)


def link_list(*, kind: str | None = None) -> QuerySet[Link]:
    qs = Link.objects.all()
    if kind:
        qs = qs.filter(kind=kind)
    return qs


def link_get(*, slug: str) -> Link:
    return link_list().get(slug=slug)


def server_list(*, vendor: str | None = None) -> QuerySet[Server]:
    qs = Server.objects.select_related("accelerator", "nic_link")
    if vendor:
        qs = qs.filter(vendor__iexact=vendor)
    return qs


def server_get(*, slug: str) -> Server:
    return server_list().get(slug=slug)


def model_list(*, arch_type: str | None = None) -> QuerySet[ModelArchitecture]:
    qs = ModelArchitecture.objects.all()
    if arch_type:
        qs = qs.filter(arch_type=arch_type)
    return qs


def model_get(*, slug: str) -> ModelArchitecture:
    return model_list().get(slug=slug)
