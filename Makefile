# dpviz — `make run` starts the app, `make test` runs the whole suite, `make bench` the benchmarks,
# `make figures` regenerates the papers' saved figures.
# Each target builds .venv (Python 3.11) from the pinned requirements when it is missing or
# older than the requirement files.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
PY := $(VENV)/bin/python
# One BLAS thread: on small matrices multi-threaded OpenBLAS is many times slower on 2 cores.
export OPENBLAS_NUM_THREADS ?= 1
export OMP_NUM_THREADS ?= 1
export MKL_NUM_THREADS ?= 1

.PHONY: run serve test bench figures lint browser-deps clean

$(VENV)/.runtime: requirements.txt
	@$(PYTHON) -c 'import sys; assert sys.version_info[:2] == (3, 11), "dpviz needs Python 3.11, found " + sys.version.split()[0]'
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements.txt
	touch $@

$(VENV)/.dev: $(VENV)/.runtime requirements-dev.txt
	$(PY) -m pip install --quiet -r requirements-dev.txt
	touch $@

run: $(VENV)/.runtime
	$(VENV)/bin/streamlit run app.py

# N Streamlit processes behind nginx (apt-get install nginx) with sticky sessions, on PORT;
# in the foreground, Ctrl-C stops them all (deploy/serve.py; README, "Serving a lecture hall").
N ?= 4
PORT ?= 8500
serve: $(VENV)/.runtime
	$(PY) deploy/serve.py --processes $(N) --port $(PORT)

browser-deps:
	@bash tests/browser/install_chromium.sh

test: $(VENV)/.dev browser-deps
	$(VENV)/bin/ruff check .
	$(VENV)/bin/mypy
	$(VENV)/bin/lint-imports --no-logo
	$(PY) -m pytest

lint: $(VENV)/.dev
	$(VENV)/bin/ruff check .
	$(VENV)/bin/mypy
	$(VENV)/bin/lint-imports --no-logo

bench: $(VENV)/.dev
	$(PY) bench/run.py --out bench/results.json

# The papers' figures at full repeats, saved under assets/ (slow: tens of minutes).
figures: $(VENV)/.dev
	$(PY) bench/covariance.py
	$(PY) bench/sbm.py --save > /dev/null
	$(PY) -m dpviz sweep assets/sweeps/chen_overlap.json --jobs 2 --out assets/results/chen_overlap.csv

clean:
	rm -rf $(VENV) .pytest_cache
