"""The learner's dashboard: mastery over time, attempts, and the certificates placeholder."""

import pytest

from assess.services.responses import response_submit
from tests.frontend.helpers import gib_slip_text, part_of, right_text

pytestmark = pytest.mark.django_db


def test_an_empty_dashboard_says_what_to_do(login, learner):
    html = login(learner).get("/dashboard/").content.decode()
    assert "No answers yet" in html and "No attempts yet" in html
    assert "Certification arrives later" in html


def test_dashboard_charts_mastery_history_and_lists_attempts(login, learner, practice):
    part = part_of(practice.question)
    for key, text in (("a", gib_slip_text(part)), ("b", right_text(part))):
        response_submit(
            attempt=practice.attempt,
            question=practice.question,
            part="weights",
            text=text,
            idempotency_key=key,
        )
    html = login(learner).get("/dashboard/").content.decode()
    assert 'class="chart history"' in html
    chart = html[html.index('class="chart history"') : html.index("</svg>")]
    assert chart.count("<circle") == 2  # one point per answer for the one lesson
    assert "GPU Memory Math" in chart
    assert 'href="/lessons/gpu-memory-math/"' in html
    assert f'href="/attempts/{practice.attempt.pk}/"' in html
    assert "Practice: GPU Memory Math" in html
    # placeholder only: no certificate is invented
    section = html[html.index('id="cert-h"') :]
    assert "certificate" in section.lower() and "<table" not in section
