# Two commands do all the set-up: `make run` and `make test`.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: run test lint bench clean

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test]'
	$(VENV)/bin/ninefold warmup
	touch $(STAMP)

run: $(STAMP)
	$(VENV)/bin/ninefold play

test: $(STAMP)
	$(VENV)/bin/ruff check src tests benchmarks
	$(VENV)/bin/lint-imports --no-logo
	$(PY) -m pytest

bench: $(STAMP)  # options: make bench BENCH="--rounds 7 --seconds 2"
	$(PY) benchmarks/kernel_speed.py $(BENCH)

clean:
	rm -rf $(VENV) build src/*.egg-info
