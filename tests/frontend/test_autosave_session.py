"""An exam's autosave writes the session row only when it has a draft to keep or forget
(an answer the service could not read, shown again with its error): every other save
leaves the session as it was, where it used to write it back at every autosave, one
UPDATE of django_session per box a learner left (bench/README.md, the web-page exam)."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from tests.frontend.helpers import gib_slip_text, part_of, right_text

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}


def test_an_autosave_writes_the_session_only_for_an_unreadable_answer(login, learner, exam_attempt):
    client = login(learner)
    question = exam_attempt.questions.filter(active=True).order_by("order").first()
    part = part_of(question)
    url = f"/attempts/{exam_attempt.pk}/q/{question.pk}/answer/"

    def session_writes(text: str) -> int:
        with CaptureQueriesContext(connection) as ctx:
            response = client.post(url, {f"part-{part['name']}": text}, **HTMX)
        assert response.status_code == 200
        return sum(
            1
            for q in ctx.captured_queries
            if "django_session" in q["sql"] and not q["sql"].lstrip().startswith("SELECT")
        )

    assert session_writes(right_text(part)) == 0
    assert session_writes("80 GBs please") == 1  # unreadable: kept to be shown again
    assert session_writes(gib_slip_text(part)) == 1  # read at last: the draft is forgotten
    assert session_writes(right_text(part)) == 0
