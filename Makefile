# One command sets everything up and does the job: `make run` (the app) or
# `make test` (lint + the whole suite). Set-up makes .venv and installs into it.
PYTHON ?= python3
VENV ?= .venv
# The CPU build of torch. Elsewhere, pick your build by overriding this, e.g.
#   make test TORCH_SPEC="torch==2.13.0 --index-url <PyTorch's CPU wheel index>"
TORCH_SPEC ?= torch==2.13.0
BIN := $(VENV)/bin

.PHONY: setup run test test-slow test-all lint bench clean

setup: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml Makefile
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet $(TORCH_SPEC)
	$(BIN)/python -m pip install --quiet -e ".[dev,serve]"
	touch $@

run: setup
	$(BIN)/objectives-tutor $(ARGS)

lint: setup
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

# One pytest worker per core (at most 4: each starts torch, the app and, for the class
# tests, a PostgreSQL cluster of its own), tests handed out one by one as workers come free
# (a file with module-scoped set-up carries an xdist_group mark and runs in one worker, its
# set-up made once), and the 25 slowest listed at the end. `pytest tests/test_x.py` alone
# runs in one process (both tiers).
#   make test       lint and the fast tier: every test but the slow ones (about 5 minutes here)
#   make test-slow  the slow tier: walks through every screen, lesson and seed, the real
#                   browser and nginx, training runs (pytest -m slow)
#   make test-all   both, as CI runs them (.ci/run)
PYTEST := $(BIN)/python -m pytest -n auto --maxprocesses 4 --dist loadgroup --durations=25

test: lint
	$(PYTEST) -m "not slow"

test-slow: setup
	$(PYTEST) -m slow

test-all: test test-slow

bench: setup
	$(BIN)/python -m pip install --quiet -e ".[dev,serve,bench]"
	$(BIN)/python benchmarks/engine.py

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .hypothesis
