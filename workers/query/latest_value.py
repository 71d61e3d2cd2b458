"""The latest statement of a single-valued attribute wins a current-state question (issue 11).

A value replaced later in words that yield no superseding fact leaves the old turn active:
nothing in the lifecycle connects the two, and association by similarity at ingest cannot
(MiniLM cosine between old fact-less turn and new slot fact does not separate true pairs
from unrelated ones, docs/extraction.md). The paper settles "which of several candidate
values is current" partly at query time — its LLM distillation step (§3.5, Appendix Z) and
soft supersession (Appendix F: the newer statement of one (subject, attribute) key wins).
Without an LLM, this is a deterministic stand-in that depends on no phrasing:

* the question is a current-state one (past and historical questions must see history) and
  is about a single-valued attribute (its vector near that attribute's prototypes,
  `workers/extraction/prototypes.toml`; per-item attributes such as hobbies, interests or
  health conditions are never single-valued — AV5 aggregation keeps them all);
* among the first `window` candidates, those about that same attribute (a stored slot key
  of it, or their stored vector near its prototypes) that were told before the newest such
  statement are demoted to rank `demote_to` or later, with the reason in `why`.

A pure function of the candidate set and the question: the stored vectors and ingest times
decide, ties broken by edge id, so the ranking is the same whatever the ingest order.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

import numpy as np

from schemas.categories import Intent, UpdateSemantics
from schemas.policy import LatestValuePolicy
from schemas.records import FactRecord
from workers.extraction.attribute_probe import AttributeClassifier
from workers.extraction.own_withdrawal import hedged
from workers.extraction.prototypes import Table, Verdict
from workers.query import demoted_refill


@dataclass(frozen=True, slots=True)
class Demotion:
    """One candidate told before the newest statement of the attribute the question asks."""

    attribute: str
    newer: str  # the edge id of the newest statement


def single_valued(table: Table, policy: LatestValuePolicy) -> frozenset[str]:
    """The attributes whose slot holds one value at a time: a fixed key (no "{head}"
    template: one slot per hobby or condition is many values), minus the policy's
    exceptions (one may like pizza and sushi at once)."""
    names = {a.name for a in table.attributes if a is not None and "{" not in a.slot}
    return frozenset(names - set(policy.multi_valued))


def slot_attributes(table: Table) -> dict[str, str]:
    """Slot key → attribute name, for the attributes with a fixed slot key."""
    return {a.slot: a.name for a in table.attributes if a is not None and "{" not in a.slot}


def _near(verdict: Verdict, attribute: str, minimum: float, margin: float) -> bool:
    """Whether `attribute` is, or nearly is, the nearest attribute of a vector."""
    scores = verdict.attribute_scores
    own = scores.get(attribute, -1.0)
    return own >= minimum and own >= max(scores.values()) - margin


def asked_attributes(
    verdict: Verdict, allowed: frozenset[str], policy: LatestValuePolicy
) -> list[str]:
    """The single-valued attributes a question is about ("which city am I living in?" is
    as near the hometown as the current city: both are asked, each settled on its own)."""
    return sorted(
        a for a in allowed if _near(verdict, a, policy.question_min, policy.question_margin)
    )


def demotions(
    intent: Intent,
    question: Verdict,
    records: Sequence[FactRecord],
    verdicts: Sequence[Verdict | None],
    slot_attribute: Mapping[str, str],
    allowed: frozenset[str],
    policy: LatestValuePolicy,
    turn_keys: Mapping[str, frozenset[str]] | None = None,
) -> dict[str, Demotion]:
    """Edge id → why it is demoted, for the candidates `records` (the first `window` of the
    ranking; `verdicts` their stored vectors' prototypes, None without a vector).
    `slot_attribute` maps a slot key to its attribute's name; `turn_keys` a raw turn's id to
    the slot keys of the facts drawn from it, read from the store (`told_with_keyed`)."""
    if not policy.enabled or intent is not Intent.CURRENT:
        return {}
    out: dict[str, Demotion] = {}
    verdict_of = {r.edge_id: v for r, v in zip(records, verdicts, strict=True)}
    for attribute in asked_attributes(question, allowed, policy):
        members = []
        for record, verdict in zip(records, verdicts, strict=True):
            if record.edge.slot_key:
                # A stored slot key says what the statement is about ("a haircut costs 400
                # lira" shares a barber's words, its key is the price's).
                about = slot_attribute.get(record.edge.slot_key) == attribute
            else:
                about = verdict is not None and _near(
                    verdict, attribute, policy.candidate_min, policy.candidate_margin
                )
            if about:
                members.append(record)
        # A change only weighed ("thinking about moving to London") is not made: it never
        # stands as the newest value (Appendix F soft supersession keeps both; AV9) — a
        # soft update, or a raw turn with a hedged or conditional sentence
        # (`hedged_never_newest`: "wife wants to go back to X someday. maybe when the kids
        # are grown" is no newer residence).
        # The statement that stands must itself be clearly about the attribute, not only
        # near enough to be demoted by one (`newest_min`; a keyed fact of it always is).
        committed = [
            r
            for r, v in zip(members, [verdict_of[r.edge_id] for r in members], strict=True)
            if r.edge.update != UpdateSemantics.SOFT
            and not (policy.hedged_never_newest and r.edge.episodic and hedged(r.edge.text))
            and (
                r.edge.slot_key
                or (v is not None and v.attribute_scores.get(attribute, -1.0) >= policy.newest_min)
            )
        ]
        if not committed or len({r.edge.ingest_time for r in members}) < 2:
            continue
        newest = max(committed, key=lambda r: (r.edge.ingest_time, r.edge_id))
        for record in members:
            # A keyed fact's currency is the lifecycle's to decide (supersession within its
            # slot, accumulate semantics): it may stand as the newer statement, it is never
            # demoted. Demoting keyed facts cost the gold track's Hit@1 71.6 -> 64.2 % at the
            # same pass (2026-12-02); the stale statements this rule is for are turns that
            # yielded no keyed fact.
            if record.edge.slot_key:
                continue
            if record.edge.ingest_time < newest.edge.ingest_time:
                out.setdefault(record.edge_id, Demotion(attribute, newest.edge_id))
        if policy.told_with:
            # A keyed fact follows its turn only for a newer statement whose nearest class
            # is the attribute itself: a key says what the fact is about for certain, and a
            # turn the classifier reads as about nothing in particular, or about another
            # attribute, does not outweigh it (a later chatty turn merely near the attribute
            # stood as the "newest" and took a development set's current keyed value down).
            keyed = policy.told_with_keyed and _nearest_is(
                verdict_of.get(newest.edge_id), attribute
            )
            _told_with(records, out, attribute, slot_attribute, keyed, turn_keys or {})
    return out


def _told_with(
    records: Sequence[FactRecord],
    out: dict[str, Demotion],
    attribute: str,
    slot_attribute: Mapping[str, str],
    keyed: bool = False,
    turn_keys: Mapping[str, frozenset[str]] | None = None,
) -> None:
    """The facts drawn from a demoted raw turn (its `episodic_of`) follow it down, unless
    their slot key is the asked attribute's (the lifecycle's to decide, as above). The old
    turn "off meat since easter" yields "User offs meat since easter" under a key that is no
    attribute's: the turn is an older statement of the diet, so is what was drawn from it.
    A fact keyed to another slot is only moved inside the window, never judged a statement
    of the attribute (it never stands as the newest). Gold metadata has no raw turns: there
    this never acts.

    With `keyed` (`told_with_keyed`), a fact keyed to the asked attribute follows too unless
    the newer statement that demoted its turn carries the same slot key (its own, or a fact
    drawn from it: `turn_keys`). The lifecycle decides between two keyed statements of one
    slot (A.7.1: the newer supersedes; a weighed change only lowers, Appendix F — "thinking
    about moving to X" keeps the city, generator seed 29 train lost a Hit@1 to it); when
    the newer value was told in a turn that yielded no fact of that slot, the lifecycle
    never saw the pair, and the old turn's keyed fact ("User lives in X", drawn from the
    turn the rule just judged an older statement of the residence) is as old as its turn."""
    drawn = {
        fact: out[record.edge_id]
        for record in records
        if record.edge.episodic and record.edge_id in out
        for fact in record.edge.episodic_of
    }
    by_id = {r.edge_id: r for r in records}
    for record in records:
        demotion = drawn.get(record.edge_id)
        if demotion is None or demotion.attribute != attribute:
            continue
        if slot_attribute.get(record.edge.slot_key or "") == attribute and (
            not keyed
            or record.edge.slot_key in _keys_told(by_id.get(demotion.newer), by_id, turn_keys or {})
        ):
            continue
        out.setdefault(record.edge_id, demotion)


def _nearest_is(verdict: Verdict | None, attribute: str) -> bool:
    """Whether `attribute` is the nearest class of a verdict (the probe's "none" counts)."""
    if verdict is None or not verdict.attribute_scores:
        return False
    scores = verdict.attribute_scores
    return max(scores, key=lambda a: (scores[a], a)) == attribute


def _keys_told(
    record: FactRecord | None,
    by_id: Mapping[str, FactRecord],
    turn_keys: Mapping[str, frozenset[str]],
) -> set[str]:
    """The slot keys a statement carries: its own, and, for a raw turn, those of the facts
    drawn from it (among the candidates, or read from the store: `turn_keys`)."""
    if record is None:
        return set()
    told = [record, *(by_id[f] for f in record.edge.episodic_of if f in by_id)]
    return {r.edge.slot_key for r in told if r.edge.slot_key} | turn_keys.get(record.edge_id, set())


def reorder(
    ranked: Sequence[int],
    demoted: set[int],
    window: int,
    demote_to: int,
    told: Callable[[int], datetime] | None = None,
    paired: Mapping[int, frozenset[int]] | None = None,
) -> list[int]:
    """`ranked` with the `demoted` positions (all within its first `window`) moved to rank
    `demote_to` (0-based) or later, in their own order — or, given `told` (a position's
    ingest time), newest first (`demoted_newest_first`), and given `paired` (a position
    demoted as the older of a pair → its pressers' positions), those after the others
    (`demoted_refill.order`, `paired_refill_last`); the others keep theirs. Only the
    window is reordered: a demoted statement never leaves it, so recall at the window's
    depth is what it was without the rule (measured: moving them past it lost a LoCoMo
    question whose evidence was an older statement, docs/extraction.md)."""
    head, tail = list(ranked[:window]), list(ranked[window:])
    kept = [i for i in head if i not in demoted]
    moved = [i for i in head if i in demoted]
    # Where fewer than `demote_to` stay unmoved the demoted refill the first places: of
    # several versions demoted there the newer leads (A.7.3, Eq. 37-39), not the older,
    # better-matching one (round 24), and an older version whose newer one is in the
    # window refills last (round 25). Stable: ties keep their order.
    moved = demoted_refill.order(moved, told, paired)
    return kept[:demote_to] + moved + kept[demote_to:] + tail


def mask(
    ranked: Sequence[int],
    masked: set[int],
    demoted: set[int],
    window: int,
    demote_to: int,
    told: Callable[[int], datetime] | None = None,
    paired: Mapping[int, frozenset[int]] | None = None,
) -> list[int]:
    """`ranked` with the `masked` positions after every other (withdrawn, passed: the
    question's M_q admits active facts only, §3), and the `demoted` ones (moved down by a
    window rule, `reorder`) kept from `demote_to` on. Masking a candidate of the first
    `demote_to` must not lift a demoted one back into them: for a current question the
    newer version leads every older one (A.7.3, Eq. 37-39), a demotion the masking of
    another candidate does not undo (a chain of three versions: the middle one, demoted,
    rose to 5th when a withdrawn candidate above it was masked; docs/extraction.md)."""
    kept = reorder(
        [i for i in ranked if i not in masked], demoted - masked, window, demote_to, told, paired
    )
    return kept + [i for i in ranked if i in masked]


def explain(demotion: Demotion) -> str:
    return (
        f"an older statement of {demotion.attribute.replace('_', ' ')}; "
        f"the newer one is {demotion.newer}"
    )


def classify_stored(
    classifier: AttributeClassifier, vectors: Sequence[np.ndarray | None]
) -> list[Verdict | None]:
    """The classifier's verdict on each stored vector (None where a candidate has none)."""
    present = [i for i, v in enumerate(vectors) if v is not None]
    out: list[Verdict | None] = [None] * len(vectors)
    if present:
        matrix = np.stack([np.asarray(vectors[i], dtype=np.float32) for i in present])
        for i, verdict in zip(present, classifier.classify(matrix), strict=True):
            out[i] = verdict
    return out
