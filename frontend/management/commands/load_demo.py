"""Demo accounts and two quizzes, so a fresh `make run` has something to click through.

Idempotent: users are created or reset to the documented passwords, the instructor role
is ensured, each quiz is created through quiz_create only if no quiz of that title
exists on the course, and the demo learner is enrolled (through enrolment_add, by the
staff account, so it works whether or not the course takes self-enrolment) in every
course the demo quizzes belong to: quizzes list only for enrolled learners. The
instructor also teaches the capstone's course, and the learner has a capstone memo (the
worked example with a GB/GiB slip planted, so the review names a mistake), submitted only
if they have none. Then the certification demo (see _demo_certify): the organisation
"Demo GPU Cloud", its manager, and the team "Inference on-call" with one certified and
one expired engineer beside the learner. Needs load_curricula and load_tracks first.
"""

from __future__ import annotations

from datetime import timedelta

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from assess.models import CourseRole, Quiz
from assess.services.enrolments import enrolment_add
from assess.services.quizzes import QuizSpec, SlotSpec, quiz_create
from capstone.memo_review.example import example_memo
from capstone.models import Memo
from capstone.services import (
    CAPSTONE_COURSE,
    capstone_brief,
    capstone_get_or_create,
    memo_submit,
)
from curricula.models import Course
from frontend.management.commands._demo_certify import demo_track, load_certification

COURSE = "learn-ai-infrastructure"
ACCOUNTS = (
    # username, password, staff, what
    ("learner", "learner-demo-pass", False, "a learner"),
    ("instructor", "instructor-demo-pass", False, f"instructor of {COURSE}"),
    ("admin", "admin-demo-pass", True, "staff (and superuser, for /admin/)"),
    ("manager", "manager-demo-pass", False, "manager of Demo GPU Cloud (/teams/)"),
    ("oncall", "oncall-demo-pass", False, "an engineer certified for inference on-call"),
    ("lapsed", "lapsed-demo-pass", False, "an engineer whose certificate expired"),
)
NAMES = {"manager": ("Morgan", "Lee"), "oncall": ("Priya", "Raman"), "lapsed": ("Sam", "Okafor")}
PRACTICE = QuizSpec(
    title="Demo practice: memory, KV cache and rooflines",
    mode=Quiz.Mode.PRACTICE,
    course_slug=COURSE,
    slots=[
        SlotSpec(["weights-memory"]),
        SlotSpec(["kv-cache-per-token", "kv-cache-total"]),
        SlotSpec(["roofline-ridge", "roofline-attainable"]),
        SlotSpec(["training-memory-adam"]),
    ],
    pass_mark=0.5,
)
EXAM = QuizSpec(
    title="Demo exam: sizing a deployment (10 minutes)",
    mode=Quiz.Mode.EXAM,
    course_slug=COURSE,
    time_limit=timedelta(minutes=10),
    attempts_allowed=3,
    slots=[
        SlotSpec(["weights-memory"]),
        SlotSpec(["kv-cache-total"]),
        SlotSpec(["kv-max-sequences"]),
        SlotSpec(["allreduce-ring-time"], points=2),
        SlotSpec(["checkpoint-young", "checkpoint-write-time"]),
    ],
    pass_mark=0.6,
)


class Command(BaseCommand):
    help = (
        "Create the demo accounts, two demo quizzes, and a team with certified and expired "
        "engineers."
    )

    @transaction.atomic
    def handle(self, *args, **options):
        course = Course.objects.filter(slug=COURSE).first()
        if course is None:
            raise CommandError(f"Course {COURSE!r} is not loaded: run load_curricula first.")
        track = demo_track()  # fails clearly before anything is written
        users = {}
        for username, password, staff, _what in ACCOUNTS:
            user, _ = get_user_model().objects.get_or_create(
                username=username, defaults={"email": f"{username}@example.com"}
            )
            user.set_password(password)
            user.is_staff = user.is_superuser = staff
            user.first_name, user.last_name = NAMES.get(username, ("", ""))
            user.save()
            users[username] = user
        CourseRole.objects.get_or_create(
            user=users["instructor"], course=course, role=CourseRole.Role.INSTRUCTOR
        )
        courses = {}
        for spec in (PRACTICE, EXAM):
            quiz = Quiz.objects.filter(title=spec.title, course=course).first()
            state = "exists"
            if quiz is None:
                quiz = quiz_create(user=users["instructor"], spec=spec)
                state = "created"
            courses[quiz.course.slug] = quiz.course
            self.stdout.write(f"quiz {quiz.pk} ({quiz.get_mode_display()}): {quiz.title} [{state}]")
        for demo_course in courses.values():
            _, created = enrolment_add(
                actor=users["admin"], course=demo_course, username=users["learner"].username
            )
            state = "created" if created else "exists"
            self.stdout.write(f"learner enrolled in {demo_course.slug} [{state}]")
        self._capstone(users)
        load_certification(self.stdout, users, track)
        self.stdout.write("Demo accounts (sign in at /accounts/login/):")
        for username, password, _staff, what in ACCOUNTS:
            self.stdout.write(f"  {username:<11} {password:<22} {what}")

    def _capstone(self, users) -> None:
        capstone_course = Course.objects.filter(slug=CAPSTONE_COURSE).first()
        if capstone_course is None:
            raise CommandError(f"Course {CAPSTONE_COURSE!r} is not loaded: run load_curricula.")
        CourseRole.objects.get_or_create(
            user=users["instructor"], course=capstone_course, role=CourseRole.Role.INSTRUCTOR
        )
        enrolment_add(actor=users["admin"], course=capstone_course, username="learner")
        capstone = capstone_get_or_create(learner=users["learner"], course=capstone_course)
        if Memo.objects.filter(capstone=capstone).exists():
            self.stdout.write("capstone memo [exists]")
            return
        text = example_memo(capstone_brief(capstone), mistakes=("gb-vs-gib",))
        version = memo_submit(learner=users["learner"], markdown=text)
        self.stdout.write(f"capstone memo {version.memo_id} v{version.number} [created]")
