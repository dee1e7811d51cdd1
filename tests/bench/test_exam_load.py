"""The exam-under-load bench's task sequence, end to end through the Django test client
(not locust): one learner starts, reads, answers every part and finishes; every answer
is stored, and the learner cannot start a second attempt."""

from __future__ import annotations

from contextlib import contextmanager

import pytest
from rest_framework.test import APIClient

from assess.models import Attempt, Response
from bench.exam_load import answer_for, exam_requests
from bench.page_costs import ClientResult
from tests.bench.locust_doubles import bench_exam

pytestmark = pytest.mark.django_db


class _Client:
    """locust's HttpSession.request(..., name=, catch_response=True) over APIClient."""

    def __init__(self):
        self.api = APIClient()
        self.failures: list[str] = []
        self.names: list[str] = []

    @contextmanager
    def request(self, method, url, *, name, headers, json=None, catch_response=True):
        self.names.append(name)
        call = getattr(self.api, method.lower())
        auth = {"HTTP_AUTHORIZATION": headers["Authorization"]}
        response = call(url, json, format="json", **auth) if json else call(url, **auth)
        yield ClientResult(response, self.failures)


def test_one_learner_does_the_whole_exam_and_every_answer_is_stored():
    quiz, [token] = bench_exam()
    client, thinks = _Client(), []
    exam_requests(client, quiz.pk, token, lambda: thinks.append(1))

    assert client.failures == []
    attempt = Attempt.objects.get(quiz=quiz)
    assert attempt.status == Attempt.Status.FINISHED
    answers = client.names.count("answer")
    parts = sum(len(q.answers) for q in attempt.questions.all())
    assert attempt.questions.count() == 5
    assert answers == parts == Response.objects.filter(attempt=attempt).count()
    assert client.names[:2] == ["start", "read attempt"] and client.names[-1] == "finish"
    assert len(thinks) == len(client.names) - 1  # a think between every two requests


def test_a_second_run_of_the_sequence_is_refused_not_a_second_exam():
    quiz, [token] = bench_exam()
    exam_requests(_Client(), quiz.pk, token, lambda: None)
    again = _Client()
    exam_requests(again, quiz.pk, token, lambda: None)

    assert again.names == ["start"] and len(again.failures) == 1
    assert Attempt.objects.filter(quiz=quiz).count() == 1


@pytest.mark.parametrize(
    ("part", "expected"),
    [
        ({"kind": "choice", "choices": ["a", "b"], "unit": ""}, {"a", "b"}),
        ({"kind": "integer", "choices": [], "unit": "GPUs"}, None),
    ],
)
def test_answers_are_readable_for_each_kind(part, expected):
    text = answer_for(part)
    if expected is not None:
        assert text in expected
    else:
        number, unit = text.split(" ")
        assert number.isdigit() and unit == "GPUs"
