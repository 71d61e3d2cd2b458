"""A pattern match before finishing: what a family found in one clause.

The families only say *what* the clause states; `rules.RuleExtractor` then applies what is
common to all of them — hedging → soft update, negation, event-time resolution, emotional
loading, text — so that these lifecycle decisions are made in one place.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from schemas.categories import Category
from schemas.categories import UpdateSemantics as UpdateSemantics  # re-exported for families
from workers.extraction.model import PrototypeUse

C = Category
R, A, S = UpdateSemantics.REPLACE, UpdateSemantics.ACCUMULATE, UpdateSemantics.SOFT
Weights = Mapping[Category, float]

#: Confidence bands. Accumulate-semantics categories supersede only at ≥ 0.95 (Appendix Z),
#: so an explicit first-person statement of change must reach it; hedges stay far below.
COMMITTED = 0.95
STATED = 0.9
IMPLIED = 0.7
PLANNED = 0.6
HEDGED = 0.4

#: Soft memberships (§3.1: weights sum to 1, primary ≥ 0.6). Single-category facts are 1.0.
IDENTITY: Mapping[Category, float] = {C.IDENTITY_SELF_CONCEPT: 1.0}
RESIDENCE: Mapping[Category, float] = {C.IDENTITY_SELF_CONCEPT: 0.8, C.LOGISTICAL_CONTEXT: 0.2}
WORK: Mapping[Category, float] = {C.IDENTITY_SELF_CONCEPT: 0.8, C.PROJECTS_ENDEAVORS: 0.2}
RELATIONAL: Mapping[Category, float] = {C.RELATIONAL_BONDS: 1.0}
INTEREST: Mapping[Category, float] = {C.INTELLECTUAL_INTERESTS: 1.0}
CHRONIC: Mapping[Category, float] = {C.HEALTH_WELLBEING: 0.8, C.IDENTITY_SELF_CONCEPT: 0.2}
ACUTE: Mapping[Category, float] = {C.HEALTH_WELLBEING: 1.0}
PROJECT: Mapping[Category, float] = {C.PROJECTS_ENDEAVORS: 1.0}
PET_PLAN: Mapping[Category, float] = {C.PROJECTS_ENDEAVORS: 0.7, C.RELATIONAL_BONDS: 0.3}
HOBBY: Mapping[Category, float] = {C.HOBBIES_RECREATION: 1.0}
PREFERENCE: Mapping[Category, float] = {C.PREFERENCES_HABITS: 1.0}
DIET: Mapping[Category, float] = {C.PREFERENCES_HABITS: 0.8, C.HEALTH_WELLBEING: 0.2}
FINANCIAL: Mapping[Category, float] = {C.FINANCIAL_MATERIAL: 1.0}
OBLIGATION: Mapping[Category, float] = {C.OBLIGATIONS: 1.0}
EXAM: Mapping[Category, float] = {C.OBLIGATIONS: 0.8, C.PROJECTS_ENDEAVORS: 0.2}
LOGISTICS: Mapping[Category, float] = {C.LOGISTICAL_CONTEXT: 1.0}
TRIP: Mapping[Category, float] = {C.LOGISTICAL_CONTEXT: 0.8, C.HOBBIES_RECREATION: 0.2}
OTHER: Mapping[Category, float] = {C.OTHER: 1.0}

#: Which event time a fact wants: upcoming events look forward, completed changes back.
DatePreference = Literal["future", "past", "none"]


@dataclass(frozen=True, slots=True)
class Draft:
    """One fact found by a pattern family in one clause.

    `span` is where the match sits in the clause (overlaps are settled by `priority`, lower
    wins). `target` is an unresolved retraction target ("it", "the dog thing") that the
    extractor resolves against the turn and its context. `dates` says whether and in which
    direction to resolve the event time; `dated_now` makes the turn time the anchor when the
    clause names none (acute illness: valid from now, expiring soon — Table 1 row 4);
    `needs_date` drops the fact when no event time resolves ("the Finals game a few years
    back" is no exam); `near_logistics` makes a meeting within a day and a half logistics
    rather than an obligation ("meetings today", DESIGN brief).
    """

    kind: str
    categories: Mapping[Category, float]
    slot_key: str | None
    value: str | None
    update: UpdateSemantics
    confidence: float
    span: tuple[int, int]
    priority: int = 50
    numeric: bool = False
    target: str | None = None
    dates: DatePreference = "none"
    dated_now: bool = False
    negatable: bool = False
    needs_context: bool = False
    needs_date: bool = False
    near_logistics: bool = False
    #: The fact in canonical words ("User's manager is Kenji"), put before the user's own
    #: ("User reports to Kenji now"): a question asks in the canonical words, not the turn's.
    statement: str | None = None
    #: How the prototype classifier treats the fact (`ExtractedFact.prototype`): value
    #: families leave the category, and a missing slot, to it ("decide", or "require" when
    #: the fact is only worth keeping if it names a known attribute).
    prototype: PrototypeUse | None = None
    #: A retraction whose pronoun was read as a dislocated or framed topic ("the reno, scrap
    #: it"): `target` is the topic, which names the plan only if it matches one (`rules._link`).
    topical: bool = False


def from_match(
    kind: str,
    slot: str | None,
    value: str | None,
    m: re.Match[str],
    cats: Weights,
    update: UpdateSemantics,
    confidence: float,
    priority: int,
    *,
    dates: DatePreference = "none",
    dated_now: bool = False,
    negatable: bool = False,
    numeric: bool = False,
    needs_context: bool = False,
    needs_date: bool = False,
    near_logistics: bool = False,
    statement: str | None = None,
    prototype: PrototypeUse | None = None,
    span: tuple[int, int] | None = None,
) -> Draft:
    """A draft spanning the match `m`, or `span` inside it (the shape of every family)."""
    return Draft(
        kind=kind,
        categories=cats,
        slot_key=slot,
        value=value,
        update=update,
        confidence=confidence,
        span=span or (m.start(), m.end()),
        priority=priority,
        dates=dates,
        dated_now=dated_now,
        negatable=negatable,
        numeric=numeric,
        needs_context=needs_context,
        needs_date=needs_date,
        near_logistics=near_logistics,
        statement=statement,
        prototype=prototype,
    )
