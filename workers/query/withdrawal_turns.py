"""Which of a query's window turns read as the user's own withdrawal, and whether the ingest
already resolved it (issue 11, AV7) — the reading half of `withdrawn.py` (split from it in
round 19; the targets, the plan and the rule stay there).

A raw turn reads as a withdrawal by the trained probe (with the own-withdrawal gate the
ingest's markers share, B4/B5), by an asserted dismissal of a named topic (`dismissal.py`),
or — with `withdrawn.unresolved` — because the ingest drew a retraction from it that retracted
nothing (`INGEST`): then it must be the user's own act or verdict, and its target must say a
word of the slot the retraction names.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from datetime import datetime
from functools import lru_cache

import numpy as np

from schemas.events import EdgeEvent
from schemas.policy import WithdrawnPolicy
from schemas.records import FactRecord
from workers.extraction.dismissal import dismissals, topic_words
from workers.extraction.own_withdrawal import denies_withdrawal, not_the_users, users_own_marker
from workers.ports import Hit
from workers.query.candidates import MergedCandidate
from workers.text.bm25 import tokenize

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

#: How `own_reading` names a withdrawal the probe read (not a dismissal family).
PROBE = "probe"
#: The family of a withdrawal the ingest's markers read but whose retraction retracted nothing.
INGEST = "the ingest's retraction, which retracted nothing"


def own_reading(text: str, p: float, rule: WithdrawnPolicy) -> str | None:
    """How a turn reads as the user's own withdrawal: `PROBE` when the probe's probability `p`
    reaches the threshold and it is the user's own (`own_withdrawal`), else the family of an
    asserted dismissal (`dismissal.py`), else None."""
    if p >= rule.threshold and not not_the_users(text):
        return PROBE
    return _dismissal(text, rule)


def own_withdrawal(text: str, vector: np.ndarray, probability: Probability,
                    rule: WithdrawnPolicy) -> bool:  # fmt: skip
    """Whether the turn reads as the user's own withdrawal (`own_reading`)."""
    return own_reading(text, probability(vector), rule) is not None


def _dismissal(text: str, rule: WithdrawnPolicy) -> str | None:
    """The family of the turn's first asserted dismissal, if the rule reads them."""
    return _first_family(text) if rule.dismissals else None


@lru_cache(maxsize=4096)
def _first_family(text: str) -> str | None:
    """`dismissals(text)`'s first family: a pure function of the text, read for every window
    raw turn and target hit of every query, so kept for the texts seen recently."""
    found = dismissals(text)
    return found[0].family if found else None


def read_as_withdrawal(text: str, vector: np.ndarray, probability: Probability,
                        rule: WithdrawnPolicy) -> bool:  # fmt: skip
    """An earlier turn a target or another telling of the plan must not be: the probe reads
    it as a withdrawal, or it asserts a dismissal (a repeat gives nothing new up)."""
    return probability(vector) >= rule.threshold or _dismissal(text, rule) is not None


def withdrawals(
    window: Sequence[MergedCandidate], as_of: datetime, probability: Probability,
    rule: WithdrawnPolicy, records: Records,
) -> list[tuple[MergedCandidate, float, str | None]]:  # fmt: skip
    """The window's raw turns that read as the user's own withdrawal, oldest first (ties by
    edge id): the probe, and the gate the ingest's markers and probe share (B4, B5); else an
    asserted dismissal (`dismissal.py`, with its family: its target must share a word); else
    a turn the ingest drew a retraction from (`INGEST`: its markers read it; a target must
    share a word too, `resolved` decides whether the ingest's own target stands)."""
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
        reading = own_reading(edge.text, p, rule)
        if (
            reading is None
            and rule.unresolved
            and drew_retraction(edge, records)
            and users_own_marker(edge.text)
            and not denies_withdrawal(edge.text)
        ):
            # The ingest's markers passed the own-withdrawal gate per marker (`retraction.find`):
            # a question to the assistant in another sentence of the turn does not weigh it.
            # Read here only as the user's own act or verdict (review r18 H2: "the airline
            # cancelled my flight, so I rebooked" drew a retraction; the plan stands).
            reading = INGEST
        if reading is not None:
            out.append((m, p, None if reading == PROBE else reading))
    return sorted(out, key=lambda x: (x[0].record.edge.ingest_time, x[0].record.edge_id))


def drew_retraction(edge: EdgeEvent, records: Records) -> bool:
    """Whether the ingest drew a retraction from the turn (one of its facts retracts a slot),
    or the edge is that retraction."""
    return bool(edge.retracts) or (
        bool(edge.episodic_of) and any(f.edge.retracts for f in records(edge.episodic_of))
    )


def named_words(edge: EdgeEvent, records: Records) -> frozenset[str]:
    """The content words of the slots the ingest's retraction names ("project.loft_conversion"
    → loft, conversion): a target must say one, as retargeting's target must say the slot's
    head (a marker misread on a turn about something else names nothing the plan says)."""
    facts = [edge] if edge.retracts else [f.edge for f in records(edge.episodic_of)]
    keys = [k for f in facts for k in f.retracts]
    return topic_words(" ".join(re.sub(r"[._]", " ", k) for k in keys)) - _NOT_NAMING


def named_slot_words(edge: EdgeEvent, records: Records) -> list[str]:
    """The words of the slots the ingest's retraction names, as written in the keys
    ("plan.dog" → dog), less those naming nothing (`_NOT_NAMING`): `named_words` unstemmed,
    for embedding (`named_topic.slot_kin`)."""
    facts = [edge] if edge.retracts else [f.edge for f in records(edge.episodic_of)]
    words = (w for f in facts for k in f.retracts for w in re.split(r"[._\s]+", k))
    return sorted({w.lower() for w in words if topic_words(w) - _NOT_NAMING})


#: Slot-key words that name nothing a plan says: the slot's kind prefix, qualifiers,
#: pro-forms and light verbs a misread marker leaves in a key ("project.new_ones",
#: "project.put" from "we scrapped the old cabinets and put in new ones": review r18 H2).
_NOT_NAMING = frozenset(
    tokenize(
        "project plan trip pet appointment event new old one ones put get got make made take "
        "took do did have had some thing stuff"
    )
)


def resolved(
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
    if not drew_retraction(edge, records):
        return False
    if not rule.unresolved:
        return True
    assert withdrawal.vector is not None
    facts = (
        {edge.edge_id} if edge.retracts
        else {f.edge_id for f in records(edge.episodic_of) if f.edge.retracts}
    )  # fmt: skip
    return any(r.lifecycle.retracted_by in facts for r in retracted(withdrawal.vector))
