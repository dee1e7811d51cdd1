"""Instructor pages: quiz builder with a live variant preview, item analysis, progress
of the enrolled learners, and the course's learners (add, remove).

Open to staff and to users with an instructor role; anyone else gets 403 on the builder
and 404 on a quiz or course they do not teach.
"""

from __future__ import annotations

import csv

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from assess import selectors
from assess.errors import InvalidInput, NotPermitted
from assess.services.enrolments import enrolment_add, enrolment_remove
from assess.services.quizzes import quiz_create
from frontend import queries
from frontend.forms import DEFAULT_SLOTS, MAX_SLOTS, EnrolmentForm, PreviewForm, QuizBuilderForm
from frontend.http import missing_is_404


def _teacher_only(user) -> None:
    if not selectors.user_is_teacher(user=user):
        raise PermissionDenied


@login_required
def teach_index(request):
    page = queries.teach_index(user=request.user)
    return render(request, "frontend/teach/index.html", {"page": page})


def _slot_count(request) -> int:
    try:
        n = int(request.POST.get("slots") or request.GET.get("slots") or DEFAULT_SLOTS)
    except ValueError:
        n = DEFAULT_SLOTS
    return max(1, min(n, MAX_SLOTS))


@login_required
def quiz_builder(request):
    _teacher_only(request.user)
    adding = "add_slot" in request.POST  # "Add a slot" re-renders, keeping what was typed
    n = min(_slot_count(request) + adding, MAX_SLOTS)
    form = QuizBuilderForm(
        request.POST or None,
        courses=selectors.course_list_for_instructor(user=request.user),
        n_slots=n,
        staff=request.user.is_staff,
    )
    if request.method == "POST" and not adding and form.is_valid():
        try:
            quiz = quiz_create(user=request.user, spec=form.to_spec())
        except ValidationError as err:
            form.add_service_errors(err.message_dict)
        except NotPermitted as err:
            form.add_error("course", str(err))
        else:
            messages.success(request, f"Quiz “{quiz.title}” created.")
            return redirect("quiz-items", pk=quiz.pk)
    context = {"form": form, "slots": n, "quiet": adding, "preview": PreviewForm()}
    return render(request, "frontend/teach/builder.html", context)


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
    table = queries.course_progress(user=request.user, slug=slug)
    return render(request, "frontend/teach/progress.html", {"table": table})


@login_required
@missing_is_404
def course_progress_csv(request, slug: str):
    table = queries.course_progress(user=request.user, slug=slug)
    response = HttpResponse(content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="progress-{table.course.slug}.csv"'
    csv.writer(response).writerows(queries.progress_csv_rows(table))
    return response


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
