# The two commands of the README: `make run` and `make test`. Both install what they need first.
PYTHON ?= python3
PIP := $(PYTHON) -m pip install --quiet --disable-pip-version-check -c constraints.txt
STAMP := .make

.PHONY: run test install install-dev browser scenarios bench golden

$(STAMP)/runtime: requirements.txt constraints.txt
	$(PIP) -r requirements.txt
	@mkdir -p $(STAMP) && touch $@

$(STAMP)/dev: $(STAMP)/runtime requirements-dev.txt
	$(PIP) -r requirements-dev.txt
	@mkdir -p $(STAMP) && touch $@

install: $(STAMP)/runtime
install-dev: $(STAMP)/dev

browser:
	@command -v chromium >/dev/null 2>&1 || (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null)

run: install
	$(PYTHON) app.py

test: install-dev browser
	HF_HUB_OFFLINE=1 $(PYTHON) -m pytest

golden: install
	$(PYTHON) -m pipeline.eval --golden test

scenarios: install
	$(PYTHON) -m scenarios run

bench: install
	$(PYTHON) -m scenarios.bench
