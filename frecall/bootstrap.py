"""Adapters from settings: the embedder, the extractor, the vector and slot indexes, and
`build`, the embedded deployment's object graph (`workers.app.App`).

Each factory picks an adapter from its `FR_*` setting (Qdrant server or Qdrant Edge, Redis
or SQLite slots, …). Which *deployment* runs is decided once, in `frecall.wiring`.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from frecall.observability.timings import TimedEmbedder
from frecall.settings import OFFLINE_EMBEDDERS, Settings
from schemas.policy import Policy, load_policy
from workers.app import App
from workers.embedding.compat import check_log_model
from workers.errors import ConfigError
from workers.ports import Embedder, FactExtractor, SlotIndex, VectorIndex
from workers.query.tiers import Distiller
from workers.stores.archive import ARCHIVE_FILE, Archive
from workers.stores.dead_letters import FileDeadLetters
from workers.stores.search_plan import SearchPlan

if TYPE_CHECKING:
    from workers.extraction.rules import RuleExtractor


def make_embedder(settings: Settings) -> Embedder:
    """The embedder `settings` name, timed for whoever listens (the serving process's
    metrics and traces: frecall/observability/timings.py)."""
    return TimedEmbedder(_embedder(settings))


def _embedder(settings: Settings) -> Embedder:
    if settings.embedder == "hashing":
        from workers.embedding.hashing import HashingEmbedder

        return HashingEmbedder()
    if settings.embedder == "openai":
        import openai

        from workers.embedding.openai_embedder import OpenAIEmbedder

        if not settings.openai_base_url and not settings.openai_api_key:
            raise ConfigError("FR_EMBEDDER=openai needs FR_OPENAI_BASE_URL or FR_OPENAI_API_KEY")
        key = settings.openai_api_key.get_secret_value() if settings.openai_api_key else "none"
        client = openai.OpenAI(base_url=settings.openai_base_url, api_key=key)
        return OpenAIEmbedder(client, settings.embedding_model, None)
    from workers.embedding.minilm import MiniLMEmbedder

    return MiniLMEmbedder(intra_op_threads=settings.onnx_threads)


def embedder_settings(settings: Settings) -> dict[str, str]:
    """Model id → the `FR_EMBEDDER` value that makes it, for every offline embedder (building
    one loads nothing)."""
    return {
        make_embedder(settings.model_copy(update={"embedder": name})).model_id: (
            f"FR_EMBEDDER={name}"
        )
        for name in OFFLINE_EMBEDDERS
    }


def make_extractor(
    settings: Settings, choice: str = "auto", embedder: Embedder | None = None
) -> FactExtractor:
    """The LLM extractor when an OpenAI-compatible endpoint is configured (or asked for),
    else the offline rule extractor (issue: extraction; paper §3.5). `embedder`: the one the
    pipeline embeds turns with, for the rule extractor's withdrawal probe (made from the
    settings when not given)."""
    use_llm = choice == "llm" or (
        choice == "auto" and bool(settings.openai_base_url or settings.openai_api_key)
    )
    if not use_llm:
        return rule_extractor(
            load_policy(settings.policy_file), embedder or make_embedder(settings)
        )
    if not settings.openai_base_url and not settings.openai_api_key:
        raise ConfigError("the LLM extractor needs FR_OPENAI_BASE_URL or FR_OPENAI_API_KEY")
    import openai

    from workers.extraction.llm import LLMExtractor

    key = settings.openai_api_key.get_secret_value() if settings.openai_api_key else "none"
    client = openai.OpenAI(base_url=settings.openai_base_url, api_key=key)
    return LLMExtractor(client, settings.llm_model)


def rule_extractor(policy: Policy, embedder: Embedder) -> RuleExtractor:
    """The offline extractor, yielding candidate withdrawals when the policy enables the
    probe and the embedder is its model: the extraction stage confirms them from the raw
    turn's vector (workers/extraction/withdrawal.py, withdrawal_probe.py)."""
    from workers.extraction.rules import RuleExtractor
    from workers.extraction.withdrawal_probe import WithdrawalGate

    return RuleExtractor(
        withdrawal=WithdrawalGate.for_embedder(embedder, policy) is not None,
        normalize=policy.normalization.enabled,
        pastimes=policy.pastimes.enabled,
        pastime_habits=policy.pastimes.enabled and policy.pastimes.habits,
        takeups=policy.pastimes.enabled and policy.pastimes.takeups,
    )


def make_vectors(settings: Settings, dim: int, directory: Path | None = None) -> VectorIndex:
    """Qdrant server when FR_QDRANT_URL is set, else Qdrant Edge in the data dir."""
    if settings.qdrant_url:
        from qdrant_client import QdrantClient

        from workers.stores.qdrant_server import QdrantServerIndex

        key = settings.qdrant_api_key.get_secret_value() if settings.qdrant_api_key else None
        client = QdrantClient(url=settings.qdrant_url, api_key=key)
        return QdrantServerIndex(client, settings.qdrant_collection, dim, search_plan(settings))
    from workers.stores.qdrant_edge import QdrantEdgeIndex

    return QdrantEdgeIndex(directory or settings.data_dir / "qdrant", dim, search_plan(settings))


def search_plan(settings: Settings) -> SearchPlan:
    """When a user's dense search may be approximate (HNSW), from the settings."""
    return SearchPlan(settings.exact_search_max_facts, settings.hnsw_ef)


def make_slots(settings: Settings, path: Path | None = None) -> SlotIndex:
    if settings.redis_url:
        from workers.stores.redis_client import connect
        from workers.stores.redis_slots import RedisSlotIndex

        return RedisSlotIndex(connect(settings.redis_url))
    from workers.stores.sqlite_slots import SqliteSlotIndex

    return SqliteSlotIndex(path or settings.data_dir / "slots.sqlite")


def make_distiller(settings: Settings, extractor: FactExtractor | None = None) -> Distiller | None:
    """The paper's one LLM call at query time (§3.5): None when no LLM is configured.

    `extractor`: the one the caller already made (its client is reused when it can distill).
    """
    if not (settings.openai_base_url or settings.openai_api_key):
        return None
    distill: Distiller | None = getattr(
        extractor or make_extractor(settings, "llm"), "distill", None
    )
    return distill


def build(settings: Settings, *, fsync: bool = True, extractor: FactExtractor | None = None) -> App:
    """Open every store of the deployment `settings` describes.

    `extractor`: the one the caller already made, reused for query-time distillation so
    that an entry point builds a single LLM client.
    """
    from workers.stores.file_log import FileEventLog

    policy = load_policy(settings.policy_file)
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    embedder = make_embedder(settings)
    log = FileEventLog(settings.data_dir / "log", fsync=fsync)
    try:
        check_log_model(log, embedder.model_id, embedder_settings(settings))
        slots = make_slots(settings)
        vectors = make_vectors(settings, embedder.dim)
    except BaseException:
        log.close()
        raise
    return App(
        settings=settings,
        distill=make_distiller(settings, extractor),
        policy=policy,
        embedder=embedder,
        vectors=vectors,
        slots=slots,
        log=log,
        dead_letters=FileDeadLetters(settings.data_dir / "dead-letters.jsonl"),
        archive=Archive(settings.data_dir / ARCHIVE_FILE),
    )
