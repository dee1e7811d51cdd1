"""Answers for stored questions, computed from the server-side answers JSON; the API's
error format and pages as the tests read them; and the checks that nothing leaks."""

from __future__ import annotations

import json

from assess.models import Question


def parts_of(question_id: int) -> list[dict]:
    return Question.objects.get(pk=question_id).answers


def correct_text(part: dict) -> str:
    if part["kind"] == "choice":
        return str(part["value"])
    if part["kind"] == "integer":
        return str(int(part["value"]))
    return f"{part['value']!r} {part['unit']}".strip()


def wrong_text(part: dict) -> str:
    """Readable and wrong, by a factor no misconception detector knows (37)."""
    if part["kind"] == "choice":
        return next(c for c in part["choices"] if c != part["value"])
    if part["kind"] == "integer":
        return str(int(part["value"]) * 37 + 1)
    return f"{part['value'] * 37!r} {part['unit']}".strip()


def answer(client, attempt_id: int, question_id: int, part: dict, *, correct=True, key=None):
    """POST one answer through the API; returns the DRF response."""
    text = correct_text(part) if correct else wrong_text(part)
    return client.post(
        f"/api/attempts/{attempt_id}/responses/",
        {
            "question": question_id,
            "part": part["name"],
            "answer": text,
            "idempotency_key": key or f"{question_id}-{part['name']}-{text}",
        },
        format="json",
    )


def answer_all(client, attempt_id: int, question_ids, *, correct=True) -> None:
    for qid in question_ids:
        for part in parts_of(qid):
            r = answer(client, attempt_id, qid, part, correct=correct)
            assert r.status_code == 201, r.content


def misconception_text(part: dict) -> str:
    """A GB/GiB part answered with the right bytes in the other unit: the "gb-vs-gib"
    slip, typed as a bare number (the reader takes it in the part's unit)."""
    value = float(part["value"])
    if part["unit"] == "GB":
        return repr(value * 1e9 / 2**30)
    if part["unit"] == "GiB":
        return repr(value * 2**30 / 1e9)
    raise AssertionError(f"not a GB/GiB part: {part}")


def send(client, attempt_id: int, question_id: int, part: str, text: str, key: str):
    return client.post(
        f"/api/attempts/{attempt_id}/responses/",
        {"question": question_id, "part": part, "answer": text, "idempotency_key": key},
        format="json",
    )


def reveal(client, attempt_id: int, question_id: int, part: str):
    return client.post(
        f"/api/attempts/{attempt_id}/questions/{question_id}/reveal/", {"part": part}, format="json"
    )


def rows_of(response) -> list[dict]:
    """The rows of a paginated list response (one page; the tests' lists are short)."""
    assert response.status_code == 200, response.content
    body = response.json()
    assert set(body) == {"count", "next", "previous", "results"}, body
    assert body["count"] == len(body["results"]) and body["next"] is None, body
    return body["results"]


# ------------------------------------------------------------------------------ errors

ERROR_TYPES = {"validation_error", "client_error", "server_error"}


def error_body(response, status: int) -> dict:
    """The response is an error of this status in the API's one format:
    `{type, errors: [{code, detail, attr}]}` (plus `valid` for an unreadable answer)."""
    assert response.status_code == status, (response.status_code, response.content[:500])
    assert response["Content-Type"].startswith("application/json"), response["Content-Type"]
    body = response.json()
    assert body["type"] in ERROR_TYPES, body
    assert body["errors"], body
    for error in body["errors"]:
        assert set(error) == {"code", "detail", "attr"}, error
        assert isinstance(error["detail"], str) and error["detail"], error
    assert set(body) <= {"type", "errors", "valid"}, body
    return body


def error_of(response, status: int, attr: str | None = None) -> dict:
    """The first error of the body (the first about `attr`, when given)."""
    errors = error_body(response, status)["errors"]
    if attr is not None:
        errors = [e for e in errors if e["attr"] == attr]
        assert errors, (attr, response.json())
    return errors[0]


def error_attrs(response, status: int = 400) -> set[str | None]:
    return {e["attr"] for e in error_body(response, status)["errors"]}


# ------------------------------------------------------------------------------ leaks


def value_spellings(value: float) -> set[str]:
    """Ways a number could be printed: repr, str, %g, 4 to 15 significant figures, fixed
    decimals, thousands separators (plain and LaTeX's {,}), scientific notation, and the
    engine's own sig() and tex(). Spellings of fewer than 4 digits are dropped: they
    would match ids and counts by chance."""
    from problems.engine.numbers import sig, tex

    v = float(value)
    out = {repr(v), str(v), f"{v:g}", f"{v:e}", tex(v), f"{v:,}"}
    for digits in (4, 5, 6, 7, 8, 10, 12, 15):
        out.add(f"{v:.{digits}g}")
        out.add(sig(v, digits))
        out.add(tex(v, digits))
        out.add(f"{v:.{digits - 1}e}")
    for decimals in (1, 2, 3, 4):
        out.add(f"{v:.{decimals}f}")
        out.add(f"{v:,.{decimals}f}")
    if v.is_integer():
        out.add(str(int(v)))
        out.add(f"{int(v):,}")
    out |= {s.replace(",", "{,}") for s in out}
    return {s for s in out if sum(c.isdigit() for c in s) >= 4}


def printed_input(part: dict, statement_html: str) -> bool:
    """Whether the statement prints the part's value as one of its inputs, in any
    spelling: at one byte per parameter the weights in GB are the parameter count in
    billions. Such a value is no leak anywhere, whatever figures a page or a hint
    prints it to (the statement's 6.7384 billion is a hint's 6.73842)."""
    return any(s in statement_html for s in value_spellings(part["value"]))


_TIMES = ("started_at", "deadline", "finished_at", "created_at")
_STATEMENTS = ("statement_html", "statement_markdown")
_IDS = ("id", "quiz", "question", "attempt", "number")


def _scrub(node):
    """What the learner already knows or cannot be the answer: the statement, their own
    typed answers, timestamps and row ids (which could equal an integer answer) are
    blanked."""
    if isinstance(node, list):
        return [_scrub(x) for x in node]
    if not isinstance(node, dict):
        return node
    out = {}
    for key, value in node.items():
        own_text = key == "answer" and "valid" in node  # a stored response's text
        if key in _STATEMENTS or key in _TIMES or own_text:
            out[key] = ""
        elif key in _IDS and isinstance(value, int):
            out[key] = 0
        else:
            out[key] = _scrub(value)
    return out


def _about(body: dict, question_id: int) -> dict:
    """The body with only the given question kept in a `questions` list."""
    if "questions" not in body:
        return body
    return {**body, "questions": [q for q in body["questions"] if q["id"] == question_id]}


def _question_nodes(body: dict, question_id: int) -> list[dict]:
    nodes = []
    if "question_state" in body and body["question_state"]["id"] == question_id:
        nodes.append(body["question_state"])
    if body.get("id") == question_id and "parts" in body:
        nodes.append(body)
    if isinstance(body.get("question"), dict) and body["question"].get("id") == question_id:
        nodes.append(body["question"])
    nodes += [q for q in body.get("questions", []) if q["id"] == question_id]
    return nodes


def assert_hidden(body: dict, question_id: int, parts: tuple[str, ...] | None = None) -> None:
    """No part of the question (or only the named parts) shows its value anywhere in
    the body, under any spelling, and its worked solution is nowhere in it, neither as
    HTML nor as Markdown."""
    from assess.selectors import solution_html, solution_markdown

    question = Question.objects.get(pk=question_id)
    text = json.dumps(_scrub(_about(body, question_id)), ensure_ascii=False)
    assert "seed" not in text and '"params"' not in text
    assert str(question.seed) not in text
    for part in question.answers:
        if parts is not None and part["name"] not in parts:
            continue
        if part["kind"] == "choice":  # its value is one of the listed choices
            continue
        if printed_input(part, question.statement_html):
            continue
        for spelling in value_spellings(part["value"]):
            assert spelling not in text, (part, spelling)
    for solution in (solution_html(question), solution_markdown(question)):
        assert solution and json.dumps(solution, ensure_ascii=False)[1:-1] not in text
    for node in _question_nodes(body, question_id):
        assert node.get("solution_html") is None
        assert node.get("solution_markdown") is None
        for shown in node["parts"]:
            if parts is None or shown["name"] in parts:
                assert shown.get("answer") is None, shown


def assert_shown(body: dict, question_id: int, part: str) -> None:
    """The part's value shows in the question's entry (and the review is consistent)."""
    stored = Question.objects.get(pk=question_id).part(part)
    nodes = _question_nodes(body, question_id)
    assert nodes
    for node in nodes:
        [shown] = [p for p in node["parts"] if p["name"] == part]
        assert shown["answer"] == {"value": stored["value"], "unit": stored["unit"]}


def fake_seeds(monkeypatch, seed_of):
    """Seeds that do not depend on the attempt, so a test knows the draws in advance (a
    redraw away from a template's public example, `again`, moves to another seed).
    `seed_of(variant_number, draw)` gives each draw's seed."""
    from assess.services import questions

    monkeypatch.setattr(
        questions,
        "question_seed",
        lambda *, attempt_id, slot_id, variant_number, draw=0, again=0: (
            seed_of(variant_number, draw) + 7919 * again
        ),
    )


def age_memo_versions(memo_id: int | None = None) -> None:
    """Move the memo's versions (every memo's, without an id) back past the one version
    a minute rule (capstone.services.VERSION_INTERVAL), for a test whose subject is
    the next version rather than the rate."""
    from django.db.models import F

    from capstone.models import MemoVersion
    from capstone.services import VERSION_INTERVAL

    rows = (
        MemoVersion.objects.all() if memo_id is None else MemoVersion.objects.filter(memo=memo_id)
    )
    rows.update(created_at=F("created_at") - VERSION_INTERVAL)


def answer_question(attempt, question, *, right: bool = True, key: str = "") -> None:
    """Answer every part of a question through the services, right or readable-and-wrong:
    part by part, or an incident drill's one submission (its fault kind wrong when not
    right)."""
    from assess.services.responses import response_submit
    from assess.skills import is_drill
    from certify.services.simulation import submit_drill

    if is_drill(question.template_slug):
        submit_drill(attempt, question, right, key=f"{key}drill-")
        return
    for part in question.answers:
        response_submit(
            attempt=attempt,
            question=question,
            part=part["name"],
            text=correct_text(part) if right else wrong_text(part),
            idempotency_key=f"{key}{question.pk}-{part['name']}",
        )
