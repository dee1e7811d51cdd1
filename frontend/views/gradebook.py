"""Gradebooks: per quiz and per course, as pages and as CSV.

The gate is the selector's, as on every /teach/ page of one object (item analysis,
progress, a memo): anyone who does not teach the quiz or course, a learner or an
instructor of another course, gets 404, never a hint that it exists. (A 403 is for the
pages that name no object, /teach/ and the builder, to someone who teaches nothing.)
The reads, and which learners a (possibly LMS-scoped) instructor sees, are
assess.selectors.gradebook's.
"""

from __future__ import annotations

from datetime import UTC, datetime

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from api_common.http import missing_is_404
from api_common.service_errors import NotPermitted
from assess import selectors
from assess.selectors import gradebook
from assess.services.extensions import extension_grant, extension_revoke
from frontend.forms import ExtensionForm
from frontend.views.csv_download import csv_download


def iso_utc(moment: datetime | None) -> str:
    return "" if moment is None else moment.astimezone(UTC).isoformat(timespec="seconds")


def _number(value: float | None) -> str:
    return "" if value is None else f"{value:g}"


def _who(row: gradebook.Row) -> list[str]:
    user = row.learner
    return [user.get_full_name(), user.username, user.email]


@login_required
@missing_is_404
def quiz_gradebook(request, pk: int):
    page = request.GET.get("page") or 1
    book = gradebook.quiz_gradebook(user=request.user, pk=pk, page=page)
    return render(request, "frontend/teach/gradebook_quiz.html", {"book": book})


# The service's field names as the gradebook's form labels them.
_LABELS = {"extra_time": "Extra minutes", "closes_at": "New close", "learner": "Learner"}


def _said(err: ValidationError) -> list[str]:
    return [f"{_LABELS.get(k, k)}: {m}" for k, ms in err.message_dict.items() for m in ms]


def _extension_change(request, quiz, learner) -> list[tuple[int, str]]:
    """Grant, change or revoke, as posted; the (level, sentence) messages to show."""
    name = learner.get_username()
    if request.POST.get("action") == "revoke":
        if extension_revoke(user=request.user, quiz=quiz, learner=learner):
            return [(messages.SUCCESS, f"{name}'s extension is revoked.")]
        return [(messages.INFO, f"{name} had no extension.")]
    form = ExtensionForm(request.POST)
    if not form.is_valid():
        return [(messages.ERROR, said) for said in form.said()]
    extension_grant(user=request.user, quiz=quiz, learner=learner, **form.grant_kwargs())
    return [(messages.SUCCESS, f"{name}'s extension is saved.")]


@require_POST
@login_required
@missing_is_404
def quiz_extension(request, pk: int):
    """One learner's extension from the quiz's gradebook row (assess.services.extensions:
    audited, the open attempt's deadline moved at once; nobody extends their own work).
    Back to the row, saying what happened."""
    quiz = selectors.quiz_get_for_instructor(user=request.user, pk=pk)
    learner = get_user_model().objects.filter(username=request.POST.get("learner", "")).first()
    if learner is None:
        messages.error(request, "No learner has that username.")
        return redirect("quiz-gradebook", pk=quiz.pk)
    try:
        said = _extension_change(request, quiz, learner)
    except NotPermitted as err:
        said = [(messages.ERROR, str(err))]
    except ValidationError as err:
        said = [(messages.ERROR, sentence) for sentence in _said(err)]
    for level, sentence in said:
        messages.add_message(request, level, sentence)
    page = request.POST.get("page", "")
    back = f"?page={page}" if page.isdigit() else ""  # the page the row was on
    return redirect(reverse("quiz-gradebook", args=[quiz.pk]) + f"{back}#learner-{learner.pk}")


def quiz_csv_rows(book: gradebook.QuizGradebook) -> list[list]:
    """One row per learner: their counted attempt (empty when none) and how many."""
    rows = [
        [
            "name",
            "username",
            "email",
            "attempts",
            "counted attempt",
            "points",
            "points possible",
            "percent",
            "started (UTC)",
            "finished (UTC)",
            "time taken (seconds)",
            "shown to learner",
        ]
    ]
    for row in book.rows:
        cell = row.cells[0]
        counted = cell.counted
        taken = cell.time_taken
        rows.append(
            _who(row)
            + [
                len(cell.attempts),
                counted.number if counted else "",
                _number(counted.points if counted else None),
                _number(cell.max_points),
                _number(cell.percent),
                iso_utc(counted.started_at if counted else None),
                iso_utc(counted.finished_at if counted else None),
                "" if taken is None else int(taken.total_seconds()),
                ("yes" if cell.released else "no") if counted else "",
            ]
        )
    return rows


@login_required
@missing_is_404
def quiz_gradebook_csv(request, pk: int):
    book = gradebook.quiz_gradebook(user=request.user, pk=pk)
    return csv_download(f"gradebook-quiz-{book.quiz.pk}.csv", quiz_csv_rows(book))


@login_required
@missing_is_404
def course_gradebook(request, slug: str):
    page = request.GET.get("page") or 1
    book = gradebook.course_gradebook(user=request.user, slug=slug, page=page)
    return render(request, "frontend/teach/gradebook_course.html", {"book": book})


def course_csv_rows(book: gradebook.CourseGradebook) -> list[list]:
    """One row per learner, five columns per quiz (titled by the quiz's title)."""
    header = ["name", "username", "email"]
    for quiz in book.quizzes:
        header += [
            f"{quiz.title}: points",
            f"{quiz.title}: points possible",
            f"{quiz.title}: percent",
            f"{quiz.title}: attempts",
            f"{quiz.title}: finished (UTC)",
        ]
    rows = [header]
    for row in book.rows:
        cells = _who(row)
        for cell in row.cells:
            counted = cell.counted
            cells += [
                _number(counted.points if counted else None),
                _number(cell.max_points),
                _number(cell.percent),
                len(cell.attempts),
                iso_utc(counted.finished_at if counted else None),
            ]
        rows.append(cells)
    return rows


@login_required
@missing_is_404
def course_gradebook_csv(request, slug: str):
    book = gradebook.course_gradebook(user=request.user, slug=slug)
    return csv_download(f"gradebook-{book.course.slug}.csv", course_csv_rows(book))
