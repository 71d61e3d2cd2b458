# Fortunate Recall — every target builds on `make install` (.venv at the repository root).
SHELL := /bin/bash
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: install demo test test-cluster unit integration lint typecheck bench clean services-up services-down

install: $(STAMP)

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev,bench]'
	touch $(STAMP)

demo: install
	$(BIN)/frecall demo

lint: install
	$(BIN)/ruff check schemas scorer workers streams frecall bench tests
	$(BIN)/ruff format --check schemas scorer workers streams frecall bench tests

typecheck: install
	$(BIN)/mypy

unit: install
	$(BIN)/pytest -q tests/unit

# Integration and e2e tests need Redis and Kafka: deploy/local/with-services.sh starts them on
# loopback (free ports, a private run dir) and stops them by pid when the tests end, pass or fail.
# The inspector's browser tests drive Debian's chromium: deploy/local/chromium.sh installs it
# when missing (as redis.sh installs Redis) and prints its path.
test: install lint typecheck
	FR_TEST_CHROMIUM="$$(bash deploy/local/chromium.sh)" \
		bash deploy/local/with-services.sh $(BIN)/pytest -q tests

# Opt-in, not part of `test`: the distributed deployment on a Redis Cluster (3 masters + 3
# replicas) and a 3-broker Kafka (replication 3, min.insync.replicas 2), through a broker crash
# and a Redis failover mid-ingest. deploy/local/with-cluster.sh starts both clusters on free
# loopback ports and stops them by pid. 3-4 minutes, about 1.5 GB of memory; -rP prints the
# timeline of the crash and the failover.
test-cluster: install
	bash deploy/local/with-cluster.sh $(BIN)/pytest -q -rP -m cluster tests/cluster

# Redis (6379) and Kafka (9092) for a developer session, until `make services-down`; ports
# from FR_REDIS_PORT / FR_KAFKA_PORT. Prints `export FR_...` lines, also in .run/local/env:
# `source .run/local/env` (or `eval "$(deploy/local/up.sh)"`) to point frecall at them.
services-up:
	bash deploy/local/up.sh

services-down:
	bash deploy/local/down.sh

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
	$(BIN)/frecall bench growth --report $(BENCH_DIR)/growth
	$(BIN)/frecall bench throughput --workers 1,2 $$(test ! -f $(LOCOMO) || echo --data $(LOCOMO))
	# The pipeline benchmark runs against a real broker and Redis, started (and stopped) here.
	bash deploy/local/with-services.sh bash -c 'FR_KAFKA_BOOTSTRAP=$$FR_TEST_KAFKA_BOOTSTRAP \
		FR_REDIS_URL=$$FR_TEST_REDIS_URL $(BIN)/frecall bench pipeline --one-by-one'

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
