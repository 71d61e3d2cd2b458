"""The top hits of a search in a deterministic order, whatever order the store breaks ties in.

Qdrant orders equal scores by its internal point offsets, which depend on the order points
were written in (and on segment merges): two facts with the same text, or the same words,
tie, and which of them falls inside a `limit` would depend on history. The port promises
(score, then edge id); this helper keeps that promise over any store that returns the best
`n` by score: it asks for one more hit than needed, and asks again for more while the hit
at the cut ties with the last one returned (then facts beyond the returned ones could tie
too).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar


class Ranked(Protocol):
    """What the cut needs of a hit: its score and its edge id (`workers.ports.Hit`)."""

    @property
    def score(self) -> float: ...

    @property
    def edge_id(self) -> str: ...


R = TypeVar("R", bound=Ranked)


@dataclass(frozen=True, slots=True)
class ScoredId:
    """A hit before its record is read: adapters cut on these (ties can make the store
    return many more hits than are kept), then read the records of the kept ones only."""

    score: float
    edge_id: str
    point_id: Any


def stable_top(fetch: Callable[[int], list[R]], limit: int) -> list[R]:
    """The `limit` best of `fetch(n)` (the store's best n by score) by (-score, edge id).

    While the cut ties, it asks for four times as many: a question's common word can tie
    hundreds of facts, and each request scores the user's facts again (measured against
    doubling and against one request for every hit above the cut's score, which Qdrant
    answers slowest of the three).
    """
    if limit <= 0:
        return []
    n = limit + 1
    while True:
        hits = fetch(n)
        if len(hits) < n:
            break  # every candidate came back
        scores = sorted((h.score for h in hits), reverse=True)
        if scores[-1] < scores[limit - 1]:
            break  # everything tying with the cut is among the hits
        n *= 4
    hits.sort(key=lambda h: (-h.score, h.edge_id))
    return hits[:limit]
