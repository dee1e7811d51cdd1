"""The learner's and the instructor's journeys as data: every main page, with the state
that makes it heaviest (a worked solution showing, an exam reviewed, a gradebook with
scores), built from the demo data through the services.

`seed()` loads the real hardware, curricula, tracks and demo accounts, then practises,
reveals, answers and finishes as the demo learner would, and returns the pages by who
visits them. The layout and axe tests walk these; nothing here asserts.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.core.management import call_command

from assess.models import Attempt, Question, Quiz
from assess.services.attempts import attempt_finish, attempt_start
from assess.services.questions import practice_question_add
from assess.services.responses import response_submit
from assess.services.reveals import part_reveal
from capstone.models import Memo
from certify.models import Certificate
from curricula.models import Course, Lesson
from frontend.management.commands import load_demo as demo
from orgs.models import Team

COURSE = "learn-ai-infrastructure"
# A lesson whose practice draws kv-max-sequences: the widest worked solution there is.
KV_LESSON = "batching-and-the-memory-ceiling"
DEMO_PASSWORDS = {
    "learner": "learner-demo-pass",
    "instructor": "instructor-demo-pass",
    "manager": "manager-demo-pass",
}


@dataclass(frozen=True)
class Journeys:
    anonymous: dict[str, str]
    learner: dict[str, str]
    instructor: dict[str, str]
    manager: dict[str, str]


def _answer_all(attempt: Attempt, text_of) -> None:
    for question in attempt.questions.order_by("order"):
        for part in question.answers:
            response_submit(
                attempt=attempt,
                question=question,
                part=part["name"],
                text=text_of(part),
                idempotency_key=f"seed-{question.pk}-{part['name']}",
            )


def _right(part: dict) -> str:
    if part["kind"] == "choice":
        return str(part["value"])
    if part["kind"] == "integer":
        return str(int(part["value"]))
    return f"{part['value']!r} {part['unit']}".strip()


def _practice_with_solution(learner, lesson: Lesson) -> Question:
    """A practice question of the lesson with every part revealed: its worked solution
    shows. Draws until the lesson's kv-max-sequences comes up, if it links it."""
    slugs = set(lesson.template_links.values_list("template_slug", flat=True))
    for _ in range(12):
        practice = practice_question_add(learner=learner, lesson=lesson)
        question = practice.question
        if "kv-max-sequences" not in slugs or question.template_slug == "kv-max-sequences":
            break
        # Answered, the next draw moves on; a right answer keeps the sweep short.
        _answer_all_question(practice.attempt, question)
    for part in question.answers:
        part_reveal(attempt=practice.attempt, question=question, part=part["name"])
    return question


def _answer_all_question(attempt: Attempt, question: Question) -> None:
    for part in question.answers:
        response_submit(
            attempt=attempt,
            question=question,
            part=part["name"],
            text=_right(part),
            idempotency_key=f"seed-{question.pk}-{part['name']}",
        )


def seed() -> Journeys:
    for command in ("load_hardware", "load_curricula", "load_tracks", "load_demo"):
        call_command(command, verbosity=0)
    from django.contrib.auth import get_user_model

    users = {u.username: u for u in get_user_model().objects.all()}
    learner = users["learner"]
    course = Course.objects.get(slug=COURSE)
    lesson = Lesson.objects.get(slug=KV_LESSON)
    question = _practice_with_solution(learner, lesson)

    practice_quiz = Quiz.objects.get(course=course, title=demo.PRACTICE.title)
    practice_attempt, _ = attempt_start(quiz=practice_quiz, learner=learner)
    exam = Quiz.objects.get(course=course, title=demo.EXAM.title)
    reviewed, _ = attempt_start(quiz=exam, learner=learner)
    _answer_all(reviewed, _right)
    attempt_finish(attempt=reviewed)
    in_progress, _ = attempt_start(quiz=exam, learner=learner)
    first = in_progress.questions.order_by("order").first()

    memo = Memo.objects.filter(capstone__learner=learner).first()
    team = Team.objects.order_by("pk").first()
    certificate = Certificate.objects.order_by("issued_at").first()
    track = certificate.track.slug

    return Journeys(
        anonymous={
            "home": "/",
            "sign-in": "/accounts/login/",
            "password reset": "/accounts/password/reset/",
            "sign up": "/accounts/signup/",
            "sign in with your company": "/accounts/sso/",
            "quizzes (how to get in)": "/quizzes/",
            "not found": "/no-such-page/",
            "certificate (public)": f"/certificates/{certificate.pk}/",
        },
        learner={
            "home": "/",
            "courses": "/courses/",
            "course": f"/courses/{COURSE}/",
            "lesson": f"/lessons/{KV_LESSON}/",
            "dashboard": "/dashboard/",
            "quizzes": "/quizzes/",
            "exam start page": f"/quizzes/{exam.pk}/",
            "certification exam start page": f"/quizzes/{certificate.track.exam_id}/",
            "practice question with solution": (
                f"/attempts/{question.attempt_id}/q/{question.pk}/"
            ),
            "practice session": f"/attempts/{question.attempt_id}/",
            "practice quiz": f"/attempts/{practice_attempt.pk}/",
            "exam in progress": f"/attempts/{in_progress.pk}/",
            "exam question": f"/attempts/{in_progress.pk}/q/{first.pk}/",
            "exam review": f"/attempts/{reviewed.pk}/",
            "capstone": "/capstone/",
            "capstone write": "/capstone/write/",
            "email address": "/accounts/email/",
            "password change": "/accounts/password/change/",
            "personal API token": "/accounts/token/",
            "your data": "/accounts/data/",
            "delete my account": "/accounts/delete/",
            "capstone memo": f"/capstone/memos/{memo.pk}/",
            "certification": "/certify/",
            "certification track": f"/certify/{track}/",
            "hardware": "/hardware/",
            "compare": "/hardware/compare/?a=h100-sxm&b=mi300x",
            "roofline": "/hardware/roofline/?accelerator=h100-sxm&precision=bf16",
            "forbidden": "/teach/",
        },
        instructor={
            "teach": "/teach/",
            "quiz builder": "/teach/quizzes/new/",
            "template preview": "/teach/preview/?template=kv-max-sequences",
            "item analysis": f"/teach/quizzes/{exam.pk}/items/",
            "quiz gradebook": f"/teach/quizzes/{exam.pk}/gradebook/",
            "course gradebook": f"/teach/courses/{COURSE}/gradebook/",
            "progress": f"/teach/courses/{COURSE}/progress/",
            "learners": f"/teach/courses/{COURSE}/learners/",
            "course invitations": f"/teach/courses/{COURSE}/invitations/",
            "lms grades": f"/teach/quizzes/{exam.pk}/lms-grades/",
            "a learner's attempt": f"/attempts/{reviewed.pk}/",
            "memo queue": "/teach/memos/",
            "memo review": f"/teach/memos/{memo.pk}/",
        },
        manager={
            "teams": "/teams/",
            "team readiness": f"/teams/{team.pk}/",
            "engineer": f"/people/{certificate.holder.get_username()}/",
            "team invitations": f"/teams/{team.pk}/invitations/",
            "organisation members": f"/organisations/{team.organization.slug}/members/",
        },
    )
