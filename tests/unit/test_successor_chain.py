"""One walk of replacements (`workers/query/successors.py`): successor expansion and the
replaced-chain rule (`replaced_chain.chain_end`, round 27 r27-mend) follow the same links.

The records are written here for the test; none comes from a paper-turns set.
"""

from __future__ import annotations

import itertools
from datetime import UTC, datetime

from schemas.categories import Category, LifecycleState
from schemas.events import EdgeEvent
from schemas.records import FactRecord, Lifecycle
from workers.query import replaced_chain, successors

AT = datetime(2026, 3, 1, 9, tzinfo=UTC)
S = LifecycleState


def _record(edge_id: str, state: S = S.ACTIVE, *, by: str | None = None) -> FactRecord:
    edge = EdgeEvent(
        edge_id=edge_id, user_id="u1", text=f"statement {edge_id}",
        categories=Category.OTHER, ingest_time=AT, source_turns=(edge_id,),
    )  # fmt: skip
    if state is S.SUPERSEDED:
        life = Lifecycle(state=state, superseded_by=by)
    elif state is S.RETRACTED:
        life = Lifecycle(state=state, retracted_by=by)
    else:
        life = Lifecycle(state=state)
    return FactRecord(edge=edge, lifecycle=life)


def _store(*records: FactRecord) -> dict[str, FactRecord]:
    return {r.edge_id: r for r in records}


def _lister(store: dict[str, FactRecord]) -> successors.Fetch:
    return lambda ids: [store[i] for i in ids if i in store]


def _end(store: dict[str, FactRecord], start: str, retractions: bool = True) -> str | None:
    found = successors.chain_end(store[start], _lister(store), retractions=retractions)
    return None if found is None else found.edge_id


def test_the_walk_ends_at_the_last_replacement() -> None:
    store = _store(_record("a", S.SUPERSEDED, by="b"), _record("b", S.SUPERSEDED, by="c"),
                   _record("c"))  # fmt: skip
    assert _end(store, "a") == "c"
    assert _end(store, "b") == "c"
    # A statement that still holds has no replacement.
    assert _end(store, "c") is None


def test_a_retraction_is_followed_only_when_asked() -> None:
    store = _store(_record("a", S.SUPERSEDED, by="b"), _record("b", S.RETRACTED, by="r"),
                   _record("r"))  # fmt: skip
    assert _end(store, "a") == "r"
    # Through supersession only, the retracted link is the end.
    assert _end(store, "a", retractions=False) == "b"
    assert _end(store, "b", retractions=False) is None


def test_a_broken_or_looping_chain_has_no_end() -> None:
    broken = _store(_record("a", S.SUPERSEDED, by="gone"))
    assert _end(broken, "a") is None
    loop = _store(_record("a", S.SUPERSEDED, by="b"), _record("b", S.SUPERSEDED, by="a"))
    assert _end(loop, "a") is None


def test_a_chain_longer_than_the_bound_has_no_end() -> None:
    ids = [f"e{i}" for i in range(successors.MAX_HOPS + 2)]
    links = [_record(i, S.SUPERSEDED, by=n) for i, n in itertools.pairwise(ids)]
    store = _store(*links, _record(ids[-1]))
    # MAX_HOPS + 1 links from the first: past the bound; MAX_HOPS from the second: followed.
    assert _end(store, ids[0]) is None
    assert _end(store, ids[1]) == ids[-1]


def test_the_replaced_chain_walks_supersession_only() -> None:
    store = _store(_record("a", S.SUPERSEDED, by="b"), _record("b", S.SUPERSEDED, by="c"),
                   _record("c", S.RETRACTED, by="r"), _record("r"))  # fmt: skip

    def fetch(ids: list[str]) -> dict[str, FactRecord]:
        return {i: store[i] for i in ids if i in store}

    end = replaced_chain.chain_end(store["a"], fetch)
    assert end is not None and end.edge_id == "c"
    assert replaced_chain.chain_end(store["c"], fetch) is None
