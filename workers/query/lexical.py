"""BM25 over one user's memory: IDF from that user's facts, exact, live, order-free.

Each user's memory is its own corpus — every query is about one user — so the inverse
document frequency of a query term is computed from that user's facts alone:

    idf(t) = ln(1 + (N - n(t) + 0.5) / (n(t) + 0.5))

(the BM25 IDF of Lucene and of Qdrant's IDF modifier), where N is how many facts the user
has in the vector index and n(t) how many of them contain t, both counted by the index at
query time (`VectorIndex.term_counts`). Another user's facts never enter it, an erased fact
leaves it the moment it leaves the index, and the counts depend on the set of facts only,
never on the order they were written in, nor on how the index was built (live, `frecall
replay`, `replay --from-kafka`). The term-frequency half (and its fixed average length) is
in the stored vectors (workers/text/bm25.py).

The store finds the candidates (its top by the weighted dot product, cut by score then
edge id); their scores are then recomputed here in float64 from the stored weights, in a
fixed order of terms, so that every adapter gives the same number to the last bit.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from workers.ports import Hit, SearchFilter, SparseVector, TermCounts, VectorIndex
from workers.text import bm25


def idf(facts: int, containing: int) -> float:
    """BM25 inverse document frequency of a term in `containing` of `facts` facts (> 0)."""
    return math.log(1.0 + (facts - containing + 0.5) / (containing + 0.5))


def weighted(query: SparseVector, counts: TermCounts) -> SparseVector:
    """The query's weights times each term's IDF; terms no fact contains are left out."""
    pairs = [
        (index, weight * idf(counts.facts, counts.containing[index]))
        for index, weight in zip(query.indices, query.values, strict=True)
        if counts.containing.get(index, 0) > 0
    ]
    return SparseVector(tuple(i for i, _ in pairs), tuple(w for _, w in pairs))


def exact_score(query: Mapping[int, float], document: SparseVector) -> float:
    """Σ query weight · stored weight over the shared terms, in index order."""
    return sum(
        query[index] * weight
        for index, weight in sorted(zip(document.indices, document.values, strict=True))
        if index in query
    )


#: A word tells a user's facts apart when at most half of them contain it (idf ≥ ln 2);
#: a word most of them contain — typically the person's name — does not.
DISTINCTIVE_IDF = math.log(2.0)
_POSSESSIVE = re.compile(r"['’]s\b", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class UserQuery:
    """A question's BM25 query for one user, and whether any of its words is distinctive
    (contained in some, but at most half, of the user's facts)."""

    vector: SparseVector
    distinctive: bool


def user_query_terms(vectors: VectorIndex, user_id: str, text: str) -> UserQuery:
    """`user_query` with whether the question has a distinctive word: a question without
    one ("What are Diane's hobbies?" among facts that all name Diane) is abstract — its
    words do not point at any fact."""
    terms = bm25.query_vector(text)
    # A possessive names what its base word names ("Tomas's" is Tomas, whom every fact
    # names): judged by the base word, which the tokenizer would otherwise keep apart.
    judged = bm25.query_vector(_POSSESSIVE.sub("", text)).indices
    asked = sorted({*terms.indices, *judged})
    if not asked:
        return UserQuery(terms, False)
    counts = vectors.term_counts(user_id, asked)
    distinctive = any(
        idf(counts.facts, n) >= DISTINCTIVE_IDF
        for n in (counts.containing.get(i, 0) for i in judged)
        if n > 0
    )
    return UserQuery(weighted(terms, counts), distinctive)


def user_query(vectors: VectorIndex, user_id: str, text: str) -> SparseVector:
    """The query vector of `text` for one user: BM25's query terms weighted by the user's
    IDF (empty when no fact of the user has any of them)."""
    return user_query_terms(vectors, user_id, text).vector


def search_weighted(
    vectors: VectorIndex, user_id: str, query: SparseVector, limit: int, flt: SearchFilter
) -> list[Hit]:
    """The user's `limit` best facts for a `user_query`, scored exactly here, best first
    (ties by edge id)."""
    if not query.indices or limit <= 0:
        return []
    hits = vectors.search_sparse(user_id, query, limit, flt)
    by_index = dict(zip(query.indices, query.values, strict=True))
    rescored = [
        hit if hit.sparse is None else replace(hit, score=exact_score(by_index, hit.sparse))
        for hit in hits
    ]
    rescored.sort(key=lambda h: (-h.score, h.record.edge_id))
    return rescored


def search_lexical(
    vectors: VectorIndex, user_id: str, text: str, limit: int, flt: SearchFilter
) -> list[Hit]:
    """The user's `limit` best facts for `text` by BM25 with the user's own statistics,
    best first (ties by edge id)."""
    if limit <= 0:
        return []
    return search_weighted(vectors, user_id, user_query(vectors, user_id, text), limit, flt)


__all__: Sequence[str] = [
    "DISTINCTIVE_IDF",
    "UserQuery",
    "exact_score",
    "idf",
    "search_lexical",
    "search_weighted",
    "user_query",
    "user_query_terms",
    "weighted",
]
