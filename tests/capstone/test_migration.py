"""The capstone's move out of assess keeps every row and every API answer.

Memos are written with the services at the latest schema and read through the API; the
database is then taken back to the schema before the move (assess's tables, where a
second memo is written with the models of that time, as a server of then would have),
and forward again. Every row of the four tables and every API answer about them is the
same afterwards, and the content types keep their ids. Runs on SQLite and PostgreSQL."""

from __future__ import annotations

import pytest
from django.contrib.contenttypes.models import ContentType
from django.db import IntegrityError, connection
from django.db.migrations.executor import MigrationExecutor
from rest_framework.test import APIClient

from capstone.memo_review.brief import brief_for
from capstone.memo_review.example import example_memo
from capstone.models import Capstone, Memo, MemoDecision, MemoVersion
from capstone.services import CAPSTONE_COURSE, capstone_get_or_create, memo_decide, memo_submit
from tests.factories import CourseFactory, CourseRoleFactory, UserFactory

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.urls("tests.assess.urls")]

BEFORE = [("assess", "0017_capstone_keeps_its_brief"), ("capstone", None)]
MODELS = (Capstone, Memo, MemoVersion, MemoDecision)
OLD_TABLES = {"assess_capstone", "assess_memo", "assess_memoversion", "assess_memodecision"}
NEW_TABLES = {m._meta.db_table for m in MODELS}


def _executor() -> MigrationExecutor:
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    return executor


def _latest() -> None:
    executor = _executor()
    executor.migrate(executor.loader.graph.leaf_nodes())


@pytest.fixture(autouse=True)
def _back_to_the_latest_schema():
    """Whatever the test leaves, the worker's next tests meet every migration applied."""
    yield
    _latest()


def _rows() -> dict[str, list[dict]]:
    return {m.__name__: list(m.objects.order_by("pk").values()) for m in MODELS}


def _answers(users) -> dict:
    """What the API says about every memo, to each of its readers."""
    seen = {}
    for user in users:
        client = APIClient()
        client.force_authenticate(user)
        listing = client.get("/api/memos/")
        assert listing.status_code == 200
        seen[(user.username, "list")] = listing.json()
        for memo_id in Memo.objects.values_list("pk", flat=True):
            r = client.get(f"/api/memos/{memo_id}/")
            seen[(user.username, memo_id)] = (r.status_code, r.json())
        r = client.get("/api/capstone/brief/")
        seen[(user.username, "brief")] = (r.status_code, r.json())
    return seen


def _tables() -> set[str]:
    return set(connection.introspection.table_names())


def test_moving_the_capstone_out_of_assess_keeps_rows_answers_and_content_types(
    django_capture_on_commit_callbacks,
):
    course = CourseFactory(slug=CAPSTONE_COURSE)
    ada, bob = UserFactory(username="ada"), UserFactory(username="bob")
    teacher = UserFactory(username="teacher")
    CourseRoleFactory(user=teacher, course=course, role="instructor")
    capstone = capstone_get_or_create(learner=ada)
    with django_capture_on_commit_callbacks(execute=True):  # the review runs eagerly
        version = memo_submit(learner=ada, markdown=example_memo(brief_for(capstone.seed)))
    version.refresh_from_db()
    assert version.review_status == MemoVersion.ReviewStatus.DONE
    memo_decide(
        instructor=teacher,
        memo=version.memo,
        decision="request_changes",
        comment="Cover the peak.",
        adjustments=[{"criterion": "measurement-plan", "points": 1.0, "comment": "load?"}],
    )
    types = {
        m.__name__: ContentType.objects.get_for_model(m).pk for m in MODELS
    }  # made by the test database's post_migrate
    ContentType.objects.clear_cache()

    executor = _executor()
    executor.migrate(BEFORE)

    # The schema of before the move: assess's tables, holding the rows.
    assert _tables() >= OLD_TABLES and not (NEW_TABLES & _tables())
    old = executor.loader.project_state(BEFORE[:1]).apps
    assert old.get_model("assess", "MemoVersion").objects.get(pk=version.pk).score == version.score
    assert set(
        ContentType.objects.filter(pk__in=types.values()).values_list("app_label", flat=True)
    ) == {"assess"}
    # A memo written at that schema, as a server of then would have.
    b_capstone = old.get_model("assess", "Capstone").objects.create(
        learner_id=bob.pk, course_id=course.pk, seed=99, brief=brief_for(99).as_dict(),
        brief_version=2,
    )  # fmt: skip
    b_memo = old.get_model("assess", "Memo").objects.create(capstone=b_capstone)
    old.get_model("assess", "MemoVersion").objects.create(
        memo=b_memo, number=1, markdown="# Memo\n", html="<h1>Memo</h1>\n"
    )

    _latest()
    ContentType.objects.clear_cache()

    assert _tables() >= NEW_TABLES and not (OLD_TABLES & _tables())
    assert {m.__name__: ContentType.objects.get_for_model(m).pk for m in MODELS} == types
    rows = _rows()
    assert [r["learner_id"] for r in rows["Capstone"]] == [ada.pk, bob.pk]
    assert [(r["memo_id"], r["number"]) for r in rows["MemoVersion"]] == [
        (version.memo_id, 1),
        (b_memo.pk, 1),
    ]
    assert rows["MemoDecision"][0]["comment"] == "Cover the peak."
    answers = _answers([ada, bob, teacher])
    assert answers[("bob", b_memo.pk)][1]["versions"][0]["markdown"] == "# Memo\n"
    assert answers[("ada", version.memo_id)][1]["status"] == "changes_requested"

    # And back and forth again: nothing is lost either way, nothing changes.
    _executor().migrate(BEFORE)
    _latest()
    ContentType.objects.clear_cache()
    assert _rows() == rows
    assert _answers([ada, bob, teacher]) == answers
    # The constraints and the index came along under this app's names, and hold.
    with connection.cursor() as cursor:
        names = set(connection.introspection.get_constraints(cursor, "capstone_memoversion"))
    assert {"capstone_memo_version_once", "capstone_memo_review_due"} <= names
    # (Names the database made itself, a PostgreSQL foreign key's, keep theirs: harmless.)
    assert not names & {"assess_memo_version_once", "assess_memo_review_due"}
    with pytest.raises(IntegrityError):
        MemoVersion.objects.create(memo_id=b_memo.pk, number=1, markdown="again")
