"""`frecall bench load` on the distributed deployment: the test broker and Redis, a serving
process and one worker, a few seconds of concurrent writers and readers."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest

from tests.integration.test_bench_pipeline import services  # noqa: F401  (fixture)
from workers.stores.redis_client import connect

pytestmark = pytest.mark.integration


def test_bench_load_distributed_loses_no_write(services: tuple[str, str]) -> None:  # noqa: F811
    bootstrap, url = services
    env = {k: v for k, v in os.environ.items() if not k.startswith("FR_")}
    env.update(FR_KAFKA_BOOTSTRAP=bootstrap, FR_REDIS_URL=url)
    argv = [sys.executable, "-m", "frecall.cli", "bench", "load", "--json"]
    argv += ["--deployment", "distributed", "--seconds", "3", "--writers", "1"]
    argv += ["--readers", "2", "--users", "6", "--embedder", "hashing", "--settle", "60"]
    done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=280)
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout)["distributed"]
    assert result["errors"] == 0 and result["writes_lost"] == 0
    assert result["writes_acknowledged"] > 0
    assert result["endpoints"]["POST /v1/query"]["requests"] > 0
    namespace = re.search(r"namespace (load-[0-9a-f]{8})", done.stderr)
    assert namespace is not None
    with connect(url) as client:  # the bench deleted its keys
        assert not list(client.scan_iter(match=namespace.group(1) + "*", count=1000))
