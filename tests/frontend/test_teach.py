"""Instructor pages: quiz builder and preview, item analysis, progress and its CSV."""

import csv
import io

import pytest

from assess.models import Quiz, Slot
from assess.services.attempts import attempt_finish, attempt_start
from assess.services.responses import response_submit
from tests.factories import EnrolmentFactory, UserFactory
from tests.frontend.helpers import CSRF, gib_slip_text, part_of, right_text

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}


def builder_post(**extra):
    data = {
        "slots": "3",
        "title": "Memory check",
        "mode": "exam",
        "course": "ai-infra",
        "time_limit_minutes": "15",
        "attempts_allowed": "2",
        "feedback": "",
        "pass_mark": "0.6",
        "slot1_templates": ["weights-memory", "training-memory-adam"],
        "slot1_points": "2",
        "slot2_templates": ["kv-cache-per-token"],
        "slot2_points": "1",
    }
    data.update(extra)
    return data


def test_builder_form_has_settings_and_slots_with_labels(login, instructor):
    html = login(instructor).get("/teach/quizzes/new/").content.decode()
    for field in ("title", "mode", "course", "time_limit_minutes", "attempts_allowed"):
        assert f'<label for="id_{field}">' in html
    for field in ("opens_at", "closes_at", "slot3_points"):
        assert f'<label for="id_{field}">' in html
    # Pools are ticked in the template library (tests/frontend/test_builder.py), not a
    # Ctrl-click multi-select.
    assert "multiple" not in html and 'name="slot3_templates"' in html
    assert '<option value="ai-infra">AI Infra</option>' in html
    assert "No course (staff only)" not in html


def test_builder_creates_the_quiz_through_the_service(login, instructor):
    response = login(instructor).post("/teach/quizzes/new/", builder_post())
    quiz = Quiz.objects.get()
    assert response["Location"] == f"/teach/quizzes/{quiz.pk}/"  # its page, as a draft
    assert quiz.status == "draft"
    assert (quiz.mode, quiz.course.slug, quiz.attempts_allowed) == ("exam", "ai-infra", 2)
    assert quiz.time_limit.total_seconds() == 900 and quiz.feedback == "after_attempt"
    slots = list(Slot.objects.filter(quiz=quiz).values_list("points", "templates"))
    assert slots == [(2, ["weights-memory", "training-memory-adam"]), (1, ["kv-cache-per-token"])]


def test_builder_shows_the_services_rules_as_form_errors(login, instructor):
    html = (
        login(instructor)
        .post("/teach/quizzes/new/", builder_post(feedback="immediately"))
        .content.decode()
    )
    assert "Exams and certifications cannot show feedback immediately." in html
    assert not Quiz.objects.exists()


def test_builder_sets_tries_and_a_penalty_for_immediate_feedback(login, instructor):
    client = login(instructor)
    html = client.get("/teach/quizzes/new/").content.decode()
    assert '<label for="id_tries_per_part">Tries per part</label>' in html
    assert '<label for="id_penalty_per_try">' in html
    data = builder_post(mode="homework", tries_per_part="2", penalty_per_try="0.1")
    client.post("/teach/quizzes/new/", data)
    quiz = Quiz.objects.get()
    assert (quiz.feedback, quiz.tries_per_part, quiz.penalty_per_try) == ("immediately", 2, 0.1)


def test_builder_defaults_homework_to_three_tries(login, instructor):
    login(instructor).post("/teach/quizzes/new/", builder_post(mode="homework"))
    assert (Quiz.objects.get().tries_per_part, Quiz.objects.get().penalty_per_try) == (3, 0.0)


def test_builder_shows_the_service_refusing_tries_on_an_exam(login, instructor):
    html = (
        login(instructor)
        .post("/teach/quizzes/new/", builder_post(tries_per_part="2"))
        .content.decode()
    )
    assert "Tries and penalties apply with immediate feedback" in html
    assert not Quiz.objects.exists()


def test_builder_needs_a_template_in_some_slot(login, instructor):
    data = builder_post()
    del data["slot1_templates"], data["slot2_templates"]
    html = login(instructor).post("/teach/quizzes/new/", data).content.decode()
    assert "Pick at least one template" in html


def test_add_a_slot_keeps_what_was_typed_without_errors(login, instructor):
    html = (
        login(instructor)
        .post("/teach/quizzes/new/", {"slots": "3", "title": "Draft", "add_slot": "1"})
        .content.decode()
    )
    assert 'name="slots" value="4"' in html and 'value="Draft"' in html
    assert "errorlist" not in html and not Quiz.objects.exists()


def test_staff_may_build_a_quiz_outside_a_course(login, staff):
    client = login(staff)
    assert "No course (staff only)" in client.get("/teach/quizzes/new/").content.decode()
    client.post("/teach/quizzes/new/", builder_post(course="", mode="practice"))
    assert Quiz.objects.get().course is None


def test_preview_shows_a_variant_with_answers_to_instructors(login, instructor):
    client = login(instructor)
    fragment = client.get("/teach/preview/?template=weights-memory", **HTMX).content.decode()
    assert "<html" not in fragment and "Memory for a model" in fragment
    assert "Weights memory:" in fragment and "Worked solution" in fragment
    assert "seed" not in CSRF.sub("", fragment).lower()  # a token's random letters aside
    page = client.get("/teach/preview/?template=weights-memory").content.decode()
    assert "<html" in page and "Preview another variant" in page


def answer(attempt, question, text, key):
    return response_submit(
        attempt=attempt, question=question, part="weights", text=text, idempotency_key=key
    )


@pytest.fixture
def answered_exam(exam):
    """Three learners: one right on the first question, two with the GB/GiB slip."""
    for i in range(3):
        learner = UserFactory(username=f"l{i}")
        EnrolmentFactory(user=learner, course=exam.course)
        attempt, _ = attempt_start(quiz=exam, learner=learner)
        q = attempt.questions.order_by("order").first()
        part = part_of(q)
        answer(attempt, q, right_text(part) if i == 0 else gib_slip_text(part), f"k{i}")
        attempt_finish(attempt=attempt)
    return exam


def test_item_analysis_charts_and_names_misconceptions(login, instructor, answered_exam):
    html = login(instructor).get(f"/teach/quizzes/{answered_exam.pk}/items/").content.decode()
    assert 'class="chart correct"' in html and 'class="chart discrimination"' in html
    assert "3 closed attempts" in html
    assert '<span title="gb-vs-gib">GB and GiB mixed up</span> × 2' in html  # words; code on hover
    assert 'data-value="0.333333"' in html  # 1 of 3 correct on weights-memory


def test_item_analysis_before_any_attempt(login, instructor, exam):
    html = login(instructor).get(f"/teach/quizzes/{exam.pk}/items/").content.decode()
    assert "No attempt at this quiz has closed yet" in html


def test_progress_table_and_csv_export(login, instructor, answered_exam, lesson):
    client = login(instructor)
    html = client.get("/teach/courses/ai-infra/progress/").content.decode()
    assert '<th scope="row">l0</th>' in html and "GPU Memory Math" in html
    response = client.get("/teach/courses/ai-infra/progress.csv")
    assert response["Content-Type"].startswith("text/csv")
    assert 'filename="progress-ai-infra.csv"' in response["Content-Disposition"]
    rows = list(csv.reader(io.StringIO(response.getvalue().decode())))
    assert rows[0] == [
        "name",
        "username",
        "email",
        "GPU Memory Math (gpu-memory-math): skills mastered",
        "GPU Memory Math (gpu-memory-math): weakest estimate",
    ]
    assert [r[1] for r in rows[1:]] == ["l0", "l1", "l2"]
    shares = {r[1]: float(r[3]) for r in rows[1:]}
    weakest = {r[1]: float(r[4]) for r in rows[1:]}
    assert set(shares.values()) == {0.0}  # one answer masters no skill
    assert weakest["l0"] > weakest["l1"] == weakest["l2"]  # right vs the GB/GiB slip
    assert all(0 <= v <= 1 for v in weakest.values())


def test_teach_index_lists_courses_and_quizzes(login, instructor, exam):
    html = login(instructor).get("/teach/").content.decode()
    assert "AI Infra" in html and "Sizing exam" in html
    assert 'href="/teach/courses/ai-infra/learners/"' in html
    assert f'href="/teach/quizzes/{exam.pk}/items/"' in html
