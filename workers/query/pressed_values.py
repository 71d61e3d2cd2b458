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
  after the candidate was last mentioned *as of the question* (a value said again after the
  change is current; a restatement told after as_of does not count for an as_of question);
* `relational_additions` (the policy's choice) reads an `accumulate` newer value of a
  Relational slot as an addition ("User also has a flatmate, Priya"): Table 1 gives
  Relational Bonds "accumulate; explicit dissolution", so a second flatmate does not press
  the first; not firm. Identity is "accumulate; high-confidence supersession": a second job
  below 0.95 still leads (the earlier value stays in the window, "may still hold");
* with `co_retrieved` (the policy's choice), the newer value is itself among the first
  candidates, or its raw turn is: a competitor for this question. A slot key the offline
  extractor got wrong ("allergic since I was a kid" read as a profession, "a kid") presses
  the real value too; such an aside is not retrieved for the question and moves nothing
  (measured: the generator's train text track lost a Hit@1 to it without the gate);
* when the question names the candidate's own value (one of the value's words, stemmed,
  stopwords aside, is among the question's: "is Tom still my flatmate?"), the newer value
  must rank among the first `shown` (`demote_to`, the top 5): a question about a value
  always keeps one value of its slot in the top 5 — the newer, which answers "still?", or
  else the one it names. (Keeping the named value even beside a shown newer one, or asking
  every question for a shown newer value, each cost the gold tellings stale answers:
  docs/extraction.md, "Review fixes".)

such a candidate ranks from `demote_to` on inside the window (`latest_value.reorder`), with
its reason in `why`, and so does a raw turn all of whose facts do. The lifecycle is untouched:
the fact stays active, with its Ω. The rule does not gate on the attribute the question asks
(latest_value's probe): the co-retrieved gate already ties it to the candidates the question
retrieved, and the probe would put the three gold tellings' answers at the mercy of a vector
test that four sessions measured cannot tell a value from a mention.

Known limit (R3): the lifecycle keeps a fact's last mention time, not every one. For a
question dated before that time the first telling stands in (a restatement told both before
and after as_of is then missed and the rule may demote); a restatement told after as_of never
changes the answer.

A pure function of the edge set: lifecycle annotations are (docs/architecture.md), and the
pressing edges are looked up by id.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from schemas.categories import Category, Intent, LifecycleState, UpdateSemantics
from schemas.records import FactRecord
from workers.lifecycle.rules import same_value
from workers.text.bm25 import tokenize


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


@dataclass(frozen=True, slots=True)
class Firmness:
    """What makes a newer value firm: the replace threshold and whether an `accumulate`
    newer value of a Relational slot is an addition (not firm)."""

    min_confidence: float
    relational_additions: bool = False


def mentioned_as_of(record: FactRecord, as_of: datetime) -> datetime:
    """When `record` was last told as far as a question dated `as_of` can know: its last
    mention if that was by then, else its first telling (R3: a later restatement is unknown
    at as_of)."""
    last = record.lifecycle.last_mentioned_at
    return last if last is not None and last <= as_of else record.edge.ingest_time


def _addition(newer: FactRecord) -> bool:
    """A Relational value told with accumulate semantics adds a bond (Table 1: "accumulate;
    explicit dissolution"): a second flatmate, not a replacement of the first."""
    edge = newer.edge
    return (
        edge.update is UpdateSemantics.ACCUMULATE
        and edge.primary_category is Category.RELATIONAL_BONDS
    )


def _firm_newer(record: FactRecord, by: FactRecord, as_of: datetime, firm: Firmness) -> bool:
    """Whether `by` states a newer, firm value of `record`'s slot, known and standing at as_of."""
    edge, newer = record.edge, by.edge
    life = by.lifecycle
    retracted = life.retracted_at is not None and life.retracted_at <= as_of
    return (
        newer.slot_key == edge.slot_key
        and not newer.episodic
        and newer.update is not UpdateSemantics.SOFT
        and newer.confidence >= firm.min_confidence
        and not (firm.relational_additions and _addition(by))
        and same_value(newer, edge) is not True
        and mentioned_as_of(record, as_of) < newer.ingest_time <= as_of
        and not (life.state is LifecycleState.RETRACTED and retracted)
    )


def names_value(record: FactRecord, question_terms: frozenset[str]) -> bool:
    """Whether the question names `record`'s own value: one of the value's words (stemmed,
    stopwords aside) is among the question's. A person asking "is Tom still my flatmate?"
    or "how is my nursing going?" is asking about that value."""
    value = record.edge.value
    return value is not None and not question_terms.isdisjoint(tokenize(value))


def _pressed(
    record: FactRecord, found: Mapping[str, FactRecord], as_of: datetime, firm: Firmness
) -> Pressed | None:
    """Why a keyed, active fact yields to a firm newer value of its slot, or None."""
    slot = record.edge.slot_key
    if slot is None or record.edge.episodic or record.lifecycle.state is not LifecycleState.ACTIVE:
        return None
    firm_newer = [
        found[p.by]
        for p in record.lifecycle.soft_pressures
        if p.at <= as_of and p.by in found and _firm_newer(record, found[p.by], as_of, firm)
    ]
    if not firm_newer:
        return None
    newest = max(firm_newer, key=lambda r: (r.edge.ingest_time, r.edge_id))
    return Pressed(slot, newest.edge_id)


def demotions(
    intent: Intent,
    window: Sequence[FactRecord],
    told: Mapping[str, FactRecord],
    found: Mapping[str, FactRecord],
    as_of: datetime,
    firm: Firmness,
    *,
    co_retrieved: bool = True,
    shown: int = 5,
    question_terms: frozenset[str] = frozenset(),
) -> dict[str, Pressed]:
    """Edge id → why it is demoted, for the candidates `window` (the first of the ranking).

    `told` holds the records of `told_facts(window)` that exist, `found` those of the
    `pressers` of the window's and `told`'s facts (a forgotten edge presses nothing). With
    `co_retrieved` the newer value or its raw turn must be in `window`; for a fact whose
    value the question names (`question_terms`, the question's `tokenize`d words), among
    its first `shown`. A raw turn follows its facts when every one of them yields (the turn
    says nothing else that is still current: Appendix AA, a raw turn stands for the facts
    drawn from it)."""
    if intent is not Intent.CURRENT:
        return {}
    # The newer value must be a candidate itself (a fact, or the raw turn it was told in):
    # a competitor for this question, not a mis-keyed aside.
    retrieved = _among(window, found) if co_retrieved else found
    in_front = _among(window[:shown], found)
    facts = {**told, **{r.edge_id: r for r in window}}
    pressed = {
        edge_id: why
        for edge_id, record in facts.items()
        if (
            why := _pressed(
                record,
                in_front if names_value(record, question_terms) else retrieved,
                as_of,
                firm,
            )
        )
        is not None
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


def _among(
    candidates: Sequence[FactRecord], found: Mapping[str, FactRecord]
) -> dict[str, FactRecord]:
    """The records of `found` that are among `candidates` or drawn from one of their raw turns."""
    ids = {i for r in candidates for i in (r.edge_id, *r.edge.episodic_of)}
    return {k: v for k, v in found.items() if k in ids}


def explain(pressed: Pressed) -> str:
    return (
        f"an earlier value of {pressed.slot}; {pressed.by} states a newer one below the "
        "supersession threshold: both kept, the earlier may still hold, the newer leads "
        "current questions"
    )
