"""The HTTP bench's CPU columns: time spent between two readings, process by process."""

import pytest

from bench._server import cpu_between

pytestmark = pytest.mark.db_independent


def test_each_process_counts_what_it_spent_between_the_readings():
    before = {("postgres", 10): 3600.0, ("gunicorn", 20): 5.0}
    after = {("postgres", 10): 3601.5, ("gunicorn", 20): 7.0, ("postgres", 11): 0.25}
    assert cpu_between(before, after) == {"gunicorn": 2.0, "postgres": 1.75}


def test_a_process_that_ended_takes_nothing_away():
    # a backend with an hour of CPU whose connection closed mid-run: summing the
    # totals would give the database -3,598.5 s
    before = {("postgres", 10): 3600.0, ("postgres", 11): 1.0}
    after = {("postgres", 11): 2.5}
    assert cpu_between(before, after) == {"gunicorn": 0.0, "postgres": 1.5}
