"""Courses, lessons and adaptive lesson practice."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect, render

from assess.errors import Conflict
from assess.services.questions import practice_question_add
from curricula import selectors as curricula_selectors
from frontend import queries
from frontend.http import missing_is_404


def course_list(request):
    courses = curricula_selectors.course_list()
    return render(request, "frontend/learn/courses.html", {"courses": courses})


@missing_is_404
def course_detail(request, slug: str):
    page = queries.course_page(user=request.user, slug=slug)
    return render(request, "frontend/learn/course.html", {"page": page})


@missing_is_404
def lesson_detail(request, slug: str):
    page = queries.lesson_page(user=request.user, slug=slug)
    return render(request, "frontend/learn/lesson.html", {"page": page})


@login_required
@missing_is_404
def lesson_practice(request, slug: str):
    """The service picks the template for the lesson's weakest unmastered skill. A GET
    (after signing in from a practice button) goes back to the lesson."""
    if request.method != "POST":
        return redirect("lesson-detail", slug=slug)
    lesson = curricula_selectors.lesson_get(slug=slug)
    try:
        practice = practice_question_add(learner=request.user, lesson=lesson)
    except Conflict as err:
        messages.error(request, str(err))
        return redirect("lesson-detail", slug=slug)
    return redirect("question-detail", pk=practice.attempt.pk, qid=practice.question.pk)
