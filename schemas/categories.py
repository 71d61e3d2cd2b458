"""The 10+1 behavioral ontology (paper §3.1, Table 1) and lifecycle vocabularies."""

from __future__ import annotations

from enum import StrEnum


class Category(StrEnum):
    """Behavioral categories: a fact's category is how it changes over time (paper §3.1)."""

    IDENTITY_SELF_CONCEPT = "IDENTITY_SELF_CONCEPT"
    RELATIONAL_BONDS = "RELATIONAL_BONDS"
    INTELLECTUAL_INTERESTS = "INTELLECTUAL_INTERESTS"
    HEALTH_WELLBEING = "HEALTH_WELLBEING"
    PROJECTS_ENDEAVORS = "PROJECTS_ENDEAVORS"
    HOBBIES_RECREATION = "HOBBIES_RECREATION"
    PREFERENCES_HABITS = "PREFERENCES_HABITS"
    FINANCIAL_MATERIAL = "FINANCIAL_MATERIAL"
    OBLIGATIONS = "OBLIGATIONS"
    LOGISTICAL_CONTEXT = "LOGISTICAL_CONTEXT"
    OTHER = "OTHER"


#: Stable column order used by the scorer's vectorized tables.
CATEGORY_ORDER: tuple[Category, ...] = tuple(Category)
CATEGORY_INDEX: dict[Category, int] = {c: i for i, c in enumerate(CATEGORY_ORDER)}


class UpdateSemantics(StrEnum):
    """How a new edge relates to earlier edges of its slot (paper §3.3, Appendix F)."""

    REPLACE = "replace"
    ACCUMULATE = "accumulate"
    SOFT = "soft"


class LifecycleState(StrEnum):
    """ξ of the paper (§4) plus two storage-only states that are never served.

    `duplicate`: a near-duplicate restatement folded into an earlier fact (Appendix Z).
    `quarantined`: instruction-like content, kept for audit, never served (Appendix B.5).
    """

    ACTIVE = "active"
    SUPERSEDED = "superseded"
    EXPIRED = "expired"
    RETRACTED = "retracted"
    DUPLICATE = "duplicate"
    QUARANTINED = "quarantined"


class Intent(StrEnum):
    """Query intents that select the lifecycle-state mask M_q (paper A.1, A.7.3, A.7.4)."""

    CURRENT = "current"
    HISTORICAL = "historical"
    UPCOMING = "upcoming"
    PAST = "past"
    CANCELLED = "cancelled"
