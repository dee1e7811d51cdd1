"""A stored answer's payload, written by hand (ResponseResultSerializer.to_representation),
is what DRF's own field-by-field path writes for it, then masked as the feedback
policy masks it, for every kind of value its fields take and in any time zone."""

from __future__ import annotations

import contextlib
import zoneinfo
from datetime import UTC, datetime, timedelta, timezone

from django.utils import timezone as django_timezone
from hypothesis import given, settings
from hypothesis import strategies as st
from rest_framework import serializers

from assess.api.serializers.attempts import AnswerResultSerializer
from assess.api.serializers.responses import ResponseResultSerializer
from assess.models import Response

HIDDEN = ("correct", "score", "feedback", "misconception")
ZONES = [UTC, timezone(timedelta(hours=-7)), zoneinfo.ZoneInfo("Asia/Kolkata")]

texts = st.text(max_size=30)
responses = st.builds(
    Response,
    id=st.integers(1, 2**63 - 1),
    question_id=st.integers(1, 2**63 - 1),
    part=texts,
    raw=texts,
    created_at=st.datetimes(
        min_value=datetime(1970, 1, 2),
        max_value=datetime(9999, 12, 30),
        timezones=st.sampled_from(ZONES),
    ),
    valid=st.booleans(),
    correct=st.booleans(),
    score=st.one_of(st.floats(0, 1), st.integers(0, 1)),  # an int from Python before a reload
    feedback=texts,
    misconception=st.one_of(st.just(""), texts),
)


def drf(response, visible: bool) -> dict:
    """What the serializer wrote before: DRF's own path, then the masking."""
    data = dict(serializers.Serializer.to_representation(ResponseResultSerializer(), response))
    data["misconception"] = data["misconception"] or None
    if not visible:
        data.update(dict.fromkeys(HIDDEN))
    return data


@settings(max_examples=300, deadline=None)
@given(response=responses, visible=st.booleans(), zone=st.sampled_from([None, *ZONES]))
def test_the_hand_written_payload_is_drfs(response, visible, zone):
    with django_timezone.override(zone) if zone else contextlib.nullcontext():
        got = ResponseResultSerializer(context={"visible": visible}).to_representation(response)
        want = drf(response, visible)
    assert list(got) == list(want)  # the same keys in the same order
    assert {k: (type(v), v) for k, v in got.items()} == {k: (type(v), v) for k, v in want.items()}


def test_a_utc_time_ends_in_z_and_another_zone_keeps_its_offset():
    response = Response(
        id=1, question_id=2, part="p", raw="1 GB", valid=True, correct=False, score=0,
        feedback="", misconception="gb-vs-gib", created_at=datetime(2026, 12, 6, 18, 0, 0, 5, UTC),
    )  # fmt: skip
    body = ResponseResultSerializer(response, context={"visible": True}).data
    assert body["created_at"] == "2026-12-06T18:00:00.000005Z"
    assert (body["score"], body["misconception"], body["correct"]) == (0.0, "gb-vs-gib", False)
    with django_timezone.override(zoneinfo.ZoneInfo("Asia/Kolkata")):
        body = ResponseResultSerializer(response, context={}).data
    assert body["created_at"] == "2026-12-06T23:30:00.000005+05:30"
    assert [body[k] for k in HIDDEN] == [None] * 4  # no `visible`: hidden


def test_the_answer_s_body_adds_its_question_state_after_the_answer():
    response = Response(
        id=1, question_id=2, part="p", raw="1 GB", valid=True, correct=True, score=1.0,
        feedback="Right.", misconception="", created_at=datetime(2026, 12, 6, tzinfo=UTC),
    )  # fmt: skip

    class Answer(AnswerResultSerializer):
        def get_question_state(self, response) -> dict:
            return {"state": self.context["review"]}

    body = Answer(response, context={"visible": True, "review": "seen"}).data
    assert list(body)[-1] == "question_state" and body["question_state"] == {"state": "seen"}
    assert {k: v for k, v in body.items() if k != "question_state"} == drf(response, True)
