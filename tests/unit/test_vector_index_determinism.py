"""Rankings as deterministic as the state, on every `VectorIndex` adapter.

What a search returns for one user — the hits, their order and their scores to the last bit
— is a function of that user's set of facts alone: not of the order they were written in,
not of facts deleted and written again, and not of any other user's writes or erasures
(issue 12: Qdrant's collection-wide IDF moved one user's BM25 ranking when another user
wrote, and kept erased words in its statistics; the fake, computing live statistics,
hid it). The lexical side goes through the query path's `search_lexical`, which takes the
user's IDF from `term_counts`; ties at a cut are broken by edge id.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import numpy as np
import pytest

from tests.unit.test_vector_index_contract import ALL, DIM, FACTORIES, fact, vec
from workers.ports import Hit, IndexedFact, SearchFilter, VectorIndex
from workers.query.lexical import search_lexical
from workers.stores.stable_top import stable_top

WORDS = ("lisbon", "porto", "dog", "rent", "nurse", "guitar", "coffee", "train")
QUERIES = ("lisbon porto", "dog", "rent in lisbon", "guitar coffee train", "nurse")
#: A small cut, so that ties at the cut decide what comes back.
LIMIT = 3

View = list[tuple[str, str, list[tuple[str, float]]]]


def corpus(user: str, n: int, seed: int) -> list[IndexedFact]:
    """`n` facts with few distinct texts and dense vectors: many exact ties."""
    rng = random.Random(seed)
    heads = [vec(1, i * 0.5) for i in range(4)]
    out = []
    for i in range(n):
        words = rng.sample(WORDS, rng.randint(1, 3))
        out.append(fact(user, f"{user}-e{i:02d}", " ".join(words), heads[rng.randrange(4)]))
    return out


def view(index: VectorIndex, user: str, flt: SearchFilter = ALL) -> View:
    """Every ranking a query of `user` would read, with exact scores."""
    out: View = []
    for text in QUERIES:
        lexical = search_lexical(index, user, text, LIMIT, flt)
        out.append(("bm25", text, [(h.record.edge_id, h.score) for h in lexical]))
    for i in range(4):
        dense = index.search_dense(user, vec(1, i * 0.5 + 0.1), LIMIT, flt)
        out.append(("dense", str(i), [(h.record.edge_id, h.score) for h in dense]))
    return out


@pytest.fixture(params=list(FACTORIES))
def make(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Callable[[], VectorIndex]]:
    """Fresh, empty indexes of one adapter."""
    opened: list[VectorIndex] = []

    def new() -> VectorIndex:
        where = tmp_path / str(len(opened))
        where.mkdir()
        opened.append(FACTORIES[request.param](where))
        return opened[-1]

    yield new
    for index in opened:
        index.close()


def write(index: VectorIndex, items: Sequence[IndexedFact], batch: int) -> None:
    for start in range(0, len(items), batch):
        chunk = items[start : start + batch]
        index.upsert(chunk[0].record.user_id, chunk)


def test_another_users_writes_and_erasure_change_nothing(
    make: Callable[[], VectorIndex],
) -> None:
    index = make()
    write(index, corpus("alice", 14, seed=1), batch=14)
    before = view(index, "alice")
    assert any(hits for kind, _, hits in before if kind == "bm25")
    # Bob writes thirty facts with Alice's words (and her dense directions) …
    write(index, corpus("bob", 30, seed=2), batch=7)
    assert view(index, "alice") == before
    # … then loses one, then is erased: Alice's rankings never move.
    index.delete("bob", ["bob-e03"])
    assert view(index, "alice") == before
    index.delete_user("bob")
    assert view(index, "alice") == before


def test_scores_and_ties_do_not_depend_on_write_order(make: Callable[[], VectorIndex]) -> None:
    items = corpus("alice", 18, seed=3)
    reference = make()
    write(reference, items, batch=18)
    expected = view(reference, "alice")
    for seed in (4, 5):
        shuffled = list(items)
        random.Random(seed).shuffle(shuffled)
        other = make()
        write(other, shuffled, batch=1 + seed)
        write(other, shuffled[::3], batch=2)  # duplicated writes replace, never add
        assert view(other, "alice") == expected


def test_delete_then_write_again_is_as_if_never_deleted(make: Callable[[], VectorIndex]) -> None:
    items = corpus("alice", 16, seed=6)
    index = make()
    write(index, items, batch=16)
    expected = view(index, "alice")
    gone = [i.record.edge_id for i in items[::2]]
    index.delete("alice", gone)
    without = view(index, "alice")
    fresh = make()
    write(fresh, [i for i in items if i.record.edge_id not in gone], batch=16)
    assert without == view(fresh, "alice")  # erased words left the statistics at once
    write(index, [i for i in items if i.record.edge_id in gone], batch=3)
    assert view(index, "alice") == expected


def test_stable_top_asks_again_while_the_cut_ties() -> None:
    from tests.unit.test_vector_index_contract import fact as make_fact

    records = [make_fact("u", f"e{i}").record for i in range(6)]
    scored = [(1.0, records[5]), (0.5, records[4]), (0.5, records[0]), (0.5, records[3])]
    scored += [(0.5, records[2]), (0.1, records[1])]
    asked: list[int] = []

    def fetch(n: int) -> list[Hit]:
        # A store that breaks ties against the edge-id order.
        asked.append(n)
        return [Hit(r, s, np.zeros(DIM)) for s, r in scored[:n]]

    top = stable_top(fetch, 2)
    assert [h.record.edge_id for h in top] == ["e5", "e0"]
    # e4, e0 tie at the cut with e3: it asked (four times as many) until the ties ended
    assert asked == [3, 12]
    assert stable_top(fetch, 0) == []
