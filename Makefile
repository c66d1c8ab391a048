# dpviz — `make run` starts the app, `make test` runs the whole suite, `make check` the quick
# loop, `make bench` the benchmarks, `make figures` regenerates the papers' saved figures.
# Each target builds .venv (Python 3.11) from the pinned requirements when it is missing or
# older than the requirement files.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
PY := $(VENV)/bin/python
# One BLAS thread: on small matrices multi-threaded OpenBLAS is many times slower on 2 cores.
export OPENBLAS_NUM_THREADS ?= 1
export OMP_NUM_THREADS ?= 1
export MKL_NUM_THREADS ?= 1

.PHONY: run serve test suite check quick bench figures claims lint browser-deps clean

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

# N Streamlit processes behind nginx (apt-get install nginx libnginx-mod-http-js) with sticky
# sessions, over HTTPS on PORT: a self-signed certificate unless CERT= and KEY= name a real one
# (PEM files); HALL= students behind one address sizes the limits. In the foreground, Ctrl-C
# stops them all (deploy/serve.py; README, "Serving a lecture hall").
N ?= 4
PORT ?= 8500
HALL ?= 300
serve: $(VENV)/.runtime
	$(PY) deploy/serve.py --processes $(N) --port $(PORT) --hall $(HALL) \
		$(if $(CERT),--cert $(CERT)) $(if $(KEY),--key $(KEY))

browser-deps:
	@bash tests/browser/install_chromium.sh

# Tests run on JOBS processes (pytest-xdist, work stealing): the browser tests beside the rest,
# each process with its own Streamlit server, class database and cache. ARGS adds pytest
# options (ARGS=--shuffle=7: a shuffled order). Both targets print the 15 slowest tests and
# their total time, and say so in one line when over their budget.
JOBS ?= 2
PYTEST := $(PY) -m pytest -n $(JOBS) --dist worksteal $(ARGS)

# Everything: lint, the import contract, engine, doctests, AppTest and the browser tests.
test: $(VENV)/.dev browser-deps
	@bash tests/timed.sh 480 "make test" $(MAKE) --no-print-directory lint suite

suite: $(VENV)/.dev
	$(PYTEST)

# The contributor's loop (under 2 minutes): lint and every test not marked slow or browser.
check: $(VENV)/.dev
	@bash tests/timed.sh 120 "make check" $(MAKE) --no-print-directory lint quick

quick: $(VENV)/.dev
	$(PYTEST) -m "not slow and not browser"

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
	$(PY) -m dpviz.lab.provenance assets/results/chen_overlap.csv --task sbm \
		--command "python -m dpviz sweep assets/sweeps/chen_overlap.json --jobs 2 --out assets/results/chen_overlap.csv"

# Every number a page, caption or saved result states, re-measured with fresh seeds
# (assets/claims.toml; `make test` runs the fast ones on fixed seeds). NAMES=... picks some.
claims: $(VENV)/.dev
	$(PY) -m dpviz.lab.claims $(NAMES)

clean:
	rm -rf $(VENV) .pytest_cache
