"""Authoring REST endpoints: a course's authored templates, checking and previewing a
document without saving it, versions, publish and archive. Each view parses, calls one
selector gate (authoring.selectors) and one service, and renders."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from drf_standardized_errors.openapi_validation_errors import extend_validation_errors
from rest_framework import status
from rest_framework.response import Response

from api_common.errors import error_responses
from api_common.pagination import Pagination, paginate
from assess.api.views.base import AssessAPIView, service_validation
from authoring import selectors, services
from authoring.api import docs
from authoring.api import serializers as s


def _template(row, code: int = status.HTTP_200_OK) -> Response:
    versions = list(selectors.template_versions(template=row))
    data = {
        "slug": row.slug,
        "course": row.course.slug,
        "status": row.status,
        "document": versions[0].spec,
        "versions": versions,
        "created_at": row.created_at,
        "updated_at": row.updated_at,
    }
    return Response(s.TemplateSerializer(data).data, status=code)


def _document(request, serializer=s.DocumentInputSerializer):
    body = serializer(data=request.data)
    body.is_valid(raise_exception=True)
    return body.validated_data


@service_validation("document")
class CourseTemplatesView(AssessAPIView):
    pagination_class = Pagination

    @extend_schema(
        summary="A course's authored templates",
        description=docs.LIST,
        parameters=[docs.COURSE_SLUG],
        responses={
            200: s.TemplateSummarySerializer(many=True),
            **error_responses(403, c403=docs.C403_AUTHOR),
        },
    )
    def get(self, request, slug: str):
        course = selectors.course_for_author(user=request.user, slug=slug)
        rows = selectors.course_templates(course_id=course.pk).select_related("course")
        return paginate(self, rows, s.TemplateSummarySerializer)

    @extend_schema(
        summary="Create an authored template",
        description=docs.CREATE,
        parameters=[docs.COURSE_SLUG],
        request=s.DocumentInputSerializer,
        responses={201: s.TemplateSerializer, **error_responses(403, c403=docs.C403_AUTHOR)},
    )
    def post(self, request, slug: str):
        course = selectors.course_for_author(user=request.user, slug=slug)
        body = _document(request)
        row = services.template_create(user=request.user, course=course, data=body["document"])
        return _template(row, status.HTTP_201_CREATED)


@service_validation("document")
class DocumentCheckView(AssessAPIView):
    @extend_schema(
        summary="Check a template document without saving it",
        description=docs.VALIDATE,
        parameters=[docs.COURSE_SLUG],
        request=s.CheckInputSerializer,
        responses={
            200: s.ValidationResultSerializer,
            **error_responses(403, c403=docs.C403_AUTHOR),
        },
    )
    def post(self, request, slug: str):
        course = selectors.course_for_author(user=request.user, slug=slug)
        body = _document(request, s.CheckInputSerializer)
        problems = services.document_problems(
            user=request.user, course=course, data=body["document"], slug=body.get("slug")
        )
        result = {"valid": not problems, "problems": problems}
        return Response(s.ValidationResultSerializer(result).data)


@service_validation("document")
class DocumentPreviewView(AssessAPIView):
    @extend_schema(
        summary="Preview a template document's variants",
        description=docs.PREVIEW,
        parameters=[docs.COURSE_SLUG],
        request=s.PreviewInputSerializer,
        responses={200: s.PreviewSerializer, **error_responses(403, c403=docs.C403_AUTHOR)},
    )
    def post(self, request, slug: str):
        course = selectors.course_for_author(user=request.user, slug=slug)
        body = _document(request, s.PreviewInputSerializer)
        result = services.document_preview(
            user=request.user,
            course=course,
            data=body["document"],
            seeds=body.get("seeds"),
            slug=body.get("slug"),
        )
        return Response(s.PreviewSerializer(result).data)


@extend_validation_errors(["invalid"], field_name="document", methods=["put"])
class TemplateDetailView(AssessAPIView):
    @extend_schema(
        summary="An authored template",
        description=docs.DETAIL,
        parameters=[docs.TEMPLATE_SLUG],
        responses=s.TemplateSerializer,
    )
    def get(self, request, slug: str):
        return _template(selectors.template_for_author(user=request.user, slug=slug))

    @extend_schema(
        summary="Save a new version of an authored template",
        description=docs.UPDATE,
        parameters=[docs.TEMPLATE_SLUG],
        request=s.DocumentInputSerializer,
        responses=s.TemplateSerializer,
    )
    def put(self, request, slug: str):
        row = selectors.template_for_author(user=request.user, slug=slug)
        body = _document(request)
        services.version_save(user=request.user, template=row, data=body["document"])
        return _template(selectors.template_for_author(user=request.user, slug=slug))


class TemplatePublishView(AssessAPIView):
    @extend_schema(
        summary="Publish an authored template",
        description=docs.PUBLISH,
        parameters=[docs.TEMPLATE_SLUG],
        request=None,
        responses={200: s.TemplateSerializer, **error_responses(409, c409=docs.C409_PUBLISH)},
    )
    def post(self, request, slug: str):
        row = selectors.template_for_author(user=request.user, slug=slug)
        return _template(services.template_publish(user=request.user, template=row))


class TemplateArchiveView(AssessAPIView):
    @extend_schema(
        summary="Archive an authored template",
        description=docs.ARCHIVE,
        parameters=[docs.TEMPLATE_SLUG],
        request=None,
        responses=s.TemplateSerializer,
    )
    def post(self, request, slug: str):
        row = selectors.template_for_author(user=request.user, slug=slug)
        return _template(services.template_archive(user=request.user, template=row))


class TemplateVersionView(AssessAPIView):
    @extend_schema(
        summary="One version of an authored template",
        description=docs.VERSION,
        parameters=[docs.TEMPLATE_SLUG, docs.VERSION_NUMBER],
        responses=s.VersionSerializer,
    )
    def get(self, request, slug: str, number: int):
        row = selectors.template_for_author(user=request.user, slug=slug)
        version = selectors.template_version(template=row, number=number)
        return Response(s.VersionSerializer(version).data)


class TemplateRegradeView(AssessAPIView):
    @extend_schema(
        summary="Regrade an authored template's answers to its latest version",
        description=docs.REGRADE,
        parameters=[docs.TEMPLATE_SLUG],
        request=s.RegradeInputSerializer,
        responses={
            200: s.RegradeSerializer,
            **error_responses(403, 409, c403=docs.C403_REGRADE, c409=docs.C409_REGRADE),
        },
    )
    def post(self, request, slug: str):
        row = selectors.template_for_author(user=request.user, slug=slug)
        body = s.RegradeInputSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        report = services.template_regrade(
            user=request.user, template=row, dry_run=body.validated_data["dry_run"]
        )
        data = {
            "dry_run": report.dry_run,
            "questions": report.questions,
            "responses": report.responses,
            "changes": report.changes,
            "attempts": [
                {"attempt_id": a, "old": old, "new": new} for a, old, new in report.attempts
            ],
            "refused": report.refused,
        }
        return Response(s.RegradeSerializer(data).data)
