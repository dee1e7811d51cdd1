"""The readiness matrix's cells, written by hand (ReadinessCellSerializer.
to_representation), are DRF's own output for every kind of value its fields take."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from types import SimpleNamespace

from django.utils import timezone as django_timezone
from hypothesis import given, settings
from hypothesis import strategies as st
from rest_framework import serializers

from certify.api.serializers import ReadinessCellSerializer
from certify.requirements import Status

zones = st.sampled_from(
    [UTC, timezone(timedelta(hours=5, minutes=30)), timezone(-timedelta(hours=8))]
)
moments = st.one_of(
    st.none(),
    st.datetimes(min_value=datetime(1900, 1, 2), max_value=datetime(2200, 1, 1), timezones=zones),
    st.datetimes(min_value=datetime(1900, 1, 2), max_value=datetime(2200, 1, 1)),  # naive
)
texts = st.one_of(st.none(), st.text(max_size=20))
cells = st.builds(
    lambda slug, certified, status, until, reason, missing, key, certificate: SimpleNamespace(
        track=SimpleNamespace(slug=slug),
        standing=SimpleNamespace(
            certified=certified,
            status=status,
            until=until,
            reason=reason,
            readiness=SimpleNamespace(missing=[SimpleNamespace(key=k) for k in missing]),
        ),
        certificate=SimpleNamespace(pk=key) if certificate else None,
    ),
    slug=texts,
    certified=st.one_of(st.booleans(), st.none(), st.sampled_from([0, 1, "true", "no"])),
    status=st.one_of(st.sampled_from(list(Status)), st.sampled_from(["", "other"]), st.none()),
    until=moments,
    reason=texts,
    missing=st.lists(st.sampled_from(["mastery", "exam", "memo"]), unique=True),
    key=st.one_of(st.none(), st.text(max_size=12), st.integers(0, 10**9)),
    certificate=st.booleans(),
)


def _drf(cell) -> dict:
    return serializers.Serializer.to_representation(ReadinessCellSerializer(), cell)


@settings(max_examples=400, deadline=None)
@given(cell=cells, zone=st.sampled_from(["UTC", "Asia/Kolkata", "America/Los_Angeles"]))
def test_a_cell_is_written_as_drf_writes_it(cell, zone):
    with django_timezone.override(zone):
        assert ReadinessCellSerializer().to_representation(cell) == _drf(cell)


def test_one_writer_for_many_cells_matches_too():
    """The zone is asked once per instance, which writes every cell of the payload."""
    writer = ReadinessCellSerializer()
    for hours in (0, 5, -8):
        cell = SimpleNamespace(
            track=SimpleNamespace(slug="inference"),
            standing=SimpleNamespace(
                certified=True,
                status=Status.CERTIFIED,
                until=datetime(2027, 1, 2, 3, 4, 5, tzinfo=timezone(timedelta(hours=hours))),
                reason="Certified until 2027-01-02.",
                readiness=SimpleNamespace(missing=[]),
            ),
            certificate=SimpleNamespace(pk="c-1"),
        )
        assert writer.to_representation(cell) == _drf(cell)
