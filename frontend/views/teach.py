"""Instructor pages: a template's variant preview (with answers), item analysis,
progress of the enrolled learners, and the course's learners (add, remove). The quiz
builder and a quiz's lifecycle are frontend/views/authoring.py.

Open to staff and to users with an instructor role; anyone else gets 403 on the builder
and 404 on a quiz or course they do not teach.
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from api_common.http import missing_is_404
from api_common.service_errors import InvalidInput, NotPermitted
from assess import selectors
from assess.services.enrolments import enrolment_add, enrolment_remove
from frontend import queries
from frontend.forms import EnrolmentForm, PreviewForm
from frontend.views.csv_download import csv_download


def _teacher_only(user) -> None:
    if not selectors.user_is_teacher(user=user):
        raise PermissionDenied


@login_required
def teach_index(request):
    page = queries.teach_index(user=request.user)
    return render(request, "frontend/teach/index.html", {"page": page})


@login_required
def template_preview(request):
    """A fresh variant with its answers and worked solution: instructors only."""
    _teacher_only(request.user)
    form = PreviewForm(request.GET or None)
    preview = (
        queries.template_preview(slug=form.cleaned_data["template"]) if form.is_valid() else None
    )
    template = "frontend/teach/_preview.html" if request.htmx else "frontend/teach/preview.html"
    return render(request, template, {"form": form, "preview": preview})


@login_required
@missing_is_404
def quiz_items(request, pk: int):
    page = queries.items_page(user=request.user, pk=pk)
    return render(request, "frontend/teach/items.html", {"page": page})


@login_required
@missing_is_404
def course_progress(request, slug: str):
    page = request.GET.get("page") or 1
    table = queries.course_progress(user=request.user, slug=slug, page=page)
    return render(request, "frontend/teach/progress.html", {"table": table})


@login_required
@missing_is_404
def course_progress_csv(request, slug: str):
    course, rows = queries.progress_csv(user=request.user, slug=slug)  # the gate (404)
    return csv_download(f"progress-{course.slug}.csv", rows)


@login_required
@missing_is_404
def course_learners(request, slug: str):
    """The course's enrolled learners; a POST adds one by username."""
    page = queries.course_learners(user=request.user, slug=slug)  # the gate (404)
    form = EnrolmentForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        username = form.cleaned_data["username"]
        try:
            _, created = enrolment_add(actor=request.user, course=page.course, username=username)
        except (InvalidInput, NotPermitted) as err:
            form.add_error("username", str(err))
        else:
            note = "is now enrolled" if created else "was enrolled already"
            messages.success(request, f"{username} {note}.")
            return redirect("course-learners", slug=slug)
    return render(request, "frontend/teach/learners.html", {"page": page, "form": form})


@require_POST
@login_required
@missing_is_404
def course_learner_remove(request, slug: str):
    """Remove a learner: their attempts and mastery stay; the course's quizzes and its
    progress table no longer list them."""
    page = queries.course_learners(user=request.user, slug=slug)  # the gate (404)
    username = request.POST.get("username", "")
    try:
        removed = enrolment_remove(actor=request.user, course=page.course, username=username)
    except (InvalidInput, NotPermitted) as err:
        messages.error(request, str(err))
    else:
        if removed:
            messages.success(request, f"{username} is no longer enrolled.")
        else:
            messages.info(request, f"{username} was not enrolled.")
    return redirect("course-learners", slug=slug)
