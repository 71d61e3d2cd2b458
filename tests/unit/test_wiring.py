"""The wiring picks the deployment once, from the settings; each deployment refuses what it
cannot do with a clear error (no service is contacted here)."""

from __future__ import annotations

from pathlib import Path

import pytest

import frecall.bootstrap
import frecall.embedded.deployment
from frecall.distributed.deployment import DistributedDeployment
from frecall.embedded.deployment import EmbeddedDeployment
from frecall.settings import Settings
from frecall.wiring import open_deployment
from workers.embedding.hashing import HashingEmbedder
from workers.errors import ConfigError
from workers.extraction.rules import RuleExtractor


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


class _Closes:
    """Counts `close` calls (an LLM extractor or HTTP embedder holds pooled sockets)."""

    def __init__(self) -> None:
        self.closed = 0

    def close(self) -> None:
        self.closed += 1


class _ClosingExtractor(RuleExtractor, _Closes):
    def __init__(self) -> None:
        RuleExtractor.__init__(self)
        _Closes.__init__(self)


class _ClosingEmbedder(HashingEmbedder, _Closes):
    def __init__(self) -> None:
        HashingEmbedder.__init__(self)
        _Closes.__init__(self)


def test_closing_releases_the_clients_the_deployment_made_and_only_those(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A pooled socket left to the garbage collector is a ResourceWarning in whichever later
    # code happens to trigger the collection (CI failed that way at stop 19).
    made, embedder = _ClosingExtractor(), _ClosingEmbedder()
    monkeypatch.setattr(frecall.embedded.deployment, "make_extractor", lambda *_: made)
    monkeypatch.setattr(frecall.bootstrap, "make_embedder", lambda _: embedder)
    deployment = open_deployment(Settings(data_dir=tmp_path / "a", embedder="hashing"))
    deployment.open()
    deployment.close()
    assert (made.closed, embedder.closed) == (1, 1)

    given = _ClosingExtractor()  # the caller's: the caller closes it
    theirs = EmbeddedDeployment(Settings(data_dir=tmp_path / "b"), extractor=given)
    theirs.open()
    theirs.close()
    assert given.closed == 0
