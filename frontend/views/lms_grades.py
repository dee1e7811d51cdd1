"""The instructor's view of LMS grade passback for one quiz: what each LMS gradebook
should hold and whether it does (lti.models.ScoreSync), with a resend of the scores the
LMS did not take. The quiz's instructors and staff only: anyone else gets 404, as on
the item analysis it is linked from. An instructor scoped to an LMS course sees and
resends only that LMS course's rows (lti.selectors)."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_http_methods

from api_common.http import missing_is_404
from assess import selectors
from frontend.queries.lms_grades import lms_grades_page
from lti import grades
from lti import selectors as lti_selectors


def _see_other(url: str) -> HttpResponseRedirect:
    response = HttpResponseRedirect(url)
    response.status_code = 303
    return response


def _resend(request, quiz) -> None:
    """Resend one row (`sync`, a per-row button) or every unsent score of the quiz."""
    raw = request.POST.get("sync")
    ids = None
    if raw is not None:
        if not (raw.isascii() and raw.isdigit() and len(raw) < 19):
            messages.error(request, "That score could not be found.")
            return
        ids = [int(raw)]
    mine = lti_selectors.score_sync_ids_to_resend(user=request.user, quiz=quiz, ids=ids)
    n = grades.scores_resend(quiz=quiz, sync_ids=mine)
    if n:
        messages.success(
            request, f"{n} score{'s' if n != 1 else ''} queued to send to the LMS again."
        )
    elif ids:
        messages.info(request, "That score is already in the LMS gradebook.")
    else:
        messages.info(request, "Every score is already in the LMS gradebook.")


@require_http_methods(["GET", "HEAD", "POST"])
@login_required
@missing_is_404
def quiz_lms_grades(request, pk: int):
    """GET: the page. POST: resend, then back to the page (303) with a message."""
    if request.method == "POST":
        quiz = selectors.quiz_get_for_instructor(user=request.user, pk=pk)  # the gate
        _resend(request, quiz)
        return _see_other(reverse("quiz-lms-grades", args=[quiz.pk]))
    page = lms_grades_page(user=request.user, pk=pk)
    return render(request, "frontend/teach/lms_grades.html", {"page": page})
