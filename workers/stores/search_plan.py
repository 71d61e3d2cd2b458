"""When a user's dense search may use the approximate (HNSW) index, and how wide it looks.

Rankings are a function of a user's set of facts (docs/architecture.md, "Lexical
statistics"): the same facts must give the same hits whatever order they were written in.
An exact search keeps that promise by construction. An HNSW graph does not: which points
it visits depends on the order they were inserted and on when segments were rebuilt, so
two stores holding the same facts may return different near-ties at the cut.

Most users are small (a chat platform has many tenants with hundreds of facts and a few
with tens of thousands), and scanning a few thousand vectors through the tenant's payload
index costs less than a millisecond, so the plan is:

* a user with at most `exact_max_facts` facts is searched exactly: deterministic, and the
  only path the test suite's stores ever take;
* a larger user is searched through the HNSW graph with a wide beam (`hnsw_ef`, at least
  twice the number of hits asked for); the store scores every candidate it returns with
  the exact dot product against the stored vector, and `stable_top` cuts them by (score,
  edge id). What can differ from the exact search is only *which* facts the beam found:
  `frecall bench query` measures that as recall@60 of the approximate search against the
  exact one on the same store (the trade-off: determinism at that size holds with that
  probability, not always).
"""

from __future__ import annotations

from dataclasses import dataclass

#: Users up to this many facts are always searched exactly (the default of
#: `Settings.exact_search_max_facts`).
EXACT_MAX_FACTS = 20_000
#: Beam width of an approximate search (the default of `Settings.hnsw_ef`).
HNSW_EF = 256


@dataclass(frozen=True, slots=True)
class SearchPlan:
    """Per-user choice between exact and approximate dense search."""

    exact_max_facts: int = EXACT_MAX_FACTS
    hnsw_ef: int = HNSW_EF

    def approximate(self, user_facts: int) -> bool:
        """Whether a user with `user_facts` facts may be searched through HNSW."""
        return user_facts > self.exact_max_facts

    def beam(self, limit: int) -> int:
        """The HNSW beam for `limit` hits: never narrower than twice what is asked for."""
        return max(self.hnsw_ef, 2 * limit)


#: Every search exact (tests that compare the two paths, and stores that never build HNSW).
EXACT_ALWAYS = SearchPlan(exact_max_facts=1 << 62)
