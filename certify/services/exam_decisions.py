"""Decide finished certification exams, once each, and set a track's cut.

Every evaluation of a learner's certificates (certificates_issue_due: after an exam,
an answer that moved mastery, a memo's approval, the beat) first records the decision of
each of their finished track exams that has none, so the rule an attempt was passed or
failed by is fixed when it is first read and never changes with a later calibration or
standard setting (certify.psychometrics.standard_setting.decide says which rule applies).

A cut is set by staff from modified Angoff ratings on the latest calibration's scale
(`standard_set`), as a new version of the track's standard; the attempts decided under
an earlier version keep it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from django.db import IntegrityError, transaction

from api_common.service_errors import InvalidInput, NotPermitted
from assess.models import Attempt
from assess.scoring import Rules, attempt_score, counted_responses
from assess.skills import is_drill
from audit.models import AuditEvent
from audit.services import audit_record
from certify.models import Calibration, ExamDecision, StandardSetting, Track
from certify.psychometrics.standard_setting import StandardSettingError, angoff_cut, decide

# A template scores on the ability scale only once its calibration rests on this many
# answers: with fewer, its difficulty's standard error is of the order of the cut's
# distance from the mean, and the raw-score rule is the fairer one.
MIN_ITEM_RESPONSES = 200
ENDED = (Attempt.Status.FINISHED, Attempt.Status.EXPIRED)


def _latest_setting(track: Track) -> StandardSetting | None:
    return track.standard_settings.order_by("-version").first()


def exam_decide(*, attempt: Attempt, track: Track) -> ExamDecision:
    """Record the decision of one finished attempt of the track's exam (or return the
    one recorded already: a racing evaluation may have written it first)."""
    questions = list(attempt.questions.filter(active=True).select_related("slot"))
    responses = list(attempt.responses.filter(question__active=True))
    rules = Rules.of(attempt.quiz)
    per_question = attempt_score(questions, responses, rules).per_question
    counted = {(r.question_id, r.part): r for r in counted_responses(responses, rules)}
    items, drills = [], []
    for q in questions:
        if is_drill(q.template_slug):
            drills.append(per_question[q.pk])
            continue
        first = q.answers[0]["name"] if q.answers else None
        answer = counted.get((q.pk, first))
        items.append((q.template_slug, int(bool(answer and answer.correct))))
    setting = _latest_setting(track)
    params = {}
    if setting is not None:
        params = {
            p.template_slug: (p.discrimination, p.difficulty, p.n)
            for p in setting.calibration.items.all()
        }
    rule = decide(
        score=attempt.score or 0.0,
        pass_mark=attempt.quiz.pass_mark,
        items=items,
        drill_scores=drills,
        cut=None if setting is None else setting.cut_theta,
        params=params,
        min_responses=MIN_ITEM_RESPONSES,
    )
    try:
        with transaction.atomic():
            return ExamDecision.objects.create(
                attempt=attempt,
                rule=rule.rule,
                passed=rule.passed,
                reason=rule.reason,
                theta=rule.theta,
                se=rule.se,
                cut=rule.cut,
                standard_setting=setting if rule.rule == ExamDecision.Rule.ABILITY else None,
                drills_passed=all(s >= 0.6 - 1e-9 for s in drills),
            )
    except IntegrityError:
        return ExamDecision.objects.get(attempt=attempt)


def exam_decisions_record(*, user_id: int) -> list[ExamDecision]:
    """Decide every finished track exam of the learner that has no decision yet."""
    tracks = {t.exam_id: t for t in Track.objects.all()}
    pending = (
        Attempt.objects.filter(
            learner_id=user_id,
            quiz_id__in=list(tracks),
            status__in=ENDED,
            score__isnull=False,
            exam_decision__isnull=True,
        )
        .select_related("quiz")
        .order_by("pk")
    )
    return [exam_decide(attempt=a, track=tracks[a.quiz_id]) for a in pending]


def standard_set(*, user, track: Track, ratings: Mapping[str, Sequence[float]]) -> StandardSetting:
    """A new version of the track's cut, from modified Angoff ratings ({template: [each
    rater's probability that a minimally competent candidate answers it right]}) mapped
    through the latest calibration's test characteristic curve. Staff only; audited.
    InvalidInput (field `ratings`) names the template or rating at fault."""
    if not user.is_staff:
        raise NotPermitted("Only staff set a track's cut score.")
    calibration = Calibration.objects.order_by("-fitted_at", "-id").first()
    if calibration is None:
        raise InvalidInput("No calibration yet: run `certify calibrate` first.", field="ratings")
    pools = {t for slot in track.exam.slots.all() for t in slot.templates if not is_drill(t)}
    strangers = sorted(set(ratings) - pools)
    if strangers:
        raise InvalidInput(
            f"{strangers[0]}: not a scored template of the {track.slug} exam's pools",
            field="ratings",
        )
    params = {p.template_slug: (p.discrimination, p.difficulty) for p in calibration.items.all()}
    try:
        cut = angoff_cut(ratings, params)
    except StandardSettingError as err:
        raise InvalidInput(str(err), field="ratings") from None
    with transaction.atomic():
        latest = _latest_setting(track)
        setting = StandardSetting.objects.create(
            track=track,
            version=1 if latest is None else latest.version + 1,
            calibration=calibration,
            ratings={t: [float(r) for r in rs] for t, rs in ratings.items()},
            cut_theta=cut.theta,
            borderline_score=cut.borderline_score,
            set_by=user,
        )
        audit_record(
            actor=user,
            action=AuditEvent.Action.STANDARD_SET,
            target=setting,
            detail={"track": track.slug, "version": setting.version, "cut": cut.theta},
        )
    return setting
