"""An earlier value of a slot yields, for current questions, to a firm newer one (issue 11).

Identity and Relational slots have accumulate semantics: a different value supersedes only at
high confidence (Table 1 row 1, Appendix F: "supersession requires explicit contradiction with
high confidence"; Appendix Z: 0.95). A newer value stated plainly but below that threshold —
"Yevgenia is a freelancer" after "she is employed at an agency", told with no change verb
(AV6, a cross-session contradiction) — is a soft update (`workers/lifecycle/rules.py`): both
values stay active and the earlier one carries the pressure γ of the newer (Model 1, Ω). That
is right for memory (the old value is history, may still hold — a second job — and serves
past and as-of questions), but Ω alone leaves the earlier value in the top 5 of "what do I
do for a living?": Ω ≈ 0.55 does not outweigh its semantic floor when it matches the
question better (measured: every stale result of the three gold-metadata paper-case tellings
heldout3/4/5, 25 of 25, is this, docs/extraction.md).

The paper's choice among co-retrieved candidate values of one key is made at query time (the
LLM distillation step, §3.5 / Appendix Z) and, for soft supersession, "both kept, not equal"
(Appendix F; AV9: the committed value leads, the considered one does not displace it). The
deterministic stand-in, reading no wording — only slot keys, values, confidences, update
semantics and the soft pressures the lifecycle recorded:

* the question is a current-state one (past and historical questions must see history);
* a keyed fact among the first `window` candidates carries a soft pressure, live at as_of,
  from a later edge of its own slot key that is *firm*: not a soft update ("thinking
  about …" never displaces, AV9), at or above the replace threshold (a statement that would
  have superseded in a replace-semantics slot; an implied or planned value (0.7, 0.6) does
  not), with a value that is not the candidate's, not retracted as of the question, and told
  after the candidate was last mentioned (a value said again after the change is current);
* with `co_retrieved` (the policy's choice), the newer value is itself among the first
  candidates, or its raw turn is: a competitor for this question. A slot key the offline
  extractor got wrong ("allergic since I was a kid" read as a profession, "a kid") presses
  the real value too; such an aside is not retrieved for the question and moves nothing
  (measured: the generator's train text track lost a Hit@1 to it without the gate);

such a candidate ranks from `demote_to` on inside the window (`latest_value.reorder`), with
its reason in `why`, and so does a raw turn all of whose facts do. The lifecycle is untouched:
the fact stays active, with its Ω.

A pure function of the edge set: lifecycle annotations are (docs/architecture.md), and the
pressing edges are looked up by id.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from schemas.categories import Intent, LifecycleState, UpdateSemantics
from schemas.records import FactRecord


@dataclass(frozen=True, slots=True)
class Pressed:
    """A candidate whose slot `slot` was given a newer firm value by `by`."""

    slot: str
    by: str


def told_facts(window: Sequence[FactRecord]) -> list[str]:
    """The facts drawn from the window's raw turns (`episodic_of`) that are not in it."""
    present = {r.edge_id for r in window}
    ids = {f for r in window if r.edge.episodic for f in r.edge.episodic_of if f not in present}
    return sorted(ids)


def pressers(facts: Sequence[FactRecord]) -> list[str]:
    """The edges whose records decide: those softly pressing a keyed fact of `facts`."""
    ids = {p.by for r in facts if r.edge.slot_key for p in r.lifecycle.soft_pressures}
    return sorted(ids)


def _same_value(a: str | None, b: str | None) -> bool:
    return (
        a is not None
        and b is not None
        and " ".join(a.casefold().split()) == " ".join(b.casefold().split())
    )


def _firm_newer(record: FactRecord, by: FactRecord, as_of: datetime, min_confidence: float) -> bool:
    """Whether `by` states a newer, firm value of `record`'s slot, known and standing at as_of."""
    edge, newer = record.edge, by.edge
    life = by.lifecycle
    retracted = life.retracted_at is not None and life.retracted_at <= as_of
    return (
        newer.slot_key == edge.slot_key
        and not newer.episodic
        and newer.update is not UpdateSemantics.SOFT
        and newer.confidence >= min_confidence
        and not _same_value(newer.value, edge.value)
        and (record.lifecycle.last_mentioned_at or edge.ingest_time) < newer.ingest_time <= as_of
        and not (life.state is LifecycleState.RETRACTED and retracted)
    )


def _pressed(
    record: FactRecord, found: Mapping[str, FactRecord], as_of: datetime, min_confidence: float
) -> Pressed | None:
    """Why a keyed, active fact yields to a firm newer value of its slot, or None."""
    slot = record.edge.slot_key
    if slot is None or record.edge.episodic or record.lifecycle.state is not LifecycleState.ACTIVE:
        return None
    firm = [
        found[p.by]
        for p in record.lifecycle.soft_pressures
        if p.at <= as_of
        and p.by in found
        and _firm_newer(record, found[p.by], as_of, min_confidence)
    ]
    if not firm:
        return None
    newest = max(firm, key=lambda r: (r.edge.ingest_time, r.edge_id))
    return Pressed(slot, newest.edge_id)


def demotions(
    intent: Intent,
    window: Sequence[FactRecord],
    told: Mapping[str, FactRecord],
    found: Mapping[str, FactRecord],
    as_of: datetime,
    min_confidence: float,
    co_retrieved: bool = False,
) -> dict[str, Pressed]:
    """Edge id → why it is demoted, for the candidates `window` (the first of the ranking).

    `told` holds the records of `told_facts(window)` that exist, `found` those of the
    `pressers` of the window's and `told`'s facts (a forgotten edge presses nothing);
    `min_confidence` is the replace threshold. A raw turn follows its facts when every one of
    them yields (the turn says nothing else that is still current: Appendix AA, a raw turn
    stands for the facts drawn from it)."""
    if intent is not Intent.CURRENT:
        return {}
    if co_retrieved:
        # The newer value must be among the first candidates itself (a fact, or the raw
        # turn it was told in): a competitor for this question, not a mis-keyed aside.
        shown = {i for r in window for i in (r.edge_id, *r.edge.episodic_of)}
        found = {k: v for k, v in found.items() if k in shown}
    facts = {**told, **{r.edge_id: r for r in window}}
    pressed = {
        edge_id: why
        for edge_id, record in facts.items()
        if (why := _pressed(record, found, as_of, min_confidence)) is not None
    }
    out: dict[str, Pressed] = {}
    for record in window:
        why = pressed.get(record.edge_id)
        if why is None and record.edge.episodic and record.edge.episodic_of:
            drawn = [pressed.get(f) for f in record.edge.episodic_of]
            if all(d is not None for d in drawn):
                why = max((d for d in drawn if d is not None), key=lambda d: (d.by, d.slot))
        if why is not None:
            out[record.edge_id] = why
    return out


def explain(pressed: Pressed) -> str:
    return (
        f"an earlier value of {pressed.slot}; {pressed.by} states a newer one "
        "(below the supersession threshold: both kept, the newer leads current questions)"
    )
