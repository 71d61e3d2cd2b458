"""Builders for EdgeEvents in unit tests."""

from __future__ import annotations

import zlib
from datetime import UTC, datetime, timedelta

import numpy as np

from schemas.categories import Category
from schemas.events import EdgeEvent, Embedding

T0 = datetime(2026, 1, 1, tzinfo=UTC)


def axis(i: int, dim: int = 16) -> np.ndarray:
    """The unit vector along axis `i`."""
    v = np.zeros(dim, dtype=np.float32)
    v[i] = 1.0
    return v


def near(base: np.ndarray, cosine: float, other: int) -> np.ndarray:
    """A unit vector at exactly `cosine` to the unit vector `base` (toward axis `other`)."""
    v = cosine * base + np.sqrt(1 - cosine**2) * axis(other, len(base))
    out: np.ndarray = (v / np.linalg.norm(v)).astype(np.float32)
    return out


def vec(seed: int, dim: int = 8) -> np.ndarray:
    v = np.random.default_rng(seed).standard_normal(dim).astype(np.float32)
    return v / np.linalg.norm(v)


def edge(
    edge_id: str,
    *,
    day: float = 0,
    slot: str | None = "user.food_preference",
    category: Category | dict[str, float] = Category.PREFERENCES_HABITS,
    update: str = "replace",
    confidence: float = 1.0,
    text: str | None = None,
    user: str = "u1",
    seed: int | None = None,
    vector: np.ndarray | None = None,
    numeric: bool = False,
    retracts: tuple[str, ...] = (),
    quarantined: bool = False,
    event_day: float | None = None,
    value: str | None = None,
) -> EdgeEvent:
    v = (
        vector
        if vector is not None
        else vec(seed if seed is not None else zlib.crc32(edge_id.encode()) % 10_000)
    )
    return EdgeEvent(
        edge_id=edge_id,
        user_id=user,
        text=text or f"fact {edge_id}",
        categories=category,  # type: ignore[arg-type]
        slot_key=slot,
        value=value,
        update=update,  # type: ignore[arg-type]
        confidence=confidence,
        ingest_time=T0 + timedelta(days=day),
        event_time=None if event_day is None else T0 + timedelta(days=event_day),
        numeric=numeric,
        retracts=retracts,
        quarantined=quarantined,
        embedding=Embedding.from_array("test", v),
    )
