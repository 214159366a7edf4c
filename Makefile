# The two commands of the README: `make run` and `make test`. Both work in a project-local virtual
# environment (.venv, made with `python3 -m venv`), which they create and fill when it is missing;
# nothing is installed into the Python that runs make (PEP 668 forbids that on Debian/Homebrew).
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip install --quiet --disable-pip-version-check -c constraints.txt
# Stamps live inside the environment: delete .venv and the next run rebuilds it from scratch.
STAMP := $(VENV)/.warrant
# Caches (pip, matplotlib, Hugging Face, torch) stay inside the project, not in ~/.cache.
export XDG_CACHE_HOME := $(CURDIR)/.cache
export MPLCONFIGDIR := $(CURDIR)/.cache/matplotlib
# Linted, formatted and type-checked code: all of it, tests and scenarios included.
LINT_PATHS := pipeline memory governance ui app.py scenarios tests
# `make test` runs `make lint` first: ruff (lint + format check), mypy, then the import contracts.

.PHONY: run test lint ruff install install-dev browser ocr scenarios bench golden venv

$(PY):
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "Warrant needs Python 3.11 or newer; set PYTHON=python3.11 (or newer)")'
	@$(PYTHON) -m venv $(VENV) || { rm -rf $(VENV); echo "'$(PYTHON) -m venv' failed. On Debian/Ubuntu install the venv module first: sudo apt-get install python3-venv"; exit 1; }

venv: $(PY)

$(STAMP)/runtime: requirements.txt constraints.txt | $(PY)
	$(PIP) -r requirements.txt
	@mkdir -p $(STAMP) && touch $@

$(STAMP)/dev: $(STAMP)/runtime requirements-dev.txt
	$(PIP) -r requirements-dev.txt
	@mkdir -p $(STAMP) && touch $@

install: $(STAMP)/runtime
install-dev: $(STAMP)/dev

browser:
	@command -v chromium >/dev/null 2>&1 || (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null)

# OCR of scanned PDFs (optional at run time; the tests read a generated scan with it).
ocr:
	@command -v tesseract >/dev/null 2>&1 || (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq tesseract-ocr >/dev/null)

run: install
	$(PY) app.py

ruff: install-dev
	$(PY) -m ruff check $(LINT_PATHS)
	$(PY) -m ruff format --check $(LINT_PATHS)

lint: ruff
	$(PY) -m mypy $(LINT_PATHS)
	$(VENV)/bin/lint-imports --no-logo

test: lint install-dev browser ocr
	HF_HUB_OFFLINE=1 $(PY) -m pytest

golden: install
	$(PY) -m pipeline.eval --golden test

scenarios: install
	$(PY) -m scenarios run

bench: install
	$(PY) -m scenarios.bench
