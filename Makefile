# Two commands for a new machine with only Python, pip and venv:
#   make demo   - set up .venv on first use, then run the simulated table
#   make test   - set up .venv on first use, then lint, type-check and run the test suite
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: demo test lint typecheck pytest bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[dev]'
	touch $(STAMP)

demo: $(STAMP)
	$(VENV)/bin/table-controller demo

test: $(STAMP) lint typecheck pytest

lint: $(STAMP)
	$(PY) -m ruff check .
	$(VENV)/bin/lint-imports

typecheck: $(STAMP)
	$(PY) -m mypy

pytest: $(STAMP)
	$(PY) -m pytest -q --durations=25

bench: $(STAMP)
	$(PY) -m benchmarks

clean:
	rm -rf $(VENV) build *.egg-info
