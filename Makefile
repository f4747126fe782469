# The README's two commands are `make run` and `make test`; everything else builds on them.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: setup sandbox browser browser-libs run demo test drill fuzz lint typecheck bench bench-api bench-service bench-short bench-ladder bench-admin bench-live bench-swiss bench-knockout bench-bots bench-train bench-war bench-1923 bench-banter bench-punk bench-sprt bench-training-data clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev,train]'
	touch $(STAMP)

setup: $(STAMP) sandbox browser browser-libs

## The browser libraries (Chart.js, htmx, and axe-core for the tests), from the npm registry at pinned,
## checksummed versions (.ci/vendor-js).
browser-libs:
	@.ci/vendor-js

## Uploaded bots run in bubblewrap on Debian's python3 (docs/bot-protocol.md, "The sandbox").
## .ci/apt-install waits for another apt's lock rather than failing on it.
sandbox:
	@command -v bwrap >/dev/null && test -x /usr/bin/python3 || \
		( echo "installing bubblewrap and python3 for the bot sandbox" && \
		  .ci/apt-install bubblewrap python3 >/dev/null ) || \
		echo "warning: could not install bubblewrap; uploaded bots cannot run here (apt-get install bubblewrap)"

## The browser tests drive Debian's chromium through Playwright (tests/e2e/test_web_table.py); nothing
## may download a browser build, so `playwright install` is never run.
browser:
	@test -x /usr/bin/chromium || \
		( echo "installing Debian's chromium for the browser tests" && .ci/apt-install chromium >/dev/null ) || \
		echo "warning: could not install chromium; the browser tests will be skipped (apt-get install chromium)"

## The service on embedded defaults: migrate, load the demo club (played competitions), serve the admin site.
run: setup
	$(PY) manage.py migrate --noinput
	$(PY) manage.py load_demo
	@echo ""
	@echo "Admin site: http://127.0.0.1:8000/admin/   login: demo / demo"
	@echo ""
	$(PY) manage.py serve 127.0.0.1:8000

demo: run

## The whole suite; uses PostgreSQL and Redis when reachable (required with CI=true).
test: setup
	@. .ci/services.sh && $(PY) -m pytest

## The resilience drills (docs/drill.md), in their long form (DRILL=full; `make test` runs the short one): workers
## killed and Redis restarted mid-competition, PostgreSQL restarted and stopped mid-competition and mid-game, Redis
## killed mid-game. They take down the PostgreSQL and Redis that `make test` uses (.ci/services.sh); prints the figures.
DRILLS := tests/e2e/test_drill.py tests/e2e/test_drill_postgres.py tests/e2e/test_drill_live_postgres.py \
	tests/e2e/test_drill_live_redis.py tests/e2e/test_drill_batches.py
drill: setup
	@. .ci/services.sh && DRILL=full $(PY) -m pytest -s $(DRILLS)

## The API fuzz gate at depth (tournaments/fuzz.py): Schemathesis over every operation with every check,
## anonymous and as a member, FUZZ_EXAMPLES (1,000) examples per operation, on a fresh PostgreSQL database;
## prints a summary. The test suite runs the same gate with 50 (tests/e2e/test_api_fuzz.py).
FUZZ_DB ?= postgres://postgres@127.0.0.1:5432/cardclub_fuzz
FUZZ_EXAMPLES ?= 1000
fuzz: setup
	dropdb -h 127.0.0.1 -U postgres --if-exists cardclub_fuzz
	createdb -h 127.0.0.1 -U postgres cardclub_fuzz
	DATABASE_URL=$(FUZZ_DB) DJANGO_SETTINGS_MODULE=config.settings.test $(PY) manage.py migrate --noinput -v 0
	DATABASE_URL=$(FUZZ_DB) DJANGO_SETTINGS_MODULE=config.settings.test $(PY) manage.py fuzz_api --examples $(FUZZ_EXAMPLES)

lint: setup
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .

typecheck: setup
	$(PY) -m mypy

## Engine speed, one core, records kept (docs/performance.md).
bench: bench-war bench-1923 bench-banter bench-punk

bench-war: setup
	$(PY) -m engine bench war --games 20000

bench-1923: setup
	$(PY) -m engine bench 1923 --games 5000 --bots random,random --option mode=set

bench-banter: setup
	$(PY) -m engine bench banter --games 1000 --bots random,random

bench-punk: setup
	$(PY) -m engine bench punk --games 10000 --bots random,random,random,random

## The standings endpoint under load (docs/performance.md): PostgreSQL, 100,000 games, wrk.
BENCH_DB ?= postgres://postgres@127.0.0.1:5432/cardclub_bench
bench-api: setup
	@command -v wrk >/dev/null || .ci/apt-install wrk >/dev/null
	@psql -h 127.0.0.1 -U postgres -tAc "select 1 from pg_database where datname='cardclub_bench'" | grep -q 1 \
		|| createdb -h 127.0.0.1 -U postgres cardclub_bench
	DATABASE_URL=$(BENCH_DB) $(PY) manage.py migrate --noinput -v 0
	DATABASE_URL=$(BENCH_DB) CACHE_URL=redis://127.0.0.1:6379/1 $(PY) manage.py bench_api

## Persisted games/s through the whole service against the bare engine, for matches of 20, of 500 and of
## 1,000 War games (docs/performance.md). A fresh database each time, so runs compare.
SERVICE_DB ?= postgres://postgres@127.0.0.1:5432/cardclub_bench_service
bench-service: setup
	dropdb -h 127.0.0.1 -U postgres --if-exists cardclub_bench_service
	createdb -h 127.0.0.1 -U postgres cardclub_bench_service
	DATABASE_URL=$(SERVICE_DB) $(PY) manage.py migrate --noinput -v 0
	DATABASE_URL=$(SERVICE_DB) CELERY_BROKER_URL=redis://127.0.0.1:6379/0 CACHE_URL=redis://127.0.0.1:6379/1 \
		$(PY) manage.py bench_service --entrants 32 --games-per-match 20
	DATABASE_URL=$(SERVICE_DB) CELERY_BROKER_URL=redis://127.0.0.1:6379/0 CACHE_URL=redis://127.0.0.1:6379/1 \
		$(PY) manage.py bench_service --entrants 16 --games-per-match 500
	DATABASE_URL=$(SERVICE_DB) CELERY_BROKER_URL=redis://127.0.0.1:6379/0 CACHE_URL=redis://127.0.0.1:6379/1 \
		$(PY) manage.py bench_service --entrants 16 --games-per-match 1000

## Single-game matches (what a rating ladder plays) through the whole service against the bare engine: a War
## round robin of 64 bots, 2,016 matches, on 2 workers; the last line is the figure (issue 25). A fresh database.
bench-short: setup
	dropdb -h 127.0.0.1 -U postgres --if-exists cardclub_bench_service
	createdb -h 127.0.0.1 -U postgres cardclub_bench_service
	DATABASE_URL=$(SERVICE_DB) $(PY) manage.py migrate --noinput -v 0
	DATABASE_URL=$(SERVICE_DB) CELERY_BROKER_URL=redis://127.0.0.1:6379/0 CACHE_URL=redis://127.0.0.1:6379/1 \
		$(PY) manage.py bench_service --entrants 64 --games-per-match 1

## The worked example of docs/training.md: a 1923 bot trained with NumPy for a minute on one core against random,
## then 2,000 sets against random; the last line is its score rate with a 95% interval (issue 26).
bench-train: setup
	$(PY) examples/train_1923.py --seconds 60 --eval-sets 2000 --out var/trained_1923.py

## A rating ladder of 1,000 built-in bots ticked for 20 rounds on 2 workers: matches/s scheduled and recorded,
## and the tick's time (docs/performance.md, "Ladders"). A fresh database.
LADDER_DB ?= postgres://postgres@127.0.0.1:5432/cardclub_bench_ladder
LADDER_REDIS ?= redis://127.0.0.1:6379
bench-ladder: setup
	dropdb -h 127.0.0.1 -U postgres --if-exists cardclub_bench_ladder
	createdb -h 127.0.0.1 -U postgres cardclub_bench_ladder
	DATABASE_URL=$(LADDER_DB) $(PY) manage.py migrate --noinput -v 0
	DATABASE_URL=$(LADDER_DB) CELERY_BROKER_URL=$(LADDER_REDIS)/0 CACHE_URL=$(LADDER_REDIS)/1 \
		$(PY) manage.py bench_ladder --bots 1000 --rounds 20

## The admin's competition list and a big ladder's change page: a rating ladder of 1,000 bots and 10,000 matches
## (bulk inserts), each page's median and slowest GET as a superuser and as a scoped organiser (docs/performance.md,
## "Admin pages"). A fresh database each time; ADMIN_DB_NAME names it.
ADMIN_DB_NAME ?= cardclub_bench_admin
bench-admin: setup
	dropdb -h 127.0.0.1 -U postgres --if-exists $(ADMIN_DB_NAME)
	createdb -h 127.0.0.1 -U postgres $(ADMIN_DB_NAME)
	DATABASE_URL=postgres://postgres@127.0.0.1:5432/$(ADMIN_DB_NAME) $(PY) manage.py migrate --noinput -v 0
	DATABASE_URL=postgres://postgres@127.0.0.1:5432/$(ADMIN_DB_NAME) $(PY) manage.py bench_admin --entrants 1000 --matches 10000

## A bot's training-data download at 1,000, 10,000 and 100,000 of its Punk games (bulk inserts of engine records):
## lines, time and the download's peak memory at each size (docs/performance.md, "Training data"). A fresh
## database each time; TRAINING_DB_NAME names it.
TRAINING_DB_NAME ?= cardclub_bench_training
bench-training-data: setup
	dropdb -h 127.0.0.1 -U postgres --if-exists $(TRAINING_DB_NAME)
	createdb -h 127.0.0.1 -U postgres $(TRAINING_DB_NAME)
	DATABASE_URL=postgres://postgres@127.0.0.1:5432/$(TRAINING_DB_NAME) $(PY) manage.py migrate --noinput -v 0
	DATABASE_URL=postgres://postgres@127.0.0.1:5432/$(TRAINING_DB_NAME) $(PY) manage.py bench_training_data --games 1000,10000,100000

## Live tables: 200 tables of scripted people over HTTP (uvicorn, Redis events), moves/s and the time from a
## move's POST to the other seats seeing it, at two paces of play (docs/performance.md). A fresh database.
LIVE_DB ?= postgres://postgres@127.0.0.1:5432/cardclub_bench_live
bench-live: setup
	dropdb -h 127.0.0.1 -U postgres --if-exists cardclub_bench_live
	createdb -h 127.0.0.1 -U postgres cardclub_bench_live
	DATABASE_URL=$(LIVE_DB) $(PY) manage.py migrate --noinput -v 0
	DATABASE_URL=$(LIVE_DB) CELERY_BROKER_URL=redis://127.0.0.1:6379/0 CACHE_URL=redis://127.0.0.1:6379/1 \
		$(PY) manage.py bench_live --tables 200 --think-ms 1000-3000
	DATABASE_URL=$(LIVE_DB) CELERY_BROKER_URL=redis://127.0.0.1:6379/0 CACHE_URL=redis://127.0.0.1:6379/1 \
		$(PY) manage.py bench_live --tables 200 --think-ms 3000-8000

## Swiss pairing's time mid-tournament, 128 and 1,024 entrants at 2- and 4-player tables (pure, no database).
bench-swiss: setup
	$(PY) -m tournaments.bench_swiss

## Knockouts: replaying a whole bracket of 1,024 from its results (docs/performance.md).
bench-knockout: setup
	$(PY) -m tournaments.bench_knockout

## Sandboxed bots: start time and per-move overhead against an in-process bot (docs/performance.md).
bench-bots: setup
	$(PY) -m engine bench-bots

## The SPRT against matches of known strength: how often it accepts each hypothesis, beside alpha and beta
## (docs/performance.md, "SPRT (issue 14)"). Pure Python, seeded: the same figures every run, about a minute.
bench-sprt: setup
	$(PY) -m tournaments.bench_sprt

clean:
	rm -rf $(VENV) var .pytest_cache .mypy_cache .ruff_cache .hypothesis
