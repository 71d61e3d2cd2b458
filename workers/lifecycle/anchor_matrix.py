"""A user's association anchors with their vectors stacked once, not on every match (issue 13).

`association.best_match` compares a free edge with every anchor of its user ingested before
it. Done from the anchor list each time — filter, sort, decode each anchor's base64 vector,
stack — it cost ≈ 4 µs per anchor per free edge: one user's ingest slowed from 500 to 50
facts/s by 5,000 facts (`frecall bench growth-rate`). Here an anchor list is prepared once
into its canonical order ((ingest_time, edge_id), the order every slot index returns) with a
float32 matrix of its vectors; a match is then a bisection (the anchors before the edge are
a prefix) and one product over that prefix — the same rows, in the same positions, as the
scan stacks, so the same scores to the bit.

Preparations are kept by the identity of the list (the slot index views hand out the same
list until the slot changes): the list is held, so its id cannot be reused, and a list
extended by anchors that sort last (time-ordered ingest: the common case) extends the
previous matrix instead of rebuilding it. Anything this does not cover — anchors of several
users or models, an id twice — is answered by the scan (`Prepared.usable` is False).
"""

from __future__ import annotations

import operator
from bisect import bisect_left
from collections import OrderedDict
from collections.abc import Sequence
from datetime import datetime

import numpy as np

from schemas.events import EdgeEvent

#: Anchor lists kept prepared (a batch holds one or two per user it touches), and per user
#: (a big user's matrix is tens of MB: older lists of the user are not asked again).
KEEP = 64
KEEP_PER_USER = 2

_Key = tuple[datetime, str]


def _key(edge: EdgeEvent) -> _Key:
    return (edge.ingest_time, edge.edge_id)


class Prepared:
    """One anchor list: its edges in canonical order, their keys and stacked vectors."""

    def __init__(self, source: Sequence[EdgeEvent]) -> None:
        self.source = source
        self.edges: list[EdgeEvent] = []
        self.keys: list[_Key] = []
        self.usable = True
        self.user: str | None = None
        self.model: str | None = None
        self._rows = np.empty((0, 0), dtype=np.float32)
        self._ids: set[str] = set()
        #: Answers already computed, by what they depend on: the edge (its id, vector and
        #: value), how many anchors precede it, the policy's thresholds. Appends never
        #: change a prefix, so an answer holds while the count does (a slot's associated
        #: edges are matched again each time the slot is resolved).
        self.answers: dict[tuple[object, ...], object] = {}
        self._append(source)

    @property
    def matrix(self) -> np.ndarray:
        return self._rows[: len(self.edges)]

    def _append(self, anchors: Sequence[EdgeEvent]) -> None:
        """Add anchors that all sort after the ones held (else: not usable)."""
        fresh = [a for a in anchors if a.embedding is not None]
        if not fresh:
            return
        ordered = sorted(fresh, key=_key)
        if self.keys and _key(ordered[0]) <= self.keys[-1]:
            self.usable = False
            return
        first = ordered[0].embedding
        assert first is not None
        self.user = self.user or ordered[0].user_id
        self.model = self.model or first.model
        for a in ordered:
            assert a.embedding is not None
            if a.user_id != self.user or a.embedding.model != self.model or a.edge_id in self._ids:
                self.usable = False
                return
            self._ids.add(a.edge_id)
        vectors = [a.embedding.to_array() for a in ordered if a.embedding is not None]
        if len({v.shape[0] for v in vectors}) != 1 or (
            self.edges and vectors[0].shape[0] != self._rows.shape[1]
        ):
            self.usable = False
            return
        need = len(self.edges) + len(ordered)
        if need > self._rows.shape[0]:  # grow by half: appends are amortized O(1) a row
            rows = np.empty((max(need, len(self.edges) * 3 // 2, 64), vectors[0].shape[0]), "<f4")
            if self.edges:
                rows[: len(self.edges)] = self.matrix
            self._rows = rows
        self._rows[len(self.edges) : need] = np.stack(vectors)
        self.edges += ordered
        self.keys += [_key(a) for a in ordered]

    def extended(self, source: Sequence[EdgeEvent]) -> Prepared | None:
        """This preparation for `source`, if `source` holds the edges of the list it was made
        from (the same objects: a copy, or a slot index's next read) followed by anchors
        sorting last: the matrix grows in place (the old list's rows are unchanged)."""
        old = self.source
        if not self.usable or len(source) < len(old):
            return None
        if not all(map(operator.is_, old, source[: len(old)])):
            return None
        self.source = source
        self._append(source[len(old) :])
        return self if self.usable else None

    def earlier(self, edge: EdgeEvent) -> int | None:
        """How many anchors come before `edge` (a prefix), or None when the prefix is not
        what the scan would keep (another user or model, or the edge's own id among them)."""
        if not self.usable or edge.embedding is None or edge.embedding.model != self.model:
            return None
        if self.user is not None and edge.user_id != self.user:
            return None
        if edge.edge_id in self._ids:
            return None
        return bisect_left(self.keys, _key(edge))


_cache: OrderedDict[int, Prepared] = OrderedDict()


def prepare(anchors: Sequence[EdgeEvent]) -> Prepared:
    """The preparation of this anchor list (kept by identity, extended when it grew)."""
    found = _cache.get(id(anchors))
    if found is not None and found.source is anchors:
        _cache.move_to_end(id(anchors))
        return found
    for old_id, old in reversed(_cache.items()):
        grown = old.extended(anchors)
        if grown is not None:
            del _cache[old_id]
            return _remember(anchors, grown)
    return _remember(anchors, Prepared(anchors))


def _remember(anchors: Sequence[EdgeEvent], prepared: Prepared) -> Prepared:
    _cache[id(anchors)] = prepared
    same = [k for k, p in _cache.items() if p.user == prepared.user]
    for old_id in same[: max(len(same) - KEEP_PER_USER, 0)]:
        del _cache[old_id]
    while len(_cache) > KEEP:
        _cache.popitem(last=False)
    return prepared
