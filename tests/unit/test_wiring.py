"""The wiring picks the deployment once, from the settings; each deployment refuses what it
cannot do with a clear error (no service is contacted here)."""

from __future__ import annotations

from pathlib import Path

import pytest

from frecall.distributed.deployment import DistributedDeployment
from frecall.embedded.deployment import EmbeddedDeployment
from frecall.settings import Settings
from frecall.wiring import open_deployment
from workers.errors import ConfigError


def test_no_service_is_the_embedded_deployment(tmp_path: Path) -> None:
    deployment = open_deployment(Settings(data_dir=tmp_path, embedder="hashing"))
    assert isinstance(deployment, EmbeddedDeployment)
    with pytest.raises(ConfigError, match="FR_KAFKA_BOOTSTRAP"):
        deployment.replay("kafka")
    deployment.close()
    assert not (tmp_path / "log").exists()  # nothing was opened


def test_service_backed_embedded_stores_are_not_replayed_from_the_data_dir(
    tmp_path: Path,
) -> None:
    settings = Settings(data_dir=tmp_path, redis_url="redis://127.0.0.1:1/0")
    with pytest.raises(ConfigError, match="--from-kafka"):
        open_deployment(settings).replay()


def test_a_broker_is_the_distributed_deployment(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path, kafka_bootstrap="127.0.0.1:1")
    deployment = open_deployment(settings)
    assert isinstance(deployment, DistributedDeployment)
    with pytest.raises(ConfigError, match="--from-kafka"):
        deployment.replay()
    with pytest.raises(ConfigError, match="FR_REDIS_URL"):
        deployment.export("u")  # Redis is not configured
    deployment.close()
