"""An incident drill on the learner's pages: take an action, submit the diagnosis.

Gated like an answer (frontend.views.take.question_answer): only the attempt's writer
reaches the question, anyone else gets a 404 whatever the body. Each rendered form
carries its own idempotency key (take/_drill.html), so a double click or a resent form
takes its action once: the service returns the step the key took, and a disruptive act
never costs the safety point twice. Without JavaScript the view redirects back to the
question at the new step or the result (PRG); with htmx it answers with the question
block re-rendered. What the service refuses, and a body it cannot use (an action the
drill does not offer, a choice not in its lists, a missing field), is said as a message
on the page the learner is sent back to, never a 500.
"""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from api_common.http import missing_is_404
from api_common.service_errors import Conflict, IdempotencyMismatch, InvalidInput
from assess import selectors
from assess.services.drills import CHOSEN, drill_act, drill_submit
from frontend import answers, queries
from frontend.views.take import question_url, refused

# As the API's bodies (assess.api.serializers.drills): KEY:part fits the 100 of a key.
MAX_KEY, MAX_ACTION = 90, 64
STALE = "This form was out of date; nothing was done. Choose again."


def _key(request) -> str | None:
    key = request.POST.get("idempotency_key", "").strip()
    return key if 0 < len(key) <= MAX_KEY else None


def _back(request, attempt, question, anchor: str):
    url = question_url(attempt, question).split("#")[0] + f"#{anchor}"
    return redirect(url)


def _fragment(request, attempt, question, announce: str, just: str):
    """The question block as the policy shows it now: for a drill always the block
    (its steps are evidence, shown in every mode, unlike an exam answer's grade), with
    a line for the page's live region: the score only where the policy shows it."""
    (view,) = queries.question_views(
        attempt=attempt,
        questions=[question],
        drafts=answers.drafts_get(request.session),
        errors={},
    )
    if view.drill is not None and view.drill.score is not None:
        announce += f" Score: {round(view.drill.score * 100)}%."
    context = {"qv": view, "attempt": attempt, "drill_announce": announce, just: True}
    return render(request, "frontend/take/_question.html", context)


@require_POST
@login_required
@missing_is_404
def drill_act_view(request, pk: int, qid: int):
    question = selectors.question_get_for_writer(user=request.user, attempt_pk=pk, pk=qid)
    attempt = question.attempt
    key = _key(request)
    action = request.POST.get("action", "")
    if key is None:
        return refused(request, attempt, question, [STALE])
    if not 0 < len(action) <= MAX_ACTION:
        return refused(request, attempt, question, ["Choose one of the drill's actions."])
    try:
        result = drill_act(attempt=attempt, question=question, action=action, idempotency_key=key)
    except (Conflict, InvalidInput, IdempotencyMismatch) as err:
        return refused(request, attempt, question, [str(err)])
    step = result.step
    if not request.htmx:
        return _back(request, attempt, question, f"drill-{qid}-step-{step.number}")
    announce = f"Step {step.number}: {step.label}. Its output is shown."
    return _fragment(request, attempt, question, announce, "just_acted")


@require_POST
@login_required
@missing_is_404
def drill_submit_view(request, pk: int, qid: int):
    question = selectors.question_get_for_writer(user=request.user, attempt_pk=pk, pk=qid)
    attempt = question.attempt
    key = _key(request)
    chosen = {name: request.POST.get(name, "") for name in CHOSEN}
    missing = [name for name, value in chosen.items() if not value]
    if key is None:
        return refused(request, attempt, question, [STALE])
    if missing:
        reason = f"Choose the {', the '.join(missing)} before submitting; nothing was submitted."
        return refused(request, attempt, question, [reason])
    try:
        drill_submit(attempt=attempt, question=question, idempotency_key=key, **chosen)
    except (Conflict, InvalidInput, IdempotencyMismatch) as err:
        return refused(request, attempt, question, [str(err)])
    if not request.htmx:
        return _back(request, attempt, question, f"drill-{qid}-result")
    return _fragment(request, attempt, question, "Diagnosis submitted.", "just_submitted")
