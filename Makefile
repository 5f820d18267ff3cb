# Two commands do all the set-up: `make run` (what it runs: the web board and the platform)
# and `make test` (everything the tests need); one venv, one stamp per install set, so
# `make run` then `make test` adds the test set to the same venv.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
RUN_STAMP := $(VENV)/.installed-run
STAMP := $(VENV)/.installed

.PHONY: run test test-all checks lint bench clean debs run-debs

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip

$(RUN_STAMP): pyproject.toml | $(PY)
	$(PY) -m pip install --quiet -e '.[platform]'
	$(VENV)/bin/ninefold warmup
	touch $(RUN_STAMP)

$(STAMP): pyproject.toml | $(PY)
	@# the CPU build of torch (training's and the RL example's tests); a bare "torch" would
	@# pull GBs of CUDA
	$(PY) -m pip install --quiet 'torch==2.13.0' || echo "torch 2.13.0 not found: pip picks one"
	$(PY) -m pip install --quiet -e '.[test]'
	$(VENV)/bin/ninefold warmup
	touch $(STAMP)

run: $(RUN_STAMP) run-debs  # the web board and the contest platform, one match worker
	$(VENV)/bin/ninefold serve --platform sqlite:///ninefold-platform.sqlite --workers 1

# Debian packages; as root, what is missing is installed with apt-get:
# make run: bubblewrap libseccomp2 libarchive13 python3 default-jdk-headless gcc g++ rustc golang-go nodejs
# make test: the same, and chromium postgresql
# (bubblewrap: the platform's sandbox around every compile and game; libseccomp2: its seccomp
# filter; libarchive13: .rar uploads; then the compiler of each language in recipes.toml:
# Python, Java, C, C++, Rust, Go, JavaScript; chromium: the browser tests; postgresql: the
# storage tests' server). Each is a path that shows it installed, and its package.
RUN_DEBS := /usr/bin/bwrap:bubblewrap /usr/share/doc/libseccomp2:libseccomp2 \
	/usr/share/doc/libarchive13:libarchive13 /usr/bin/python3:python3 \
	/usr/bin/javac:default-jdk-headless /usr/bin/gcc:gcc /usr/bin/g++:g++ /usr/bin/rustc:rustc \
	/usr/bin/go:golang-go /usr/bin/node:nodejs
DEBS := $(RUN_DEBS) /usr/bin/chromium:chromium /usr/lib/postgresql:postgresql
define install_debs
	@missing=""; for pair in $(1); do \
		[ -e "$${pair%%:*}" ] || missing="$$missing $${pair##*:}"; done; \
	if [ -z "$$missing" ]; then exit 0; fi; \
	if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
		echo "installing Debian's$$missing (apt-get)"; \
		apt-get install -y -q $$missing >/dev/null 2>&1 || \
		(apt-get update -q >/dev/null && apt-get install -y -q $$missing >/dev/null); \
	else echo "missing$$missing and not root: $(2)"; fi
endef
run-debs:
	$(call install_debs,$(RUN_DEBS),the platform cannot build or play those bots)
debs:
	$(call install_debs,$(DEBS),the tests that need them will be skipped)

# `make test`: the loop a developer runs: the checks and every
# test but the long runs marked `slow`; `make test-all` (what CI runs, .ci/run): everything.
# The tests run in parallel (pytest-xdist), each test file on one worker so that its
# costly fixtures (a server, a compiled bot, a proof) start once. `make test` runs two
# workers a CPU: most of its tests wait on bots, servers and browsers (on 2 cores, 4
# workers took 8.1 min where 2 took 9.5); `make test-all` one a CPU, at least two, for its
# long runs keep the cores busy. PARALLEL= runs them in one process.
CPUS := $(shell n=$$(nproc 2>/dev/null || echo 2); [ $$n -lt 2 ] && n=2; echo $$n)
PARALLEL ?= -n $(shell echo $$(( $(CPUS) * 2 ))) --dist loadfile
PARALLEL_ALL ?= -n $(CPUS) --dist loadfile
test: checks
	$(PY) -m pytest -m "not slow" $(PARALLEL)

test-all: checks
	$(PY) -m pytest $(if $(PARALLEL),$(PARALLEL_ALL))

checks: $(STAMP) debs
	$(VENV)/bin/ruff check src tests benchmarks docs
	$(VENV)/bin/lint-imports --no-logo
	$(VENV)/bin/mypy src

# `make docs`: the docs, docs/_build/html/index.html (Sphinx, Markdown pages). Warnings are
# errors, every link is checked (pages, anchors, the repository's files; -n: the names in
# docstrings), and the reference (CLI, Python API, web API) is made from the code at each
# build. tests/test_docs.py runs `make docs-build` into a temporary folder, and on small
# trees of pages with broken links (DOCS_SRC, DOCS_OPTS), which must fail.
.PHONY: docs docs-build
DOCS_STAMP := $(VENV)/.installed-docs
DOCS_SRC ?= docs
DOCS_OUT ?= docs/_build/html
DOCS_OPTS ?=
$(DOCS_STAMP): pyproject.toml | $(PY)
	$(PY) -m pip install --quiet -e '.[docs]'
	touch $(DOCS_STAMP)

docs: $(DOCS_STAMP)
	$(MAKE) --no-print-directory docs-build

docs-build:
	$(PY) -m sphinx -b html -W --keep-going -n -q -c docs $(DOCS_OPTS) $(DOCS_SRC) $(DOCS_OUT)

bench: $(STAMP)  # options: make bench BENCH="--rounds 7 --seconds 2"
	$(PY) benchmarks/kernel_speed.py $(BENCH)

clean:
	rm -rf $(VENV) build src/*.egg-info
