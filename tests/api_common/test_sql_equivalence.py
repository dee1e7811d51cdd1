"""The hand-written SQL of the answer path and the certification check: the table of its
statements, each with the tests that hold it to its ORM twin on both databases, and why
it is SQL at all.

Building a statement through the ORM (cloning querysets, resolving lookups, compiling)
cost several times what the database took to run it on the answer path: the gated read
of a question 6.8 ms to build for 0.3 ms to run, the token check 1.1 ms for 0.15 ms
(bench/README.md, "Where the time went"). So the statements every answer, start, finish
and API request runs are SQL, as are the certification check's person gate, track and
rules (its p99 target is 20 ms), and api_common/rows.py loads their rows with the ORM's
own converters; every one of them is tested here against the same query or write
through the ORM, on the same data, field by field (tests/sql_twins.py): on SQLite by
`make test`, on PostgreSQL by .ci/run's second pass (so none of these tests is
db_independent).

Statements whose reason no longer held went back to the ORM (issue 37): a question's
tries (only SQLite's exam answer reads them: PostgreSQL's reads them in the answer's own
statement) and a first try's leftover events (on PostgreSQL only rows the guard refused:
SQLite, which logs them all there, serves no real traffic).

`test_every_piece_of_sql_is_in_the_table` reads the product code for SQL (string
literals that read as SQL, calls of api_common.rows' statement runners, cursors, raw
querysets) and holds what it finds to SITES: a new statement, or one more in a function
already listed, fails it until it is entered with its equivalence test.
"""

from __future__ import annotations

import ast
import importlib
import re
from dataclasses import dataclass
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone
from rest_framework.authtoken.models import Token

from api_common.authentication import _columns
from api_common.rows import fetch
from assess.selectors import user_is_teacher
from frontend.queries.roles import menu_roles
from orgs.models import Membership, Organization
from orgs.selectors import user_is_manager
from tests.factories import CourseFactory, CourseRoleFactory, UserFactory
from tests.sql_twins import assert_same

ROOT = Path(__file__).resolve().parents[2]
READS = "tests/assess/test_sql_reads.py"
WRITES = "tests/assess/services/test_sql_writes.py"
HERE = "tests/api_common/test_sql_equivalence.py"
REQUEST_READS = "tests/accounts/test_request_reads.py"
CHECK_READS = "tests/certify/test_check_reads.py"
DRAWN = "tests/assess/services/test_drawn_questions_store.py"
LEARNER_ROWS = "tests/assess/test_learner_rows.py"

ANSWER = "every answer: the ORM built it for several times its running cost (bench/README.md)"
STANDING = (
    "every certification check and readiness: 0.9-1.4 ms each to build through the ORM "
    "for a tenth of that to run"
)
CSV = "the progress CSV: 5,743 learners read 500 at a time, 8 us an id through the ORM's IN list"
START = "every start of an attempt (the exam bench's queue: bench/README.md, second pass)"


@dataclass(frozen=True)
class Statement:
    what: str  # the statement, in words
    why: str  # why it is SQL and not a queryset
    tests: tuple[str, ...]  # "path::test function" holding it to its ORM twin


STATEMENTS: dict[str, Statement] = {
    "token": Statement(
        "the API token with its user (api_common.authentication)",
        "every API request: 1.1 ms to build through the ORM for a 0.15 ms query",
        (f"{HERE}::test_the_token_read_is_what_its_queryset_reads",),
    ),
    "write gate": Statement(
        "an attempt, or a question with its slot, attempt and quiz, under the writer rule; "
        "a learner's own attempt (selectors.writers)",
        "every answer, reveal, hint, new variant and finish starts with it: 6.8 ms to build "
        "for 0.3 ms to run",
        (f"{READS}::test_the_write_gate_reads_what_its_queryset_reads",),
    ),
    "quiz gate": Statement(
        "a quiz the user may see, with its course (selectors.quiz_rows)",
        START + "; its nested subqueries cost more to build than all else a start reads",
        (
            f"{READS}::test_the_quiz_gate_reads_what_its_queryset_reads",
            "tests/assess/test_quiz_gate_sql.py::test_the_sql_gate_agrees_with_the_orm_rule",
        ),
    ),
    "start's gate": Statement(
        "the quiz gate with the learner's confirmation and extension "
        "(selectors.quiz_rows.quiz_get_for_start)",
        START + ": two reads of their own before, the extension's built through the ORM",
        (
            "tests/assess/test_start_facts.py::test_the_facts_say_what_the_reads_they_spare_say",
            "tests/assess/test_start_facts.py::test_the_facts_gate_as_the_quiz_gate_does",
        ),
    ),
    "attempt rows": Statement(
        "an attempt's active questions with their slots, their responses, their reveals, "
        "one statement (UNION ALL) (selectors.attempt_rows)",
        "every read of an attempt (review, finish, pages)",
        (f"{READS}::test_active_rows_read_what_their_querysets_read",),
    ),
    "question's responses": Statement(
        "a question's responses, valid or not, in stored order "
        "(selectors.attempt_rows.question_responses)",
        "every autosave of a web-page exam (nine a learner): 0.4 ms through the ORM",
        (
            "tests/assess/test_question_responses.py::test_a_question_s_responses_are_what_its_queryset_reads",
        ),
    ),
    "answer's locked read": Statement(
        "the attempt's row lock, then the question's state, tries and the learner's skill "
        "rows (selectors.locked.locked_state)",
        ANSWER,
        (f"{READS}::test_the_answer_s_locked_read_reads_what_its_querysets_read",),
    ),
    "start's locked attempts": Statement(
        "the learner's attempts on a quiz, locked (selectors.locked.attempts_locked)",
        START,
        (f"{READS}::test_a_start_s_locked_attempts_are_what_their_queryset_locks",),
    ),
    "finish's locked attempt": Statement(
        "the attempt, locked (selectors.locked.attempt_locked)",
        "every finish",
        (f"{READS}::test_a_finish_s_locked_attempt_is_what_its_queryset_locks",),
    ),
    "quiz with slots": Statement(
        "the quiz with its slots, outer-joined (selectors.locked.quiz_with_slots)",
        START,
        (f"{READS}::test_a_start_s_quiz_with_slots_is_what_its_querysets_read",),
    ),
    "attempt insert": Statement(
        "the new attempt's INSERT ON CONFLICT DO NOTHING with the quiz's key-share lock "
        "(selectors.locked.attempt_insert_sharing_quiz)",
        START + "; the ORM has no ON CONFLICT (a savepoint instead) nor FOR KEY SHARE",
        (f"{WRITES}::test_a_start_s_attempt_insert_stores_what_create_stores",),
    ),
    "questions insert": Statement(
        "the start's questions, one multi-row INSERT RETURNING their ids "
        "(api_common.rows.insert_objects)",
        START,
        (f"{WRITES}::test_a_start_s_questions_insert_stores_what_bulk_create_stores",),
    ),
    "drawn claim": Statement(
        "each slot's first waiting variant, deleted and returned, skipping one another "
        "start holds (services.drawn_variants.drawn_claim: SQLite's start; PostgreSQL's "
        "stores them as questions in the same statement, below)",
        START + "; the ORM deletes nothing in the statement that picks it, nor skips a lock",
        (
            f"{WRITES}::test_a_start_s_drawn_claim_takes_what_the_orm_takes",
            f"{WRITES}::test_a_start_s_drawn_claim_skips_a_variant_another_start_holds",
        ),
    ),
    "drawn questions": Statement(
        "PostgreSQL: each slot's first waiting variant deleted and stored as the new "
        "attempt's question in the same statement (services.drawn_variants."
        "drawn_questions_store); SQLite claims, builds and inserts (the two rows above)",
        START + "; the variants' statements and solved parts stay in the database rather "
        "than going to Python and back as 125 values",
        (
            f"{DRAWN}::test_a_full_pool_stores_what_the_step_by_step_path_stores",
            f"{DRAWN}::test_a_dry_slot_and_out_of_date_variants_store_nothing_for_their_slots",
            f"{DRAWN}::test_a_slot_listing_its_template_twice_stores_one_question",
            f"{DRAWN}::test_an_empty_pool_stores_nothing",
            f"{DRAWN}::test_a_start_stores_the_next_variant_when_another_start_holds_the_first",
        ),
    ),
    "answer insert": Statement(
        "a later try's INSERT ON CONFLICT DO NOTHING (services.responses)",
        ANSWER + "; ON CONFLICT decides a replay in the INSERT, no savepoint",
        (f"{WRITES}::test_an_answer_s_insert_stores_what_create_stores",),
    ),
    "exam answer": Statement(
        "an exam's answer: the attempt locked if it takes answers and the part has kept "
        "fewer than SAVES_CEILING saves (SKIP LOCKED), the INSERT, the question's saves, "
        "one statement (services.held_answers)",
        ANSWER + "; seven round trips became three",
        (
            f"{WRITES}::test_an_exam_answer_s_statement_stores_what_the_orm_stores",
            f"{WRITES}::test_an_exam_answer_s_statement_skips_an_attempt_another_writer_holds",
        ),
    ),
    "first try": Statement(
        "a first try's INSERT with its guarded skill-row upsert and events, one statement "
        "on PostgreSQL (services.first_tries)",
        ANSWER + "; three round trips after the decision became one",
        (f"{WRITES}::test_a_first_try_s_writes_are_what_the_orm_writes",),
    ),
    "guarded upsert": Statement(
        "the skill rows' upsert guarded by their answer count (services.mastery."
        "_upsert_steps; GUARDED_STEP)",
        "SQLite's first try runs PostgreSQL's own guard, so both hold one rule",
        (f"{WRITES}::test_the_guarded_upsert_writes_what_the_orm_guard_writes",),
    ),
    "release's locked rows": Statement(
        "the learner's skill rows, locked and created if missing, in one upsert "
        "(services.mastery._locked_rows)",
        "every exam's finish (its release): a locking read, an insert and a read again, before",
        (f"{WRITES}::test_a_release_s_locked_rows_are_what_the_orm_locks_and_creates",),
    ),
    "release's writes": Statement(
        "the skill rows' write, the answers' evidence marks and the events, one statement "
        "on PostgreSQL (services.mastery.mastery_apply)",
        "every exam's finish: the ORM's CASE update and a statement per write, before",
        (f"{WRITES}::test_a_release_s_writes_are_what_the_orm_writes",),
    ),
    "session read": Statement(
        "the unexpired session row under its key (accounts.session_store)",
        "every signed-in page and htmx request: 0.36 ms of CPU through the ORM, 0.14 as SQL",
        (f"{REQUEST_READS}::test_the_session_read_is_what_its_queryset_reads",),
    ),
    "user read": Statement(
        "the signed-in user by primary key (accounts.backends.PasswordBackend.get_user)",
        "every signed-in page and htmx request: 0.35 ms of CPU through the ORM, 0.15 as SQL",
        (f"{REQUEST_READS}::test_the_user_read_is_what_its_queryset_reads",),
    ),
    "confirmation gate": Statement(
        "whether the account has a sign-up still unconfirmed (accounts.selectors)",
        START + ": 0.7 ms to build through the ORM for a lookup by an indexed key",
        (f"{REQUEST_READS}::test_the_confirmation_gate_is_what_its_queryset_says",),
    ),
    "menu roles": Statement(
        "whether the user instructs a course and manages an organisation, two EXISTS "
        "(frontend.queries.roles)",
        "every page's menu: 0.7 ms to build through the ORM for 0.014 ms to run",
        (f"{HERE}::test_the_menu_roles_are_what_the_selectors_say",),
    ),
    "person gate": Statement(
        "the user named, if the asker is staff, that user or a manager of their "
        "organisation (orgs.selectors.person_get_for)",
        "every certification check: 1.9 ms to build through the ORM for 0.1 ms to run",
        (f"{CHECK_READS}::test_the_person_gate_finds_whom_its_queryset_finds",),
    ),
    "track with exam": Statement(
        "a track by slug with its exam (certify.statements, for selectors.track_get)",
        "every certification check: 1.0 ms to build through the ORM",
        (f"{CHECK_READS}::test_the_track_read_is_the_tracks_queryset_with_its_exam_loaded",),
    ),
    "tracks' lesson templates": Statement(
        "the lessons' templates of some tracks in course order (certify.statements, for "
        "selectors.track_rules)",
        "every certification check and readiness: 1.3 ms to build its four joins",
        (f"{CHECK_READS}::test_the_tracks_lesson_templates_are_what_their_queryset_lists",),
    ),
    "standing's certificates": Statement(
        "some holders' certificates on some tracks, the evidence snapshot unread "
        "(certify.statements, for selectors.standings)",
        STANDING,
        (f"{CHECK_READS}::test_a_standings_certificates_are_what_their_queryset_reads",),
    ),
    "learners' estimates": Statement(
        "some learners' skill estimates with their answer counts on some skills "
        "(assess.selectors.learner_rows, for certify.selectors.standings and the progress "
        "table and CSV)",
        STANDING + "; the progress CSV's 5,743 learners, 500 at a time: 8 us an id through "
        "the ORM's IN list",
        (
            f"{CHECK_READS}::test_a_standings_estimates_are_what_their_queryset_reads",
            f"{LEARNER_ROWS}::test_estimate_rows_are_what_their_queryset_reads",
        ),
    ),
    "learners' people": Statement(
        "some users' ids, usernames, names and emails (assess.selectors.learner_rows)",
        CSV,
        (f"{LEARNER_ROWS}::test_people_are_what_their_queryset_reads_in_the_order_asked",),
    ),
    "learners' started templates": Statement(
        "the templates some learners have answered (assess.selectors.learner_rows)",
        CSV,
        (f"{LEARNER_ROWS}::test_started_rows_are_what_their_queryset_reads",),
    ),
    "standing's exam attempts": Statement(
        "some learners' attempts at some exams with their recorded decisions (certify.statements)",
        STANDING,
        (f"{CHECK_READS}::test_a_standings_exam_attempts_are_what_their_queryset_reads",),
    ),
    "standing's memo approvals": Statement(
        "the approvals of some learners' memos with the approved versions' scores "
        "(certify.statements)",
        STANDING,
        (f"{CHECK_READS}::test_a_standings_memo_approvals_are_what_their_queryset_reads",),
    ),
}

# Every function (or module, "<module>") of the product code holding SQL: how many
# pieces (SQL literals, calls of api_common.rows' runners), and the statements they make.
SITES: dict[str, tuple[int, tuple[str, ...]]] = {
    "api_common.authentication:_columns": (1, ("token",)),
    "api_common.authentication:TokenAuthentication.authenticate_credentials": (1, ("token",)),
    "assess.selectors.writers:<module>": (3, ("write gate", "quiz gate")),
    "assess.selectors.writers:_statements": (3, ("write gate",)),
    "assess.selectors.writers:attempt_get_for_writer": (1, ("write gate",)),
    "assess.selectors.writers:attempt_get_own": (1, ("write gate",)),
    "assess.selectors.writers:question_get_for_writer": (1, ("write gate",)),
    "assess.selectors.quiz_rows:<module>": (1, ("quiz gate",)),
    "assess.selectors.quiz_rows:_statement": (2, ("quiz gate", "start's gate")),
    "assess.selectors.quiz_rows:quiz_get_reachable": (1, ("quiz gate",)),
    "assess.selectors.quiz_rows:quiz_get_for_start": (1, ("start's gate",)),
    "assess.selectors.attempt_rows:_statements": (2, ("attempt rows", "question's responses")),
    "assess.selectors.attempt_rows:active_rows": (1, ("attempt rows",)),
    "assess.selectors.attempt_rows:question_responses": (1, ("question's responses",)),
    "assess.selectors.locked:_statements": (2, ("answer's locked read",)),
    "assess.selectors.locked:locked_state": (2, ("answer's locked read",)),
    "assess.selectors.locked:_attempts_statement": (1, ("start's locked attempts",)),
    "assess.selectors.locked:attempts_locked": (1, ("start's locked attempts",)),
    "assess.selectors.locked:attempt_locked": (2, ("finish's locked attempt",)),
    "assess.selectors.locked:attempt_insert_sharing_quiz": (4, ("attempt insert",)),
    "assess.selectors.locked:_quiz_slots_statement": (1, ("quiz with slots",)),
    "assess.selectors.locked:quiz_with_slots": (1, ("quiz with slots",)),
    "assess.services.attempts:attempt_start": (1, ("questions insert",)),
    "assess.services.attempts:_questions_stored": (1, ("questions insert",)),
    "assess.services.drawn_variants:_claim_statement": (1, ("drawn claim",)),
    "assess.services.drawn_variants:drawn_claim": (1, ("drawn claim",)),
    "assess.services.drawn_variants:<module>": (1, ("drawn claim", "drawn questions")),
    "assess.services.drawn_variants:_pick_sql": (1, ("drawn claim", "drawn questions")),
    "assess.services.drawn_variants:_claim_into_questions_statement": (1, ("drawn questions",)),
    "assess.services.drawn_variants:drawn_questions_store": (1, ("drawn questions",)),
    "assess.services.responses:response_submit": (1, ("answer insert",)),
    "assess.services.held_answers:_statement": (4, ("exam answer",)),
    "assess.services.held_answers:held_answer_store": (1, ("exam answer",)),
    "assess.services.first_tries:_mastery_part": (1, ("first try",)),
    "assess.services.first_tries:first_try_store": (3, ("first try",)),
    "assess.services.mastery:<module>": (1, ("guarded upsert", "first try")),
    "assess.services.mastery:_rows_sql": (1, ("release's locked rows", "release's writes")),
    "assess.services.mastery:_locked_rows": (2, ("release's locked rows",)),
    "assess.services.mastery:_mark_evidence": (1, ("release's writes",)),
    "assess.services.mastery:mastery_apply": (2, ("release's writes",)),
    "assess.services.mastery:_upsert_steps": (2, ("guarded upsert",)),
    "accounts.session_store:_read": (1, ("session read",)),
    "accounts.session_store:session_row": (1, ("session read",)),
    "accounts.backends:_user_read": (1, ("user read",)),
    "accounts.backends:PasswordBackend.get_user": (1, ("user read",)),
    "accounts.selectors:unconfirmed_sql": (1, ("confirmation gate", "start's gate")),
    "accounts.selectors:email_confirmed": (2, ("confirmation gate",)),
    "frontend.queries.roles:_statement": (1, ("menu roles",)),
    "frontend.queries.roles:menu_roles": (1, ("menu roles",)),
    "orgs.selectors:_person_statements": (2, ("person gate",)),
    "orgs.selectors:person_get_for": (2, ("person gate",)),
    "certify.statements:track_statement": (1, ("track with exam",)),
    "certify.statements:links_statement": (1, ("tracks' lesson templates",)),
    "certify.statements:certificates_statement": (1, ("standing's certificates",)),
    "certify.statements:attempts_statement": (1, ("standing's exam attempts",)),
    "certify.statements:approvals_statement": (1, ("standing's memo approvals",)),
    "certify.selectors:track_get": (1, ("track with exam",)),
    "certify.selectors:track_rules": (1, ("tracks' lesson templates",)),
    "certify.selectors:standings": (
        4,
        (
            "standing's certificates",
            "learners' estimates",
            "standing's exam attempts",
            "standing's memo approvals",
        ),
    ),
    "assess.selectors.learner_rows:people_statement": (1, ("learners' people",)),
    "assess.selectors.learner_rows:started_statement": (1, ("learners' started templates",)),
    "assess.selectors.learner_rows:estimates_statement": (1, ("learners' estimates",)),
    "assess.selectors.learner_rows:people_of": (1, ("learners' people",)),
    "assess.selectors.learner_rows:started_rows": (1, ("learners' started templates",)),
    "assess.selectors.learner_rows:estimate_rows": (1, ("learners' estimates",)),
}

# SQL that is not a statement of the answer path, with the reason it has no ORM twin.
EXEMPT = {
    "frontend.views.pages:healthz": "the container's liveness probe: SELECT 1 asks the "
    "database nothing a queryset could say",
    "frontend.readiness:_database": "the readiness probe's database check: SELECT 1, as "
    "the liveness probe",
    "api_common.rows": "the row loader: builds and runs the statements above, each tested "
    "where it is used (tests/api_common/test_rows.py tests the loader itself)",
    "config.backups:_tables": "the restore's check that its target holds no tables, on a "
    "database the service's connections do not reach (its own sqlite3 or psycopg "
    "connection): the catalogue's table count, tested by tests/frontend/test_backups.py",
    "config.metrics:QueryTimer.__call__": "the metrics' execute wrapper: it times the "
    "statement it is handed and passes it on unchanged",
    "frontend.scale.rows": "the scale data's bulk writer (COPY or executemany of rows the "
    "generator built, a table's largest id, Django's own sequence reset): benchmark data, "
    "never a request's path; tests/frontend/test_load_scale_data.py checks what it writes",
    "problems.templates.capacity_judgement.generation_stop:<module>": "a question's scene "
    "(the first line of an answer a model wrote, a SQL query), shown to the learner, "
    "never run",
}

# ------------------------------------------------------------------ the scan

SQL = re.compile(
    r"\b(SELECT|INSERT INTO|UPDATE|DELETE FROM|ON CONFLICT|FOR UPDATE|FOR KEY SHARE|"
    r"FOR SHARE|RETURNING|JOIN|WHERE|VALUES|IS NULL|IS NOT NULL)\b"
)
RUNNERS = {
    "fetch",
    "fetch_in",
    "insert",
    "insert_statement",
    "insert_rows_statement",
    "insert_objects",
    "execute_together",
}
RAW = {"cursor", "raw", "extra", "execute", "executemany", "RawSQL"}
SKIPPED_DIRS = {"tests", "bench", "migrations", "node_modules"}


def _literal(node) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(v.value for v in node.values if isinstance(v, ast.Constant))
    return None


def sql_sites(source: str, module: str) -> dict[str, int]:
    """{"module:function": pieces of SQL in it} for one module's source: SQL literals
    (docstrings aside), calls of api_common.rows' runners, cursors and raw SQL."""
    tree = ast.parse(source)
    runners = {
        alias.asname or alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.module == "api_common.rows"
        for alias in node.names
        if alias.name in RUNNERS
    }
    found: dict[str, int] = {}

    def docstring(body) -> set[int]:
        first = body[0] if body else None
        return {id(first.value)} if isinstance(first, ast.Expr) else set()

    def visit(node, scope: str, skip: set[int]) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                visit(
                    child, f"{scope}.{child.name}" if scope else child.name, docstring(child.body)
                )
                continue
            if isinstance(child, ast.JoinedStr | ast.Constant) and id(child) not in skip:
                text = _literal(child)
                if text is not None and SQL.search(text):
                    site = f"{module}:{scope or '<module>'}"
                    found[site] = found.get(site, 0) + 1
                if isinstance(child, ast.JoinedStr):
                    continue  # its parts are counted with it
            if isinstance(child, ast.Call):
                func = child.func
                name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)
                if (isinstance(func, ast.Name) and name in runners) or name in RAW:
                    site = f"{module}:{scope or '<module>'}"
                    found[site] = found.get(site, 0) + 1
            visit(child, scope, skip)

    visit(tree, "", docstring(tree.body))
    return found


def product_sites() -> dict[str, int]:
    found: dict[str, int] = {}
    for path in sorted(ROOT.glob("*/**/*.py")):
        rel = path.relative_to(ROOT)
        if rel.parts[0].startswith(".") or SKIPPED_DIRS & set(rel.parts):
            continue
        if not (ROOT / rel.parts[0] / "__init__.py").exists():
            continue
        module = ".".join(rel.with_suffix("").parts).removesuffix(".__init__")
        found.update(sql_sites(path.read_text(), module))
    return found


def _exempt(site: str) -> bool:
    return site in EXEMPT or site.split(":")[0] in EXEMPT


def test_every_piece_of_sql_is_in_the_table():
    found = {site: n for site, n in product_sites().items() if not _exempt(site)}
    listed = {site: n for site, (n, _) in SITES.items()}
    new = {s: n for s, n in found.items() if s not in listed}
    changed = {s: (listed[s], n) for s, n in found.items() if s in listed and listed[s] != n}
    gone = sorted(set(listed) - set(found))
    assert not new, f"SQL with no entry in SITES (and no equivalence test): {new}"
    assert not changed, f"SQL pieces (listed, found) changed: a new statement? {changed}"
    assert not gone, f"SITES lists SQL that is no longer there: {gone}"
    assert {s for s in EXEMPT if ":" in s} <= set(product_sites()), "a stale exemption"


def test_the_scan_finds_a_new_statement():
    """The scan is not blind: a statement added to a function, in any of the forms the
    product writes them, is found (and would fail the test above)."""
    source = '''
from api_common.rows import fetch as run
from django.db import connection

X = "a.deadline IS NULL"

def f(pk):
    """A docstring that says SELECT is no statement."""
    quote = "t"
    return run(f"SELECT id FROM {quote} WHERE id = %s", [pk])

class C:
    def g(self):
        with connection.cursor() as c:
            c.execute("DELETE FROM t")
'''
    assert sql_sites(source, "m") == {"m:<module>": 1, "m:f": 2, "m:C.g": 3}


def _test_function(test_id: str):
    path, name = test_id.split("::")
    module = importlib.import_module(path.removesuffix(".py").replace("/", "."))
    return module, getattr(module, name)


@pytest.mark.parametrize("name", list(STATEMENTS))
def test_every_statement_has_its_equivalence_tests_on_both_databases(name):
    statement = STATEMENTS[name]
    assert statement.tests and statement.why
    assert any(name in names for _, names in SITES.values()), f"{name}: no site makes it"
    for test_id in statement.tests:
        module, function = _test_function(test_id)
        module_marks = getattr(module, "pytestmark", [])
        if not isinstance(module_marks, list):
            module_marks = [module_marks]
        marks = [*module_marks, *getattr(function, "pytestmark", [])]
        names = {m.name for m in marks}
        assert "db_independent" not in names, f"{test_id} would not run on PostgreSQL"
        assert {"django_db"} & names, f"{test_id} uses no database"


def test_every_site_names_statements_of_the_table():
    for site, (_, names) in SITES.items():
        assert names and set(names) <= set(STATEMENTS), site


# ------------------------------------------------------------------ the token read


def _orm_token(key: str):
    return Token.objects.select_related("user").filter(key=key).first()


TOKENS = ["unknown", "active, never signed in", "inactive, signed in, staff"]


@pytest.mark.django_db
@pytest.mark.parametrize("case", TOKENS)
def test_the_token_read_is_what_its_queryset_reads(case):
    """The token check's statement (api_common.authentication) against DRF's own
    queryset: the token's columns it reads (its key, user and creation) and every
    column of the user, with their types."""
    UserFactory(is_active=True)  # another user's token never comes back
    Token.objects.create(user=get_user_model().objects.get())
    key = "0" * 40
    if case != "unknown":
        user = UserFactory(
            is_active=case.startswith("active"),
            is_staff="staff" in case,
            last_login=None if "never" in case else timezone.now().replace(microsecond=5),
            first_name="" if "never" in case else "Ada",
        )
        key = Token.objects.create(user=user).key
    token_cols, user_cols, sql = _columns()
    rows = fetch(sql, [key])
    want = _orm_token(key)
    assert len(rows) == (0 if want is None else 1)
    if want is None:
        return
    token = token_cols.load(rows[0])
    user = user_cols.load(rows[0], len(token_cols))
    assert not token.get_deferred_fields()
    assert (token.pk, token.user_id, token.created) == (want.pk, want.user_id, want.created)
    assert type(token.created) is type(want.created) and token.created.tzinfo is not None
    assert_same(user, want.user)


# ------------------------------------------------------------------ the menu's roles

ROLE_CASES = ["none", "instructor", "member", "manager", "both"]


@pytest.mark.django_db
@pytest.mark.parametrize("case", ROLE_CASES)
def test_the_menu_roles_are_what_the_selectors_say(case):
    """The menu's statement (frontend.queries.roles) against the selectors' rules for
    the teaching and the teams' pages, with another user's roles beside it."""
    org = Organization.objects.create(slug="acme", name="Acme")
    other = UserFactory()
    CourseRoleFactory(user=other)
    Membership.objects.create(organization=org, user=other, role=Membership.Role.MANAGER)
    user = UserFactory()
    if case in ("instructor", "both"):
        CourseRoleFactory(user=user, course=CourseFactory())
    if case in ("member", "manager", "both"):
        role = Membership.Role.MEMBER if case == "member" else Membership.Role.MANAGER
        Membership.objects.create(organization=org, user=user, role=role)
    want = (user_is_teacher(user=user), user_is_manager(user=user))
    assert menu_roles(user=user) == want
    assert want == (
        case in ("instructor", "both"),
        case in ("manager", "both"),
    )
