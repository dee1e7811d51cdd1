"""What the contract tests do behind the API's back, inside the served app's environment.

Run as a subprocess with the server's settings and DATABASE_URL (never imported by the
tests themselves, whose Django points at pytest's test database):

    python -m tests.contract.backstage seed OUT.json   # migrate, load the catalogue, make accounts
    python -m tests.contract.backstage answers QID     # the stored answers of one question

`seed` prepares what no API operation can make (accounts, roles, tokens) and the few
objects the schemathesis runs need to reach past 404 (an open practice attempt, a staff
quiz with no course); everything the generated-client tests check is done through the API.
`answers` is the test's answer key: the API never sends a part's value before it may show.
"""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import yaml

PASSWORD = "contract-pass-0123"  # noqa: S105 - a throwaway account in a throwaway database
COURSE = "learn-ai-infrastructure"  # load_demo's course; its instructor is `instructor`
AUTHORED_EXAMPLE = (
    Path(__file__).parents[1] / "problems" / "authored" / "data" / "team-kv-budget.yaml"
)


def _seed() -> dict:
    from datetime import timedelta

    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.utils import timezone
    from rest_framework.authtoken.models import Token

    from assess.models import CourseRole, Quiz
    from assess.services.attempts import attempt_start
    from assess.services.questions import practice_question_add
    from assess.services.quizzes import QuizSpec, SlotSpec, quiz_create
    from authoring.services import create_unchecked
    from capstone.memo_review.example import example_memo
    from capstone.models import MemoVersion
    from capstone.services import (
        CAPSTONE_COURSE,
        capstone_brief,
        capstone_get_or_create,
        memo_submit,
    )
    from certify.models import Certificate, Track
    from curricula.models import Course, Lesson
    from hardware_db.models import Accelerator, Link, ModelArchitecture, Server
    from orgs.models import Membership
    from orgs.services import member_add, organization_create, team_create, team_member_add
    from problems.engine import registry

    quiet = io.StringIO()
    call_command("migrate", "--noinput", verbosity=0)
    for command in ("load_hardware", "load_curricula", "load_tracks", "load_demo"):
        call_command(command, stdout=quiet)

    users = get_user_model().objects
    course = Course.objects.get(slug=COURSE)

    def account(username: str):
        user, _ = users.get_or_create(username=username, defaults={"email": f"{username}@x.test"})
        user.set_password(PASSWORD)
        user.save()
        return user

    # The generated-client tests: learners enrolled nowhere (one per test, so a test that
    # fails half-way leaves the others' state alone), and load_demo's instructor and staff.
    client_users = {name: account(f"contract-{name}") for name in ("learner", "enrollee", "taker")}
    client_users["instructor"] = users.get(username="instructor")
    client_users["staff"] = users.get(username="admin")
    # The schemathesis runs: their own accounts, so what the fuzzer enrols, removes or
    # answers never touches the accounts above.
    st_learner = account("st-learner")
    st_instructor = account("st-instructor")
    CourseRole.objects.get_or_create(
        user=st_instructor, course=course, role=CourseRole.Role.INSTRUCTOR
    )
    staff = users.get(username="admin")
    open_quiz = quiz_create(
        user=staff,
        spec=QuizSpec(
            title="Contract: a quiz open to everyone",
            mode=Quiz.Mode.PRACTICE,
            slots=[SlotSpec(["weights-memory"])],
        ),
    )
    lesson = (
        Lesson.objects.filter(module__course=course, template_links__isnull=False)
        .order_by("module__order", "order")
        .first()
    )
    fuzzers = (("learner", st_learner), ("instructor", st_instructor))
    # Each fuzzing account answers one question of an open practice attempt, reveals and
    # asks for variants of another (a reveal closes a part to answers), and finishes a
    # separate quiz attempt (a finish closes the whole attempt).
    practice = {name: practice_question_add(learner=user, lesson=lesson) for name, user in fuzzers}
    to_reveal = {name: practice_question_add(learner=user, lesson=lesson) for name, user in fuzzers}
    to_finish = {name: attempt_start(quiz=open_quiz, learner=user)[0] for name, user in fuzzers}
    # An incident drill for each fuzzing account, so the drill operations reach past 404
    # and 400: actions taken (201, replayed 200, refused after the submission 409) and
    # diagnoses submitted.
    drill_quiz = quiz_create(
        user=staff,
        spec=QuizSpec(
            title="Contract: an incident drill",
            mode=Quiz.Mode.PRACTICE,
            slots=[SlotSpec(["drill-gpu-off-bus"])],
        ),
    )
    drills = {name: attempt_start(quiz=drill_quiz, learner=user)[0] for name, user in fuzzers}
    drill_questions = {name: a.questions.get() for name, a in drills.items()}
    some_drill = next(iter(drill_questions.values()))
    drill_kind = registry.get(some_drill.template_slug)
    drill = drill_kind.drill(drill_kind.parse_params(some_drill.params))
    # A reviewed capstone memo of the fuzzing learner, in a course the fuzzing instructor
    # teaches: the memo operations reach past 404 (versions, reads, decisions).
    capstone_course = Course.objects.get(slug=CAPSTONE_COURSE)
    CourseRole.objects.get_or_create(
        user=st_instructor, course=capstone_course, role=CourseRole.Role.INSTRUCTOR
    )
    capstone = capstone_get_or_create(learner=st_learner, course=capstone_course)
    memo_version = memo_submit(
        learner=st_learner, markdown=example_memo(capstone_brief(capstone), mistakes=("gb-vs-gib",))
    )
    # A draft authored template of the course the fuzzing instructor writes for, so the
    # authoring operations reach past 404 (read, new versions, publish, archive).
    authored = create_unchecked(
        course=course, data=yaml.safe_load(AUTHORED_EXAMPLE.read_text()), user=st_instructor
    )
    # An organisation the fuzzing instructor manages, with the fuzzing learner on a team,
    # and a certificate of that learner (made directly: issuing one through the API would
    # take a passed exam and mastered skills), so the certification operations reach
    # past 404: readiness, check, verify and revoke (final, so the verify that follows
    # sees a revoked certificate, which is one of its documented answers).
    org = organization_create(slug="contract-org", name="Contract org")
    member_add(organization=org, user=st_instructor, role=Membership.Role.MANAGER)
    team = team_create(organization=org, slug="contract-team", name="Contract team")
    team_member_add(team=team, user=st_learner)
    track = Track.objects.order_by("order").first()
    certificate = Certificate.objects.create(
        holder=st_learner,
        track=track,
        expires_at=timezone.now() + timedelta(days=track.validity_days),
        evidence={"track": track.slug},
    )
    tokens = {
        "learner": Token.objects.get_or_create(user=st_learner)[0].key,
        "instructor": Token.objects.get_or_create(user=st_instructor)[0].key,
    }
    # Lessons to practise and a course to join outside the demo course, where the demo
    # instructor teaches (and the demo learner is enrolled).
    others = [c for c in Course.objects.order_by("order", "slug") if c.slug != COURSE]
    practice_lesson = (
        Lesson.objects.filter(module__course=others[0], template_links__isnull=False)
        .order_by("module__order", "order")
        .first()
    )
    return {
        "password": PASSWORD,
        "course": COURSE,
        "client": {
            "usernames": {name: user.get_username() for name, user in client_users.items()},
            "tokens": {
                name: Token.objects.get_or_create(user=user)[0].key
                for name, user in client_users.items()
            },
            "practice_lesson": practice_lesson.slug,
            "practice_course": others[0].slug,
            "enrol_course": others[1].slug,
        },
        "schemathesis": {
            "tokens": tokens,
            "attempts": {name: p.attempt.pk for name, p in practice.items()},
            "attempts_to_finish": {name: a.pk for name, a in to_finish.items()},
            "questions": {name: p.question.pk for name, p in practice.items()},
            "questions_to_reveal": {name: p.question.pk for name, p in to_reveal.items()},
            "drill_attempts": {name: a.pk for name, a in drills.items()},
            "drill_questions": {name: q.pk for name, q in drill_questions.items()},
            "drill_actions": ["squeue", "sinfo-R", drill.expert_path[-1]],
            "drill_choices": {
                "fault": sorted(drill.fault_kinds)[:3],
                "location": sorted(drill.locations)[:3],
                "remedy": sorted(drill.remedies)[:3],
            },
            "parts": sorted(
                {
                    a["name"]
                    for p in (*practice.values(), *to_reveal.values())
                    for a in p.question.answers
                }
            ),
            "open_quiz": open_quiz.pk,
            "memo": memo_version.memo_id,
            "authored": [authored.slug],
            "teams": [team.pk],
            "certificates": [certificate.pk],
            "criteria": sorted(
                c["code"] for c in MemoVersion.objects.get(pk=memo_version.pk).review["criteria"]
            ),
        },
        "courses": sorted(Course.objects.values_list("slug", flat=True)),
        "lessons": sorted(
            Lesson.objects.filter(template_links__isnull=False)
            .values_list("slug", flat=True)
            .distinct()
        ),
        "templates": sorted(
            {t for q in Quiz.objects.all() for s in q.slots.all() for t in s.templates}
        ),
        "quizzes": sorted(Quiz.objects.values_list("pk", flat=True)),
        "tracks": sorted(Track.objects.values_list("slug", flat=True)),
        "usernames": sorted(users.values_list("username", flat=True)),
        "hardware": {
            "accelerators": sorted(Accelerator.objects.values_list("slug", flat=True)),
            "links": sorted(Link.objects.values_list("slug", flat=True)),
            "servers": sorted(Server.objects.values_list("slug", flat=True)),
            "models": sorted(ModelArchitecture.objects.values_list("slug", flat=True)),
        },
    }


def _answers(question_id: int) -> list[dict]:
    from assess.models import Question

    return Question.objects.get(pk=question_id).answers


def main(argv: list[str]) -> int:
    import django

    django.setup()
    command, arg = argv
    if command == "seed":
        with open(arg, "w") as out:
            json.dump(_seed(), out, indent=1)
    elif command == "answers":
        json.dump(_answers(int(arg)), sys.stdout)
    else:
        raise SystemExit(f"unknown command {command!r}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
