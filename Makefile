# make install | make demo | make test | make bench
VENV ?= .venv
PYTHON ?= python3
PY := $(VENV)/bin/python
SMARTVEC := $(VENV)/bin/smartvec
STAMP := $(VENV)/.installed

.PHONY: install demo test clean

install: $(STAMP)

$(STAMP): pyproject.toml constraints.txt
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -c constraints.txt torch==2.13.0
	$(PY) -m pip install --quiet -c constraints.txt -e '.[test]'
	touch $(STAMP)

demo: install
	$(SMARTVEC) --vault sample_vault index
	$(SMARTVEC) --vault sample_vault consolidate
	$(SMARTVEC) --vault sample_vault status
	$(SMARTVEC) --vault sample_vault query "How many days can I work remotely?" --top-k 3
	$(SMARTVEC) --vault sample_vault query "What is the travel per diem?" --top-k 3
	$(SMARTVEC) --vault sample_vault query "How many weeks of parental leave back in 2023?" --top-k 1
	$(SMARTVEC) --vault sample_vault query "Which language is the ingestion service written in?" --top-k 2 --explain

test: install
	$(PY) -m pytest

clean:
	rm -rf $(VENV) sample_vault/.smartvec .pytest_cache
