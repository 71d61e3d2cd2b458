"""Stable exports of a user's memory: two exports of the same state compare byte for byte."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any, Protocol

from schemas.records import FactRecord


class _Facts(Protocol):
    def scroll(self, user_id: str) -> Iterator[FactRecord]: ...


def fact_view(record: FactRecord) -> dict[str, Any]:
    """A fact and its lifecycle, without the embedding (it is in the log, not for people)."""
    edge = record.edge.model_dump(mode="json", exclude={"embedding"})
    return {"edge": edge, "lifecycle": record.lifecycle.model_dump(mode="json")}


def export_user(vectors: _Facts, user_id: str) -> dict[str, Any]:
    records = sorted(vectors.scroll(user_id), key=lambda r: (r.edge.ingest_time, r.edge_id))
    return {"user_id": user_id, "facts": [fact_view(r) for r in records]}


def dumps_stable(document: dict[str, Any]) -> str:
    return json.dumps(document, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
