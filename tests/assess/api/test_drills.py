"""An incident drill through the API: start, take actions, submit, review, under the one
feedback policy in practice (immediate) and in an exam (deferred)."""

from __future__ import annotations

import json

import pytest

from assess.models import DrillStep, MasteryEvent, Question, Quiz, Response
from problems.drills.export import export
from problems.engine.variants import Variant
from tests.assess.helpers import assert_hidden, send
from tests.factories import QuizFactory

pytestmark = [pytest.mark.django_db, pytest.mark.urls("tests.assess.urls")]

SLUG = "drill-gpu-off-bus"


def drill_quiz(mode=Quiz.Mode.PRACTICE, **kw) -> Quiz:
    return QuizFactory(mode=mode, slots=[[SLUG]], **kw)


def start(api, quiz) -> tuple[int, int]:
    r = api.post(f"/api/quizzes/{quiz.pk}/attempts/")
    assert r.status_code == 201, r.content
    body = r.json()
    (question,) = body["questions"]
    return body["id"], question["id"]


def drill_for(qid: int):
    q = Question.objects.get(pk=qid)
    v = Variant.from_params(q.template_slug, q.params)
    return v.template.drill(v.params)


def act(api, aid, qid, action, key=None):
    return api.post(
        f"/api/attempts/{aid}/questions/{qid}/drill/actions/",
        {"action": action, "idempotency_key": key or f"k-{action}"},
        format="json",
    )


def submit(api, aid, qid, fault, location, remedy, key="submit-1"):
    return api.post(
        f"/api/attempts/{aid}/questions/{qid}/drill/submit/",
        {"fault": fault, "location": location, "remedy": remedy, "idempotency_key": key},
        format="json",
    )


def review(api, aid) -> dict:
    r = api.get(f"/api/attempts/{aid}/")
    assert r.status_code == 200, r.content
    (question,) = r.json()["questions"]
    return question


def other_host(drill) -> str:
    host = drill.answer.location.split(":")[0]
    return next(n.hostname for n in drill.state.nodes if n.hostname != host)


def untaken_outputs(drill, taken) -> list[str]:
    """What the actions not taken would print (on the initial state), where no taken
    action printed the same: none of it may reach a learner."""
    seen = {a["output"] for a in export(drill)["actions"] if a["id"] in taken}
    return [
        a["output"]
        for a in export(drill)["actions"]
        if a["id"] not in taken and a["output"] not in seen and len(a["output"]) > 40
    ]


def test_a_drill_in_practice_from_alert_to_timeline(api):
    aid, qid = start(api, drill_quiz())
    drill = drill_for(qid)
    q = review(api, aid)
    assert drill.alert.splitlines()[0] in q["statement_markdown"]
    block = q["drill"]
    assert block["steps"] == [] and block["submitted"] is False and block["accepts"] is True
    assert {a["id"] for a in block["actions"]} == {a.id for a in drill.actions}
    assert all("output" not in a for a in block["actions"])
    assert block["expert_path"] is None and block["unneeded_steps"] is None
    assert {c["id"] for c in block["choices"]["fault"]} >= {"gpu-off-bus", "thermal-throttle"}
    assert q["solution_markdown"] is None and all(p["answer"] is None for p in q["parts"])
    assert [p["name"] for p in q["parts"]] == ["fault", "location", "remedy", "time", "safety"]

    # Three looks and one wrong disruptive act (1 minute: within the time budget), each
    # printing from the one state.
    wrong = f"resume@{other_host(drill)}"
    taken = [*drill.expert_path, wrong]
    for n, action in enumerate(taken, start=1):
        r = act(api, aid, qid, action)
        assert r.status_code == 201, r.content
        step = r.json()["step"]
        assert step["number"] == n and step["action"] == action and step["output"].strip()
    expected = drill.replay(taken)
    outputs = [s.output for s in DrillStep.objects.filter(question_id=qid).order_by("number")]
    assert outputs == [out for _, out in expected]
    q = review(api, aid)
    assert [s["at"] for s in q["drill"]["steps"]] == [
        sum(drill.action(a).minutes for a in taken[:i]) for i in range(len(taken))
    ]
    text = json.dumps(q)
    assert not [o for o in untaken_outputs(drill, taken) if o in text]
    assert q["drill"]["expert_path"] is None  # still nothing that points at the fault

    ans = drill.answer
    r = submit(api, aid, qid, ans.fault, ans.location, ans.remedy)
    assert r.status_code == 201, r.content
    q = r.json()
    assert q["score"] == pytest.approx(0.9)  # resuming a healthy node cost the safety point
    by_part = {p["name"]: p for p in q["parts"]}
    assert by_part["safety"]["status"]["score"] == 0 and by_part["time"]["status"]["score"] == 1
    assert all(p["status"]["closed"] == "submitted" for p in q["parts"])
    (safety,) = [x for x in q["responses"] if x["part"] == "safety"]
    assert wrong in safety["feedback"] and drill.action(wrong).label in safety["feedback"]
    assert q["drill"]["unneeded_steps"] == [len(taken)]
    assert [s["action"] for s in q["drill"]["expert_path"]] == list(drill.expert_path)
    assert q["drill"]["accepts"] is False and q["solution_markdown"]


def test_an_action_retried_with_its_key_is_taken_once(api):
    aid, qid = start(api, drill_quiz())
    drill = drill_for(qid)
    wrong = f"reboot@{other_host(drill)}"
    first = act(api, aid, qid, wrong, key="same")
    again = act(api, aid, qid, wrong, key="same")
    assert (first.status_code, again.status_code) == (201, 200)
    assert again.json() == first.json()
    assert DrillStep.objects.filter(question_id=qid).count() == 1
    other = act(api, aid, qid, drill.expert_path[0], key="same")
    assert other.status_code == 422, other.content


def test_a_drill_is_submitted_once_and_then_takes_no_actions(api):
    aid, qid = start(api, drill_quiz())
    drill = drill_for(qid)
    ans = drill.answer
    assert submit(api, aid, qid, ans.fault, ans.location, ans.remedy).status_code == 201
    replay = submit(api, aid, qid, ans.fault, ans.location, ans.remedy)
    assert replay.status_code == 200
    assert (
        submit(api, aid, qid, "thermal-throttle", ans.location, ans.remedy, "k2").status_code == 409
    )
    assert act(api, aid, qid, drill.expert_path[0]).status_code == 409
    assert Response.objects.filter(question_id=qid).count() == 5


def test_a_drill_part_is_never_answered_or_revealed_on_its_own(api):
    aid, qid = start(api, drill_quiz())
    r = send(api, aid, qid, "fault", "gpu-off-bus", "part-by-part")
    assert r.status_code == 409 and "drill" in r.json()["errors"][0]["detail"]
    r = api.post(f"/api/attempts/{aid}/questions/{qid}/reveal/", {"part": "fault"}, format="json")
    assert r.status_code == 409
    assert not Response.objects.filter(question_id=qid).exists()
    assert review(api, aid)["can_reveal"] is False


def test_one_drill_is_one_piece_of_mastery_evidence(api, learner):
    aid, qid = start(api, drill_quiz())
    drill = drill_for(qid)
    ans = drill.answer
    submit(api, aid, qid, ans.fault, ans.location, ans.remedy)
    evidence = Response.objects.filter(question_id=qid, evidence=True)
    assert [r.part for r in evidence] == ["fault"]
    events = MasteryEvent.objects.filter(learner=learner)
    assert [e.skill for e in events] == ["incident-triage"]


def test_an_exam_drill_shows_evidence_but_no_verdict_until_the_finish(api, learner):
    aid, qid = start(api, drill_quiz(Quiz.Mode.EXAM))
    drill = drill_for(qid)
    r = act(api, aid, qid, drill.expert_path[0])
    assert r.status_code == 201 and r.json()["step"]["output"].strip()
    ans = drill.answer
    r = submit(api, aid, qid, ans.fault, ans.location, "no-action")
    assert r.status_code == 201, r.content
    q = r.json()
    assert q["score"] is None and q["solution_markdown"] is None
    assert all(p["answer"] is None and p["status"]["score"] is None for p in q["parts"])
    assert all(x["correct"] is None and x["feedback"] is None for x in q["responses"])
    assert q["drill"]["expert_path"] is None and q["drill"]["unneeded_steps"] is None
    assert q["drill"]["steps"][0]["output"]  # the evidence shows: it is not a verdict
    assert_hidden(r.json() | {"questions": [q]}, qid)
    assert not MasteryEvent.objects.filter(learner=learner).exists()

    finished = api.post(f"/api/attempts/{aid}/finish/")
    assert finished.status_code == 200
    body = finished.json()
    assert body["score"] == pytest.approx(0.7)  # remedy wrong: 3 of 10 lost
    (q,) = body["questions"]
    assert q["drill"]["expert_path"] and q["solution_markdown"]
    assert [e.skill for e in MasteryEvent.objects.filter(learner=learner)] == ["incident-triage"]


def test_an_unsubmitted_drill_scores_nothing_at_the_finish(api):
    aid, qid = start(api, drill_quiz(Quiz.Mode.EXAM))
    act(api, aid, qid, drill_for(qid).expert_path[0])
    body = api.post(f"/api/attempts/{aid}/finish/").json()
    assert body["score"] == 0
    assert act(api, aid, qid, drill_for(qid).expert_path[1]).status_code == 409


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"action": "rm -rf /", "idempotency_key": "k"}, "action"),
        ({"action": "", "idempotency_key": "k"}, "action"),
        ({"action": "squeue"}, "idempotency_key"),
        ({"action": ["squeue"], "idempotency_key": "k"}, "action"),
        ({"action": "squeue", "idempotency_key": "k" * 91}, "idempotency_key"),
    ],
)
def test_a_bad_action_body_is_a_400_naming_its_field(api, body, field):
    aid, qid = start(api, drill_quiz())
    r = api.post(f"/api/attempts/{aid}/questions/{qid}/drill/actions/", body, format="json")
    assert r.status_code == 400, r.content
    assert r.json()["errors"][0]["attr"] == field
    assert not DrillStep.objects.exists()


@pytest.mark.parametrize("field", ["fault", "location", "remedy"])
def test_a_choice_the_drill_does_not_list_is_a_400(api, field):
    aid, qid = start(api, drill_quiz())
    ans = drill_for(qid).answer
    body = {"fault": ans.fault, "location": ans.location, "remedy": ans.remedy}
    r = submit(api, aid, qid, **{**body, field: "<script>alert(1)</script>"})
    assert r.status_code == 400 and r.json()["errors"][0]["attr"] == field
    assert not Response.objects.exists()


def test_a_question_that_is_not_a_drill_refuses_drill_requests(api):
    aid, qid = start(api, QuizFactory(slots=[["weights-memory"]]))
    assert act(api, aid, qid, "squeue").status_code == 400
    assert submit(api, aid, qid, "gpu-off-bus", "x", "reboot-node").status_code == 400


def test_someone_elses_drill_is_a_404_whatever_the_body(api, client_for, other_learner):
    aid, qid = start(api, drill_quiz())
    other = client_for(other_learner)
    for body in ({"action": "squeue", "idempotency_key": "k"}, {"nonsense": 1}):
        r = other.post(f"/api/attempts/{aid}/questions/{qid}/drill/actions/", body, format="json")
        assert r.status_code == 404
    r = other.post(
        f"/api/attempts/{aid}/questions/{qid}/drill/submit/", "{", content_type="application/json"
    )
    assert r.status_code == 404
    assert not DrillStep.objects.exists()


def test_a_drill_regrade_reads_its_findings_again_from_the_steps(api, learner, monkeypatch):
    """The regrade keeps the learner's choices and reads time and safety again from the
    steps against the drill as it is now: here the wrong act becomes part of handling."""
    from assess.services.regrade import responses_regrade

    aid, qid = start(api, drill_quiz(Quiz.Mode.EXAM))
    drill = drill_for(qid)
    wrong = f"resume@{other_host(drill)}"
    act(api, aid, qid, wrong)
    ans = drill.answer
    submit(api, aid, qid, ans.fault, ans.location, ans.remedy)
    api.post(f"/api/attempts/{aid}/finish/")
    safety = Response.objects.get(question_id=qid, part="safety")
    assert (safety.raw, safety.score) == ("unneeded-disruption", 0)

    import dataclasses

    from problems.drills import question as drill_question

    handled = dataclasses.replace(drill, handling=drill.handling | {wrong})
    monkeypatch.setattr(drill_question, "_drill", lambda slug, seed: handled)
    report = responses_regrade(template_slug=SLUG)
    safety.refresh_from_db()
    assert (safety.raw, safety.score, safety.feedback) == ("safe", 1.0, "Correct.")
    assert [c.part for c in report.changes] == ["safety"]
    from assess.models import Attempt

    assert Attempt.objects.get(pk=aid).score == pytest.approx(1.0)


def test_reading_a_drill_costs_the_same_queries_however_many_steps(api):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    aid, qid = start(api, drill_quiz())
    drill = drill_for(qid)
    counts = []
    for n in (1, 6):
        while DrillStep.objects.filter(question_id=qid).count() < n:
            k = DrillStep.objects.filter(question_id=qid).count()
            assert act(api, aid, qid, drill.expert_path[0], key=f"q{k}").status_code == 201
        with CaptureQueriesContext(connection) as ctx:
            assert api.get(f"/api/attempts/{aid}/").status_code == 200
        counts.append(len(ctx))
    assert counts[0] == counts[1]
