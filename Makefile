# One command sets everything up and does the job: `make run` (the app) or
# `make test` (lint + the whole suite). Set-up makes .venv and installs into it.
PYTHON ?= python3
VENV ?= .venv
# The CPU build of torch. Elsewhere, pick your build by overriding this, e.g.
#   make test TORCH_SPEC="torch==2.13.0 --index-url <PyTorch's CPU wheel index>"
TORCH_SPEC ?= torch==2.13.0
BIN := $(VENV)/bin

.PHONY: setup run test lint bench clean

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
# tests, a PostgreSQL cluster of its own), a test file's tests in one worker (its
# module-scoped set-up runs once), and the 25 slowest listed at the end. `pytest tests/test_x.py`
# alone runs in one process.
test: lint
	$(BIN)/python -m pytest -n auto --maxprocesses 4 --dist loadfile --durations=25

bench: setup
	$(BIN)/python -m pip install --quiet -e ".[dev,serve,bench]"
	$(BIN)/python benchmarks/engine.py

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .hypothesis
