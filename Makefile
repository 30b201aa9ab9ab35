# Two entry points for a newcomer: `make run` and `make test`. Both set up .venv first:
# `make run` with only what the bot needs to run (quick and light), `make test` (and
# `make setup`) with the dev tools too (pytest, ruff, mypy, hadolint, ...).
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
# Stamps: each install runs again only when pyproject.toml changes.
RUNTIME := $(VENV)/.installed-runtime
DEV := $(VENV)/.installed-dev

.PHONY: setup run test lint bench

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(RUNTIME): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e .
	touch $@

$(DEV): pyproject.toml $(RUNTIME)
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $@

setup: $(DEV)

run: $(RUNTIME)
	$(BIN)/tpquiz run

lint: $(DEV)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

test: lint
	$(BIN)/pytest
