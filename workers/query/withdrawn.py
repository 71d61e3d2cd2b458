"""A withdrawal the ingest left unresolved, read at query time (issue 11, AV7).

At ingest a withdrawal becomes a retraction edge only when the markers or the trained probe
(`workers/extraction/withdrawal.py`) find it *and* a target: a plan of the session's recent
turns, a plan-like noun phrase, the session's latest plan. A plan told in an earlier session
as a raw turn only (no slot, no fact) has none of these, so "the board has shelved it" is
stored, retrieved beside the plan for "are we going ahead with …?", and not read: the plan
stays in the top 10 and AV7 — pass by absence (C.5) — fails (docs/extraction.md, "A
withdrawal read at query time": in every such failing phrasing on the development and
validation sets the withdrawal turn is in the top 10 beside the plan).

The paper masks a retracted plan for current questions (§3.3, A.9: M_q of a retracted fact
is 0). The deterministic stand-in, for a question about what holds or lies ahead (intent
CURRENT or UPCOMING):

* a *withdrawal*: a raw turn among the first `window` candidates that the withdrawal probe
  scores at least `threshold` on the vector it is stored with, that asserts (no question,
  hedge or condition in any sentence: `withdrawal.weighed`), denies no cancelling verb
  (`retraction.denies_withdrawal`, over `clauses.denied_before`) and from which the ingest
  drew no retraction (one that did was resolved there: its target is already retracted, and
  a second guess here withdrew an unrelated fact on the development sets);
* its *target*: the user's statement told at least `min_gap_hours` before it (a later
  session, App. G) whose stored vector is nearest the withdrawal's among the whole memory
  (the `targets` nearest, by cosine, ties by edge id), if that cosine is at least
  `min_cosine` — one target per withdrawal, as the ingest's `retraction.best_plan` picks
  one; not an earlier withdrawal itself (probe at least `threshold`);
* every candidate told in the target's turn (its raw turn and its facts), unless told again
  after the withdrawal (as of the question: `pressed_values.mentioned_as_of`), is withdrawn:
  it leaves the served top k — it ranks after every other candidate — with the reason in
  `why`. Nothing is deleted or rewritten: the same question with the rule off, a past or
  historical question, or an as_of before the withdrawal serves it as before.

The probe and `min_cosine` read all-MiniLM-L6-v2 vectors, so the rule runs only with that
embedder (`embedder_model_id`). A pure function of the edge set, the question's intent and
as_of: stored vectors, ingest times and lifecycle annotations decide, ties by edge id.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

import numpy as np

from schemas.categories import Intent
from schemas.policy import WithdrawnPolicy
from schemas.records import FactRecord
from workers.extraction.retraction import denies_withdrawal
from workers.extraction.withdrawal import weighed
from workers.ports import Hit
from workers.query.candidates import MergedCandidate
from workers.query.pressed_values import mentioned_as_of

#: Questions about what holds now or lies ahead: a withdrawn plan answers neither (M_q).
INTENTS = frozenset({Intent.CURRENT, Intent.UPCOMING})

#: P(withdrawal) of a stored vector (`withdrawal_probe.withdrawal_probability`).
Probability = Callable[[np.ndarray], float]
#: The records of these edge ids that exist.
Records = Callable[[Sequence[str]], list[FactRecord]]
#: The user's statements nearest a vector, told before a time (hits with their vectors).
Nearest = Callable[[np.ndarray, datetime], list[Hit]]


@dataclass(frozen=True, slots=True)
class Withdrawn:
    """A candidate withdrawn by `by`, a later raw turn: `target` is the statement of its turn
    nearest the withdrawal (`cosine`), `probability` the probe's score of the withdrawal."""

    by: str
    target: str
    probability: float
    cosine: float


def _withdrawals(
    window: Sequence[MergedCandidate], as_of: datetime, probability: Probability,
    rule: WithdrawnPolicy,
) -> list[tuple[MergedCandidate, float]]:  # fmt: skip
    """The window's raw turns that read as a withdrawal, oldest first (ties by edge id)."""
    out = []
    for m in window:
        edge = m.record.edge
        if not edge.episodic or m.vector is None or edge.ingest_time > as_of:
            continue
        p = probability(m.vector)
        if p >= rule.threshold and not weighed(edge.text) and not denies_withdrawal(edge.text):
            out.append((m, p))
    return sorted(out, key=lambda x: (x[0].record.edge.ingest_time, x[0].record.edge_id))


def _target(
    withdrawal: MergedCandidate, hits: Sequence[Hit], probability: Probability,
    rule: WithdrawnPolicy,
) -> tuple[FactRecord, float] | None:  # fmt: skip
    """The earlier statement nearest the withdrawal, if near enough (else None)."""
    assert withdrawal.vector is not None
    turns = set(withdrawal.record.edge.source_turns)
    best: tuple[float, str, FactRecord] | None = None
    for hit in hits:
        edge = hit.record.edge
        if hit.dense is None or turns.intersection(edge.source_turns):
            continue
        cosine = round(float(np.dot(withdrawal.vector, hit.dense)), 6)
        if best is None or (cosine, edge.edge_id) > (best[0], best[1]):
            best = (cosine, edge.edge_id, hit.record)
    if best is None or best[0] < rule.min_cosine:
        return None
    if probability(np.asarray(_dense(hits, best[1]))) >= rule.threshold:
        return None  # an earlier withdrawal: said again, nothing new given up
    return best[2], best[0]


def _dense(hits: Sequence[Hit], edge_id: str) -> np.ndarray:
    return next(h.dense for h in hits if h.edge_id == edge_id and h.dense is not None)


def withdrawn(
    intent: Intent,
    window: Sequence[MergedCandidate],
    as_of: datetime,
    rule: WithdrawnPolicy,
    probability: Probability,
    records: Records,
    nearest: Nearest,
) -> dict[str, Withdrawn]:
    """Edge id → the withdrawal that gives it up, among the candidates `window` (the first of
    the ranking); `records` reads the withdrawal's facts, `nearest` the user's memory."""
    if not rule.enabled or intent not in INTENTS:
        return {}
    out: dict[str, Withdrawn] = {}
    gap = timedelta(hours=rule.min_gap_hours)
    for withdrawal, p in _withdrawals(window, as_of, probability, rule):
        edge = withdrawal.record.edge
        if edge.episodic_of and any(f.edge.retracts for f in records(edge.episodic_of)):
            continue  # the ingest resolved this one
        assert withdrawal.vector is not None
        found = _target(withdrawal, nearest(withdrawal.vector, edge.ingest_time - gap),
                        probability, rule)  # fmt: skip
        if found is None:
            continue
        target, cosine = found
        turns = set(target.edge.source_turns)
        for m in window:
            if (
                m is not withdrawal
                and turns.intersection(m.record.edge.source_turns)
                and mentioned_as_of(m.record, as_of) < edge.ingest_time
            ):
                out.setdefault(
                    m.record.edge_id, Withdrawn(edge.edge_id, target.edge_id, round(p, 2),
                                                round(cosine, 2)),
                )  # fmt: skip
    return out


def explain(w: Withdrawn) -> str:
    return (
        f"withdrawn: a later turn gives it up ({w.by}, withdrawal probe {w.probability:.2f}, "
        f"cosine {w.cosine:.2f} to {w.target}); ranked after every other candidate for "
        "questions about now or ahead"
    )
