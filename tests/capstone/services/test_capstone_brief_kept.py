"""A capstone keeps the brief it was drawn with (issue 34): the brief is stored at the
draw, so a later generator (a new version, other prices, another window) never rewrites
it under a memo; capstones drawn before briefs were stored get version 1's brief from the
frozen generator, which still draws exactly what version 1 drew."""

from __future__ import annotations

import hashlib
import json

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from capstone import services as svc
from capstone.memo_review import brief as generator
from capstone.memo_review import brief_v1
from capstone.memo_review.example import example_memo
from capstone.memo_review.review import review_memo
from capstone.models import Capstone, MemoVersion
from tests.factories import CourseFactory, UserFactory

# sha256 of json.dumps([version 1's brief_for(seed).as_dict() for seed in range(40)],
# sort_keys=True), recorded from the generator as it stood before version 2.
V1_SEEDS_0_39 = "a042b279dcfc1c212be68ac3c6ce3b970b0ab9504501f727a67ac058abc35c65"


@pytest.fixture
def course(db):
    return CourseFactory(slug=svc.CAPSTONE_COURSE)


def test_a_capstone_reads_back_the_brief_it_was_drawn_with_after_a_new_generator(
    learner, course, monkeypatch, django_capture_on_commit_callbacks
):
    capstone, drawn = svc.capstone_start(learner=learner)
    assert drawn and capstone.brief_version == generator.BRIEF_VERSION
    shown = svc.capstone_brief(capstone)
    assert shown == generator.brief_for(capstone.seed)

    # A later generator: a new version that draws another brief for every seed.
    real = generator.brief_for
    monkeypatch.setattr(generator, "BRIEF_VERSION", generator.BRIEF_VERSION + 1)
    monkeypatch.setattr(generator, "brief_for", lambda seed: real(seed + 1))
    assert generator.brief_for(capstone.seed) != shown

    again = Capstone.objects.get(pk=capstone.pk)
    assert svc.capstone_brief(again) == shown
    assert again.brief_version == generator.BRIEF_VERSION - 1
    # The memo written for it is reviewed against the brief it was written for.
    text = example_memo(shown)
    with django_capture_on_commit_callbacks(execute=True):
        version = svc.memo_submit(learner=learner, markdown=text)
    version = MemoVersion.objects.get(pk=version.pk)
    assert version.review == review_memo(shown, text).as_dict()
    assert version.score == version.max_score == 34
    # A capstone drawn now records the new version.
    other, _ = svc.capstone_start(learner=UserFactory())
    assert other.brief_version == generator.BRIEF_VERSION


def test_a_capstone_without_a_stored_brief_is_drawn_by_its_version(learner, course):
    old = Capstone.objects.create(learner=learner, course=course, seed=7, brief_version=1)
    assert svc.capstone_brief(old) == brief_v1.brief_for(7)
    new = Capstone.objects.create(learner=UserFactory(), course=course, seed=7)
    assert svc.capstone_brief(new) == generator.brief_for(7)


def test_the_frozen_version_1_draws_what_version_1_drew():
    briefs = []
    for seed in range(40):
        data = brief_v1.brief_for(seed).as_dict()
        data.pop("n_heads")  # added for version 2's attention FLOPs
        briefs.append(data)
    digest = hashlib.sha256(json.dumps(briefs, sort_keys=True).encode()).hexdigest()
    assert digest == V1_SEEDS_0_39


@pytest.mark.django_db(transaction=True)
def test_the_migration_keeps_version_1_briefs_for_existing_capstones():
    executor = MigrationExecutor(connection)
    executor.migrate([("assess", "0016_memoversion_html")])
    apps = executor.loader.project_state([("assess", "0016_memoversion_html")]).apps
    old = apps.get_model("assess", "Capstone").objects.create(
        learner_id=UserFactory().pk, course_id=CourseFactory().pk, seed=123
    )
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(executor.loader.graph.leaf_nodes())

    row = Capstone.objects.get(pk=old.pk)
    assert row.brief_version == 1
    assert row.brief == json.loads(json.dumps(brief_v1.brief_for(123).as_dict()))
    assert svc.capstone_brief(row) == brief_v1.brief_for(123)
    assert svc.capstone_brief(row) != generator.brief_for(123)
