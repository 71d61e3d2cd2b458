"""The one settings object (CONVENTIONS 5): created only in entry points, passed down."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any, Final, Literal

from pydantic import Field, SecretStr, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from workers.stores.search_plan import EXACT_MAX_FACTS, HNSW_EF

#: Embedders that need no service, by `FR_EMBEDDER` / `--embedder` name: `minilm` is
#: all-MiniLM-L6-v2 int8 (workers/embedding/minilm.py), `hashing` the test-only hasher.
OFFLINE_EMBEDDERS = ("minilm", "hashing")
DEFAULT_EMBEDDER: Final = "minilm"
EmbedderName = Literal["minilm", "hashing", "openai"]


class Settings(BaseSettings):
    """Everything configurable, from `FR_*` environment variables or CLI flags.

    No service configured = the embedded deployment (docs/architecture.md, "The two
    deployments"); `frecall.wiring.open_deployment` decides.
    """

    model_config = SettingsConfigDict(env_prefix="FR_", frozen=True, extra="ignore")

    data_dir: Path = Field(default=Path("./frecall-data"))
    policy_file: Path | None = None
    embedder: EmbedderName = DEFAULT_EMBEDDER
    embedding_model: str = "text-embedding-3-small"
    kafka_bootstrap: str | None = None
    #: Namespaces topics and consumer groups (several deployments, or tests, on one broker).
    kafka_topic_prefix: str = ""
    kafka_group: str = "frecall"
    kafka_partitions: int = Field(default=6, ge=1, le=1024)
    #: Replicas of each topic the deployment creates; -1: the broker's
    #: default.replication.factor. Topics that exist are left as they are.
    kafka_replication: int = Field(default=-1, ge=-1, le=32)
    #: `redis://[user:password@]host:port[/db]` (`rediss://` for TLS, `unix://` too) for
    #: one server; `redis+cluster://[user:password@]host:port[,host:port…]` (`rediss+cluster://`)
    #: for a Redis Cluster, any nodes as seeds (workers/stores/redis_client.py).
    redis_url: str | None = None
    #: Letters, digits, `_` and `-` only: generations append `.g<N>`, which no other
    #: deployment's prefix can then collide with.
    redis_prefix: str = Field(default="fr", pattern=r"^[A-Za-z0-9_-]+$")
    qdrant_url: str | None = None
    qdrant_api_key: SecretStr | None = None
    qdrant_collection: str = "fr_facts"
    openai_base_url: str | None = None
    openai_api_key: SecretStr | None = None
    llm_model: str = "gpt-4.1-mini"
    onnx_threads: int = Field(default=2, ge=1, le=64)
    #: Users with at most this many facts are searched exactly; larger ones through the
    #: vector index's HNSW graph with `hnsw_ef` (workers/stores/search_plan.py).
    exact_search_max_facts: int = Field(default=EXACT_MAX_FACTS, ge=0)
    hnsw_ef: int = Field(default=HNSW_EF, ge=8, le=4096)
    #: The lifecycle worker applies each batch of fr.edges in bulk (each slot resolved once,
    #: one commit per user: workers/lifecycle/bulk.py); false: one edge at a time (the
    #: reference path `frecall bench pipeline --compare-one-by-one` measures against).
    lifecycle_bulk: bool = True
    http_max_body_bytes: int = Field(default=1 << 20, gt=0)
    #: The HMAC key API keys are hashed with (frecall/access/keys.py). Changing it
    #: invalidates every key; unset, a fixed label is used.
    api_key_pepper: SecretStr | None = None
    #: Per API key: requests a second (token bucket refill; 0 = no limit) and burst size.
    rate_limit_per_s: float = Field(default=20.0, ge=0)
    rate_limit_burst: int = Field(default=40, ge=1)
    #: OTLP/HTTP endpoint of a trace collector (e.g. http://127.0.0.1:4318); unset = no
    #: tracing, no exporter, no thread.
    otel_endpoint: str | None = None
    otel_service_name: str = "frecall"

    @field_validator(
        "kafka_bootstrap",
        "redis_url",
        "qdrant_url",
        "openai_base_url",
        "otel_endpoint",
        mode="before",
    )
    @classmethod
    def _blank_is_unset(cls, value: object) -> object:
        return None if isinstance(value, str) and not value.strip() else value

    @field_validator("kafka_replication")
    @classmethod
    def _replicas_or_broker_default(cls, value: int) -> int:
        if value == 0:
            raise ValueError("a topic needs at least 1 replica (-1: the broker's default)")
        return value


def settings_from(args: argparse.Namespace) -> Settings:
    """The settings of a command: `FR_*` variables, overridden by its `--data-dir`."""
    overrides: dict[str, Any] = {}
    if getattr(args, "data_dir", None) is not None:
        overrides["data_dir"] = args.data_dir
    return Settings(**overrides)
