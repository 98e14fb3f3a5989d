# Two commands set everything up on a fresh machine: `make demo` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo reset-demo test bench install headless-browser toolchains docs dbt lock clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

# The versions the suite last passed with (constraints-dev.txt): a fresh machine gets the same environment, and a
# requirement pyproject.toml adds is still resolved by pip, within them.
$(STAMP): $(BIN)/python pyproject.toml constraints-dev.txt
	$(BIN)/python -m pip install -qq --upgrade pip
	$(BIN)/python -m pip install -qq -c constraints-dev.txt -e '.[test,bench,dbt]'
	touch $(STAMP)

install: $(STAMP)

# The demo keeps to its own file, demo.duckdb: it never touches the gatehouse.duckdb a real console loads.
demo: $(STAMP)
	$(BIN)/gatehouse run --demo
	$(BIN)/gatehouse report --duckdb demo.duckdb

# What the tests need that pip cannot install: checked first, so a missing one stops `make test` in one
# line before the install and long before pytest (tools/headless_browser.py).
headless-browser: $(BIN)/python
	@$(BIN)/python tools/headless_browser.py

# One worker more than the cores, at most four: much of the suite waits on loopback, rate limits and subprocesses, so
# a worker beyond the cores uses the time the others spend waiting. Each test file, and the console-command
# tests together, stay on one worker; the longest files start first (tests/conftest.py), in that order since xdist's
# own reorder is off. The package is compiled first: where Python may not write bytecode itself
# (PYTHONDONTWRITEBYTECODE), each of the suite's hundreds of `gatehouse` processes compiled it again.
WORKERS = $(shell $(PYTHON) -c "import os; print(min(4, (os.cpu_count() or 1) + 1))")

# The compilers the cleanup's tests build rewritten code with, from the system's packages where root can install
# them (Go; javac with a JDK; Kotlin, Debian's and Ubuntu's `kotlin` package) and TypeScript from npm (into
# .venv/node): one that cannot be installed is reported by its test as skipped, by name. Swift has no compiler in
# those packages (Debian's `swift` is OpenStack's object store): its rewrites are parsed, not compiled.
toolchains:
	@for tool in go:golang-go javac:default-jdk-headless kotlinc:kotlin; do \
		command -v $${tool%%:*} >/dev/null 2>&1 && continue; \
		if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
			echo "make test: installing $${tool%%:*} for the cleanup's compile tests: apt-get install -y $${tool##*:}"; \
			DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $${tool##*:} >/dev/null 2>&1 \
				|| { apt-get update -qq >/dev/null 2>&1 \
					&& DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $${tool##*:} >/dev/null 2>&1; } \
				|| echo "make test: $${tool%%:*} could not be installed: its compile test is skipped"; \
		else echo "make test: $${tool%%:*} is not installed: its compile test is skipped"; fi; \
	done
	@[ -x $(VENV)/node/node_modules/.bin/tsc ] || ! command -v npm >/dev/null 2>&1 \
		|| npm install --silent --no-audit --no-fund --prefix $(VENV)/node typescript@5 >/dev/null 2>&1 \
		|| echo "make test: TypeScript could not be installed from npm: its compile test is skipped"

test: headless-browser toolchains $(STAMP)
	$(BIN)/python -m compileall -q sources pipelines console_twin contract
	$(BIN)/python -m pytest -q -n $(WORKERS) --dist loadgroup --no-loadscope-reorder

# The environment as it is now, written as the constraints `make install` uses (docs/development.md).
lock: $(STAMP)
	@{ sed -n '/^#/p' constraints-dev.txt; $(BIN)/python -m pip freeze --exclude-editable | sort -f; } > constraints-dev.txt.new
	@mv constraints-dev.txt.new constraints-dev.txt

# The model sections of docs/data-model.md, from the model files' own docs (pipelines/models/docs.py).
docs: $(STAMP)
	$(BIN)/python -m gatehouse.pipelines.models.docs

# The dbt package in dbt/, from the model files (pipelines/models/dbt_package.py); tests/dbt fails when it is stale.
dbt: $(STAMP)
	$(BIN)/python -m gatehouse.pipelines.models.dbt_package

bench: $(STAMP)
	$(BIN)/python -m bench.run
	$(BIN)/python -m bench.analysis_layer
	$(BIN)/python -m bench.dagster_assets
	$(BIN)/python -m bench.projects
	$(BIN)/python -m bench.cleanup
	$(BIN)/python -m bench.cleanup_corpus
	$(BIN)/python -m bench.srm
	$(BIN)/python -m bench.lifecycle_backtest
	$(BIN)/python -m bench.view_latency
	$(BIN)/python -m bench.run_cost

# The demo from scratch, the installed environment kept: its database, snapshot, pipeline state and reports.
reset-demo:
	rm -rf demo.duckdb demo.duckdb.wal demo.snapshot.duckdb .demo.duckdb.dlt .demo.duckdb.dlt*.lock reports
	@echo "demo reset: the next make demo loads it again (.venv kept)"

# Everything make made, the environment (.venv) included; `make reset-demo` keeps it.
clean: reset-demo
	rm -rf $(VENV) .pytest_cache bench/out
