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

from workers.ports import Hit


def stable_top(fetch: Callable[[int], list[Hit]], limit: int) -> list[Hit]:
    """The `limit` best of `fetch(n)` (the store's best n by score) by (-score, edge id)."""
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
        n *= 2
    hits.sort(key=lambda h: (-h.score, h.record.edge_id))
    return hits[:limit]
