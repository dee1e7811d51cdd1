# Tooling lives here: one way to do each thing.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
HOST ?= 127.0.0.1
PORT ?= 8000
# Test processes (pytest-xdist). Three on two cores: the browser, server and subprocess
# tests leave a core idle while they wait, and a third worker fills it (make test 13:18 ->
# 12:15 back to back on 2026-12-07, the same CPU time). A fourth does not: with three the
# cores were 91% busy through the browser, docs and contract tests (vmstat), and the whole
# suite took 9:45 with four against 9:18 with three.
# .ci/run's PostgreSQL pass keeps two: a third gained 8 s of 8 minutes there.
TEST_WORKERS ?= 3

# docs/ is a folder, so the docs targets must be phony.
.PHONY: install run test lint format formulas docs docs-screenshots migrate load check-problems bench bench-problems bench-endpoints bench-http bench-exam bench-exam-burst bench-exam-pages bench-page-costs bench-memos bench-markdown bench-classroom bench-scale chaos clean

install: $(STAMP)

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e ".[dev]"
	touch $(STAMP)

migrate: install
	$(BIN)/python manage.py migrate --noinput

# Migrate and load in one process (frontend/management/commands/prepare.py says why).
load: install
	$(BIN)/python manage.py prepare

run: load
	$(BIN)/python manage.py runserver $(HOST):$(PORT)

test: install
	$(BIN)/python -m pytest -n $(TEST_WORKERS)

lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports

format: install
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

# The templates' formulas typeset by sympy into problems/engine/formula_tex.json, which
# serving processes read instead of importing sympy: run after adding or changing a
# formula (tests/problems/test_formula_tex.py fails until the file is current).
formulas: install
	$(BIN)/python -m problems.engine.typeset_formulas

# The documentation site (mkdocs.yml, sources in docs/) into site/, strict: a broken link,
# a missing image or a page left out of the navigation fails it.
docs: install
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --quiet

# Screenshots of the main pages from the demo data at 1280 and 390 px, into docs/images/
# (Playwright on Debian's chromium; see docs/developers/testing.md).
docs-screenshots: install
	$(BIN)/python -m tools.docs.screenshots

# Every benchmark in one run (about 25 min on a fast hour, the scale bench's 5 included):
# needs PostgreSQL (BENCH_DATABASE_URL, default the local server), Redis (BENCH_BROKER_URL)
# and wrk; see bench/README.md.
BENCH_DATABASE_URL ?= $(or $(DATABASE_URL),postgres://postgres@127.0.0.1:5432/burnin)
BENCH_BROKER_URL ?= redis://127.0.0.1:6379/14

bench: bench-problems bench-endpoints bench-http bench-exam bench-exam-burst bench-exam-pages bench-page-costs bench-memos bench-markdown bench-classroom bench-scale

bench-problems: install
	$(BIN)/python bench/problems_bench.py

bench-endpoints: install
	$(BIN)/python bench/endpoint_costs.py --database-url $(BENCH_DATABASE_URL)

bench-http: install
	$(BIN)/python bench/http_bench.py --database-url $(BENCH_DATABASE_URL)

bench-exam: install
	$(BIN)/python bench/exam_load.py --database-url $(BENCH_DATABASE_URL) --learners 100 250 500 1000

# The exam's openings in bursts (50 simultaneous starts each second) and the exam through
# the web pages (issue 43, items 6 and 3; about 3 min each).
bench-exam-burst: install
	$(BIN)/python bench/exam_load.py --database-url $(BENCH_DATABASE_URL) --learners 1000 --burst

bench-exam-pages: install
	$(BIN)/python bench/exam_load.py --database-url $(BENCH_DATABASE_URL) --learners 750 1000 --pages

# The same pages in-process (no locust, no queue): a worker's CPU a page and a learner,
# to compare code back to back on a machine whose speed drifts (about a minute).
bench-page-costs: install
	$(BIN)/python bench/page_costs.py --database-url $(BENCH_DATABASE_URL) --learners 120

bench-memos: install
	DATABASE_URL=$(BENCH_DATABASE_URL) CELERY_BROKER_URL=$(BENCH_BROKER_URL) \
		$(BIN)/python bench/memo_reviews.py --memos 200 --workers 1 2

# Learner Markdown on hostile text, 1k/10k/60k characters (no database; under a minute).
bench-markdown: install
	$(BIN)/python bench/markdown_bench.py

# A classroom of 40 on `make run`'s own server and SQLite, through the pages (under 3 min).
bench-classroom: install
	$(BIN)/python bench/classroom.py --learners 40 --questions 10

# An institution's pages at scale (issue 43): a throwaway database filled by
# load_scale_data (20,000 learners, 2.3 min), then every page and API timed, the progress
# CSV's memory, fit_mastery and the calibration (about 15 min: not part of `make bench`).
# The scale bench's CSV memory step runs in a worker's install as deployed: the project
# and its dependencies without the dev extras (the Dockerfile's `pip install -e .`; the
# dev tools bring rich, pygments and jinja2, about 10 MB more a process).
WORKER_VENV := .venv-worker
$(WORKER_VENV)/.installed: pyproject.toml
	test -x $(WORKER_VENV)/bin/python || $(PY) -m venv $(WORKER_VENV)
	$(WORKER_VENV)/bin/pip install --quiet --upgrade pip
	$(WORKER_VENV)/bin/pip install --quiet -e .
	touch $@

bench-scale: install $(WORKER_VENV)/.installed
	$(BIN)/python bench/scale_bench.py --database-url $(BENCH_DATABASE_URL) --fresh 20000 \
		--worker-python $(WORKER_VENV)/bin/python

# The chaos run (issue 44): 200 learners against gunicorn, a private PostgreSQL and Redis
# and two Celery workers while a fault injector drawn from CHAOS_SEED kills and restarts
# them; fails unless nothing was lost (bench/README.md, "Chaos run"). Needs the PostgreSQL
# server binaries, runuser and redis-server; touches no shared server.
CHAOS_MINUTES ?= 10
CHAOS_SEED ?= 1

chaos: install
	$(BIN)/python bench/chaos.py --minutes $(CHAOS_MINUTES) --seed $(CHAOS_SEED)

clean:
	rm -rf $(VENV) db.sqlite3 staticfiles site
