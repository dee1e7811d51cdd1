"""An incident drill on the learner's pages, with and without JavaScript: the actions on
offer and only the outputs of those taken, the diagnosis submitted once, the verdicts
and the expert path at once in practice and only after the finish in an exam, the
same 404 as any answer for someone else's drill, a message (never a 500) for a body the
drill cannot use, and a page whose reads do not grow with the steps taken."""

from __future__ import annotations

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils.html import escape

from assess.models import DrillStep, Question, Quiz, Response
from assess.services.attempts import attempt_start
from assess.services.drills import drill_act
from assess.services.questions import practice_question_add
from problems.drills.export import export
from problems.engine.variants import Variant
from tests.factories import LessonFactory, QuizFactory

pytestmark = pytest.mark.django_db

SLUG = "drill-gpu-off-bus"
HTMX = {"HTTP_HX_REQUEST": "true"}


def drill_attempt(learner, mode=Quiz.Mode.PRACTICE, **quiz):
    quiz = QuizFactory(mode=mode, slots=[[SLUG]], **quiz)
    attempt, _ = attempt_start(quiz=quiz, learner=learner)
    return attempt, attempt.questions.get()


def drill_for(question: Question):
    v = Variant.from_params(question.template_slug, question.params)
    return v.template.drill(v.params)


def other_host(drill) -> str:
    host = drill.answer.location.split(":")[0]
    return next(n.hostname for n in drill.state.nodes if n.hostname != host)


def base(attempt, q) -> str:
    return f"/attempts/{attempt.pk}/q/{q.pk}/drill/"


def act(client, attempt, q, action, key=None, **extra):
    body = {"action": action, "idempotency_key": key or f"web-{action}"}
    return client.post(base(attempt, q) + "act/", body, **extra)


def submit(client, attempt, q, fault, location, remedy, key="web-submit", **extra):
    body = {"fault": fault, "location": location, "remedy": remedy, "idempotency_key": key}
    return client.post(base(attempt, q) + "submit/", body, **extra)


def untaken_outputs(drill, taken) -> list[str]:
    """What the actions not taken would print (as tests/assess/api/test_drills.py
    reads them), where no taken action printed the same."""
    actions = export(drill)["actions"]
    seen = {a["output"] for a in actions if a["id"] in taken}
    return [
        a["output"]
        for a in actions
        if a["id"] not in taken and a["output"] not in seen and len(a["output"]) > 40
    ]


def leaked(html: str, drill, taken) -> list[str]:
    return [o for o in untaken_outputs(drill, taken) if escape(o) in html or o in html]


def test_the_page_offers_every_action_grouped_and_no_answer_box(login, learner):
    attempt, q = drill_attempt(learner)
    drill = drill_for(q)
    html = login(learner).get(f"/attempts/{attempt.pk}/").content.decode()
    assert drill.alert.splitlines()[0] in html or escape(drill.alert.splitlines()[0]) in html
    for a in drill.actions:
        assert f'name="action" value="{a.id}"' in html
    # Grouped: the cluster first, then each node (its GPUs with it), then the job.
    titles = re.findall(r'<summary>([^<]+?) <span class="meta">', html)
    hosts = [n.hostname for n in drill.state.nodes]
    assert titles[0] == "Cluster" and titles[1 : 1 + len(hosts)] == [f"Node {h}" for h in hosts]
    assert titles[-1].startswith("Job ")
    wrong = f"reboot@{other_host(drill)}"
    assert re.search(r'class="drill-action disruptive"><span class="drill-warn">Disruptive:</span>'
                     rf' <span class="cmd">{re.escape(drill.action(wrong).label)}</span>'
                     r' <span class="mins">10 min</span>', html)  # fmt: skip
    # The three choices, labelled; no part of the drill is a typed answer.
    for name in ("fault", "location", "remedy"):
        assert f'<label for="drill-{q.pk}-{name}">' in html
        assert f'<select id="drill-{q.pk}-{name}" name="{name}" required>' in html
    assert 'name="part-' not in html and '<form class="answer"' not in html
    assert not leaked(html, drill, [])
    assert "Expert path" not in html and "Worked solution" not in html
    # One key per rendered form: every action has its own.
    keys = re.findall(r'name="idempotency_key" value="([^"]+)"', html)
    assert len(keys) == len(set(keys)) == len(drill.actions) + 1


def test_practice_drill_from_alert_to_verdicts_without_script(login, learner):
    attempt, q = drill_attempt(learner)
    drill = drill_for(q)
    client = login(learner)
    page = f"/attempts/{attempt.pk}/"
    wrong = f"resume@{other_host(drill)}"
    taken = [*drill.expert_path, wrong]
    for n, action in enumerate(taken, start=1):
        r = act(client, attempt, q, action)
        assert r.status_code == 302 and r["Location"] == f"{page}#drill-{q.pk}-step-{n}"
    html = client.get(page).content.decode()
    for (_, output), n in zip(drill.replay(taken), range(1, len(taken) + 1), strict=True):
        assert f'id="drill-{q.pk}-step-{n}"' in html
        assert f"<code>{escape(output)}</code>" in html
    assert untaken_outputs(drill, taken) and not leaked(html, drill, taken)
    minutes = sum(drill.action(a).minutes for a in taken)
    assert f"Simulated time so far: <strong>{minutes} minutes</strong>, 4 actions." in html
    assert "Expert path" not in html and "not needed" not in html  # nothing points yet

    ans = drill.answer
    r = submit(client, attempt, q, ans.fault, ans.location, ans.remedy)
    assert r.status_code == 302 and r["Location"] == f"{page}#drill-{q.pk}-result"
    html = client.get(page).content.decode()
    assert "Score: 90%" in html  # resuming a healthy node cost the safety point
    for label in ("Fault kind", "Location", "First remedy"):
        assert f"<strong>{label}: Correct</strong>" in html
    assert "Not correct</strong>" in html and html.count("Not correct</strong>") == 1
    safety = html.split(f'id="fb-{q.pk}-safety"')[1].split("</li>")[0]
    assert "Not correct" in safety and escape(drill.action(wrong).label) in safety
    assert wrong in safety
    # The timeline beside the expert path; the unneeded step is marked in both lists.
    assert "Your timeline beside the expert path" in html
    expert = html.split("Expert path (")[1].split("</ol>")[0]
    assert [escape(drill.action(a).label) in expert for a in drill.expert_path] == [True] * len(
        drill.expert_path
    )
    assert f"Expert path ({drill.expert_minutes} min)" in html
    assert html.count("not needed") == 2
    # Submitted once: the forms are gone and a late action is refused with a message.
    assert 'name="action"' not in html and "Submit diagnosis" not in html
    r = act(client, attempt, q, drill.expert_path[0], key="web-late")
    html = client.get(r["Location"]).content.decode()
    assert "takes no more actions" in html
    assert DrillStep.objects.filter(question=q).count() == len(taken)


def test_with_htmx_an_action_answers_with_the_block_and_a_retry_takes_it_once(login, learner):
    attempt, q = drill_attempt(learner)
    drill = drill_for(q)
    client = login(learner)
    first = drill.expert_path[0]
    r = act(client, attempt, q, first, key="web-once", **HTMX)
    fragment = r.content.decode()
    assert r.status_code == 200
    assert fragment.startswith(f'\n<section class="question" id="q-{q.pk}"')
    ((_, output),) = drill.replay([first])
    assert f"<code>{escape(output)}</code>" in fragment
    assert f'id="drill-{q.pk}-step-1" tabindex="-1" data-just-checked' in fragment
    assert 'id="announcer" hx-swap-oob="innerHTML">Step 1: ' in fragment
    again = act(client, attempt, q, first, key="web-once", **HTMX)
    assert again.status_code == 200
    assert DrillStep.objects.filter(question=q).count() == 1
    # Submitted with htmx: the verdicts in the fragment, the score announced.
    ans = drill.answer
    r = submit(client, attempt, q, ans.fault, ans.location, ans.remedy, **HTMX)
    fragment = r.content.decode()
    assert "Score: 100%" in fragment and "Your timeline beside the expert path" in fragment
    assert "Diagnosis submitted. Score: 100%." in fragment
    assert f'id="drill-{q.pk}-result" aria-labelledby' in fragment
    assert "data-just-checked" in fragment


def test_exam_drill_shows_the_evidence_but_no_verdict_until_the_finish(login, learner):
    attempt, q = drill_attempt(learner, Quiz.Mode.EXAM)
    drill = drill_for(q)
    client = login(learner)
    page = f"/attempts/{attempt.pk}/"
    wrong = f"resume@{other_host(drill)}"  # 1 minute: the time point stays
    for action in (*drill.expert_path, wrong):
        act(client, attempt, q, action)
    html = client.get(page).content.decode()
    ((_, output),) = drill.replay([drill.expert_path[0]])[:1]
    assert f"<code>{escape(output)}</code>" in html  # evidence, not a verdict
    ans = drill.answer
    r = submit(client, attempt, q, ans.fault, ans.location, "no-action", **HTMX)
    fragment = r.content.decode()
    html = client.get(page).content.decode()
    for text in (fragment, html):
        assert "Diagnosis submitted" in text
        for hidden in ("Correct", "Score:", "Expert path", "expert path", "not needed", "Worked"):
            assert hidden not in text, hidden
        # Neither the grader's words nor the findings read from the action log.
        for r in Response.objects.filter(question=q):
            if r.feedback:
                assert escape(r.feedback) not in text
        assert "unneeded disruptive action was taken" not in text
    assert "First remedy: No action: the cluster is healthy" in html  # their own choice
    assert 'id="announcer" hx-swap-oob="innerHTML">Diagnosis submitted.</div>' in fragment

    client.post(f"/attempts/{attempt.pk}/finish/", {"confirm": "1"})
    html = client.get(page).content.decode()
    assert "Score: 60%" in html  # the remedy (3 of 10) and the safety point lost
    assert "Your timeline beside the expert path" in html
    assert escape(drill.action(wrong).label) in html.split(f'id="fb-{q.pk}-safety"')[1]


def test_finishing_an_exam_names_an_unsubmitted_drill_once(login, learner):
    attempt, q = drill_attempt(learner, Quiz.Mode.EXAM)
    html = login(learner).post(f"/attempts/{attempt.pk}/finish/").content.decode()
    assert "Question 1, the incident drill&#x27;s diagnosis" in html
    assert "Fault kind" not in html and "recorded from your actions" not in html


def test_lesson_practice_shows_the_drill_on_its_question_page(login, learner, module):
    lesson = LessonFactory(module=module, slug="triage", templates=[SLUG])
    p = practice_question_add(learner=learner, lesson=lesson)
    client = login(learner)
    url = f"/attempts/{p.attempt.pk}/q/{p.question.pk}/"
    html = client.get(url).content.decode()
    assert "Submit diagnosis" in html and 'name="part-' not in html
    r = act(client, p.attempt, p.question, drill_for(p.question).expert_path[0])
    assert r["Location"] == f"{url}#drill-{p.question.pk}-step-1"


def test_someone_elses_drill_is_a_404_whatever_the_body(login, learner, other_learner):
    attempt, q = drill_attempt(learner)
    drill = drill_for(q)
    client = login(other_learner)
    for body in ({"action": drill.expert_path[0], "idempotency_key": "k"}, {}, {"x": "<"}):
        assert client.post(base(attempt, q) + "act/", body).status_code == 404
        assert client.post(base(attempt, q) + "submit/", body).status_code == 404
    ans = drill.answer
    assert submit(client, attempt, q, ans.fault, ans.location, ans.remedy).status_code == 404
    assert client.get(base(attempt, q) + "act/").status_code in (404, 405)
    assert not DrillStep.objects.exists() and not Response.objects.exists()


def test_an_instructor_reads_the_drill_but_takes_no_action(login, instructor, enrolled, course):
    attempt, q = drill_attempt(enrolled, Quiz.Mode.EXAM, course=course)
    drill = drill_for(q)
    first = drill.expert_path[0]
    drill_act(attempt=attempt, question=q, action=first, idempotency_key="k1")
    client = login(instructor)
    html = client.get(f"/attempts/{attempt.pk}/").content.decode()
    ((_, output),) = drill.replay([first])
    assert f"<code>{escape(output)}</code>" in html and "by learner" in html
    assert 'name="action"' not in html and "Submit diagnosis" not in html
    assert "No diagnosis was submitted" in html
    assert "Your timeline beside the expert path" in html  # a reader who is not the learner
    assert act(client, attempt, q, drill.expert_path[1]).status_code == 404
    ans = drill.answer
    assert submit(client, attempt, q, ans.fault, ans.location, ans.remedy).status_code == 404
    assert DrillStep.objects.filter(question=q).count() == 1


def refusal(client, response) -> str:
    """The message the page shows after a refused post (plain or htmx)."""
    assert response.status_code in (200, 302), response.status_code
    to = response["Location"] if response.status_code == 302 else response["HX-Redirect"]
    return client.get(to).content.decode()


@pytest.mark.parametrize("htmx", [False, True])
def test_a_body_the_drill_cannot_use_is_a_message_not_a_500(login, learner, htmx):
    attempt, q = drill_attempt(learner)
    ans = drill_for(q).answer
    client = login(learner)
    extra = HTMX if htmx else {}
    good = {"fault": ans.fault, "location": ans.location, "remedy": ans.remedy}
    good["idempotency_key"] = "k"
    cases = [
        ("act/", {"action": "rm -rf /", "idempotency_key": "k"}, "offers no action"),
        ("act/", {"action": "", "idempotency_key": "k"}, "Choose one of the drill"),
        ("act/", {"action": "x" * 500, "idempotency_key": "k"}, "Choose one of the drill"),
        ("act/", {"action": "squeue"}, "out of date"),
        ("act/", {"action": "squeue", "idempotency_key": "k" * 91}, "out of date"),
        ("submit/", {**good, "fault": "<script>alert(1)</script>"}, "fault choices"),
        ("submit/", {**good, "location": "nowhere"}, "location choices"),
        ("submit/", {**good, "remedy": "pray"}, "remedy choices"),
        ("submit/", {k: v for k, v in good.items() if k != "remedy"}, "Choose the remedy"),
        ("submit/", {k: v for k, v in good.items() if k != "idempotency_key"}, "out of date"),
    ]
    for suffix, body, said in cases:
        html = refusal(client, client.post(base(attempt, q) + suffix, body, **extra))
        assert said in html, (suffix, body)
        assert "<script>alert(1)</script>" not in html
    assert not DrillStep.objects.exists() and not Response.objects.exists()


def test_a_question_that_is_not_a_drill_refuses_drill_posts(login, learner, practice):
    client = login(learner)
    a, q = practice.attempt, practice.question
    html = refusal(client, act(client, a, q, "squeue"))
    assert "not an incident drill" in html
    html = refusal(client, submit(client, a, q, "gpu-off-bus", "gpu007", "reboot-node"))
    assert "not an incident drill" in html


def count(client, url: str) -> int:
    with CaptureQueriesContext(connection) as ctx:
        assert client.get(url).status_code == 200
    return len(ctx.captured_queries)


def test_the_page_reads_do_not_grow_with_the_steps(login, learner):
    attempt, q = drill_attempt(learner)
    drill = drill_for(q)
    client = login(learner)
    looks = [a.id for a in drill.actions if not a.disruptive]
    drill_act(attempt=attempt, question=q, action=looks[0], idempotency_key="s0")
    one = count(client, f"/attempts/{attempt.pk}/")
    for i, action in enumerate(looks[1:8], start=1):
        drill_act(attempt=attempt, question=q, action=action, idempotency_key=f"s{i}")
    assert count(client, f"/attempts/{attempt.pk}/") == one <= 10
    assert DrillStep.objects.filter(question=q).count() == 8


def test_a_practice_summary_counts_a_drill_right_on_what_its_learner_chose(learner):
    """Fault, location and remedy right, the time point lost to a slow path: right."""
    from assess.services.drills import drill_submit
    from frontend.queries.practice import practice_page

    lesson = LessonFactory(templates=[SLUG])
    practice = practice_question_add(learner=learner, lesson=lesson)
    attempt, question = practice.attempt, practice.question
    drill = drill_for(question)
    host = drill.answer.location.split(":")[0]
    for n in range(4):  # 4 x 15 simulated minutes of dcgmi diag: far past the budget
        drill_act(attempt=attempt, question=question, action=f"dcgmi-diag@{host}",
                  idempotency_key=f"slow-{n}")  # fmt: skip
    ans = drill.answer
    drill_submit(attempt=attempt, question=question, fault=ans.fault, location=ans.location,
                 remedy=ans.remedy, idempotency_key="k")  # fmt: skip
    assert Response.objects.get(question=question, part="time").raw == "late"
    page = practice_page(user=learner, attempt=attempt)
    (outcome,) = page.outcomes
    assert outcome.verdict == "right"
