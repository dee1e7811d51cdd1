"""Read-only REST endpoints over the hardware tables (list + detail by slug)."""

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_view
from rest_framework import viewsets

from hardware_db import selectors
from hardware_db.models import Link, ModelArchitecture
from hardware_db.serializers import (
    AcceleratorSerializer,
    LinkSerializer,
    ModelArchitectureSerializer,
    ServerSerializer,
)

# Model slugs contain dots ("llama-3.1-8b"); DRF's default lookup pattern excludes them.
SLUG_PATTERN = r"[a-z0-9]+(?:[.-][a-z0-9]+)*"

_VENDOR = OpenApiParameter(
    "vendor", OpenApiTypes.STR, description="Case-insensitive exact vendor name, e.g. NVIDIA."
)


class _SlugViewSet(viewsets.ReadOnlyModelViewSet):
    lookup_field = "slug"
    lookup_value_regex = SLUG_PATTERN


@extend_schema_view(list=extend_schema(parameters=[_VENDOR]))
class AcceleratorViewSet(_SlugViewSet):
    serializer_class = AcceleratorSerializer

    def get_queryset(self):
        return selectors.accelerator_list(vendor=self.request.query_params.get("vendor"))


@extend_schema_view(
    list=extend_schema(
        parameters=[OpenApiParameter("kind", OpenApiTypes.STR, enum=Link.Kind.values)]
    )
)
class LinkViewSet(_SlugViewSet):
    serializer_class = LinkSerializer

    def get_queryset(self):
        return selectors.link_list(kind=self.request.query_params.get("kind"))


@extend_schema_view(list=extend_schema(parameters=[_VENDOR]))
class ServerViewSet(_SlugViewSet):
    serializer_class = ServerSerializer

    def get_queryset(self):
        return selectors.server_list(vendor=self.request.query_params.get("vendor"))


@extend_schema_view(
    list=extend_schema(
        parameters=[
            OpenApiParameter("arch_type", OpenApiTypes.STR, enum=ModelArchitecture.ArchType.values)
        ]
    )
)
class ModelArchitectureViewSet(_SlugViewSet):
    serializer_class = ModelArchitectureSerializer

    def get_queryset(self):
        return selectors.model_list(arch_type=self.request.query_params.get("arch_type"))
