# make install | make demo | make test | make test-fast | make lint | make typecheck | make bench | make bench-10k | make bench-real
VENV ?= .venv
PYTHON ?= python3
PY := $(VENV)/bin/python
SMARTVEC := $(VENV)/bin/smartvec
STAMP := $(VENV)/.installed
BENCH_STAMP := $(VENV)/.installed-bench
BENCH_OUT ?= bench-results
BENCH_NOTES ?= 1000
SHARED ?= ../shared
REAL_WORK ?= /tmp/smartvec-corpora
# setuptools prints a generic "Editable installation ... be careful with folders named like your
# package" notice on every editable install; it says nothing about this project, so it is silenced
# (that one notice only: other build warnings still show).
EDITABLE := PYTHONWARNINGS="ignore:Editable installation:UserWarning"

.PHONY: install demo test test-fast lint typecheck bench bench-10k bench-100k bench-real clean

install: $(STAMP)

$(STAMP): pyproject.toml constraints.txt
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -c constraints.txt torch==2.13.0
	$(EDITABLE) $(PY) -m pip install --quiet -c constraints.txt -e '.[test]'
	touch $(STAMP)

demo: install
	$(SMARTVEC) --vault sample_vault index
	$(SMARTVEC) --vault sample_vault consolidate
	$(SMARTVEC) --vault sample_vault status
	$(SMARTVEC) --vault sample_vault query "How many days can I work remotely?" --top-k 3
	$(SMARTVEC) --vault sample_vault query "What is the travel per diem?" --top-k 3
	$(SMARTVEC) --vault sample_vault query "How many weeks of parental leave back in 2023?" --top-k 1
	$(SMARTVEC) --vault sample_vault query "Which language is the ingestion service written in?" --top-k 2 --explain

test: install lint
	$(VENV)/bin/lint-imports
	$(PY) -m pytest

# The inner loop: stops at the first failure and leaves out the tests marked slow (the real model, large
# vaults); `make test` runs everything and is what CI runs.
test-fast: install lint
	$(VENV)/bin/lint-imports
	$(PY) -m pytest -x -q -m "not slow"

# ruff's checks and its formatter on the package and the tests, the type check, and docs/commands.md's
# reference against the commands (`python -m smartvec_cli.cli.reference` writes it anew); run by `make test`
# (and so by CI).
lint: install typecheck
	$(VENV)/bin/ruff check smartvec_cli tests
	$(VENV)/bin/ruff format --check smartvec_cli tests
	$(PY) -m smartvec_cli.cli.reference --check

# mypy over the package ([tool.mypy] in pyproject.toml), and strict on the public API.
typecheck: install
	$(VENV)/bin/mypy smartvec_cli
	$(VENV)/bin/mypy --strict --follow-imports=silent smartvec_cli/core/api.py smartvec_cli/core/results.py

$(BENCH_STAMP): $(STAMP)
	$(EDITABLE) $(PY) -m pip install --quiet -c constraints.txt -e '.[test,bench]'
	touch $(BENCH_STAMP)

# Accuracy on the generated vault in both styles (labelled and plain, against plain RAG; the confidence
# fitted first on the calibration catalogue), then speed on $(BENCH_NOTES) synthetic notes;
# JSON, markdown and plots go to $(BENCH_OUT)/, and the combined table is printed.
bench: $(BENCH_STAMP)
	$(SMARTVEC) bench accuracy --out $(BENCH_OUT) > /dev/null
	$(SMARTVEC) bench perf --notes $(BENCH_NOTES) --out $(BENCH_OUT) > /dev/null
	$(SMARTVEC) bench report --out $(BENCH_OUT) --command "make bench"

# The speed benchmark at 10,000 notes (about 10 minutes of embedding), added to the same report.
bench-10k: $(BENCH_STAMP)
	$(SMARTVEC) bench perf --notes 10000 --out $(BENCH_OUT) > /dev/null
	$(SMARTVEC) bench report --out $(BENCH_OUT) --command "make bench && make bench-10k"

# The whole memory at 100,000 notes (hours of embedding on a small machine; never in CI): first index, first
# consolidate, a one-note edit's refresh, a nightly refresh with nothing new, query p50/p95 and peak memory, on
# SQLite, and on PostgreSQL too when BENCH_STORE names an empty database (postgresql://...).
bench-100k: $(BENCH_STAMP)
	$(SMARTVEC) bench perf --notes 100000 --out $(BENCH_OUT) > /dev/null
	$(if $(BENCH_STORE),$(SMARTVEC) bench perf --notes 100000 --store $(BENCH_STORE) --out $(BENCH_OUT) > /dev/null)
	$(SMARTVEC) bench report --out $(BENCH_OUT) --command "make bench-100k"

# The question sets written blind over real vaults (smartvec_cli/bench/real/): each corpus unpacked from
# $(SHARED)/corpora/ into $(REAL_WORK), its fixed sample indexed and consolidated with the real model
# there (10-20 minutes the first time, seconds after), then smart, cosine and lexical side by side;
# real-<corpus>.json and real.md go to $(BENCH_OUT)/. Not part of `make test`: the corpora are not here.
bench-real: $(STAMP)
	$(PY) -m smartvec_cli.bench.real --shared $(SHARED) --work $(REAL_WORK) --out $(BENCH_OUT)

clean:
	rm -rf $(VENV) sample_vault/.smartvec .pytest_cache
