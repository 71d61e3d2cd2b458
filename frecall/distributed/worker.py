"""`frecall worker`: a process running the Faust agents of the given roles."""

from __future__ import annotations

import sys
from pathlib import Path

from frecall.bootstrap import make_embedder, make_extractor
from frecall.distributed.stores import (
    lifecycle_handler,
    open_stores,
    register,
    require_services,
    topics_of,
)
from frecall.settings import Settings
from schemas.policy import load_policy
from streams.faust_app import create_app, run_worker
from streams.topics import ensure_topics
from workers.distributed.extraction import ExtractionHandler
from workers.distributed.messages import Rejections
from workers.errors import ConfigError
from workers.extraction.withdrawal_probe import WithdrawalGate

ROLES = frozenset({"extraction", "lifecycle"})


def run(settings: Settings, roles: set[str], loglevel: str) -> None:
    """Run the agents of `roles` until SIGINT/SIGTERM."""
    bootstrap, _ = require_services(settings)
    unknown = roles - ROLES
    if unknown or not roles:
        raise ConfigError(f"--roles: unknown {sorted(unknown)}; use extraction, lifecycle")
    topics = topics_of(settings)
    ensure_topics(bootstrap, topics, settings.kafka_partitions, settings.kafka_replication)
    stores = open_stores(settings)
    heartbeat = register(settings, stores.client, "worker")
    reject = Rejections(stores.letters)
    extraction = lifecycle = None
    if "extraction" in roles:
        embedder = make_embedder(settings)
        extractor = make_extractor(settings, embedder=embedder)
        gate = WithdrawalGate.for_embedder(embedder, load_policy(settings.policy_file))
        extraction = ExtractionHandler(
            extractor, embedder, stores.turns, stores.ledger, reject, withdrawal=gate
        )
    if "lifecycle" in roles:
        lifecycle = lifecycle_handler(stores, reject, settings.lifecycle_bulk)
    app = create_app(
        bootstrap,
        topics,
        settings.kafka_partitions,
        settings.kafka_group,
        reject,
        extraction=extraction,
        lifecycle=lifecycle,
        datadir=str(_mkdir(settings.data_dir / "faust")),
    )
    print(f"frecall worker: roles {sorted(roles)} on {bootstrap}", file=sys.stderr, flush=True)
    try:
        run_worker(app, loglevel)
    finally:
        heartbeat.stop()
        stores.close()


def _mkdir(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    return path
