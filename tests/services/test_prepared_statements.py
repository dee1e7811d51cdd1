"""On PostgreSQL the statements a request repeats are prepared once per connection.

Django's psycopg backend turns preparation off unless OPTIONS asks for it, and binding
parameters server-side prepares nothing by itself: before config/settings.py asked,
the server's log showed every statement of an answer parsed and planned on every run
(about half of PostgreSQL's time per answer).
"""

from django.conf import settings
from django.db import connection

from assess.models import Attempt


def _prepared(statement_part: str) -> list[str]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT statement FROM pg_prepared_statements")
        return [row[0] for row in cursor.fetchall() if statement_part in row[0]]


def test_a_statement_run_past_the_threshold_is_prepared(services_ready):
    threshold = settings.DATABASES["default"]["OPTIONS"]["prepare_threshold"]
    assert threshold == 5
    marker = "/* prepared-statement probe */"
    sql = "SELECT /* prepared-statement probe */ id FROM assess_attempt WHERE id = %s"
    with connection.cursor() as cursor:
        for n in range(threshold - 1):
            cursor.execute(sql, [n])
    assert not _prepared(marker)  # below the threshold: parsed each time
    with connection.cursor() as cursor:
        cursor.execute(sql, [0])
        cursor.execute(sql, [0])
    assert len(_prepared(marker)) == 1


def test_orm_reads_are_prepared_too(services_ready):
    for n in range(6):
        list(Attempt.objects.filter(pk=n))
    assert _prepared('FROM "assess_attempt"')
