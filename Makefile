# Two commands do all the set-up: `make run` and `make test`.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: run test test-all checks lint bench clean debs

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	@# the CPU build of torch (the RL example's tests); a bare "torch" would pull GBs of CUDA
	$(PY) -m pip install --quiet 'torch==2.13.0' || echo "torch 2.13.0 not found: pip picks one"
	$(PY) -m pip install --quiet -e '.[test]'
	$(VENV)/bin/ninefold warmup
	touch $(STAMP)

run: $(STAMP) debs  # the web board and the contest platform, one match worker
	$(VENV)/bin/ninefold serve --platform sqlite:///ninefold-platform.sqlite --workers 1

# Debian packages: the browser tests drive chromium, the platform sandboxes bots with
# bubblewrap, its storage tests start a PostgreSQL server, .rar uploads are read by libarchive
# (libarchive13), the sandbox's seccomp filter is compiled by libseccomp2, and it compiles Rust,
# Go and JavaScript bots with Debian's rustc, go and node (recipes.toml). As root, install what
# is missing.
DEBS := /usr/bin/chromium:chromium /usr/bin/bwrap:bubblewrap /usr/lib/postgresql:postgresql \
	/usr/bin/rustc:rustc /usr/bin/go:golang-go /usr/bin/node:nodejs
DEBS += /usr/share/doc/libarchive13:libarchive13 /usr/share/doc/libseccomp2:libseccomp2
debs:
	@missing=""; for pair in $(DEBS); do \
		[ -e "$${pair%%:*}" ] || missing="$$missing $${pair##*:}"; done; \
	if [ -z "$$missing" ]; then exit 0; fi; \
	if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
		echo "installing Debian's$$missing (apt-get)"; \
		apt-get install -y -q $$missing >/dev/null 2>&1 || \
		(apt-get update -q >/dev/null && apt-get install -y -q $$missing >/dev/null); \
	else echo "missing$$missing and not root: the tests that need them will be skipped"; fi

# `make test`: the loop a developer runs: the checks and every
# test but the long runs marked `slow`; `make test-all` (what CI runs, .ci/run): everything.
test: checks
	$(PY) -m pytest -m "not slow"

test-all: checks
	$(PY) -m pytest

checks: $(STAMP) debs
	$(VENV)/bin/ruff check src tests benchmarks
	$(VENV)/bin/lint-imports --no-logo
	$(VENV)/bin/mypy src

bench: $(STAMP)  # options: make bench BENCH="--rounds 7 --seconds 2"
	$(PY) benchmarks/kernel_speed.py $(BENCH)

clean:
	rm -rf $(VENV) build src/*.egg-info
