"""The clusters of `deploy/local/with-cluster.sh`, and the scripts that break them."""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import require_service

DEPLOY = Path(__file__).resolve().parents[2] / "deploy" / "local"
HOW = "deploy/local/with-cluster.sh (make test-cluster)"


@dataclass(frozen=True)
class Clusters:
    """A Redis Cluster (3 masters, 3 replicas) and a 3-broker Kafka, and their crash and
    failover commands (deploy/local/redis-cluster.sh and kafka-cluster.sh on this run dir)."""

    redis_url: str  # redis+cluster://127.0.0.1:PORT, the form FR_REDIS_URL takes
    kafka_bootstrap: str  # three brokers, comma-separated
    run_dir: Path

    def _script(self, name: str, *args: str, timeout: float) -> str:
        env = {**os.environ, "FR_RUN_DIR": str(self.run_dir)}
        done = subprocess.run(
            ["bash", str(DEPLOY / name), *args],
            env=env,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
        assert done.returncode == 0, f"{name} {' '.join(args)}:\n{done.stderr}"
        return done.stdout.strip()

    def kill_broker(self, node: int) -> None:
        self._script("kafka-cluster.sh", "kill", str(node), timeout=30)

    def revive_broker(self, node: int) -> None:
        self._script("kafka-cluster.sh", "revive", str(node), timeout=240)

    def redis_masters(self) -> list[int]:
        """The ports of the masters now, as the cluster itself says."""
        lines = self._script("redis-cluster.sh", "status", timeout=30).splitlines()
        return sorted(int(port) for port, role, _ in map(str.split, lines) if role == "master")

    def fail_over_redis(self, master_port: int) -> int:
        """A planned failover of a master to its replica; the new master's port."""
        return int(self._script("redis-cluster.sh", "failover", str(master_port), timeout=90))

    def crash_redis_master(self, master_port: int) -> int:
        """SIGKILL a master; once its replica took over, the new master's port."""
        return int(self._script("redis-cluster.sh", "kill-master", str(master_port), timeout=90))

    def revive_redis(self, port: int) -> None:
        """Restart a crashed node; it rejoins as a replica."""
        self._script("redis-cluster.sh", "revive", str(port), timeout=90)


@pytest.fixture(scope="session")
def redis_cluster_url() -> str:
    """The Redis Cluster alone (redis+cluster://…, every node a seed)."""
    return require_service("FR_TEST_REDIS_CLUSTER_URL", "a Redis Cluster", HOW)


@pytest.fixture(scope="session")
def clusters(redis_cluster_url: str) -> Clusters:
    return Clusters(
        redis_url=redis_cluster_url,
        kafka_bootstrap=require_service("FR_TEST_KAFKA_CLUSTER_BOOTSTRAP", "a 3-broker Kafka", HOW),
        run_dir=Path(require_service("FR_TEST_CLUSTER_RUN_DIR", "the clusters' run dir", HOW)),
    )
