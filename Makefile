# docclean: `make run` and `make test` work from a fresh clone; both create .venv first.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp
DAGSTER_HOME ?= $(CURDIR)/.dagster_home

.PHONY: install run test ui samples samples-check clean ocr-engine

# setup.py builds the one C extension (pdf/_charscan.c, PDFium's chars per page in one call)
$(STAMP): pyproject.toml constraints.txt setup.py docclean_assets/extract/pdf/_charscan.c
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -c constraints.txt -e '.[dev]'
	touch $(STAMP)

install: $(STAMP)

$(DAGSTER_HOME)/dagster.yaml:
	mkdir -p $(DAGSTER_HOME)
	printf 'telemetry:\n  enabled: false\n' > $@

# OCR runs tesseract in-process (tesserocr, a pip dependency) with Debian's English model
# (tesseract-ocr-eng): installed with apt-get when missing and running as root; otherwise a note says
# how, and OCR is flagged `ocr_unavailable` per document.
ocr-engine:
	@ls /usr/share/tesseract-ocr/*/tessdata/eng.traineddata >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq tesseract-ocr-eng >/dev/null) \
	      || echo "note: tesseract-ocr-eng could not be installed; documents will be flagged ocr_unavailable"; \
	  else echo "note: OCR needs tesseract's English model: sudo apt-get install tesseract-ocr-eng"; fi; }

# Materialize every asset for every source in data/sources.yaml, then print a DuckDB summary.
run: $(STAMP) $(DAGSTER_HOME)/dagster.yaml ocr-engine
	DAGSTER_HOME=$(DAGSTER_HOME) $(BIN)/docclean run

# Two pytest workers (pytest-xdist): the suite spends most of its time waiting on servers and
# subprocesses, so two share two cores well (7.7 min instead of 10.6 on CI's 2 cores). TEST_WORKERS=0
# runs it in one process.
TEST_WORKERS ?= 2
test: $(STAMP)
	$(BIN)/python -m pytest -n $(TEST_WORKERS)

# Rewrite the golden files (docclean_assets_tests/golden/: blocks, and `docclean text` Markdown) from the
# current code; review with git diff.
.PHONY: golden
golden: $(STAMP)
	DOCCLEAN_REGEN_GOLDEN=1 $(BIN)/python -m pytest -q -p no:cacheprovider docclean_assets_tests/test_golden.py \
	  docclean_assets_tests/test_first_hour.py

# The Dagster UI on http://127.0.0.1:$(PORT) (`make ui PORT=3001` when 3000 is taken) with the same
# instance `make run` records into (`dg dev`, run as with the project's venv activated).
PORT ?= 3000
ui: $(STAMP) $(DAGSTER_HOME)/dagster.yaml
	DAGSTER_HOME=$(DAGSTER_HOME) VIRTUAL_ENV=$(CURDIR)/$(VENV) PATH=$(CURDIR)/$(BIN):$$PATH $(BIN)/dg dev -h 127.0.0.1 -p $(PORT)

samples: $(STAMP)
	$(BIN)/python scripts/make_samples.py

samples-check: $(STAMP)
	$(BIN)/python scripts/make_samples.py --check

clean:
	rm -rf data/out .dagster_home

# Benchmark (not part of `make test`): docclean side by side with its peers on ../shared/corpus/.
# bench writes bench/RESULTS.md, bench/results.json and checks bench/baseline.json (the quality gate);
# bench-quick runs a representative subset in a few minutes and writes to bench/out/ only.
BENCH_ARGS ?=
.PHONY: bench bench-quick
bench: $(STAMP)
	$(BIN)/python -m bench.run $(BENCH_ARGS)

bench-quick: $(STAMP)
	$(BIN)/python -m bench.run --quick $(BENCH_ARGS)

# Retrieval (not part of `make test`): docclean's chunks against other systems' page text on FinanceBench
# filings (../shared/corpus/retrieval/financebench_dev), BM25 and static embeddings, page-hit recall; writes
# bench/out/retrieval/ (see bench/README.md, "Retrieval"). RETRIEVAL_ARGS='--quick' takes 6 filings.
RETRIEVAL_ARGS ?=
.PHONY: bench-retrieval
bench-retrieval: $(STAMP)
	$(BIN)/python -m bench.retrieval $(RETRIEVAL_ARGS)

# Scale (not part of `make test`): `docclean run` on generated sources of 1k, 5k and 10k unique documents:
# docs/s, peak memory of the process tree, unchanged rerun, rerun after a SIGKILL at 50%. Writes
# bench/out/scale.json; SCALE_ARGS='--quick' tries it in minutes (see bench/README.md, "Scale").
SCALE_ARGS ?=
.PHONY: bench-scale
bench-scale: $(STAMP)
	$(BIN)/python -m bench.scale $(SCALE_ARGS)

# Mutation fuzzing of the extraction library (not part of `make test`): mutants of data/samples/
# through the isolated workers; reports crashes, hangs and memory spikes (exit 1 when any is found).
FUZZ_ARGS ?= --count 2000
.PHONY: fuzz
fuzz: $(STAMP)
	$(BIN)/python scripts/fuzz.py $(FUZZ_ARGS)
