"""/metrics (issue 44, item 2): after a short load every metric the operators' guide
names is there; the route label is the URL pattern, never the path; other networks and
wrong tokens are refused; processes' recorded metrics merge across a METRICS_DIR."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from api_common.service_errors import UnreadableAnswer
from assess.services.attempts import attempt_start
from assess.services.responses import response_submit
from tests.assess.helpers import answer_question
from tests.factories import QuizFactory, UserFactory

pytestmark = pytest.mark.django_db
ROOT = Path(__file__).resolve().parents[2]

RECORDED = [
    "burnin_http_request_duration_seconds",
    "burnin_http_request_db_queries",
    "burnin_db_query_seconds_total",
    "burnin_celery_task_duration_seconds",
    "burnin_celery_task_failures_total",
    "burnin_memo_review_lag_seconds",
    "burnin_answers_total",
]
READ_AT_SCRAPE = [
    "burnin_memo_reviews_waiting",
    "burnin_memo_review_oldest_waiting_seconds",
    "burnin_lti_grade_passbacks",
    "burnin_certificates",
    "burnin_certificates_issued_total",
    "burnin_certificates_expiring",
    "burnin_scrape_source_up",
]


def _load(client, monkeypatch) -> int:
    """A few pages, API reads, answers (right, wrong and unreadable) and two tasks."""
    from certify import tasks
    from certify.tasks import recalibrate

    learner = UserFactory()
    quiz = QuizFactory(slots=[["weights-memory"]])
    attempt, _ = attempt_start(quiz=quiz, learner=learner)
    question = attempt.questions.get()
    answer_question(attempt, question, right=False, key="a")
    answer_question(attempt, question, right=True, key="b")
    client.force_login(learner)
    client.get("/")
    client.get(f"/api/attempts/{attempt.pk}/")
    with pytest.raises(UnreadableAnswer):
        response_submit(
            attempt=attempt,
            question=question,
            part=question.answers[0]["name"],
            text="lots",
            idempotency_key="k-unreadable",
        )
    recalibrate.apply()
    with monkeypatch.context() as m:  # a task that raises is counted by name
        m.setattr(tasks, "calibration_run", lambda: 1 / 0)
        with pytest.raises(ZeroDivisionError):  # eager tasks propagate (settings)
            recalibrate.apply()
    client.logout()
    return attempt.pk


def test_every_named_metric_is_there_after_a_short_load(client, settings, monkeypatch):
    attempt_id = _load(client, monkeypatch)
    r = client.get("/metrics")
    assert r.status_code == 200 and r["Content-Type"].startswith("text/plain")
    text = r.content.decode()
    names = set(re.findall(r"^# TYPE (\S+)", text, flags=re.M))
    expected = set(RECORDED + READ_AT_SCRAPE)
    assert expected - names == set()
    if settings.CELERY_BROKER_URL.startswith("redis"):
        assert 'burnin_celery_queue_depth{queue="reviews"}' in text
    assert re.search(r'burnin_answers_total\{outcome="wrong"\} [1-9]', text)
    assert re.search(r'burnin_answers_total\{outcome="correct"\} [1-9]', text)
    assert re.search(r'burnin_answers_total\{outcome="invalid"\} [1-9]', text)
    assert re.search(r'burnin_celery_task_failures_total\{task="certify.tasks.recalibrate"\}', text)
    assert 'outcome="success",task="certify.tasks.recalibrate"' in text
    # The route is the pattern that matched: no attempt id in any label.
    assert 'route="/api/attempts/<int:pk>/"' in text
    assert f"/api/attempts/{attempt_id}/" not in text
    assert 'burnin_scrape_source_up{source="certificates"} 1.0' in text
    assert not re.search(r"burnin_scrape_source_up\{[^}]*\} 0", text)  # every source read


def test_other_networks_and_wrong_tokens_are_refused(client, settings):
    outside = {"REMOTE_ADDR": "203.0.113.9"}
    assert client.get("/metrics", **outside).status_code == 403
    settings.METRICS_TOKEN = "s3cret-token"
    assert client.get("/metrics", HTTP_AUTHORIZATION="Bearer nope", **outside).status_code == 403
    ok = client.get("/metrics", HTTP_AUTHORIZATION="Bearer s3cret-token", **outside)
    assert ok.status_code == 200
    settings.METRICS_ALLOWED_NETWORKS = ["203.0.113.0/24"]
    settings.METRICS_TOKEN = ""
    assert client.get("/metrics", **outside).status_code == 200
    assert client.get("/metrics").status_code == 403  # loopback no longer listed


def test_a_failing_source_is_left_out_and_counted(client, monkeypatch):
    from frontend import metrics

    def broken(_now):
        raise ConnectionError("down")

    monkeypatch.setitem(metrics.SOURCES, "passbacks", broken)
    text = client.get("/metrics").content.decode()
    assert 'burnin_scrape_source_up{source="passbacks"} 0.0' in text
    assert "burnin_lti_grade_passbacks{" not in text and "burnin_certificates{" in text


@pytest.mark.db_independent
def test_processes_metrics_merge_across_the_directory(tmp_path):
    """Two processes (as two gunicorn workers) record into METRICS_DIR; the endpoint's
    merge sums them."""
    env = {**os.environ, "METRICS_DIR": str(tmp_path), "PYTHONPATH": str(ROOT)}
    code = "from config import metrics; metrics.ANSWERS.labels('correct').inc(3)"
    for _ in range(2):
        subprocess.run([sys.executable, "-c", code], env=env, check=True, cwd=ROOT)
    from frontend.metrics import MergedCollector

    families = {f.name: f for f in MergedCollector(str(tmp_path)).collect()}
    samples = {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for s in families["burnin_answers"].samples
    }
    assert samples[("burnin_answers_total", (("outcome", "correct"),))] == 6.0
