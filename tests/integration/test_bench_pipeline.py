"""`frecall bench pipeline` against the test broker and Redis, at tiny sizes."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest

from tests.conftest import in_ci
from workers.stores.redis_client import connect

pytestmark = pytest.mark.integration


@pytest.fixture
def services() -> tuple[str, str]:
    """The test broker and Redis; skipped when neither is there, except under CI."""
    bootstrap = os.environ.get("FR_TEST_KAFKA_BOOTSTRAP")
    url = os.environ.get("FR_TEST_REDIS_URL")
    if not bootstrap and not url and not in_ci():
        pytest.skip("FR_TEST_KAFKA_BOOTSTRAP/FR_TEST_REDIS_URL are not set")
    if not bootstrap or not url:
        pytest.fail("the pipeline bench needs both FR_TEST_KAFKA_BOOTSTRAP and FR_TEST_REDIS_URL")
    return bootstrap, url


def test_bench_pipeline_reports_rates_and_latency(services: tuple[str, str]) -> None:
    bootstrap, url = services
    env = {k: v for k, v in os.environ.items() if not k.startswith("FR_")}
    env.update(FR_KAFKA_BOOTSTRAP=bootstrap, FR_REDIS_URL=url)
    argv = [sys.executable, "-m", "frecall.cli", "bench", "pipeline", "--json"]
    argv += ["--edges", "60", "--turns", "20", "--users", "4", "--workers", "1"]
    argv += ["--embedder", "hashing", "--one-by-one"]
    done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(done.stdout)

    assert (report["edges"], report["turns"], report["users"]) == (60, 20, 4)
    assert set(report["workers"]) == {"1", "1 one-by-one"}  # bulk, and the baseline
    for row in report["workers"].values():
        assert row["lifecycle_edges_per_s"] > 0
        assert row["turns_per_s"] > 0
        assert row["replay_edges_per_s"] > 0
        assert 0 < row["latency_ms"]["p50"] <= row["latency_ms"]["p95"]
        profile = row["handler_profile"]  # the handler in-process: stages and round trips
        assert profile["edges"] == 60 and profile["edges_per_s"] > 0
        assert profile["round_trips"] > 0 and profile["cpu_ms_per_edge"] > 0
        stages = profile["stages_ms_per_edge"]
        assert stages["redis reply"] > 0 and stages["lifecycle resolution"] > 0
    assert "workers ready" in done.stderr  # progress goes to stderr, not into the JSON
    namespace = re.search(r"namespace (bench-[0-9a-f]{8})", done.stderr)
    assert namespace is not None
    with connect(url) as client:  # the bench deleted its keys
        assert not list(client.scan_iter(match=namespace.group(1) + "*", count=1000))


def test_bench_pipeline_needs_the_services() -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("FR_")}
    argv = [sys.executable, "-m", "frecall.cli", "bench", "pipeline", "--workers", "1"]
    done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 1
    assert "FR_KAFKA_BOOTSTRAP" in done.stderr
