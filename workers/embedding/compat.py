"""Vectors of two models must never meet: a guard on the model id the log's vectors carry.

Every edge in the log carries its embedding with the id of the model that made it (DESIGN
§2), so replay needs no model. Queries, though, are embedded by the configured embedder and
compared with the stored vectors: two models of the same dimension (all-MiniLM-L6-v2 and
paraphrase-MiniLM-L3-v2 are both 384-d, OpenAI's text-embedding-3-small and ada-002 both
1536-d) would compare without any error and rank at random.
Entry points therefore refuse to open a log whose vectors another model made.
"""

from __future__ import annotations

from collections.abc import Mapping

from schemas.events import EdgeEvent
from workers.errors import ConfigError
from workers.ports import EventLog


def logged_model(log: EventLog) -> str | None:
    """The model id of the log's first embedded edge; None for a log with no edge yet.

    Only the first is read (the log is scanned lazily): every later edge was written through
    the same check, so it carries the same id.
    """
    for record in log.read():
        if isinstance(record, EdgeEvent) and record.embedding is not None:
            return record.embedding.model
    return None


def check_log_model(
    log: EventLog, model_id: str, settings_for: Mapping[str, str] | None = None
) -> None:
    """Raise `ConfigError` when the log's vectors were made by another model than `model_id`.

    settings_for: model id → the setting that selects it (e.g. "FR_EMBEDDER=minilm"), so
    the message can say what to set.
    """
    found = logged_model(log)
    if found is None or found == model_id:
        return
    fix = (settings_for or {}).get(found)
    how = f"Set {fix}" if fix else f"Configure the embedder that makes {found!r}"
    raise ConfigError(
        f"the event log holds vectors of embedding model {found!r}, but the configured "
        f"embedder makes {model_id!r}: their vectors cannot be compared. {how} "
        "to use this data dir, or start a new data dir for the new model."
    )
