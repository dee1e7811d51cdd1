"""Writing quizzes: the builder (a new draft, or an edit while no one has started the
quiz), the quiz's own page with what may be done to it now, its preview as a learner
sees it, and the lifecycle buttons (publish, unpublish, close, duplicate).

Gates as the other teaching pages: someone who teaches nothing gets 403 on the builder;
a quiz the user does not instruct is a 404. The rules are the services' (assess.
services.quizzes): a refusal comes back as a message on the quiz's page, never a 500.
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from api_common.http import missing_is_404
from api_common.service_errors import Conflict, NotPermitted
from assess import selectors
from assess.services import quizzes as quiz_services
from authoring import selectors as authoring_selectors
from frontend.builder_form import (
    DEFAULT_SLOTS,
    MAX_SLOTS,
    QuizBuilderForm,
    builder_action,
    initial_of,
)
from frontend.forms import PreviewForm
from frontend.queries import builder as queries


def _slot_count(request, default: int) -> int:
    try:
        n = int(request.POST.get("slots") or request.GET.get("slots") or default)
    except ValueError:
        n = default
    return max(1, min(n, MAX_SLOTS))


def _save(request, form: QuizBuilderForm, quiz=None):
    """Create the draft or update the quiz; the saved quiz, or None with the service's
    refusal on the form."""
    lessons = [lesson.slug for lesson in quiz.lessons.all()] if quiz else ()
    spec = form.to_spec(lesson_slugs=lessons)
    try:
        if quiz is None:
            return quiz_services.quiz_create(user=request.user, spec=spec, status="draft")
        return quiz_services.quiz_update(user=request.user, quiz=quiz, spec=spec)
    except ValidationError as err:
        form.add_service_errors(err.message_dict)
    except NotPermitted as err:
        form.add_error("course", str(err))
    except Conflict as err:
        form.add_error(None, str(err))
    return None


def _builder(request, *, quiz=None):
    """One builder for a new draft and an edit: Save, Preview the quiz, Add a slot and
    Filter (the library search, which without JavaScript re-posts the form so nothing
    typed is lost; GET ?q= filters a fresh page)."""
    action = builder_action(request.POST) if request.method == "POST" else None
    initial, n = initial_of(quiz) if quiz else ({}, DEFAULT_SLOTS)
    n = min(_slot_count(request, n) + (action == "add_slot"), MAX_SLOTS)
    courses = selectors.course_list_for_instructor(user=request.user)
    authored = authoring_selectors.published_templates(course_ids=[c.pk for c in courses])
    form = QuizBuilderForm(
        request.POST or None,
        initial=initial,
        courses=courses,
        n_slots=n,
        staff=request.user.is_staff,
        authored=authored,
    )
    preview = None
    if action in ("save", "preview") and form.is_valid():
        if action == "save" and (saved := _save(request, form, quiz)) is not None:
            state = "as a draft" if saved.is_draft else "and stays published"
            messages.success(request, f"“{saved.title}” is saved {state}.")
            return redirect("quiz-manage", pk=saved.pk)
        if action == "preview":
            try:
                preview = queries.spec_preview(form.to_spec())
            except ValidationError as err:
                form.add_service_errors(err.message_dict)
    query = (request.POST.get("q") if request.method == "POST" else request.GET.get("q")) or ""
    library = queries.template_library(
        course_slug=form.course_slug(), query=query.strip(), picks=form.picks(), authored=authored
    )
    context = {"form": form, "slots": n, "quiet": action in ("add_slot", "filter"), "quiz": quiz}
    context |= {"library": library, "quiz_preview": preview, "template_preview": PreviewForm()}
    if request.htmx and action == "filter":
        return render(request, "frontend/teach/_library.html", context)
    return render(request, "frontend/teach/builder.html", context)


@login_required
def quiz_builder(request):
    if not selectors.user_is_teacher(user=request.user):
        raise PermissionDenied
    return _builder(request)


@login_required
@missing_is_404
def quiz_edit(request, pk: int):
    quiz = selectors.quiz_get_for_instructor(user=request.user, pk=pk)
    refusal = quiz_services.quiz_edit_refusal(user=request.user, quiz=quiz)
    if refusal is None and quiz.slots.count() > MAX_SLOTS:
        refusal = f"The builder edits quizzes of up to {MAX_SLOTS} slots; this one has more."
    if refusal:
        messages.warning(request, refusal)
        return redirect("quiz-manage", pk=pk)
    return _builder(request, quiz=quiz)


@login_required
@missing_is_404
def quiz_manage(request, pk: int):
    page = queries.quiz_page(user=request.user, pk=pk)
    return render(request, "frontend/teach/quiz.html", {"page": page})


@login_required
@missing_is_404
def quiz_preview(request, pk: int):
    quiz = selectors.quiz_get_for_instructor(user=request.user, pk=pk)
    preview = queries.quiz_preview(quiz=quiz, slots=list(quiz.slots.order_by("order")))
    return render(request, "frontend/teach/quiz_preview.html", {"quiz": quiz, "preview": preview})


_ACTIONS = {
    "publish": (quiz_services.quiz_publish, "“{}” is published: its learners can see it."),
    "unpublish": (
        quiz_services.quiz_unpublish,
        "“{}” is a draft again: learners no longer see it.",
    ),
    "close": (quiz_services.quiz_close, "“{}” is closed: no new attempt starts."),
}


@require_POST
@login_required
@missing_is_404
def quiz_action(request, pk: int, action: str):
    """Publish, unpublish or close; what the service refuses is said on the quiz page.
    Closing ends learners' open attempts at once, so it is asked first: the quiz page's
    button brings a page that says how many, whose own button closes."""
    quiz = selectors.quiz_get_for_instructor(user=request.user, pk=pk)
    if action == "close" and request.POST.get("confirmed") != "yes":
        preview = queries.quiz_close_preview(quiz=quiz)
        return render(request, "frontend/teach/quiz_close.html", {"close": preview})
    service, done = _ACTIONS[action]
    try:
        service(user=request.user, quiz=quiz)
    except (Conflict, NotPermitted) as err:
        messages.error(request, str(err))
    else:
        messages.success(request, done.format(quiz.title))
    return redirect("quiz-manage", pk=pk)


@require_POST
@login_required
@missing_is_404
def quiz_duplicate(request, pk: int):
    quiz = selectors.quiz_get_for_instructor(user=request.user, pk=pk)
    try:
        copy = quiz_services.quiz_duplicate(user=request.user, quiz=quiz)
    except (Conflict, NotPermitted) as err:
        messages.error(request, str(err))
        return redirect("quiz-manage", pk=pk)
    messages.success(request, f"“{copy.title}” is a new draft: change what you need.")
    return redirect("quiz-edit", pk=copy.pk)
