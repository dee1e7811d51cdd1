"""Quizzes, attempts, questions, answers, reveals and hints. (What a learner types before
saving stays in the browser: static/frontend/drafts.js; the session keeps only an answer
the service could not read, and the text a Hint request carried, to show them again.)

Without JavaScript every form posts and redirects back to the page, which shows the
stored feedback (PRG). With htmx the same endpoints answer with a fragment: the question
block as the feedback policy lets it show now, or a "saved" status (exam autosave:
graded, stored, hidden). What the service refuses (a closed part, a finished attempt)
is said in a message on the page the request is sent back to, never a 500.
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_POST
from django_htmx.http import HttpResponseClientRedirect

from accounts.selectors import email_confirmed
from api_common.http import missing_is_404
from api_common.service_errors import Conflict, InvalidInput, NotPermitted
from assess import selectors
from assess.policy import attempt_over
from assess.services.attempts import attempt_finish, attempt_start
from assess.services.hints import hint_request
from assess.services.questions import question_new_variant
from assess.services.reveals import part_reveal
from frontend import answers, queries
from frontend.queries import starting


def question_url(attempt, question) -> str:
    """Lesson practice is one question at a time; a quiz is one page of questions."""
    if attempt.quiz.adaptive:
        return reverse("question-detail", args=[attempt.pk, question.pk])
    return reverse("attempt-detail", args=[attempt.pk]) + f"#q-{question.pk}"


def _checked_url(attempt, question, outcomes) -> str:
    """Back to the question after a check without script: at the feedback of the first
    part checked (take/_feedback.html's id), where the browser scrolls and from where Tab
    goes on to the hint and the reveal; with htmx, focus-feedback.js moves focus there.
    Deferred feedback shows no grade: back to the question as before."""
    checked = next((o.part for o in outcomes if o.response is not None), None)
    if checked is None or attempt.quiz.feedback_deferred:
        return question_url(attempt, question)
    url = question_url(attempt, question).split("#")[0]
    return f"{url}#fb-{question.pk}-{checked}"


def refused(request, attempt, question, reasons: list[str]):
    """Say why, and send the page back: to the attempt once it takes no more answers
    (its page says the saved answers were submitted), else to the question."""
    for reason in dict.fromkeys(reasons):
        messages.warning(request, reason)
    if attempt_over(attempt=attempt, now=timezone.now()):
        url = reverse("attempt-detail", args=[attempt.pk])
    else:
        url = question_url(attempt, question)
    return HttpResponseClientRedirect(url) if request.htmx else redirect(url)


def _question_fragment(request, attempt, question, errors=None, outcomes=()):
    """The htmx answer: the question block as the policy shows it now, or for deferred
    feedback only the "saved" status, so not even the markup hints at a grade."""
    (view,) = queries.question_views(
        attempt=attempt,
        questions=[question],
        drafts=answers.drafts_get(request.session),
        errors=errors or {},
    )
    template = (
        "frontend/take/_save_status.html" if view.autosave else "frontend/take/_question.html"
    )
    announce = {o.part for o in outcomes if o.response is not None}
    context = {"qv": view, "attempt": attempt, "outcomes": outcomes, "announce": announce}
    return render(request, template, context)


def quiz_list(request):
    """The quizzes one may take; to a visitor, how to get in (sign up, sign in with your
    company, launch from your LMS)."""
    if not request.user.is_authenticated:
        return render(request, "frontend/take/quizzes.html", {"quizzes": None})
    quizzes = list(selectors.quiz_list_for_user(user=request.user))
    eligible = starting.eligibilities(user=request.user, quizzes=quizzes)
    context = {
        "quizzes": [eligible[q.pk] for q in quizzes],
        "confirmed": email_confirmed(user=request.user),
    }
    return render(request, "frontend/take/quizzes.html", context)


@login_required
@missing_is_404
def quiz_detail(request, pk: int):
    """The start page: the rules of an attempt (time limit, attempts used and allowed,
    feedback, cooldown) and, for a track's certification exam, its requirements met and
    missing, before anything starts. Reading it starts nothing."""
    quiz = selectors.quiz_get_for_user(user=request.user, pk=pk)
    page = starting.start_page(user=request.user, quiz=quiz)
    return render(request, "frontend/take/start.html", {"page": page, "quiz": quiz})


@require_POST
@login_required
@missing_is_404
def quiz_start(request, pk: int):
    quiz, facts = selectors.quiz_get_for_start(user=request.user, pk=pk)
    try:
        attempt, _created = attempt_start(quiz=quiz, learner=request.user, facts=facts)
    except Conflict as err:  # the start page says why, and what is missing
        messages.error(request, str(err))
        return redirect("quiz-detail", pk=quiz.pk)
    except NotPermitted as err:  # an unconfirmed sign-up starting an exam
        context = {"quiz": quiz, "reason": str(err)}
        return render(request, "frontend/take/confirm_first.html", context, status=403)
    return redirect("attempt-detail", pk=attempt.pk)


@login_required
@missing_is_404
def attempt_detail(request, pk: int):
    attempt = selectors.attempt_get_for_user(user=request.user, pk=pk)
    if attempt.learner_id == request.user.pk:
        attempt = answers.attempt_expire_if_due(attempt=attempt)
    if attempt.quiz.adaptive:  # lesson practice: progress, then the session's summary
        page = queries.practice_page(user=request.user, attempt=attempt)
        return render(request, "frontend/take/practice.html", {"page": page})
    page = queries.attempt_page(
        user=request.user,
        attempt=attempt,
        drafts=answers.drafts_get(request.session),
        errors=answers.errors_pop(request.session),
    )
    return render(request, "frontend/take/attempt.html", {"page": page})


@require_POST
@login_required
@missing_is_404
def attempt_finish_view(request, pk: int):
    """Finishing a paper with blank parts asks first, listing them (no script needed:
    the confirmation is a page whose button posts again with confirm=1)."""
    attempt = selectors.attempt_get_for_user(user=request.user, pk=pk, write=True)
    if attempt.is_open and not attempt.quiz.adaptive and request.POST.get("confirm") != "1":
        page = queries.attempt_page(user=request.user, attempt=attempt, drafts={}, errors={})
        blanks = queries.blank_parts(page)
        if blanks:
            context = {"attempt": attempt, "blanks": blanks}
            return render(request, "frontend/take/finish_confirm.html", context)
    try:
        attempt_finish(attempt=attempt)
    except Conflict as err:
        messages.info(request, str(err))
    return redirect("attempt-detail", pk=pk)


@login_required
@missing_is_404
def question_detail(request, pk: int, qid: int):
    attempt = selectors.attempt_get_for_user(user=request.user, pk=pk)
    if attempt.learner_id == request.user.pk:
        attempt = answers.attempt_expire_if_due(attempt=attempt)
    page = queries.question_page(
        user=request.user,
        attempt=attempt,
        qid=qid,
        drafts=answers.drafts_get(request.session),
        errors=answers.errors_pop(request.session),
    )
    return render(request, "frontend/take/question.html", {"page": page})


@require_POST
@login_required
@missing_is_404
def question_answer(request, pk: int, qid: int):
    question = selectors.question_get_for_writer(user=request.user, attempt_pk=pk, pk=qid)
    attempt = question.attempt
    texts = answers.posted_texts(question, request.POST)
    submitted = answers.answers_submit(attempt=attempt, question=question, texts=texts)
    outcomes = submitted.outcomes
    unreadable = [o for o in outcomes if o.error and not o.refused]
    answers.drafts_clear(request.session, qid, [o.part for o in outcomes if o not in unreadable])
    answers.drafts_save(request.session, qid, {o.part: texts[o.part] for o in unreadable})
    reasons = [o.error for o in outcomes if o.refused]
    if reasons:
        answers.errors_flash(request.session, qid, unreadable)
        return refused(request, attempt, question, reasons)
    if not request.htmx:
        answers.errors_flash(request.session, qid, outcomes)
        return redirect(_checked_url(attempt, question, outcomes))
    if attempt.quiz.feedback_deferred:  # an autosave: its status, never the question again
        context = {"qv": {"saved_at": submitted.saved_at}, "outcomes": outcomes}
        return render(request, "frontend/take/_save_status.html", context)
    errors = {f"{qid}:{o.part}": o.error for o in unreadable}
    return _question_fragment(request, attempt, question, errors, outcomes)


@require_POST
@login_required
@missing_is_404
def question_reveal(request, pk: int, qid: int):
    """Show one part's answer (immediate feedback only); the service records the reveal,
    after which the part takes no more tries."""
    question = selectors.question_get_for_writer(user=request.user, attempt_pk=pk, pk=qid)
    attempt = question.attempt
    part = request.POST.get("part", "")
    try:
        part_reveal(attempt=attempt, question=question, part=part)
    except (Conflict, InvalidInput) as err:
        return refused(request, attempt, question, [str(err)])
    answers.drafts_clear(request.session, qid, [part])
    if request.htmx:
        return _question_fragment(request, attempt, question)
    return redirect(question_url(attempt, question))


@require_POST
@login_required
@missing_is_404
def question_hint(request, pk: int, qid: int):
    """The question's next hint, asked from one part (practice and homework; the policy
    refuses it in exams). The "Hint" button sits in the answer form, so what was typed
    comes along and is kept as a draft."""
    question = selectors.question_get_for_writer(user=request.user, attempt_pk=pk, pk=qid)
    attempt = question.attempt
    answers.drafts_save(request.session, question.pk, answers.posted_texts(question, request.POST))
    try:
        hint_request(attempt=attempt, question=question, part=request.POST.get("hint-part", ""))
    except (Conflict, InvalidInput) as err:
        return refused(request, attempt, question, [str(err)])
    if request.htmx:
        return _question_fragment(request, attempt, question)
    return redirect(question_url(attempt, question))


@require_POST
@login_required
@missing_is_404
def question_vary(request, pk: int, qid: int):
    question = selectors.question_get_for_writer(user=request.user, attempt_pk=pk, pk=qid)
    attempt = question.attempt
    try:
        question = question_new_variant(attempt=attempt, question=question)
    except Conflict as err:
        messages.error(request, str(err))
    return redirect(question_url(attempt, question))
