"""Read-only REST endpoints over the hardware tables: a paginated list and a detail by slug.

Lists check their query parameters first (hardware_db.filters): an unknown enum value is a
400 naming the parameter. Detail reads ignore the list filters, so a record is found by
its slug alone. Pagination comes from DEFAULT_PAGINATION_CLASS (api_common.pagination).
"""

from __future__ import annotations

from collections.abc import Callable

from django.db.models import QuerySet
from django.http import Http404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_view
from drf_standardized_errors.openapi_validation_errors import extend_validation_errors
from rest_framework import exceptions, serializers, viewsets

from hardware_db import api_examples, filters, selectors
from hardware_db.serializers import (
    SLUG_REGEX,
    AcceleratorSerializer,
    LinkSerializer,
    ModelArchitectureSerializer,
    ServerSerializer,
)

# The data files' slug rule without anchors, for the router: model slugs contain dots
# ("llama-3.1-8b"), which DRF's default lookup pattern refuses.
SLUG_PATTERN = SLUG_REGEX.removeprefix("^").removesuffix("$")

UNITS = (
    "Units are in the field names: `_bytes` bytes, `_bytes_per_s` bytes per second, "
    "`_bits_per_s` bits per second, `_watts` watts, `_gib` GiB (2^30 bytes); `dense_flops` "
    "and `sparse_flops` are operations per second. Every record names its `source` and the "
    "date it was checked (`as_of`); `notes` holds the caveats."
)
_PAGE = "One page of records in the data file's order (related records sit together)."
_DETAIL_404 = "An unknown slug is a 404 in the API's error format."


def _docs(resource: str, noun: str, what: str):
    """Class decorator: summaries, descriptions, parameters, example and the documented
    400s of one resource's list and retrieve operations, kept together for all four. The
    400s follow from the view's query_class: each enum parameter can be refused, and a
    free-text one holding a NUL character."""
    slug = OpenApiParameter(
        "slug",
        OpenApiTypes.STR,
        OpenApiParameter.PATH,
        description=f"The {noun}'s `slug`, as listed by /api/hardware/{resource}/.",
        pattern=SLUG_REGEX,
    )

    def decorate(view):
        view = extend_schema_view(
            list=extend_schema(
                summary=f"List {resource}",
                description=f"{what}\n\n{_PAGE} {UNITS}",
                parameters=[view.query_class],
                examples=[api_examples.example(resource)],
            ),
            retrieve=extend_schema(
                summary=f"One {noun}",
                description=f"{what}\n\nOne {noun} by its slug. {UNITS} {_DETAIL_404}",
                parameters=[slug],
            ),
        )(view)
        enums = [
            name
            for name, field in view.query_class().fields.items()
            if isinstance(field, filters.StrictChoiceField)
        ]
        for name in enums:
            view = extend_validation_errors(
                filters.ENUM_ERROR_CODES, field_name=name, actions=["list"]
            )(view)
        # Free-text filters (vendor) refuse a NUL character, which no database stores.
        texts = [
            name
            for name, field in view.query_class().fields.items()
            if isinstance(field, serializers.CharField)
        ]
        for name in texts:
            view = extend_validation_errors(
                filters.TEXT_ERROR_CODES, field_name=name, actions=["list"]
            )(view)
        return view

    return decorate


class _CatalogViewSet(viewsets.ReadOnlyModelViewSet):
    lookup_field = "slug"
    lookup_value_regex = SLUG_PATTERN
    query_class: type[serializers.Serializer]
    selector: Callable[..., QuerySet]

    def get_queryset(self) -> QuerySet:
        found = type(self).selector
        if self.action != "list":
            return found()
        query = self.query_class(data=self.request.query_params)
        query.is_valid(raise_exception=True)
        return found(**query.validated_data)

    def get_object(self):
        try:
            return super().get_object()
        except Http404:
            noun = self.get_queryset().model._meta.verbose_name
            raise exceptions.NotFound(f"No {noun} with that slug.") from None


@_docs(
    "accelerators",
    "accelerator",
    "GPUs and other AI accelerators: memory (as labelled, read literally, and as the driver "
    "reports it), memory bandwidth, dense and sparse peak throughput by precision, power, "
    "and the links to other accelerators and to the host.",
)
class AcceleratorViewSet(_CatalogViewSet):
    serializer_class = AcceleratorSerializer
    query_class = filters.VendorQuery
    selector = staticmethod(selectors.accelerator_list)


@_docs(
    "links",
    "link",
    "Interconnects: scale-up fabrics (NVLink, Infinity Fabric, ICI) per accelerator, "
    "scale-out networks (InfiniBand, RoCE, Ethernet) per NIC port, and host links (PCIe). "
    "Bandwidth is given one way and both ways added; use the per-direction figure for "
    "transfer times.",
)
class LinkViewSet(_CatalogViewSet):
    serializer_class = LinkSerializer
    query_class = filters.LinkQuery
    selector = staticmethod(selectors.link_list)


@_docs(
    "servers",
    "server",
    "Whole systems: which accelerator and how many, the compute-fabric NICs, CPUs and the "
    "maximum system power.",
)
class ServerViewSet(_CatalogViewSet):
    serializer_class = ServerSerializer
    query_class = filters.VendorQuery
    selector = staticmethod(selectors.server_list)


@_docs(
    "models",
    "model",
    "Language-model architectures as their published configs give them (layers, heads, "
    "KV heads, experts, MLA ranks), with exact parameter counts and the KV-cache bytes "
    "per token in BF16.",
)
class ModelArchitectureViewSet(_CatalogViewSet):
    serializer_class = ModelArchitectureSerializer
    query_class = filters.ModelQuery
    selector = staticmethod(selectors.model_list)
