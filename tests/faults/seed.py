"""Run inside the private cluster's database (python -m tests.faults.seed): one learner
with a token and an open exam attempt of many questions; prints what the tests need."""

import json
import os

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings_test")
django.setup()

from rest_framework.authtoken.models import Token  # noqa: E402

from assess.models import Quiz  # noqa: E402
from assess.services.attempts import attempt_start  # noqa: E402
from tests.assess.helpers import correct_text  # noqa: E402
from tests.factories import QuizFactory, UserFactory  # noqa: E402

QUESTIONS = 80

learner = UserFactory(username="fault-learner")
token = Token.objects.create(user=learner)
quiz = QuizFactory(mode=Quiz.Mode.HOMEWORK, slots=[["gb-gib"]] * QUESTIONS)
attempt, _ = attempt_start(quiz=quiz, learner=learner)
questions = [
    {"id": q.pk, "part": q.answers[0]["name"], "text": correct_text(q.answers[0])}
    for q in attempt.questions.order_by("order")
]
print(json.dumps({"token": token.key, "attempt": attempt.pk, "questions": questions}))
