# Fortunate Recall — every target builds on `make install` (.venv at the repository root).
SHELL := /bin/bash
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: install demo test unit integration lint typecheck bench clean services-up services-down

install: $(STAMP)

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $(STAMP)

demo: install
	$(BIN)/frecall demo

lint: install
	$(BIN)/ruff check schemas scorer workers streams frecall tests
	$(BIN)/ruff format --check schemas scorer workers streams frecall tests

typecheck: install
	$(BIN)/mypy

unit: install
	$(BIN)/pytest -q tests/unit

# Integration and e2e tests need Redis (and later Kafka): deploy/local starts them on
# loopback and stops them by pid when the tests end, pass or fail.
test: install lint typecheck
	bash deploy/local/with-services.sh $(BIN)/pytest -q tests

LOCOMO ?= ../shared/data/locomo/locomo_dev.json
BENCH_DIR ?= .run/bench

# Every benchmark prints medians/percentiles with its baseline measured in the same run.
bench: install
	$(BIN)/frecall bench scorer
	$(BIN)/frecall bench query
	test ! -f $(LOCOMO) || $(BIN)/frecall bench locomo --data $(LOCOMO)
	$(BIN)/frecall bench lifecycle generate --personas 40 --seed 7 --out $(BENCH_DIR)/lifecycle
	$(BIN)/frecall bench lifecycle run $(BENCH_DIR)/lifecycle --track gold --report $(BENCH_DIR)/report-gold
	$(BIN)/frecall bench lifecycle run $(BENCH_DIR)/lifecycle --track text --report $(BENCH_DIR)/report-text
	$(BIN)/frecall bench lifecycle noise $(BENCH_DIR)/lifecycle --levels 0.1,0.2,0.5

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
