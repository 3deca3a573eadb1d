# Two commands do all set-up on a fresh machine: `make run` and `make test`.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
BASE   := $(VENV)/.installed-base
FULL   := $(VENV)/.installed-test

.PHONY: setup run demo test bench lint format clean

$(VENV)/bin/python:
	$(PYTHON) -m venv $(VENV)

$(BASE): pyproject.toml | $(VENV)/bin/python
	$(PY) -m pip install -q -e . --config-settings editable_mode=compat
	touch $@

# The test extra pins torch==2.13.0, the CPU wheel on this machine's disk (the oracle of every test).
$(FULL): pyproject.toml | $(VENV)/bin/python
	$(PY) -m pip install -q -e '.[test]' --config-settings editable_mode=compat
	touch $@ $(BASE)

setup: $(FULL)

# The main job: train a small character-level GPT on glasstorch (the Python stdlib's source as the corpus,
# about a minute or two on 2 cores), checkpoint it to out/gpt and print a sample. See examples/gpt.
run: $(BASE)
	$(PY) -m examples.gpt.train --out out/gpt

# The guided tour of Tensor over Storage.
demo: $(BASE)
	$(PY) -m glasstorch.demo

test: $(FULL)
	$(PY) -m pytest

bench: $(FULL)
	$(PY) benchmarks/dispatch_overhead.py --json benchmarks/results/dispatch_overhead.json
	$(PY) benchmarks/run.py
	$(PY) benchmarks/gpt_bench.py

lint: $(FULL)
	$(VENV)/bin/ruff check glasstorch tests benchmarks tools examples

format: $(FULL)
	$(VENV)/bin/ruff format glasstorch tests benchmarks tools

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .hypothesis
