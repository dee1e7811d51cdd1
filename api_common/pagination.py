"""Every list endpoint of the API answers one page: `{count, next, previous, results}`.

`?page=N` (from 1) and `?page_size=N` (at most MAX_PAGE_SIZE). An out-of-range page is
a 404 in the API's error format, as DRF does it. Views built on APIView set
`pagination_class = Pagination` (so drf-spectacular documents the envelope and the
query parameters) and page through `paginate()`; viewsets use DEFAULT_PAGINATION_CLASS.
"""

from __future__ import annotations

from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.pagination import PageNumberPagination

MAX_PAGE_SIZE = 200


class Pagination(PageNumberPagination):
    page_size = 50
    page_size_query_param = "page_size"
    max_page_size = MAX_PAGE_SIZE
    last_page_strings = ()  # the schema says an integer: "last" is no page number

    def get_page_number(self, request, paginator):
        """DRF's, except that `?page=` with no value is no page (DRF reads it as page 1,
        accepting what the schema refuses): the 404 of any page that does not exist."""
        if request.query_params.get(self.page_query_param) == "":
            raise NotFound(
                self.invalid_page_message.format(page_number="", message="No page number.")
            )
        return super().get_page_number(request, paginator)

    def get_page_size(self, request):
        """`page_size` as documented: absent means the default; anything but a whole
        number from 1 to MAX_PAGE_SIZE is a 400 naming it (DRF would quietly fall back or
        clamp, which hides a client's mistake and contradicts the schema)."""
        raw = request.query_params.get(self.page_size_query_param)
        if raw is None:
            return self.page_size
        if not raw.isascii() or not raw.isdigit() or not 1 <= int(raw) <= MAX_PAGE_SIZE:
            raise ValidationError(
                {self.page_size_query_param: [f"A whole number from 1 to {MAX_PAGE_SIZE}."]},
                code="invalid",
            )
        return int(raw)

    def get_paginated_response_schema(self, schema):
        """DRF's, with every key required: all four are always sent (next and previous
        as null at the ends), so a typed client need not treat them as optional."""
        paginated = super().get_paginated_response_schema(schema)
        paginated["required"] = ["count", "next", "previous", "results"]
        props = paginated["properties"]
        props["count"].update(description="How many items all the pages hold.", example=2)
        props["next"].update(
            description="The next page's URL, or null on the last page.",
            example="https://burnin.example.org/api/quizzes/?page=2",
        )
        props["previous"].update(
            description="The previous page's URL, or null on the first page.", example=None
        )
        if isinstance(props["results"], dict):  # drf-spectacular's examples pass a sentinel
            props["results"]["description"] = "This page's items, at most page_size of them."
        return paginated

    def get_schema_operation_parameters(self, view):
        params = super().get_schema_operation_parameters(view)
        for param in params:
            if param["name"] == self.page_size_query_param:
                param["schema"].update(minimum=1, maximum=MAX_PAGE_SIZE)
                param["description"] = (
                    f"Items per page: default {self.page_size}, at most {MAX_PAGE_SIZE} "
                    "(anything else is a 400 naming page_size)."
                )
            elif param["name"] == self.page_query_param:
                param["schema"]["minimum"] = 1
                param["description"] = "Page number from 1; past the last page is a 404."
        return params


def paginate(view, queryset, serializer_class, **serializer_kwargs):
    """One page of `queryset` (or a list) serialized by `serializer_class`, as a
    paginated Response, with the view's own pagination_class if it has one.
    For APIView subclasses: `return paginate(self, rows, RowSerializer, context=...)`."""
    paginator = (getattr(view, "pagination_class", None) or Pagination)()
    page = paginator.paginate_queryset(queryset, view.request, view=view)
    return paginator.get_paginated_response(
        serializer_class(page, many=True, **serializer_kwargs).data
    )
