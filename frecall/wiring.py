"""The wiring: settings in, a `Deployment` out — the one place that decides which
deployment runs (CONVENTIONS 4). No service configured = the embedded deployment;
FR_KAFKA_BOOTSTRAP = the distributed one (docs/architecture.md, "The two deployments").
"""

from __future__ import annotations

from typing import TextIO

from frecall.access.keys import Keyring
from frecall.deployment import Deployment
from frecall.settings import Settings
from workers.errors import ConfigError


def open_deployment(
    settings: Settings,
    *,
    serving: bool = False,
    extractor: str = "auto",
    fsync: bool = True,
    err: TextIO | None = None,
    quiet: bool = False,
) -> Deployment:
    """The deployment `settings` describe, ready for every method of the port.

    `serving`: this process serves queries for others (`frecall serve`): the embedded
    deployment opens its stores at once (a data dir another process holds fails here, not
    on the first request); the distributed one runs the indexer that owns the vector index.
    `extractor`: auto (the LLM when one is configured, else rules), rules or llm.
    `err`/`quiet`: where per-item problems are printed (default stderr; quiet: nowhere).
    """
    if settings.kafka_bootstrap:
        from frecall.distributed.deployment import DistributedDeployment

        return DistributedDeployment(settings, serving=serving, err=err, quiet=quiet)
    from frecall.embedded.deployment import EmbeddedDeployment

    embedded = EmbeddedDeployment(
        settings,
        extractor_choice=extractor,
        fsync=fsync,
        # Replay rebuilds stores in the data dir; service-backed ones are rebuilt from Kafka.
        rebuildable=not (settings.redis_url or settings.qdrant_url),
        err=err,
        quiet=quiet,
    )
    if serving:
        embedded.open()
    return embedded


def open_keyring(settings: Settings) -> Keyring:
    """The API keys of the deployment `settings` describe: in Redis for the distributed
    deployment (every serving process shares them), else in the data dir."""
    pepper = (
        settings.api_key_pepper.get_secret_value().encode() if settings.api_key_pepper else None
    )
    if settings.kafka_bootstrap:
        from workers.stores.redis_client import connect

        if not settings.redis_url:
            raise ConfigError(
                "the distributed deployment needs FR_KAFKA_BOOTSTRAP and FR_REDIS_URL"
            )
        from frecall.access.redis_keys import RedisKeyStore

        return Keyring(RedisKeyStore(connect(settings.redis_url), settings.redis_prefix), pepper)
    from frecall.access.key_stores import KEYS_FILE, SqliteKeyStore

    return Keyring(SqliteKeyStore(settings.data_dir / KEYS_FILE), pepper)
