"""A withdrawal the ingest left unresolved, read at query time (issue 11, AV7). Which window
turns read as withdrawals, and whether the ingest resolved them: `withdrawal_turns.py`.

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

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

import numpy as np

from schemas.categories import Intent
from schemas.events import EdgeEvent
from schemas.policy import WithdrawnPolicy
from schemas.records import FactRecord
from workers.extraction.dismissal import BOUND_BY_TOPIC, named_topic_words, topic_words
from workers.extraction.own_withdrawal import (
    asserts,
    weighed,
)
from workers.ports import Hit
from workers.query.asked_topic import asked_topic
from workers.query.candidates import MergedCandidate
from workers.query.named_topic import Embed, slot_kin
from workers.query.pressed_values import mentioned_as_of
from workers.query.withdrawal_search import found_from_plans
from workers.query.withdrawal_turns import (
    INGEST,
    Nearest,
    Probability,
    Records,
    Retracted,
    drew_retraction,
    named_slot_words,
    named_words,
    own_withdrawal,
    read_as_withdrawal,
    resolved,
    withdrawals,
)
from workers.text.bm25 import tokenize

__all__ = ["INGEST", "INTENTS", "LIFT_INTENTS", "Retracted", "Withdrawn", "explain", "withdrawn"]

#: Questions about what holds now or lies ahead: a withdrawn plan answers neither (M_q).
INTENTS = frozenset({Intent.CURRENT, Intent.UPCOMING})
#: A question about what was given up: the withdrawn plan is its answer (A.9).
LIFT_INTENTS = frozenset({Intent.CANCELLED})


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
    asked: tuple[frozenset[str], frozenset[str]] | None = None,
) -> tuple[Hit, float] | None:  # fmt: skip
    """The user's live assertion told before `before` nearest the withdrawal, if near enough:
    never one of its own turn, and never an earlier turn read as a withdrawal (a repeat gives
    nothing new up: the next nearest is the plan). `bound`: a dismissal's topic words, one of
    which the target must say (a dismissal names what it gives up; "not doing it" alone
    names nothing). `asked`: (the words the question and the withdrawal both say, the window's
    turns) — when no assertion is near enough, one in the window saying one of those words
    is, at `asked_topic_min_cosine` (`asked_topic.py`), `bound` still holding."""
    found = _nearest_live(withdrawal, hits, before, as_of, probability, rule, bound)
    if found is not None and found[1] >= rule.min_cosine:
        return found
    floor = rule.asked_topic_min_cosine
    if asked is None or floor is None or not asked[0]:
        return None
    words, window_turns = asked
    named = [
        h for h in hits
        if words.intersection(tokenize(h.record.edge.text))
        and window_turns.intersection(h.record.edge.source_turns)
    ]  # fmt: skip
    # The slot an ingest retraction names still binds it (`bound`): a marker misread on a
    # turn about something else ("my forearms are toast" after a gym session) names nothing
    # the question's topic may replace (heldout2: the gym fee withdrawn, first measured).
    found = _nearest_live(withdrawal, named, before, as_of, probability, rule, bound)
    if found is None or found[1] < floor:
        return None
    return found


def _nearest_live(
    withdrawal: MergedCandidate, hits: Sequence[Hit], before: datetime, as_of: datetime,
    probability: Probability, rule: WithdrawnPolicy, bound: frozenset[str] | None,
) -> tuple[Hit, float] | None:  # fmt: skip
    """`_target`'s search: the nearest of `hits` that may be a target, with its cosine."""
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
            or read_as_withdrawal(edge.text, np.asarray(hit.dense), probability, rule)
            or (bound is not None and not bound.intersection(tokenize(edge.text)))
        ):
            continue
        cosine = round(float(np.dot(withdrawal.vector, hit.dense)), 6)
        if best is None or (cosine, edge.edge_id) > (best[0], best[1]):
            best = (cosine, edge.edge_id, hit)
    return None if best is None else (best[2], best[0])


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
    return not own_withdrawal(newest.edge.text, np.asarray(newest.hit.dense), probability, rule)


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
        and not read_as_withdrawal(w.edge.text, np.asarray(w.hit.dense), probability, rule)
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
    query: str = "",
    head: Sequence[MergedCandidate] = (),
    embed: Embed | None = None,
    lift: bool = False,
) -> dict[str, Withdrawn]:
    """Edge id → the withdrawal that gives it up, among the candidates `window` (the first of
    the ranking); `records` reads the withdrawal's facts, `nearest` the user's memory (exact),
    `retracted` its retracted statements; `query` the question (`asked_topic`). `head`: the
    first candidates of the ranking, the window's and those after it that masking the window's
    would lift into the served top k — a withdrawn plan's tellings there are withdrawn too (a
    plan's fact just below the window rose into the top 10 when its turn was masked). `embed`:
    the query's embedder, for the words a withdrawal names its slot by (`named_topic.py`).
    `lift`: the same reading for a question about what was given up (CANCELLED) — the plan's
    candidates are then what it asks for (`given_up.lift`), not what it must not serve."""
    if not rule.enabled or intent not in (LIFT_INTENTS if lift else INTENTS):
        return {}
    out: dict[str, Withdrawn] = {}
    gap = timedelta(hours=rule.min_gap_hours)
    window_turns = frozenset(t for m in window for t in m.record.edge.source_turns)
    # The window's withdrawals, then those found from a plan the window ranks high.
    read = [
        *withdrawals(window, as_of, probability, rule, records),
        *found_from_plans(window, as_of, probability, rule, nearest),
    ]
    for withdrawal, p, family in read:
        edge = withdrawal.record.edge
        assert withdrawal.vector is not None
        if resolved(withdrawal, records, retracted, rule):
            continue  # the ingest resolved this one
        before = edge.ingest_time - gap
        # The targets among the statements told before it (later ones crowd out none): a
        # turn the ingest drew a retraction from names its slot, whichever reading found it
        # (review r18 H3); a dismissal names its topic …
        ingest_slot = family == INGEST or (family is None and drew_retraction(edge, records))
        bound = (
            named_words(edge, records) if ingest_slot
            else None if family is None
            else named_topic_words(edge.text) if family in BOUND_BY_TOPIC
            else topic_words(edge.text)
        )  # fmt: skip
        # … and what it names binds a window plan as the question's topic does (round 24).
        names = _named_topic(edge, family, ingest_slot, records, rule, embed)
        if ingest_slot and bound is not None:
            bound = bound | names
        asked = (asked_topic(query, edge.text) | names, window_turns)
        found = _target(withdrawal, nearest(withdrawal.vector, before), before, as_of,
                        probability, rule, bound, asked)  # fmt: skip
        if found is None:
            continue
        target, cosine = found
        assert target.dense is not None
        # … the plan's tellings and the user's later words, up to the question.
        around = [*nearest(np.asarray(target.dense), as_of), *nearest(withdrawal.vector, as_of)]
        # A later word on the plan is one at least as near it as `min_cosine` even when the
        # question's topic bound a farther withdrawal (`asked_topic`): ordinary talk near a
        # far withdrawal does not take it back.
        named = max(cosine, rule.min_cosine)
        words = _words_on_plan(withdrawal, target, named, around, as_of, rule)
        if _taken_back(withdrawal, words, probability, rule):
            continue  # the user's newest word on the plan is no withdrawal of it
        for told in _plan(target, words, before, probability, rule):
            turns = set(told.edge.source_turns)
            for m in head or window:
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


def _named_topic(
    edge: EdgeEvent, family: str | None, ingest_slot: bool, records: Records,
    rule: WithdrawnPolicy, embed: Embed | None,
) -> frozenset[str]:  # fmt: skip
    """What the withdrawal names it gives up, with `named_topic_binds` (`named_topic.py`): the
    topic before a dismissal's verdict, or the ingest retraction's slot words and the turn's
    words near them (`slot_kin_min_cosine`; none without an embedder)."""
    if not rule.named_topic_binds:
        return frozenset()
    if ingest_slot:
        kin = rule.slot_kin_min_cosine
        return named_words(edge, records) | (
            frozenset() if kin is None or embed is None
            else slot_kin(named_slot_words(edge, records), edge.text, embed, kin)
        )  # fmt: skip
    return named_topic_words(edge.text) if family is not None else frozenset()


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
