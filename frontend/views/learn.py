"""Courses, enrolment, lessons and adaptive lesson practice."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect, render

from api_common.http import missing_is_404
from api_common.service_errors import Conflict, NotPermitted
from assess.services import practice_sessions
from assess.services.enrolments import enrolment_self
from assess.services.practice_sessions import practice_session_start
from assess.services.questions import practice_question_add
from curricula import selectors as curricula_selectors
from frontend import queries
from frontend.forms import PracticeSessionForm


def course_list(request):
    courses = curricula_selectors.course_list()
    return render(request, "frontend/learn/courses.html", {"courses": courses})


@missing_is_404
def course_detail(request, slug: str):
    page = queries.course_page(user=request.user, slug=slug)
    return render(request, "frontend/learn/course.html", {"page": page})


@login_required
@missing_is_404
def course_enrol(request, slug: str):
    """Enrol yourself. A course that takes learners only from its instructors answers
    403 with the reason on its page. A GET (after signing in) goes back to the course."""
    if request.method != "POST":
        return redirect("course-detail", slug=slug)
    course = curricula_selectors.course_get(slug=slug)
    try:
        _, created = enrolment_self(user=request.user, course=course)
    except NotPermitted as err:
        messages.error(request, str(err))
        page = queries.course_page(user=request.user, slug=slug)
        return render(request, "frontend/learn/course.html", {"page": page}, status=403)
    if created:
        messages.success(request, f"You are enrolled in {course.title}.")
    return redirect("course-detail", slug=slug)


@missing_is_404
def lesson_detail(request, slug: str):
    page = queries.lesson_page(user=request.user, slug=slug)
    return render(request, "frontend/learn/lesson.html", {"page": page})


@login_required
@missing_is_404
def lesson_practice(request, slug: str):
    """Start a session of n questions (the form posts `questions`), or draw the open
    session's next question (a session of the default length if none is open). The
    service picks each question for the lesson's weakest unmastered skill, and enrols
    the learner on first use where the course allows it (403 with the reason where it
    does not). A GET (after signing in from a practice button) goes back to the lesson."""
    if request.method != "POST":
        return redirect("lesson-detail", slug=slug)
    lesson = curricula_selectors.lesson_get(slug=slug)
    form = PracticeSessionForm(request.POST)
    try:
        if "questions" not in request.POST:
            practice = practice_question_add(
                learner=request.user, lesson=lesson, session=practice_sessions.DEFAULT_LENGTH
            )
        elif form.is_valid():
            n = form.cleaned_data["questions"]
            practice = practice_session_start(learner=request.user, lesson=lesson, length=n)
        else:
            return _lesson_refused(request, slug, form.errors["questions"][0], 400)
    except NotPermitted as err:
        return _lesson_refused(request, slug, str(err), 403)
    except Conflict as err:
        messages.error(request, str(err))
        return redirect("lesson-detail", slug=slug)
    return redirect("question-detail", pk=practice.attempt.pk, qid=practice.question.pk)


def _lesson_refused(request, slug: str, reason: str, status: int):
    messages.error(request, reason)
    page = queries.lesson_page(user=request.user, slug=slug)
    return render(request, "frontend/learn/lesson.html", {"page": page}, status=status)
