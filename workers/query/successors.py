"""Successor expansion: a masked fact that answers the question points at its replacement.

"Is she still into gardening?", when the user has since given the garden up for watercolor
in words the question does not share: the best match is the superseded fact, which the
state mask hides, and its successor shares nothing with the question, so neither serves
the answer. The lifecycle state records the link (`superseded_by`, `retracted_by`); when a
masked candidate matches the question as strongly as the relevance tier requires, we follow
that chain to the fact that now holds the slot and bring it into the pool with the
predecessor's similarity as its evidence, saying so in `why`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from schemas.categories import LifecycleState
from schemas.records import FactRecord

#: Longest supersession chain followed (A → B → C …); real chains are short.
MAX_HOPS = 8

Fetch = Callable[[list[str]], list[FactRecord]]


@dataclass(frozen=True, slots=True)
class Successor:
    """The fact that replaced (or cancelled) a masked match, and the evidence it inherits."""

    record: FactRecord
    via: str  # edge id of the masked candidate that matched the question
    relation: str  # "superseded" or "retracted": how `via` was replaced
    sigma: float


def _next_id(record: FactRecord, retractions: bool = True) -> str | None:
    """The edge that replaced `record` (None if it holds): its successor when superseded, its
    cancelling fact when retracted and `retractions` are followed."""
    lc = record.lifecycle
    if lc.state is LifecycleState.SUPERSEDED:
        return lc.superseded_by
    if retractions and lc.state is LifecycleState.RETRACTED:
        return lc.retracted_by
    return None


def follow(
    matches: Sequence[tuple[FactRecord, float]], fetch: Fetch, *, retractions: bool = True
) -> dict[str, Successor]:
    """Successors (by edge id) of masked `(record, σ)` matches: the end of each chain of
    replacements. A successor reached from several matches keeps the best σ. Without
    `retractions` only supersession is followed: a retracted link ends its chain."""
    Link = tuple[str, str, float]  # (via, relation, σ)

    def keep(links: dict[str, Link], target: str, link: Link) -> None:
        if target not in links or link[2] > links[target][2]:
            links[target] = link

    heads: dict[str, Link] = {}
    for record, sigma in matches:
        nxt = _next_id(record, retractions)
        if nxt is not None:
            keep(heads, nxt, (record.edge_id, record.lifecycle.state.value, sigma))
    found: dict[str, Successor] = {}
    # Links point from an edge to a later one, so chains end; MAX_HOPS bounds bad data.
    for _ in range(MAX_HOPS):
        if not heads:
            break
        following: dict[str, Link] = {}
        for record in fetch(sorted(heads)):
            link = heads[record.edge_id]
            nxt = _next_id(record, retractions)
            if nxt is None:
                old = found.get(record.edge_id)
                if old is None or link[2] > old.sigma:
                    found[record.edge_id] = Successor(record, *link)
            else:
                keep(following, nxt, link)
        heads = following
    return found


def chain_end(start: FactRecord, fetch: Fetch, *, retractions: bool = True) -> FactRecord | None:
    """The record at the end of `start`'s chain of replacements: `follow` for one record. None
    when `start` was not replaced, or the chain breaks (a link not found), loops or runs past
    `MAX_HOPS`."""
    found = follow([(start, 0.0)], fetch, retractions=retractions)
    return next(iter(found.values())).record if found else None
