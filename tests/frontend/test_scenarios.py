"""Scenario problems in the app: tool output reaches the page and the API as a monospaced
block, exactly as generated, and a choice answer is a set of radio buttons that grade."""

import re
from html import unescape

import pytest

from assess.models import Question
from assess.services.questions import practice_question_add
from problems.engine.variants import Variant
from tests.factories import LessonFactory

pytestmark = pytest.mark.django_db

SCENARIOS = ["nvidia-smi-triage", "xid-triage", "vllm-metrics-diagnosis", "k8s-pending-pod"]
FENCE = re.compile(r"^```[^\n]*\n(.*?)^```", re.S | re.M)
PRE = re.compile(r"<pre><code[^>]*>(.*?)</code></pre>", re.S)


def _practice(learner, module, slug):
    lesson = LessonFactory(module=module, slug=f"only-{slug}", templates=[slug])
    practice = practice_question_add(learner=learner, lesson=lesson)
    return practice, Question.objects.get(pk=practice.question.pk)


@pytest.mark.parametrize("slug", SCENARIOS)
def test_tool_output_is_one_monospaced_block_in_the_page_and_the_api(slug, login, learner, module):
    practice, question = _practice(learner, module, slug)
    variant = Variant.from_params(slug, question.params)
    generated = FENCE.findall(variant.statement_markdown())
    assert generated, "a scenario shows its tool output in a fenced block"

    client = login(learner)
    html = client.get(f"/attempts/{practice.attempt.pk}/q/{question.pk}/").content.decode()
    shown = [unescape(block) for block in PRE.findall(html)]
    assert shown[: len(generated)] == generated  # every line, every space, every `$`

    body = client.get(f"/api/attempts/{practice.attempt.pk}/").json()
    (node,) = [q for q in body["questions"] if q["id"] == question.pk]
    assert FENCE.findall(node["statement_markdown"]) == generated
    assert [unescape(b) for b in PRE.findall(node["statement_html"])] == generated


def test_a_choice_part_is_radio_buttons_and_the_right_one_grades_correct(login, learner, module):
    practice, question = _practice(learner, module, "xid-triage")
    client = login(learner)
    url = f"/attempts/{practice.attempt.pk}/q/{question.pk}/"
    html = client.get(url).content.decode()
    event = next(p for p in question.answers if p["name"] == "event")
    for choice in event["choices"]:
        assert f'type="radio" name="part-event" value="{choice}"' in html
    client.post(url + "answer/", {"part-event": event["value"]})
    response = practice.attempt.responses.get(question=question, part="event")
    assert response.correct
