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
is 0); its retraction is the user's explicit retraction of their own statement. The
deterministic stand-in, for a question about what holds or lies ahead (intent CURRENT or
UPCOMING):

* a *withdrawal*: a raw turn among the first `window` candidates that the withdrawal probe
  scores at least `threshold` on the vector it is stored with, that is the user's own (the
  gate the ingest's markers and probe share, `own_withdrawal.not_the_users`: no question,
  hedge or condition; no negated cancelling verb or verdict — "the cabin idea is not dead";
  not somebody else's word or a wish — "my wife thinks it's dead", "nobody said it's dead",
  "I wish it were dead"; not somebody else's plan — "my neighbour's cabin idea is dead"; not
  a withdrawal taken back — "scrap what I said about dropping it") — or, with `dismissals`,
  that asserts a dismissal of a named topic the probe misses ("not doing it", "the cabin:
  no.", `workers/extraction/dismissal.py`), whose target must then share one of the turn's
  content words — and from which the ingest drew no retraction (one that did was resolved
  there: its target is already retracted, and a second guess here withdrew an unrelated fact
  on the development sets);
* its *target*: the user's live assertion told more than `min_gap_hours` before it (a later
  session, App. G) whose stored vector is nearest the withdrawal's among the whole memory
  (the `targets` nearest by an EXACT search, by cosine, ties by edge id), if that cosine is at
  least `min_cosine` — one target per withdrawal, as the ingest's `retraction.best_plan`
  picks one. Live assertion: no question, hedge or condition in it, not retracted or
  superseded as of the question, and no turn the probe reads as a withdrawal (a repeated
  withdrawal is skipped for the plan it repeats);
* the user's *newest word* on the plan decides: the user's raw turns told after the
  withdrawal (up to as_of) at least `same_plan_cosine` from the withdrawal, or from the target
  (or as near the target as the withdrawal is): if the newest is not the user's own
  withdrawal — a reinstatement ("it isn't dead after all"), a withdrawal taken back, the plan
  told again — the withdrawal has ended and nothing is withdrawn;
* else the *plan* is withdrawn: the target and every earlier live assertion at least
  `same_plan_cosine` from it (another telling of the same plan, as a retraction masks every
  fact of its slot), and every candidate told in their turns (raw turn and facts), unless told
  again after the withdrawal (as of the question: `pressed_values.mentioned_as_of`): it
  leaves the served top k — it ranks after every other candidate — with the reason (the
  withdrawal, its target and which telling) in `why`. Nothing is deleted or rewritten: the
  same question with the rule off, a past or historical question, or an as_of before the
  withdrawal serves it as before.

The probe and the cosines read all-MiniLM-L6-v2 vectors, so the rule runs only with that
embedder (`embedder_model_id`). A pure function of the edge set, the question's intent and
as_of: stored vectors (searched exactly, never through an approximate index), ingest times
and lifecycle annotations decide, ties by edge id.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import lru_cache

import numpy as np

from schemas.categories import Intent
from schemas.events import EdgeEvent
from schemas.policy import WithdrawnPolicy
from schemas.records import FactRecord
from workers.extraction.dismissal import dismissals, topic_words
from workers.extraction.own_withdrawal import (
    asserts,
    denies_withdrawal,
    not_the_users,
    users_own_marker,
    weighed,
)
from workers.ports import Hit
from workers.query.candidates import MergedCandidate
from workers.query.pressed_values import mentioned_as_of
from workers.text.bm25 import tokenize

#: Questions about what holds now or lies ahead: a withdrawn plan answers neither (M_q).
INTENTS = frozenset({Intent.CURRENT, Intent.UPCOMING})

#: P(withdrawal) of a stored vector (`withdrawal_probe.withdrawal_probability`).
Probability = Callable[[np.ndarray], float]
#: The records of these edge ids that exist.
Records = Callable[[Sequence[str]], list[FactRecord]]
#: The user's statements nearest a vector, told before a time, by an EXACT search (hits with
#: their vectors): the withdrawn set must be a function of the edge set, not of an
#: approximate index's build history (review R14, R2).
Nearest = Callable[[np.ndarray, datetime], list[Hit]]
#: The user's statements retracted by any retraction, nearest a vector (exact): whether the
#: ingest resolved a withdrawal is asked of them — of what the edge set says was retracted,
#: not of the statements nearest the withdrawal (review r18 H3).
Retracted = Callable[[np.ndarray], list[FactRecord]]


@dataclass(frozen=True, slots=True)
class Withdrawn:
    """A candidate withdrawn by `by`, a later raw turn: `target` is the user's live earlier
    assertion nearest the withdrawal (`cosine`), `probability` the probe's score of the
    withdrawal; `told_in` the statement of the plan the candidate was told with — the target,
    or another telling of the same plan (`plan_cosine` to the target)."""

    by: str
    target: str
    probability: float
    cosine: float
    told_in: str
    plan_cosine: float
    #: The dismissal family the withdrawal was read by (`dismissal.py`), when the probe did not.
    family: str | None = None


@dataclass(frozen=True, slots=True)
class _Word:
    """One of the user's statements around a withdrawal, with its cosine to the target."""

    hit: Hit
    to_target: float

    @property
    def edge(self) -> EdgeEvent:
        return self.hit.record.edge


#: How `_own_reading` names a withdrawal the probe read (not a dismissal family).
_PROBE = "probe"
#: The family of a withdrawal the ingest's markers read but whose retraction retracted nothing.
INGEST = "the ingest's retraction, which retracted nothing"


def _own_reading(text: str, p: float, rule: WithdrawnPolicy) -> str | None:
    """How a turn reads as the user's own withdrawal: `_PROBE` when the probe's probability `p`
    reaches the threshold and it is the user's own (`own_withdrawal`), else the family of an
    asserted dismissal (`dismissal.py`), else None."""
    if p >= rule.threshold and not not_the_users(text):
        return _PROBE
    return _dismissal(text, rule)


def _own_withdrawal(text: str, vector: np.ndarray, probability: Probability,
                    rule: WithdrawnPolicy) -> bool:  # fmt: skip
    """Whether the turn reads as the user's own withdrawal (`_own_reading`)."""
    return _own_reading(text, probability(vector), rule) is not None


def _dismissal(text: str, rule: WithdrawnPolicy) -> str | None:
    """The family of the turn's first asserted dismissal, if the rule reads them."""
    return _first_family(text) if rule.dismissals else None


@lru_cache(maxsize=4096)
def _first_family(text: str) -> str | None:
    """`dismissals(text)`'s first family: a pure function of the text, read for every window
    raw turn and target hit of every query, so kept for the texts seen recently."""
    found = dismissals(text)
    return found[0].family if found else None


def _read_as_withdrawal(text: str, vector: np.ndarray, probability: Probability,
                        rule: WithdrawnPolicy) -> bool:  # fmt: skip
    """An earlier turn a target or another telling of the plan must not be: the probe reads
    it as a withdrawal, or it asserts a dismissal (a repeat gives nothing new up)."""
    return probability(vector) >= rule.threshold or _dismissal(text, rule) is not None


def _withdrawals(
    window: Sequence[MergedCandidate], as_of: datetime, probability: Probability,
    rule: WithdrawnPolicy, records: Records,
) -> list[tuple[MergedCandidate, float, str | None]]:  # fmt: skip
    """The window's raw turns that read as the user's own withdrawal, oldest first (ties by
    edge id): the probe, and the gate the ingest's markers and probe share (B4, B5); else an
    asserted dismissal (`dismissal.py`, with its family: its target must share a word); else
    a turn the ingest drew a retraction from (`INGEST`: its markers read it; a target must
    share a word too, `_resolved` decides whether the ingest's own target stands)."""
    out: list[tuple[MergedCandidate, float, str | None]] = []
    for m in window:
        edge = m.record.edge
        if m.vector is None or edge.ingest_time > as_of:
            continue
        if not edge.episodic:
            # A retraction fact stands for its turn when the turn itself ranks lower.
            if rule.unresolved and edge.retracts:
                out.append((m, 0.0, INGEST))
            continue
        p = probability(m.vector)
        reading = _own_reading(edge.text, p, rule)
        if (
            reading is None
            and rule.unresolved
            and _drew_retraction(edge, records)
            and users_own_marker(edge.text)
            and not denies_withdrawal(edge.text)
        ):
            # The ingest's markers passed the own-withdrawal gate per marker (`retraction.find`):
            # a question to the assistant in another sentence of the turn does not weigh it.
            # Read here only as the user's own act or verdict (review r18 H2: "the airline
            # cancelled my flight, so I rebooked" drew a retraction; the plan stands).
            reading = INGEST
        if reading is not None:
            out.append((m, p, None if reading == _PROBE else reading))
    return sorted(out, key=lambda x: (x[0].record.edge.ingest_time, x[0].record.edge_id))


def _drew_retraction(edge: EdgeEvent, records: Records) -> bool:
    """Whether the ingest drew a retraction from the turn (one of its facts retracts a slot),
    or the edge is that retraction."""
    return bool(edge.retracts) or (
        bool(edge.episodic_of) and any(f.edge.retracts for f in records(edge.episodic_of))
    )


def _named_words(edge: EdgeEvent, records: Records) -> frozenset[str]:
    """The content words of the slots the ingest's retraction names ("project.loft_conversion"
    → loft, conversion): a target must say one, as retargeting's target must say the slot's
    head (a marker misread on a turn about something else names nothing the plan says)."""
    facts = [edge] if edge.retracts else [f.edge for f in records(edge.episodic_of)]
    keys = [k for f in facts for k in f.retracts]
    return topic_words(" ".join(re.sub(r"[._]", " ", k) for k in keys)) - _NOT_NAMING


#: Slot-key words that name nothing a plan says: the slot's kind prefix, qualifiers,
#: pro-forms and light verbs a misread marker leaves in a key ("project.new_ones",
#: "project.put" from "we scrapped the old cabinets and put in new ones": review r18 H2).
_NOT_NAMING = frozenset(
    tokenize(
        "project plan trip pet appointment event new old one ones put get got make made take "
        "took do did have had some thing stuff"
    )
)


def _resolved(
    withdrawal: MergedCandidate, records: Records, retracted: Retracted, rule: WithdrawnPolicy
) -> bool:
    """Whether the ingest resolved the withdrawal: it drew a retraction from the turn, and
    that retraction retracted a statement. A retraction whose named slot nobody filled and
    that retargeting (`workers/lifecycle/retargeting.py`) found no edge for — the plan told in
    other words than the slot's head, "converting the X" withdrawn as "the X conversion" —
    retracted nothing: the plan stays current unless read here (§3.3, A.9: a retracted plan's
    M_q is 0). Asked of the user's retracted statements (`retracted`), whatever their cosine
    to the withdrawal (retargeting reaches its target by slot key or head word): a function
    of the edge set (review r18 H3, L2)."""
    edge = withdrawal.record.edge
    if not _drew_retraction(edge, records):
        return False
    if not rule.unresolved:
        return True
    assert withdrawal.vector is not None
    facts = (
        {edge.edge_id} if edge.retracts
        else {f.edge_id for f in records(edge.episodic_of) if f.edge.retracts}
    )  # fmt: skip
    return any(r.lifecycle.retracted_by in facts for r in retracted(withdrawal.vector))


def _live_assertion(
    record: FactRecord, as_of: datetime, rule: WithdrawnPolicy, target: bool = True
) -> bool:
    """The user's assertion, still standing as of the question: no question, hedge or
    condition (a question states no plan, B6), not retracted or superseded by then. With
    `unresolved`, a turn that states a plan and then asks the assistant about it ("we're
    converting the X. What should we ask?") asserts it: only a turn whose every sentence is a
    question, hedge or condition states none (`own_withdrawal.asserts`) — for choosing the
    target (`target`) only: a later word on the plan must be firm, unweighed, to count as the
    user's newest word on it (B7; review r18 M1: "Ugh. Should I have dropped the boat plan?"
    takes nothing back)."""
    life = record.lifecycle
    for at, by in (
        (life.retracted_at, life.retracted_by),
        (life.superseded_at, life.superseded_by),
    ):
        if by is not None and (at is None or at <= as_of):
            return False
    if rule.unresolved and target:
        return asserts(record.edge.text)
    return not weighed(record.edge.text)


def _target(
    withdrawal: MergedCandidate, hits: Sequence[Hit], before: datetime, as_of: datetime,
    probability: Probability, rule: WithdrawnPolicy, bound: frozenset[str] | None = None,
) -> tuple[Hit, float] | None:  # fmt: skip
    """The user's live assertion told before `before` nearest the withdrawal, if near enough:
    never one of its own turn, and never an earlier turn read as a withdrawal (a repeat gives
    nothing new up: the next nearest is the plan). `bound`: a dismissal's topic words, one of
    which the target must say (a dismissal names what it gives up; "not doing it" alone
    names nothing)."""
    assert withdrawal.vector is not None
    turns = set(withdrawal.record.edge.source_turns)
    best: tuple[float, str, Hit] | None = None
    for hit in hits:
        edge = hit.record.edge
        if (
            hit.dense is None
            or edge.ingest_time >= before
            or turns.intersection(edge.source_turns)
            or not _live_assertion(hit.record, as_of, rule)
            or _read_as_withdrawal(edge.text, np.asarray(hit.dense), probability, rule)
            or (bound is not None and not bound.intersection(tokenize(edge.text)))
        ):
            continue
        cosine = round(float(np.dot(withdrawal.vector, hit.dense)), 6)
        if best is None or (cosine, edge.edge_id) > (best[0], best[1]):
            best = (cosine, edge.edge_id, hit)
    if best is None or best[0] < rule.min_cosine:
        return None
    return best[2], best[0]


def _words_on_plan(
    withdrawal: MergedCandidate, target: Hit, named: float, hits: Sequence[Hit],
    as_of: datetime, rule: WithdrawnPolicy,
) -> list[_Word]:  # fmt: skip
    """The user's live assertions about the target's plan as of the question, by edge id once:
    at least `same_plan_cosine` to the withdrawal, or to the target — or as near the target as
    the withdrawal that named it (`named`): a word on the plan need be no nearer it than the
    withdrawal was to count as the user's later word on it."""
    assert withdrawal.vector is not None and target.dense is not None
    seen: dict[str, _Word] = {}
    for hit in hits:
        edge = hit.record.edge
        if (
            hit.dense is None
            or edge.ingest_time > as_of
            or not _live_assertion(hit.record, as_of, rule, target=False)
        ):
            continue
        to_target = round(float(np.dot(target.dense, hit.dense)), 6)
        to_withdrawal = round(float(np.dot(withdrawal.vector, hit.dense)), 6)
        if to_withdrawal >= rule.same_plan_cosine or to_target >= min(rule.same_plan_cosine, named):
            seen.setdefault(edge.edge_id, _Word(hit, to_target))
    return sorted(seen.values(), key=lambda w: (w.edge.ingest_time, w.edge.edge_id))


def _taken_back(
    withdrawal: MergedCandidate, words: Sequence[_Word], probability: Probability,
    rule: WithdrawnPolicy,
) -> bool:  # fmt: skip
    """Whether the user's newest word on the plan, told after the withdrawal, is no own
    withdrawal: a reinstatement ("it isn't dead after all", "scrap what I said about dropping
    it") or a firm restatement of the plan ends the withdrawal (B7, R1). Only the user's raw
    turns speak here; a later own withdrawal keeps it withdrawn."""
    edge = withdrawal.record.edge
    later = [
        w for w in words
        if w.edge.episodic and w.hit.dense is not None
        and (w.edge.ingest_time, w.edge.edge_id) > (edge.ingest_time, edge.edge_id)
        and not set(w.edge.source_turns) & set(edge.source_turns)
    ]  # fmt: skip
    if not later:
        return False
    newest = later[-1]
    return not _own_withdrawal(newest.edge.text, np.asarray(newest.hit.dense), probability, rule)


def _plan(
    target: Hit, words: Sequence[_Word], before: datetime, probability: Probability,
    rule: WithdrawnPolicy,
) -> list[_Word]:  # fmt: skip
    """The tellings of the plan the withdrawal gives up: the target, and every live assertion
    told before `before` at least `same_plan_cosine` from the target (no turn read as a
    withdrawal), as a retraction masks every fact of its slot (§3.3, A.9): a plan told in two
    turns is withdrawn whole (R1b), newest first after the target."""
    others = [
        w for w in words
        if w.edge.edge_id != target.edge_id and w.edge.ingest_time < before
        and w.to_target >= rule.same_plan_cosine and w.hit.dense is not None
        and not _read_as_withdrawal(w.edge.text, np.asarray(w.hit.dense), probability, rule)
    ]  # fmt: skip
    return [_Word(target, 1.0), *others]


def withdrawn(
    intent: Intent,
    window: Sequence[MergedCandidate],
    as_of: datetime,
    rule: WithdrawnPolicy,
    probability: Probability,
    records: Records,
    nearest: Nearest,
    retracted: Retracted,
) -> dict[str, Withdrawn]:
    """Edge id → the withdrawal that gives it up, among the candidates `window` (the first of
    the ranking); `records` reads the withdrawal's facts, `nearest` the user's memory (exact),
    `retracted` its retracted statements."""
    if not rule.enabled or intent not in INTENTS:
        return {}
    out: dict[str, Withdrawn] = {}
    gap = timedelta(hours=rule.min_gap_hours)
    for withdrawal, p, family in _withdrawals(window, as_of, probability, rule, records):
        edge = withdrawal.record.edge
        assert withdrawal.vector is not None
        if _resolved(withdrawal, records, retracted, rule):
            continue  # the ingest resolved this one
        before = edge.ingest_time - gap
        # The targets among the statements told before it (later ones crowd out none): a
        # turn the ingest drew a retraction from names its slot, whichever reading found it
        # (review r18 H3); a dismissal names its topic …
        bound = (
            _named_words(edge, records)
            if family == INGEST or (family is None and _drew_retraction(edge, records))
            else None if family is None
            else topic_words(edge.text)
        )  # fmt: skip
        found = _target(withdrawal, nearest(withdrawal.vector, before), before, as_of,
                        probability, rule, bound)  # fmt: skip
        if found is None:
            continue
        target, cosine = found
        assert target.dense is not None
        # … the plan's tellings and the user's later words, up to the question.
        around = [*nearest(np.asarray(target.dense), as_of), *nearest(withdrawal.vector, as_of)]
        words = _words_on_plan(withdrawal, target, cosine, around, as_of, rule)
        if _taken_back(withdrawal, words, probability, rule):
            continue  # the user's newest word on the plan is no withdrawal of it
        for told in _plan(target, words, before, probability, rule):
            turns = set(told.edge.source_turns)
            for m in window:
                if (
                    m is not withdrawal
                    and turns.intersection(m.record.edge.source_turns)
                    and mentioned_as_of(m.record, as_of) < edge.ingest_time
                ):
                    out.setdefault(m.record.edge_id, Withdrawn(
                        edge.edge_id, target.edge_id, round(p, 2), round(cosine, 2),
                        told.edge.edge_id, round(told.to_target, 2), family,
                    ))  # fmt: skip
    return out


def explain(w: Withdrawn) -> str:
    plan = (
        "" if w.told_in == w.target
        else f"; told with {w.told_in}, the same plan (cosine {w.plan_cosine:.2f} to {w.target})"
    )  # fmt: skip
    read = (
        f"withdrawal probe {w.probability:.2f}" if w.family is None
        else f"a dismissal: {w.family}, sharing a word with it"
    )  # fmt: skip
    return (
        f"withdrawn: a later turn gives it up ({w.by}, {read}, "
        f"cosine {w.cosine:.2f} to {w.target}, the user's nearest earlier live assertion{plan}); "
        "ranked after every other candidate for questions about now or ahead"
    )
