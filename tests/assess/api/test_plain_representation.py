"""PlainRepresentation writes exactly what DRF's own Serializer.to_representation writes,
on the payloads the API really sends: while the flows below run (practice with wrong,
right and revealed parts; an exam before and after its grades show; staff reading a
learner's attempt), each call also runs DRF's path on the same instance and the two must
be equal. tests/api_common/test_representation.py tries the plan's edge cases."""

from __future__ import annotations

import pytest
from rest_framework import serializers

from api_common.representation import PlainRepresentation
from assess.api import serializers as api_serializers
from assess.api.serializers.questions import PartStatusSerializer, ReviewPartSerializer
from assess.models import Attempt, Question
from assess.selectors.review import question_review
from tests.assess.helpers import answer, parts_of, reveal
from tests.factories import QuizFactory, UserFactory

pytestmark = [pytest.mark.django_db, pytest.mark.urls("tests.assess.urls")]

USERS = [
    cls
    for cls in vars(api_serializers).values()
    if isinstance(cls, type) and issubclass(cls, PlainRepresentation)
]


@pytest.fixture
def checked(monkeypatch):
    """Counts, per class, the calls whose plain output matched DRF's; a mismatch fails."""
    seen: dict[type, int] = {}
    plain = PlainRepresentation.to_representation

    def both(self, instance):
        ours = plain(self, instance)
        theirs = serializers.Serializer.to_representation(self, instance)
        assert ours == theirs, type(self).__name__
        seen[type(self)] = seen.get(type(self), 0) + 1
        return ours

    monkeypatch.setattr(PlainRepresentation, "to_representation", both)
    return seen


def _practice_flow(api, learner_quiz) -> int:
    body = api.post(f"/api/quizzes/{learner_quiz.pk}/attempts/").json()
    aid = body["id"]
    first, second = body["questions"][0]["id"], body["questions"][1]["id"]
    part = parts_of(first)[0]
    hint = f"/api/attempts/{aid}/questions/{first}/hints/"
    assert api.post(hint, {"part": part["name"]}, format="json").status_code == 200
    assert answer(api, aid, first, part, correct=False).status_code == 201
    assert answer(api, aid, first, part, correct=True).status_code == 201
    assert reveal(api, aid, second, parts_of(second)[0]["name"]).status_code == 200
    assert api.get(f"/api/attempts/{aid}/").status_code == 200
    assert api.post(f"/api/attempts/{aid}/finish/").status_code == 200
    assert api.get(f"/api/attempts/{aid}/").status_code == 200
    return aid


def test_every_plain_serializer_matches_drf_on_the_api_flows(checked, client_for, staff):
    learner = UserFactory()
    api = client_for(learner)
    practice = QuizFactory(slots=[["gb-gib"], ["weights-memory"], ["kv-cache-total"]])
    aid = _practice_flow(api, practice)

    exam = QuizFactory(mode="exam", slots=[["roofline-ridge"], ["gb-gib"]])
    body = api.post(f"/api/quizzes/{exam.pk}/attempts/").json()
    qid = body["questions"][0]["id"]
    assert answer(api, body["id"], qid, parts_of(qid)[0]).status_code == 201
    assert api.get(f"/api/attempts/{body['id']}/").status_code == 200
    assert api.post(f"/api/attempts/{body['id']}/finish/").status_code == 200
    assert api.get(f"/api/attempts/{body['id']}/").status_code == 200

    assert client_for(staff).get(f"/api/attempts/{aid}/").status_code == 200
    missing = [cls.__name__ for cls in USERS if cls not in checked]
    assert not missing, f"not exercised by the flows: {missing}"


def test_a_question_s_parts_statuses_are_each_part_s_own(client_for):
    """One PartStatusSerializer writes every part's status of a question (ReviewPart-
    Serializer.get_status): each must still be its own part's, as a serializer made for
    that part alone writes it, whatever the order the parts are written in."""
    learner = UserFactory()
    api = client_for(learner)
    quiz = QuizFactory(mode="practice", slots=[["accelerator-ranking"]])
    body = api.post(f"/api/quizzes/{quiz.pk}/attempts/").json()
    qid = body["questions"][0]["id"]
    parts = parts_of(qid)
    assert answer(api, body["id"], qid, parts[0], correct=True).status_code == 201
    assert answer(api, body["id"], qid, parts[1], correct=False).status_code == 201
    question = Question.objects.get(pk=qid)
    attempt = Attempt.objects.select_related("quiz").get(pk=body["id"])
    review = question_review(user=learner, attempt=attempt, question=question)
    writer = ReviewPartSerializer()
    writer.question_policy = review.policy
    for order in (parts, parts[::-1]):
        got = {p["name"]: writer.get_status(p) for p in order}
        want = {p["name"]: PartStatusSerializer(review.policy.parts[p["name"]]).data for p in order}
        assert got == want
    assert len({str(s) for s in got.values()}) >= 2  # the parts stand differently
    listed = api.get(f"/api/attempts/{body['id']}/").json()["questions"][0]["parts"]
    assert [p["status"] for p in listed] == [want[p["name"]] for p in parts]


def test_each_question_of_a_read_writes_its_parts_under_its_own_policy(client_for):
    """One ReviewPartSerializer writes the parts of every question of an attempt's read,
    given each question's policy in turn: two variants of one template (the same part
    names), one solved and one untouched, each read as it stands."""
    api = client_for(UserFactory())
    quiz = QuizFactory(mode="practice", slots=[["weights-memory"], ["weights-memory"]])
    body = api.post(f"/api/quizzes/{quiz.pk}/attempts/").json()
    first, second = (q["id"] for q in body["questions"])
    part = parts_of(first)[0]
    assert part["name"] == parts_of(second)[0]["name"]
    assert answer(api, body["id"], first, part, correct=True).status_code == 201
    read = api.get(f"/api/attempts/{body['id']}/").json()["questions"]
    solved, untouched = (q["parts"][0] for q in read)
    assert (solved["status"]["closed"], solved["status"]["tries"]) == ("solved", 1)
    assert solved["answer"] is not None
    assert (untouched["status"]["closed"], untouched["status"]["tries"]) == (None, 0)
    assert untouched["answer"] is None and untouched["status"]["accepts_answers"]
