"""Answers for stored questions, computed from the server-side answers JSON."""

from __future__ import annotations

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
