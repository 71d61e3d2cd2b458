"""`frecall worker`: the Faust agents of the given roles."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from frecall.bootstrap import make_embedder, make_extractor
from frecall.distributed.stores import (
    open_stores,
    require_services,
    topics_of,
)
from streams.topics import ensure_topics
from workers.distributed.extraction import ExtractionHandler
from workers.distributed.lifecycle import LifecycleHandler
from workers.errors import ConfigError


def worker_cmd(args: argparse.Namespace) -> int:
    """Run the Faust agents of the given roles until SIGINT/SIGTERM."""
    from frecall.commands import settings_from
    from streams.faust_app import create_app, run_worker

    settings = settings_from(args)
    bootstrap, _ = require_services(settings)
    roles = {r.strip() for r in args.roles.split(",") if r.strip()}
    unknown = roles - {"extraction", "lifecycle"}
    if unknown or not roles:
        raise ConfigError(f"--roles: unknown {sorted(unknown)}; use extraction, lifecycle")
    topics = topics_of(settings)
    ensure_topics(bootstrap, topics, settings.kafka_partitions)
    stores = open_stores(settings)
    extraction = None
    if "extraction" in roles:
        extractor = make_extractor(settings)
        extraction = ExtractionHandler(
            extractor, make_embedder(settings), stores.turns, stores.ledger
        )
    lifecycle = None
    if "lifecycle" in roles:
        lifecycle = LifecycleHandler(stores.lifecycle, stores.facts, stores.ledger, stores.turns)
    app = create_app(
        bootstrap,
        topics,
        settings.kafka_partitions,
        settings.kafka_group,
        extraction=extraction,
        lifecycle=lifecycle,
        datadir=str(_mkdir(settings.data_dir / "faust")),
    )
    print(f"frecall worker: roles {sorted(roles)} on {bootstrap}", file=sys.stderr, flush=True)
    try:
        run_worker(app, args.loglevel)
    finally:
        stores.close()
    return 0


def _mkdir(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    return path
