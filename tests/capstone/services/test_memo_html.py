"""A memo version's HTML is made once, when the version is stored (memo_submit and
memo_version_add), by the one renderer of learner Markdown; versions stored before the
field get theirs from the migration that adds it (0016_memoversion_html)."""

from __future__ import annotations

import importlib
from types import SimpleNamespace

import pytest
from django.apps import apps

from capstone import services as svc
from capstone.memo_review.memo_markdown import memo_html
from capstone.models import MemoVersion
from tests.factories import CourseFactory, UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def course(db):
    return CourseFactory(slug=svc.CAPSTONE_COURSE)


def test_every_stored_version_carries_its_html(course):
    learner = UserFactory()
    first = svc.memo_submit(learner=learner, markdown="# Plan\n\n<b>Two</b> [x](javascript:y)")
    later = first.created_at + svc.VERSION_INTERVAL
    second = svc.memo_version_add(
        learner=learner, memo=first.memo, markdown="## Fleet\n\n- 2", now=later
    )
    first.refresh_from_db()
    second.refresh_from_db()
    assert first.html == "<h3>Plan</h3>\n<p>&lt;b&gt;Two&lt;/b&gt; <a>x</a></p>\n"
    assert second.html == memo_html("## Fleet\n\n- 2")
    assert second.html == "<h4>Fleet</h4>\n<ul>\n<li>2</li>\n</ul>\n"


def test_the_migration_renders_the_versions_stored_before_it(course):
    migration = importlib.import_module("assess.migrations.0016_memoversion_html")
    learner = UserFactory()
    old = svc.memo_submit(learner=learner, markdown="## Demand\n\n" + "[" * 59_000)
    later = old.created_at + svc.VERSION_INTERVAL
    done = svc.memo_version_add(learner=learner, memo=old.memo, markdown="## Fleet", now=later)
    MemoVersion.objects.filter(pk=old.pk).update(html="")
    MemoVersion.objects.filter(pk=done.pk).update(html="<p>kept</p>")

    # The migration's models were assess's then; the same table is capstone's now.
    moved = SimpleNamespace(get_model=lambda app, name: apps.get_model("capstone", name))
    migration.render_stored_versions(moved, None)

    old.refresh_from_db()
    done.refresh_from_db()
    assert old.html == memo_html(old.markdown) and old.html.startswith("<h4>Demand</h4>")
    assert done.html == "<p>kept</p>"  # a version that has its HTML is not rendered again
