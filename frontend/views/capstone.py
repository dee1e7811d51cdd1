"""The capstone pages: the learner's brief, writing the memo with a live preview, each
version's review, and the instructors' queue and decision form.

Every form posts and redirects (PRG); with htmx the preview and the review's status
answer with fragments. The review status polls only while the version is queued or
running, answers 204 while nothing changed (so a screen reader hears a change, not a
repeat every few seconds), and stops once the review is done or failed. What a service
refuses is said beside the field it names, never a 500.
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.cache import patch_vary_headers
from django.views.decorators.http import require_GET, require_POST

from api_common.http import missing_is_404
from api_common.service_errors import Conflict, InvalidInput, NotPermitted, TooSoon
from api_common.throttles import MemoPreviewThrottle, refused_for
from assess import selectors
from capstone import pages
from capstone.services import MAX_MEMO_CHARS, capstone_get_or_create, memo_decide, memo_submit
from frontend.memo_forms import DecisionForm, MemoForm

T = "frontend/capstone/"


def _unavailable(request, err):
    """The capstone's course is not loaded: say so instead of failing."""
    return render(request, T + "unavailable.html", {"reason": str(err)}, status=503)


@login_required
def capstone_home(request):
    try:
        page = pages.capstone_page(user=request.user)
    except Conflict as err:
        return _unavailable(request, err)
    return render(request, T + "home.html", {"page": page})


@require_POST
@login_required
def capstone_start(request):
    """Draw the learner's brief (once), enrolling them where the course allows it."""
    try:
        capstone_get_or_create(learner=request.user)
    except Conflict as err:
        return _unavailable(request, err)
    except NotPermitted as err:
        messages.error(request, str(err))
    return redirect("capstone")


def _number(value) -> int | None:
    try:
        return int(value) if value not in (None, "") else None
    except (TypeError, ValueError):
        raise Http404 from None


@login_required
def capstone_write(request):
    """Write version 1 or the next version; an approved memo takes no more."""
    try:
        ctx = pages.write_context(user=request.user)
    except Conflict as err:
        return _unavailable(request, err)
    form = MemoForm(request.POST or None, initial={"markdown": ctx.initial})
    preview, retry_after = None, None
    if request.method == "POST" and form.is_valid():
        text = form.cleaned_data["markdown"]
        try:
            version = memo_submit(learner=request.user, markdown=text)
        except (InvalidInput, Conflict, NotPermitted, TooSoon) as err:
            form.add_service_error(err)  # the form keeps the text: nothing is lost
            preview = _preview_of(text) if text.strip() else None
            retry_after = getattr(err, "retry_after", None)
        else:
            # Not "queued": with in-process Celery the review is done before this line;
            # the memo page's status line says where it is, and updates itself.
            messages.success(request, f"Version {version.number} submitted.")
            return redirect(
                reverse("capstone-memo", args=[version.memo_id]) + f"?v={version.number}"
            )
    context = {"ctx": ctx, "form": form, "preview": preview}
    if retry_after is not None:  # one version a minute (capstone.services)
        response = render(request, T + "write.html", context, status=429)
        response["Retry-After"] = str(retry_after)
        return response
    return render(request, T + "write.html", context, status=400 if form.errors else 200)


def _preview_of(text: str):
    if len(text) > MAX_MEMO_CHARS:
        return None
    return pages.memo_preview(text)


@require_POST
@login_required
def capstone_preview(request):
    """The memo rendered on the server: a fragment for htmx, else the writing page with
    the preview under the form (the "Preview" button works without JavaScript).

    Throttled per user (MemoPreviewThrottle): past the rate the answer is a 429 with
    Retry-After that says when the preview comes back, the text still in the form."""
    form = MemoForm(request.POST)
    form.is_valid()
    text = form.cleaned_data.get("markdown", "")
    wait = refused_for(request, MemoPreviewThrottle)
    too_long = len(text) > MAX_MEMO_CHARS
    preview = _preview_of(text) if wait is None else None
    context = {"preview": preview, "too_long": too_long, "throttled": wait}
    if request.htmx:
        context["limit"] = MAX_MEMO_CHARS
        response = render(request, T + "_preview.html", context, status=429 if wait else 200)
    else:
        try:
            ctx = pages.write_context(user=request.user)
        except Conflict as err:
            return _unavailable(request, err)
        context.update(ctx=ctx, form=form)
        response = render(request, T + "write.html", context, status=429 if wait else 200)
    if wait is not None:
        response["Retry-After"] = str(wait)
    return response


@login_required
@missing_is_404
def capstone_memo(request, pk: int):
    """A version's review (`?v=N`, the latest by default) for its learner or instructor."""
    page = pages.memo_page(user=request.user, pk=pk, number=_number(request.GET.get("v")))
    return render(request, T + "memo.html", {"page": page, "review": page.current})


@require_GET
@login_required
@missing_is_404
def capstone_memo_status(request, pk: int):
    """The polled status of one version: 204 while it is unchanged since `seen`, else
    the status line, the review block and the poller itself (out of band)."""
    number = _number(request.GET.get("v"))
    if number is None:
        raise Http404
    review = pages.review_state(user=request.user, pk=pk, number=number)
    if not request.htmx:
        return redirect(reverse("capstone-memo", args=[pk]) + f"?v={number}")
    if request.GET.get("seen") == review.state and review.polling:
        response = HttpResponse(status=204)
    else:
        response = render(request, T + "_status_update.html", {"review": review, "memo_id": pk})
    patch_vary_headers(response, ["HX-Request"])
    return response


# ------------------------------------------------------------------------ instructors


def _teacher_only(user) -> None:
    if not selectors.user_is_teacher(user=user):
        raise PermissionDenied


@login_required
def teach_memos(request):
    _teacher_only(request.user)
    queue = pages.memo_queue(user=request.user, page=request.GET.get("page") or 1)
    return render(request, T + "queue.html", {"queue": queue})


@login_required
@missing_is_404
def teach_memo(request, pk: int):
    """The latest version's review and the decision form (memo_decide); a memo the user
    does not teach is a 404, as the other /teach/ pages of one object are."""
    page = pages.decision_page(user=request.user, pk=pk)
    current = page.current
    criteria = (current.version.review or {}).get("criteria", []) if current else []
    initial = {"version": current.version.number} if current else {}
    form = DecisionForm(request.POST or None, criteria=criteria, initial=initial)
    if request.method == "POST" and form.is_valid():
        if current is None or form.cleaned_data["version"] != current.version.number:
            form.add_error(None, "A new version arrived since you opened this page: read it first.")
        else:
            try:
                decision = memo_decide(
                    instructor=request.user,
                    memo=page.memo,
                    decision=form.cleaned_data["decision"],
                    comment=form.cleaned_data.get("comment", ""),
                    adjustments=form.adjustments(),
                )
            except (InvalidInput, Conflict, NotPermitted) as err:
                form.add_service_error(err)
            else:
                messages.success(
                    request,
                    f"{decision.get_decision_display()}: version {current.version.number} "
                    f"of {page.memo.capstone.learner.get_username()}'s memo.",
                )
                return redirect("teach-memo", pk=pk)
    status = 400 if request.method == "POST" else 200
    return render(
        request, T + "decide.html", {"page": page, "review": current, "form": form}, status=status
    )
