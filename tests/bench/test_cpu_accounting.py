"""The benches' CPU accounting: the HTTP bench's time between two readings, process by
process, and the in-process profile's sum by package."""

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


def test_the_profile_sums_cpu_by_the_package_a_function_lives_in():
    from bench.endpoint_costs import ROOT, _package

    site = "/x/.venv/lib/python3.11/site-packages"
    assert _package(f"{site}/django/db/models/base.py") == "django.db"
    assert _package(f"{site}/rest_framework/fields.py") == "rest_framework"
    assert _package(str(ROOT / "assess/services/responses.py")) == "assess"
    assert _package("~") == "builtins"
    assert _package("/usr/lib/python3.11/copy.py") == "python"
