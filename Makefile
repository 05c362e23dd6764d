# docclean: `make run` and `make test` work from a fresh clone; both create .venv first.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp
DAGSTER_HOME ?= $(CURDIR)/.dagster_home

.PHONY: install run test ui samples samples-check clean

$(STAMP): pyproject.toml constraints.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -c constraints.txt -e '.[dev]'
	touch $(STAMP)

install: $(STAMP)

$(DAGSTER_HOME)/dagster.yaml:
	mkdir -p $(DAGSTER_HOME)
	printf 'telemetry:\n  enabled: false\n' > $@

# Materialize every asset for every source in data/sources.yaml, then print a DuckDB summary.
run: $(STAMP) $(DAGSTER_HOME)/dagster.yaml
	DAGSTER_HOME=$(DAGSTER_HOME) $(BIN)/docclean run

test: $(STAMP)
	$(BIN)/python -m pytest

# The Dagster UI on http://127.0.0.1:3000 with the same instance `make run` records into.
ui: $(STAMP) $(DAGSTER_HOME)/dagster.yaml
	DAGSTER_HOME=$(DAGSTER_HOME) $(BIN)/dagster dev -w workspace.yaml -h 127.0.0.1 -p 3000

samples: $(STAMP)
	$(BIN)/python scripts/make_samples.py

samples-check: $(STAMP)
	$(BIN)/python scripts/make_samples.py --check

clean:
	rm -rf data/out .dagster_home
