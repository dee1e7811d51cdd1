"""assess.selectors.learner_rows: each statement reads what the queryset it replaced
reads, on the same data, value and type (tests/api_common/test_sql_equivalence.py
lists them); run on SQLite by `make test` and on PostgreSQL by .ci/run's second pass."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model

from assess.models import Quiz, SkillMastery, StartedTemplate
from assess.selectors import learner_rows
from assess.services.attempts import attempt_start
from assess.services.responses import response_submit
from tests.assess.helpers import correct_text
from tests.factories import QuizFactory, UserFactory

pytestmark = pytest.mark.django_db


def typed(rows) -> list[list[tuple]]:
    """Each value with its type's name: 1 and 1.0, 1 and True told apart."""
    return sorted([(type(v).__name__, v) for v in row] for row in rows)


@pytest.fixture
def people():
    """Four learners, one with no name and one with an empty email, three with
    estimates (one on a skill no one asks about) and two with answers."""
    users = [
        UserFactory(username="b-ada", first_name="Ada", last_name="Lovelace"),
        UserFactory(username="a-bo", first_name="", last_name="", email=""),
        UserFactory(username="c-cy"),
        UserFactory(username="d-di"),
    ]
    for user, skill, p, n in [
        (users[0], "bytes", 0.97, 4),
        (users[0], "kv", 0.5, 0),
        (users[1], "kv", 0.2, 2),
        (users[2], "elsewhere", 0.9, 1),
    ]:
        SkillMastery.objects.create(learner=user, skill=skill, p_mastery=p, responses=n)
    quiz = QuizFactory(mode=Quiz.Mode.HOMEWORK, slots=[["gb-gib"], ["weights-memory"]])
    for user in users[:2]:
        attempt, _ = attempt_start(quiz=quiz, learner=user)
        for question in attempt.questions.all()[: 1 if user is users[1] else 2]:
            part = question.answers[0]
            response_submit(attempt=attempt, question=question, part=part["name"],
                            text=correct_text(part), idempotency_key=str(question.pk))  # fmt: skip
    return [u.pk for u in users]


def test_people_are_what_their_queryset_reads_in_the_order_asked(people):
    asked = [people[2], people[0], people[1], 10**9]  # one who is not there is left out
    want = get_user_model().objects.in_bulk(asked)
    want = [tuple(getattr(want[pk], f) for f in learner_rows.PERSON) for pk in asked if pk in want]
    got = learner_rows.people_of(asked)
    assert [[(type(v).__name__, v) for v in row] for row in got] == [
        [(type(v).__name__, v) for v in row] for row in want
    ]
    assert learner_rows.people_of([]) == []


def test_started_rows_are_what_their_queryset_reads(people):
    want = StartedTemplate.objects.filter(learner_id__in=people[:3])
    want = want.values_list("learner_id", "template_slug")
    got = learner_rows.started_rows(people[:3])
    assert len(want) == 3 and typed(got) == typed(want)
    assert learner_rows.started_rows([]) == []


def test_estimate_rows_are_what_their_queryset_reads(people):
    skills = ["bytes", "kv", "watts"]
    want = SkillMastery.objects.filter(learner_id__in=people, skill__in=skills)
    want = want.values_list("learner_id", "skill", "p_mastery", "responses")
    got = learner_rows.estimate_rows(people, skills)
    assert len(want) == 3 and typed(got) == typed(want)
    assert learner_rows.estimate_rows(people, []) == learner_rows.estimate_rows([], skills) == []
