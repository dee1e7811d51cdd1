"""The quiz builder and a quiz's page: templates grouped by lesson and searched (with and
without JavaScript), a preview of the whole quiz that shows no answers, drafts, dates,
edits until the first attempt, duplicate, publish, unpublish and close."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils.html import escape

from assess.models import Attempt, Quiz
from assess.services.attempts import attempt_start
from frontend.queries.builder import (
    MAX_QUERY_CHARS,
    OTHER_TEMPLATES,
    PREVIEW_SEED,
    template_library,
)
from frontend.queries.common import answer_text
from problems.engine import registry
from problems.engine.variants import Variant
from tests.factories import EnrolmentFactory, LessonFactory, QuizFactory
from tests.frontend.test_teach import builder_post
from tests.growth import calls

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}
NEW = "/teach/quizzes/new/"


def group_titles(html: str) -> list[str]:
    """The library's group headings (the page's main part: the header has a Menu too)."""
    main = html[html.index("<main") :]
    return re.findall(r"<summary>([^<]+?)(?: <span|</summary>)", main)


def listed(html: str) -> set[str]:
    return set(re.findall(r"<code>([a-z0-9-]+)</code>", html))


def ticked(html: str) -> set[tuple[str, str]]:
    return set(re.findall(r'name="(slot\d+)_templates" value="([a-z0-9-]+)" checked', html))


def title(slug: str) -> str:
    return escape(registry.get(slug).title)


def answers_of(slug: str) -> list[str]:
    variant = Variant.from_seed(slug, PREVIEW_SEED)
    return [
        answer_text({"value": p.value, "unit": p.unit, "kind": str(p.kind)})
        for p in variant.parts.values()
    ]


@pytest.fixture
def teacher(login, instructor, lesson, kv_lesson):
    return login(instructor)


# ------------------------------------------------------------------------ the library


def test_templates_are_grouped_by_the_courses_lessons(teacher):
    html = teacher.get(NEW).content.decode()
    titles = group_titles(html)
    assert titles[:2] == ["GPU Memory Math", "The KV Cache"] and titles[-1] == OTHER_TEMPLATES
    first, second = html.index("GPU Memory Math"), html.index("The KV Cache")
    assert first < html.index("<code>weights-memory</code>") < second
    assert second < html.index("<code>kv-cache-per-token</code>") < html.index(OTHER_TEMPLATES)
    # one checkbox per template and slot, in a group named by the template
    assert 'name="slot3_templates" value="weights-memory"> slot 3</label>' in html
    assert f'<strong id="t-weights-memory">{title("weights-memory")}</strong>' in html
    assert 'role="group" aria-labelledby="t-weights-memory"' in html


def test_a_template_in_two_lessons_is_listed_once_under_the_first(teacher, module):
    LessonFactory(module=module, slug="again", title="Memory again", templates=["weights-memory"])
    html = teacher.get(NEW).content.decode()
    assert html.count("<code>weights-memory</code>") == 1
    assert "also in Memory again" in html


def test_a_get_search_filters_a_fresh_page(teacher):
    html = teacher.get(NEW + "?q=kv+cache").content.decode()
    assert "kv-cache-per-token" in listed(html) and "weights-memory" not in listed(html)
    assert 'value="kv cache"' in html and "templates listed for “kv cache”" in html
    # a lesson's name finds its templates
    assert listed(teacher.get(NEW + "?q=memory+math").content.decode()) >= {"weights-memory"}
    assert "No template matches" in teacher.get(NEW + "?q=zzzz").content.decode()


def test_filtering_without_javascript_keeps_what_was_typed_and_ticked(teacher):
    response = teacher.post(NEW, builder_post(filter="1", q="kv-cache-per"))
    html = response.content.decode()
    assert response.status_code == 200 and not Quiz.objects.exists()
    assert 'value="Memory check"' in html
    # ticked templates stay listed (and ticked) whatever the search
    assert {("slot1", "weights-memory"), ("slot2", "kv-cache-per-token")} <= ticked(html)
    assert "training-memory-adam" in listed(html) and "gb-gib" not in listed(html)
    assert 'class="errorlist"' not in html


def test_filtering_with_htmx_answers_the_library_alone(teacher):
    html = teacher.post(NEW, builder_post(filter="1", q="kv"), **HTMX).content.decode()
    assert html.lstrip().startswith('<div id="library">') and "<html" not in html
    assert ("slot1", "weights-memory") in ticked(html)


# ---------------------------------------------------------------------------- preview


def test_the_builder_previews_the_whole_quiz_without_answers(teacher):
    response = teacher.post(NEW, builder_post(preview="1"))
    html = response.content.decode()
    assert response.status_code == 200 and not Quiz.objects.exists()
    assert "the quiz as a learner will see it" in html
    assert "Question 1" in html and "Question 2" in html and title("weights-memory") in html
    assert f"Some learners get instead: {title('training-memory-adam')}" in html
    for slug in ("weights-memory", "kv-cache-per-token"):
        for shown in answers_of(slug):
            assert shown not in html, (slug, shown)
    assert "Worked solution" not in html.split('id="quiz-preview"')[1].split("Check one")[0]
    assert "hx-disable" in html  # the answer boxes post nothing


def test_a_preview_is_checked_as_saving_is(teacher):
    html = teacher.post(NEW, builder_post(preview="1", feedback="immediately")).content.decode()
    assert "cannot show feedback immediately" in html and 'id="quiz-preview"' not in html


def test_a_saved_quiz_previews_from_a_fixed_seed(teacher, login, learner, exam):
    url = f"/teach/quizzes/{exam.pk}/preview/"

    def preview() -> str:
        html = teacher.get(url).content.decode()
        return html[html.index('<div class="quiz-preview"') : html.index("</main>")]

    first = preview()
    assert first == preview()  # one fixed seed: the same questions every time
    assert "Question 2" in first and 'id="apreview1-' in first
    for shown in answers_of("weights-memory") + answers_of("kv-cache-per-token"):
        assert shown not in first
    assert "Worked solution" not in first
    assert login(learner).get(url).status_code == 404


# ------------------------------------------------------------------ drafts and dates


def test_a_new_quiz_is_a_draft_with_its_dates(teacher):
    data = builder_post(opens_at="2030-01-02T09:00", closes_at="2030-01-02T10:30")
    response = teacher.post(NEW, data)
    quiz = Quiz.objects.get()
    assert response["Location"] == f"/teach/quizzes/{quiz.pk}/"
    assert quiz.status == "draft"
    assert quiz.opens_at == datetime(2030, 1, 2, 9, 0, tzinfo=UTC)
    assert quiz.closes_at == datetime(2030, 1, 2, 10, 30, tzinfo=UTC)
    page = teacher.get(response["Location"]).content.decode()
    assert "Status: <strong>Draft</strong>" in page and "2 Jan 2030, 09:00 UTC" in page


def test_a_draft_is_hidden_from_learners_on_every_page(login, instructor, enrolled, course):
    draft = QuizFactory(course=course, status="draft", title="Hidden draft")
    client = login(enrolled)
    assert "Hidden draft" not in client.get("/quizzes/").content.decode()
    assert client.post(f"/quizzes/{draft.pk}/start/").status_code == 404
    for path in ("", "edit/", "preview/"):
        assert client.get(f"/teach/quizzes/{draft.pk}/{path}").status_code in (403, 404)
    assert not Attempt.objects.exists()
    # Its instructor sees it listed as a draft, with no Start button.
    html = login(instructor).get("/quizzes/").content.decode()
    assert "Hidden draft" in html and "Start Hidden draft" not in html
    assert f'href="/teach/quizzes/{draft.pk}/">Draft' in html


def test_the_quiz_page_states_every_rule_a_learner_meets(teacher, course):
    """Tries, penalties, pass mark, what counts and the cooldown were missing."""
    quiz = QuizFactory(
        course=course, status="draft", title="Rules", feedback="immediately", tries_per_part=3,
        penalty_per_try=0.25, pass_mark=0.7, cooldown=timedelta(days=7),
    )  # fmt: skip
    facts = re.sub(r"\s+", " ", teacher.get(f"/teach/quizzes/{quiz.pk}/").content.decode())
    for fact in (
        "<dt>Tries per part</dt><dd>3</dd>",
        "<dt>Penalty per extra try</dt><dd>25% of the part's points</dd>",
        "<dt>Pass mark</dt><dd>70%</dd>",
        "<dt>Grade from</dt><dd>Best attempt</dd>",
        "<dt>Cooldown between attempts</dt><dd>7 days</dd>",
    ):
        assert fact in facts, fact


def test_publish_unpublish_and_close_from_the_quiz_page(teacher, login, enrolled, course):
    quiz = QuizFactory(course=course, status="draft", title="Week 1")
    page = f"/teach/quizzes/{quiz.pk}/"
    assert f'action="{page}publish/"' in teacher.get(page).content.decode()
    teacher.post(f"{page}publish/")
    assert Quiz.objects.get(pk=quiz.pk).status == "published"
    html = teacher.get(page).content.decode()
    assert "is published" in html and "unpublish/" in html and "close/" in html
    teacher.post(f"{page}unpublish/")
    assert Quiz.objects.get(pk=quiz.pk).status == "draft"
    teacher.post(f"{page}publish/")
    attempt_start(quiz=Quiz.objects.get(pk=quiz.pk), learner=enrolled)
    html = teacher.get(page).content.decode()
    assert "unpublish/" not in html and f"{page}edit/" not in html
    assert "1 attempt has been started" in html and "cannot go back to draft" in html
    # A forged unpublish is refused by the service, and said so on the page.
    html = teacher.post(f"{page}unpublish/", follow=True).content.decode()
    assert "Close it instead" in html and Quiz.objects.get(pk=quiz.pk).status == "published"
    # Close now asks first, saying what it ends; only its own button closes.
    html = teacher.post(f"{page}close/").content.decode()
    assert "1 open attempt ends at once" in html and 'name="confirmed" value="yes"' in html
    assert Quiz.objects.get(pk=quiz.pk).status_at(datetime.now(UTC)) == "published"
    assert Attempt.objects.get(quiz=quiz).deadline is None
    teacher.post(f"{page}close/", {"confirmed": "yes"})
    assert Quiz.objects.get(pk=quiz.pk).status_at(datetime.now(UTC)) == "closed"
    assert "Status: <strong>Closed</strong>" in teacher.get(page).content.decode()
    assert teacher.post(f"{page}reopen/").status_code == 404


# ----------------------------------------------------------------- edit and duplicate


def test_editing_starts_from_the_quiz_and_saves_it(teacher, course):
    quiz = QuizFactory(
        course=course, status="draft", title="Old", slots=[{"templates": ["gb-gib"], "points": 4}]
    )
    html = teacher.get(f"/teach/quizzes/{quiz.pk}/edit/").content.decode()
    assert 'value="Old"' in html and ("slot1", "gb-gib") in ticked(html)
    assert 'name="slot1_points" value="4"' in html
    response = teacher.post(f"/teach/quizzes/{quiz.pk}/edit/", builder_post(title="New"))
    assert response["Location"] == f"/teach/quizzes/{quiz.pk}/"
    quiz.refresh_from_db()
    assert quiz.title == "New" and quiz.status == "draft" and quiz.slots.count() == 2


def test_editing_after_an_attempt_says_why_not(teacher, enrolled, exam):
    attempt_start(quiz=exam, learner=enrolled)
    response = teacher.get(f"/teach/quizzes/{exam.pk}/edit/", follow=True)
    html = response.content.decode()
    assert response.redirect_chain[-1][0] == f"/teach/quizzes/{exam.pk}/"
    assert "its questions and rules are fixed" in html and "Duplicate it" in html
    teacher.post(f"/teach/quizzes/{exam.pk}/edit/", builder_post(title="Sneaky"))
    assert Quiz.objects.get(pk=exam.pk).title == "Sizing exam"


def test_duplicate_makes_a_draft_to_edit(teacher, enrolled, exam):
    attempt_start(quiz=exam, learner=enrolled)
    response = teacher.post(f"/teach/quizzes/{exam.pk}/duplicate/")
    copy = Quiz.objects.exclude(pk=exam.pk).get()
    assert response["Location"] == f"/teach/quizzes/{copy.pk}/edit/"
    assert (copy.title, copy.status) == ("Sizing exam (copy)", "draft")
    assert [s.templates for s in copy.slots.all()] == [s.templates for s in exam.slots.all()]


def test_learners_cannot_use_the_lifecycle_buttons(login, learner, exam):
    client = login(learner)
    for action in ("publish", "unpublish", "close", "duplicate"):
        assert client.post(f"/teach/quizzes/{exam.pk}/{action}/").status_code == 404
    assert Quiz.objects.count() == 1 and Quiz.objects.get().status == "published"


def test_the_builder_reads_the_same_whatever_the_number_of_lessons(teacher, module):
    def count() -> int:
        with CaptureQueriesContext(connection) as ctx:
            assert teacher.get(NEW).status_code == 200
        return len(ctx.captured_queries)

    few = count()
    for i in range(4):
        LessonFactory(module=module, slug=f"extra-{i}", templates=["gb-gib", "weights-memory"])
    assert count() == few


def test_the_teach_index_shows_each_quizs_status(teacher, course, instructor):
    EnrolmentFactory(course=course)
    QuizFactory(course=course, status="draft", title="A draft")
    html = teacher.get("/teach/").content.decode()
    assert re.search(r"A draft</a></th><td>Draft</td>", html)


def test_the_builder_sets_a_homework_hint_penalty_and_refuses_one_elsewhere(teacher):
    html = teacher.get(NEW).content.decode()
    assert "Penalty per hint (0 to 1)" in html
    response = teacher.post(NEW, builder_post(mode="homework", hint_penalty="0.25"))
    assert response.status_code == 302, response.content.decode()[:2000]
    assert Quiz.objects.get().hint_penalty == 0.25
    edit = teacher.get(f"/teach/quizzes/{Quiz.objects.get().pk}/edit/").content.decode()
    assert 'name="hint_penalty" value="0.25"' in edit
    refused = teacher.post(NEW, builder_post(mode="exam", hint_penalty="0.25"))
    assert (
        refused.status_code == 200 and "Only homework charges for hints" in refused.content.decode()
    )
    assert Quiz.objects.count() == 1


def test_a_huge_search_costs_what_its_first_words_do(teacher):
    """The search looks for each word in every template's text: it reads the first
    MAX_QUERY_CHARS characters, each word once (2.5 MB of "e " took 4.7 s), and the box
    says so with its maxlength."""
    page = teacher.get(NEW).content.decode()
    assert f'name="q" value="" maxlength="{MAX_QUERY_CHARS}"' in page
    head = "kv cache " + "e " * (MAX_QUERY_CHARS // 2)
    short = calls(lambda: template_library(course_slug=None, query=head, picks={}))
    huge = "kv cache " + "e " * 100_000
    assert calls(lambda: template_library(course_slug=None, query=huge, picks={})) <= short
    found = template_library(course_slug=None, query=huge, picks={})
    assert {i.slug for g in found.groups for i in g.items} >= {"kv-cache-per-token"}
