"""The chaos run's steps inside Django on the private database (bench/chaos.py): the
seed, and at the end the beat's requeues (`requeue`, below).

    python bench/_chaos_seed.py OUT LMS_BASE LEARNERS LMS_LEARNERS

Through the services where there is one: a course with a practice quiz and an exam (any
number of attempts, grades released at each finish), LEARNERS - LMS_LEARNERS learners
enrolled with tokens, each with a capstone brief drawn and an example memo written
against it (the client cannot draw briefs), and the test LMS at LMS_BASE registered with
a deployment authorised for the course. The LMS_LEARNERS others exist only in the LMS:
their first launch of the exam link creates their account, enrolment, LMS membership,
context and resource link here, as it would in production. Writes the fixture the
clients read.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

TEMPLATES = ["gb-gib", "weights-memory", "kv-cache-total", "roofline-attainable", "littles-law"]


def _quiz(staff, course, title: str, mode: str):
    from assess.services.quizzes import QuizSpec, SlotSpec, quiz_create

    spec = QuizSpec(
        title=title,
        mode=mode,
        slots=[SlotSpec(templates=[t]) for t in TEMPLATES],
        course_slug=course.slug,
    )
    return quiz_create(user=staff, spec=spec)


def _lms(course, lms_base: str, count: int) -> list[str]:
    """The test LMS's registration and a deployment authorised for `course`; the subs of
    its `count` learners."""
    from lti_tool.models import Key, LtiDeployment, LtiRegistration

    from bench._chaos_lms import CLIENT_ID, DEPLOYMENT_ID
    from lti.models import DeploymentCourse

    Key.objects.generate()
    registration = LtiRegistration.objects.create(
        name="Chaos test LMS",
        issuer=lms_base,
        client_id=CLIENT_ID,
        auth_url=f"{lms_base}/auth",
        token_url=f"{lms_base}/token",
        keyset_url=f"{lms_base}/jwks",
    )
    deployment = LtiDeployment.objects.create(
        registration=registration, deployment_id=DEPLOYMENT_ID, is_active=True
    )
    DeploymentCourse.objects.create(deployment=deployment, course=course)
    return [f"lms-learner-{k}" for k in range(count)]


def main(out: Path, lms_base: str, count: int, lms_count: int) -> None:
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from rest_framework.authtoken.models import Token

    from assess.services.enrolments import enrolment_add
    from bench._chaos_lms import CLIENT_ID, DEPLOYMENT_ID
    from capstone.memo_review import kept
    from capstone.memo_review.example import example_memo
    from capstone.models import Capstone
    from capstone.services import CAPSTONE_COURSE, capstone_brief
    from curricula.models import Course

    users = get_user_model().objects
    staff = users.create_user(username="chaos-staff", password=None, is_staff=True)
    course = Course.objects.create(slug="chaos", title="Chaos", summary=".", order=1)
    capstones = Course.objects.create(
        slug=CAPSTONE_COURSE, title="Foundations", summary=".", order=0
    )
    practice = _quiz(staff, course, "Chaos practice", "practice")
    exam = _quiz(staff, course, "Chaos exam", "exam")
    rows = []
    for k in range(count - lms_count):
        user = users.create_user(username=f"chaos-{k}", password=None)
        enrolment_add(actor=staff, course=course, username=user.username)
        brief, version = kept.draw(1000 + k)
        capstone = Capstone.objects.create(
            learner=user, course=capstones, seed=1000 + k, brief=brief, brief_version=version
        )
        rows.append(
            {
                "token": Token.objects.create(user=user).key,
                "memo": example_memo(capstone_brief(capstone)),
                "lms_sub": None,
            }
        )
    subs = _lms(course, lms_base, lms_count)
    rows += [{"token": None, "memo": None, "lms_sub": sub} for sub in subs]
    out.write_text(
        json.dumps(
            {
                "practice": practice.pk,
                "exam": exam.pk,
                "learners": rows,
                "staff": staff.pk,
                "lms": {"issuer": lms_base, "client_id": CLIENT_ID, "deployment_id": DEPLOYMENT_ID},
            }
        )
    )


def requeue() -> None:
    """`python bench/_chaos_seed.py requeue`: the beat's two requeues, run now as if
    their deadlines had passed (every review queued or running, every pending score);
    prints how many each queued. Delivery is idempotent, so one queued twice is done
    once."""
    import django

    django.setup()
    from datetime import timedelta

    from django.utils import timezone

    from capstone.services import memo_reviews_requeue_stuck
    from lti.grades import STALE_AFTER, scores_requeue_stale

    reviews = memo_reviews_requeue_stuck(after=timedelta(0))
    scores = scores_requeue_stale(now=timezone.now() + STALE_AFTER)
    print(json.dumps({"reviews": reviews, "scores": scores}))


if __name__ == "__main__":
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "bench.settings_chaos")
    if sys.argv[1:] == ["requeue"]:
        requeue()
    else:
        main(Path(sys.argv[1]), sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
