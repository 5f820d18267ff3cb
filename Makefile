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
	$(VENV)/bin/ninefold serve

# the web board's browser tests drive Debian's chromium; as root, install it when missing
CHROMIUM := /usr/bin/chromium
$(CHROMIUM):
	@if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
		echo "installing Debian's chromium for the browser tests (apt-get)"; \
		apt-get install -y -q chromium >/dev/null 2>&1 || \
		(apt-get update -q >/dev/null && apt-get install -y -q chromium >/dev/null); \
	else echo "no chromium and not root: the browser tests will be skipped"; fi

test: $(STAMP) $(CHROMIUM)
	$(VENV)/bin/ruff check src tests benchmarks
	$(VENV)/bin/lint-imports --no-logo
	$(PY) -m pytest

bench: $(STAMP)  # options: make bench BENCH="--rounds 7 --seconds 2"
	$(PY) benchmarks/kernel_speed.py $(BENCH)

clean:
	rm -rf $(VENV) build src/*.egg-info
