# make kit   — install what is missing (Debian libraries, a virtualenv, the package), build every kit
# make test  — the same set-up, then the test suite
# make bench — the benchmark (timings are measured, never asserted)
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed-stamp
PYTHON ?= python3

.PHONY: kit test bench setup clean

kit: $(STAMP)
	$(VENV)/bin/pnp build

test: $(STAMP)
	$(PY) -m pytest -q

bench: $(STAMP)
	$(PY) bench/run.py

setup: $(STAMP)

$(STAMP): pyproject.toml tools/install-system-deps.sh
	./tools/install-system-deps.sh
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[test]'
	touch $(STAMP)

clean:
	rm -rf build
