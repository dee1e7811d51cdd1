"""The certification check's hand-written reads, each held to the queryset it replaced, on
both databases (tests/api_common/test_sql_equivalence.py lists them): the person gate
(orgs.selectors.person_get_for), the track with its exam (certify.selectors.track_get)
and the tracks' lesson templates (certify.selectors.track_rules). Each is SQL because the
ORM took several times as long to build it as the database to run it (bench/README.md,
issue 43)."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.db.models import Exists, OuterRef, Q
from django.test.utils import CaptureQueriesContext

from api_common.rows import fetch
from certify import selectors
from curricula.models import LessonTemplate
from orgs.models import Membership, Organization
from orgs.selectors import managed_org_ids, person_get_for
from tests.factories import UserFactory
from tests.sql_twins import assert_same

User = get_user_model()


def _orm_person(*, asker, username: str):
    """person_get_for as the ORM said it."""
    people = User.objects.filter(username=username)
    if not asker.is_staff:
        managed = Membership.objects.filter(
            user_id=OuterRef("pk"), organization_id__in=managed_org_ids(user=asker)
        )
        people = people.filter(Q(pk=asker.pk) | Exists(managed))
    return people.get()


ASKERS = [
    "staff",
    "the person",
    "a manager of their organisation",
    "a manager of another organisation",
    "a member beside them",
    "a manager asking a name nobody has",
]


@pytest.mark.django_db
@pytest.mark.parametrize("asker_is", ASKERS)
def test_the_person_gate_finds_whom_its_queryset_finds(asker_is):
    """Whoever asks, the statement finds the person its queryset finds (every column,
    with its type) or, where the queryset finds nobody, raises User.DoesNotExist."""
    ours, theirs = (Organization.objects.create(slug=s, name=s) for s in ("ours", "theirs"))
    person = UserFactory(first_name="Grace", last_name="Hopper")
    Membership.objects.create(organization=ours, user=person)
    asker = {
        "staff": lambda: UserFactory(is_staff=True),
        "the person": lambda: person,
    }.get(asker_is, UserFactory)()
    role = Membership.Role.MEMBER if asker_is == "a member beside them" else None
    if asker_is not in ("staff", "the person"):
        org = theirs if asker_is == "a manager of another organisation" else ours
        Membership.objects.create(
            organization=org, user=asker, role=role or Membership.Role.MANAGER
        )
    username = "nobody-at-all" if asker_is.endswith("nobody has") else person.username
    try:
        want = _orm_person(asker=asker, username=username)
    except User.DoesNotExist:
        with pytest.raises(User.DoesNotExist):
            person_get_for(asker=asker, username=username)
        assert asker_is in ASKERS[3:]
        return
    assert asker_is in ASKERS[:3]
    assert_same(person_get_for(asker=asker, username=username), want)


@pytest.mark.django_db
def test_the_track_read_is_the_tracks_queryset_with_its_exam_loaded(tracks):
    """track_get against `tracks_all().get(slug=...)` (select_related exam): the track's
    and the exam's columns with their types, and the exam reached from the track (and the
    track from the exam) without another query; an unknown slug is Track.DoesNotExist."""
    for slug in tracks:
        want = selectors.tracks_all().get(slug=slug)
        got = selectors.track_get(slug=slug)
        with CaptureQueriesContext(connection) as ctx:
            assert_same(got, want)
            assert_same(got.exam, want.exam)
            assert got.exam.certification_track is got
        assert ctx.captured_queries == []
    with pytest.raises(selectors.Track.DoesNotExist):
        selectors.track_get(slug="no-such-track")


@pytest.mark.django_db
def test_the_tracks_lesson_templates_are_what_their_queryset_lists(tracks):
    """The rules' one statement against the queryset it replaced, row for row in order,
    for each real track, for every track at once and for none."""

    def orm(ids):
        return list(
            LessonTemplate.objects.filter(lesson__tracks__in=ids)
            .order_by(
                "lesson__module__course__order", "lesson__module__order", "lesson__order", "order"
            )
            .values_list("lesson__tracks", "lesson__slug", "lesson__title", "template_slug")
        )

    def sql(ids):
        marks = ", ".join(["%s"] * len(ids))
        return [tuple(row) for row in fetch(selectors._links_statement().format(marks=marks), ids)]

    every = [t.pk for t in tracks.values()]
    for ids in [[pk] for pk in every] + [every]:
        want = orm(ids)
        assert want and sql(ids) == want
    assert selectors.track_rules([]) == {}
