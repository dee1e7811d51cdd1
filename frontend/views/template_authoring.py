"""Writing problem templates in the browser: a course's authored templates, the editor
(YAML in a textarea, problems by field as the author types, a preview of three seeds with
their answers and the misconception check), saving versions, publish, archive, and the
version history with what each version changed.

Gates as the API's (authoring.selectors): the course's course-wide instructors and staff
only; another user asking for a course's list gets 403, for one of its templates 404. A
refusal of the services (problems in the text, a publish that fails the check) comes back
on the editor with the text as typed, never lost and never a 500.
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from api_common.http import missing_is_404
from api_common.service_errors import Conflict, InvalidInput, NotPermitted
from authoring import selectors, services
from authoring.services import Problem
from frontend.queries import template_authoring as queries

T = "frontend/teach/templates/"
MAX_TEXT = 200_000  # the loader's own bound (problems.authored.loader.MAX_FILE_CHARS)


def _course(request, slug: str):
    try:
        return selectors.course_for_author(user=request.user, slug=slug)
    except NotPermitted as err:
        raise PermissionDenied(str(err)) from None


def _text(request) -> str:
    return (request.POST.get("text") or "")[: MAX_TEXT + 1]


def _read(request, course, text: str, slug: str | None) -> tuple[queries.Read, list[Problem]]:
    """The text read once: (what it holds, its problems by field, read and checked)."""
    read = queries.read_text(text)
    if read.problems:
        return read, read.problems
    return read, services.document_problems(
        user=request.user, course=course, data=read.data, slug=slug
    )


@login_required
@missing_is_404
def authored_list(request, slug: str):
    course = _course(request, slug)
    rows = selectors.course_templates(course_id=course.pk)
    return render(request, T + "list.html", {"course": course, "rows": rows})


def _editor(request, *, course, template=None, text: str, problems=None, preview=None, status=200):
    context = {
        "course": course,
        "template": template,
        "text": text,
        "problems": problems,
        "preview": preview,
        "history": queries.version_history(template) if template else [],
    }
    return render(request, T + "edit.html", context, status=status)


@login_required
@missing_is_404
def authored_new(request, slug: str):
    course = _course(request, slug)
    if request.method != "POST":
        return _editor(request, course=course, text=queries.starter(course))
    text = _text(request)
    read = queries.read_text(text)
    if read.problems:
        return _editor(request, course=course, text=text, problems=read.problems, status=400)
    try:
        row = services.template_create(user=request.user, course=course, data=read.data)
    except InvalidInput:
        problems = services.document_problems(user=request.user, course=course, data=read.data)
        return _editor(request, course=course, text=text, problems=problems, status=400)
    messages.success(request, f"“{row.slug}” is saved as a draft (version 1).")
    return redirect("authored-edit", slug=row.slug)


@login_required
@missing_is_404
def authored_edit(request, slug: str):
    row = selectors.template_for_author(user=request.user, slug=slug)
    if request.method != "POST":
        text = queries.as_yaml(selectors.latest_version(row).spec)
        return _editor(request, course=row.course, template=row, text=text)
    text = _text(request)
    read = queries.read_text(text)
    problems = read.problems
    if not problems:
        try:
            version = services.version_save(user=request.user, template=row, data=read.data)
        except InvalidInput:
            problems = services.document_problems(
                user=request.user, course=row.course, data=read.data, slug=row.slug
            )
        else:
            messages.success(request, f"Version {version.number} saved.")
            return redirect("authored-edit", slug=row.slug)
    return _editor(
        request, course=row.course, template=row, text=text, problems=problems, status=400
    )


@require_POST
@login_required
@missing_is_404
def authored_check(request, slug: str):
    """The problems by field, as a fragment the editor swaps in while the author types."""
    course = _course(request, slug)
    template = request.POST.get("template") or None
    _, problems = _read(request, course, _text(request), template)
    return render(request, T + "_problems.html", {"problems": problems, "live": True})


@require_POST
@login_required
@missing_is_404
def authored_preview(request, slug: str):
    """Three seeds with answers and the check: a fragment for htmx, else the editor with
    the preview under it (the button works without JavaScript)."""
    course = _course(request, slug)
    template_slug = request.POST.get("template") or None
    template = (
        selectors.template_for_author(user=request.user, slug=template_slug)
        if template_slug
        else None
    )
    text = _text(request)
    read, problems = _read(request, course, text, template_slug)
    preview = None
    if not problems:
        preview = services.document_preview(
            user=request.user, course=course, data=read.data, slug=template_slug
        )
    if request.htmx:
        context = {"problems": problems, "preview": preview}
        return render(request, T + "_preview.html", context)
    return _editor(
        request, course=course, template=template, text=text, problems=problems, preview=preview
    )


_ACTIONS = {
    "publish": (services.template_publish, "“{}” is published: quizzes of its course can use it."),
    "archive": (services.template_archive, "“{}” is archived: new attempts no longer draw it."),
}


@require_POST
@login_required
@missing_is_404
def authored_action(request, slug: str, action: str):
    row = selectors.template_for_author(user=request.user, slug=slug)
    service, done = _ACTIONS[action]
    try:
        service(user=request.user, template=row)
    except (Conflict, NotPermitted) as err:
        messages.error(request, f"Not {action}ed: {err}")
    else:
        messages.success(request, done.format(row.slug))
    return redirect("authored-edit", slug=row.slug)
