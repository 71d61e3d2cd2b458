"""What was told in one breath with a replaced fact ranks below what replaced it (issue 11).

The paper names the leak (§6, "slot-key fragmentation"): a plan or a thing is stored across
sibling slot keys, so "supersession deactivate[s] the primary key while sibling edges
asserting the plan remain active"; FR-Bank recovers it downstream, "where the generator
reconciles the co-retrieved plan and its cancellation". "I run polar bear tours, we charge
$2,400 a head" yields the tours (superseded when the tours stop) and the price (no later
statement names it: active), and the raw turn stays active while one of its facts does
(`workers/lifecycle/episodes.py:inherited`, Appendix AA). Without a generator, this is the
deterministic stand-in, and it depends on no phrasing — only on the edges told in one turn,
their lifecycle states and the ranking:

* the question is a current-state one (past and historical questions must see history);
* a candidate among the first `window` was told in the same turn as a fact that is now
  superseded or retracted (the raw turn's `episodic_of` names the turn's facts);
* the statement that replaced that fact (`superseded_by` / `retracted_by`, or the raw turn
  it was told in) ranks above the candidate: the question is about what was replaced, and
  its replacement already answers it.

Such a candidate ranks from `demote_to` on, inside the window, with the reason in `why`. A
candidate whose own turn's replacement ranks below it is kept where it is: "where do I work?"
still leads with the employer told in the turn whose city was replaced later.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from schemas.categories import Intent, LifecycleState
from schemas.records import FactRecord

_REPLACED = (LifecycleState.SUPERSEDED, LifecycleState.RETRACTED)


@dataclass(frozen=True, slots=True)
class Demotion:
    """A candidate told with `replaced`, ranked below `by`, the statement that replaced it."""

    replaced: str
    by: str
    relation: str  # "superseded" or "retracted"


def turn_facts(pool: Sequence[FactRecord]) -> dict[str, tuple[str, ...]]:
    """Edge id → the facts told in the same turn, for the candidates of `pool` whose raw
    turn is in it (the raw turn itself, and each fact its `episodic_of` names)."""
    out: dict[str, tuple[str, ...]] = {}
    for record in pool:
        facts = record.edge.episodic_of
        if not (record.edge.episodic and facts):
            continue
        for edge_id in (record.edge_id, *facts):
            out[edge_id] = tuple(sorted({*out.get(edge_id, ()), *facts}))
    return out


def wanted(window: Sequence[FactRecord], told_with: Mapping[str, tuple[str, ...]]) -> list[str]:
    """The facts whose lifecycle decides: those told with a window candidate, not in it."""
    present = {r.edge_id for r in window}
    ids = {f for r in window for f in told_with.get(r.edge_id, ()) if f not in present}
    return sorted(ids)


def demotions(
    intent: Intent,
    window: Sequence[FactRecord],
    told_with: Mapping[str, tuple[str, ...]],
    facts: Mapping[str, FactRecord],
) -> dict[str, Demotion]:
    """Edge id → why it is demoted, for the candidates `window` (the first of the ranking, in
    its order). `told_with` is `turn_facts` of the pool; `facts` the records of those
    facts (`wanted`) by edge id."""
    if intent is not Intent.CURRENT:
        return {}
    # Where each statement ranks: a fact, or the raw turn it was told in, stands for it.
    rank: dict[str, int] = {}
    for i, record in enumerate(window):
        for edge_id in (record.edge_id, *record.edge.episodic_of):
            rank.setdefault(edge_id, i)
    out: dict[str, Demotion] = {}
    for i, record in enumerate(window):
        if record.lifecycle.state is not LifecycleState.ACTIVE:
            continue
        for fact_id in told_with.get(record.edge_id, ()):
            fact = facts.get(fact_id)
            if fact is None or fact.lifecycle.state not in _REPLACED:
                continue
            life = fact.lifecycle
            superseded = life.state is LifecycleState.SUPERSEDED
            by = life.superseded_by if superseded else life.retracted_by
            if by is not None and rank.get(by, len(window)) < i:
                relation = "superseded" if superseded else "retracted"
                out[record.edge_id] = Demotion(fact_id, by, relation)
                break
    return out


def explain(demotion: Demotion) -> str:
    return (
        f"told with {demotion.replaced}, {demotion.relation} by {demotion.by}, which ranks above it"
    )
