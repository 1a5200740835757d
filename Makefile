# make kit      — install what building needs (system libraries, a virtualenv, the package), build every kit
# make test     — that, and what testing needs (pytest, Playwright, chromium, poppler), then the test suite
# make pictures — the README's and docs' pictures, from the shipped games, into docs/img/
# make bench    — the benchmark (timings are measured, never asserted); CATALOGUE=1 adds the 100-game catalogue
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed-stamp
TESTS  := $(VENV)/.tests-stamp
PYTHON ?= python3
# pip's own chatter (a newer pip exists, …) is not the designer's business.
PIP    := $(PY) -m pip install -q --disable-pip-version-check

.PHONY: kit test bench setup pictures clean

# The engine's bytecode is written up front, as pip does for the libraries: where PYTHONDONTWRITEBYTECODE
# is set, every pnp run would otherwise compile the engine again (0.2 s of each start).
COMPILE := $(PY) -m compileall -q -x '/scaffold/' generator > /dev/null

kit: $(STAMP)
	$(COMPILE)
	./pnp build

test: $(TESTS)
	$(COMPILE)
	$(PY) -m pytest -q

bench: $(TESTS)
	$(COMPILE)
	$(PY) bench/run.py
	$(if $(CATALOGUE),$(PY) bench/catalogue.py)

pictures: $(TESTS)
	$(PY) tools/pictures.py

# Helpers' and CI's set-up: everything, tests included.
setup: $(TESTS)

$(STAMP): pyproject.toml tools/install-system-deps.sh
	./tools/install-system-deps.sh
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11))' || \
	  { echo "error: pnp needs Python 3.11 or newer; $(PYTHON) is $$($(PYTHON) --version 2>&1). Run: make kit PYTHON=python3.12 (or another)" >&2; exit 1; }
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PIP) -e .
	touch $(STAMP)

$(TESTS): $(STAMP)
	./tools/install-system-deps.sh --test
	$(PIP) -e '.[test]'
	touch $(TESTS)

clean:
	rm -rf build
