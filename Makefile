# make kit      — install what building needs (system libraries, a virtualenv, the package), build every kit
# make test     — for contributors to pnp: that, what testing needs (pytest, Playwright, chromium, poppler),
#                 then the whole test suite on every core (twelve to fifteen minutes on a 2-core machine)
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
	@echo "make kit: building every shipped game's kits into build/ (a few minutes; ./pnp build GAME builds one)"
	./pnp build
	@echo "make kit: done. Next: the five-minute tour in README.md (./pnp validate cephiro-pillar)"

test: $(TESTS)
	$(COMPILE)
	@echo "make test: the whole test suite, for contributors to pnp (twelve to fifteen minutes on a 2-core machine;"
	@echo "           making games needs only make kit)"
	$(PY) -m pytest -q -n $$(( $$(nproc 2>/dev/null || getconf _NPROCESSORS_ONLN) + 1 )) --dist loadfile

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
	@echo "make kit: installing pnp's Python libraries into $(VENV)/ (WeasyPrint, reportlab, pikepdf …: about"
	@echo "          two minutes, quiet while pip works)"
	$(PIP) -e .
	@echo "make kit: libraries installed"
	touch $(STAMP)

$(TESTS): $(STAMP)
	./tools/install-system-deps.sh --test
	@echo "make: installing what the tests need (pytest, Playwright …: a few minutes, quiet while pip works)"
	$(PIP) -e '.[test]'
	touch $(TESTS)

clean:
	rm -rf build
