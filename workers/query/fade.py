"""Why one fact persists or fades (paper B.4): its activation over time, computed by the
scorer itself, with the parameters that shape it and the dates that end it.

Nothing here re-derives the score: every sample of the curve is `scorer.scalar`'s terms of
the fact at σ = 1 as of that time (the same call `inspect` makes for one time), the
half-life is `scorer.decay`'s, the expiry and archive dates are compaction's rules
(`workers/lifecycle/compaction.py`). The inspector (frecall/inspector/) draws it.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

import numpy as np

from schemas.categories import Intent
from schemas.events import EdgeEvent
from schemas.policy import Policy
from schemas.records import FactRecord
from schemas.results import InspectedFact
from scorer.context import QueryContext
from scorer.decay import effective_rate, half_life_hours, reinforced_rate
from scorer.scalar import score_candidates
from scorer.tables import PolicyTables
from workers.lifecycle.compaction import archivable_from, expires_at
from workers.query.candidates import hours, to_candidate

#: Points of the curve: enough for a smooth line, few enough to draw at once.
SAMPLES = 120
#: How far past the later of `as_of` and the fact's end the curve goes, in half-lives.
HALF_LIVES_AHEAD = 3.0
#: The longest span drawn (a stable identity fact has a half-life of years).
MAX_SPAN = timedelta(days=3 * 365)


@dataclass(frozen=True, slots=True)
class Sample:
    """The fact's terms at one time (σ = 1, current-state question)."""

    at: datetime
    activation: float
    decay: float
    validity: float
    omega: float
    state: str


@dataclass(frozen=True, slots=True)
class Fade:
    """Everything that makes a fact persist or fade, as of `as_of`."""

    edge_id: str
    as_of: datetime
    weights: dict[str, float]
    #: λ_eff of the soft category mix (Lemma 1) and its half-life, before mentions.
    rate_per_hour: float
    half_life_hours: float
    #: The half-life once repeated mentions slowed decay (Appendix G).
    reinforced_half_life_hours: float
    mentions: int
    last_mentioned_at: datetime
    #: α of the blend and the semantic floor of the primary category (Table 48).
    alpha: float
    floor: float
    #: Event-time anchored: activation follows the distance to the event, not age (§3.3).
    anchored: bool
    event_time: datetime | None
    #: ν and μ of the validity kernel (A.13), per hour, of the primary category.
    anticipation_per_hour: float
    post_event_per_hour: float
    expires_at: datetime | None
    #: (why, from when) compaction may archive it (`archivable_from`), or None.
    archivable: tuple[str, datetime] | None
    #: Ω as of `as_of` and the soft updates that put the value in doubt (Model 1).
    omega: float
    pressures: list[tuple[str, datetime, float]]
    activation: float
    state: str
    samples: list[Sample]


def fade(record: FactRecord, policy: Policy, as_of: datetime) -> Fade:
    """The fact's fade as of `as_of`, with its curve from ingest to past its end."""
    edge, lc = record.edge, record.lifecycle
    tables = PolicyTables.compile(policy)
    primary = policy.category(edge.primary_category)
    rate = effective_rate(
        edge.categories, {c: policy.category(c).decay_per_hour for c in edge.categories}
    )
    reinforced = float(
        reinforced_rate(np.array([rate]), np.array([float(lc.mentions)]), policy.reinforcement)[0]
    )
    expiry = expires_at(record, policy)
    archive = archivable_from(record, policy)
    candidate = to_candidate(record, 1.0)

    def at(t: datetime) -> Sample:
        scores = score_candidates([candidate], QueryContext(hours(t), Intent.CURRENT), tables)
        terms = scores.terms(0)
        return Sample(
            at=t,
            activation=terms["activation"],
            decay=terms["decay"],
            validity=terms["validity"],
            omega=terms["omega"],
            state=scores.state_name(0),
        )

    now = at(as_of)
    start = min(edge.ingest_time, as_of)
    if edge.event_time is not None:
        start = min(start, edge.event_time)
    ends = [as_of, edge.ingest_time]
    ends += [t for t in (expiry, archive[1] if archive else None) if t is not None]
    end = max(ends) + timedelta(hours=HALF_LIVES_AHEAD * half_life_hours(reinforced))
    end = min(end, max(max(ends), start + MAX_SPAN))
    step = (end - start) / (SAMPLES - 1)
    samples = [at(start + i * step) for i in range(SAMPLES)]
    return Fade(
        edge_id=record.edge_id,
        as_of=as_of,
        weights={c.value: w for c, w in edge.categories.items()},
        rate_per_hour=rate,
        half_life_hours=half_life_hours(rate),
        reinforced_half_life_hours=half_life_hours(reinforced),
        mentions=lc.mentions,
        last_mentioned_at=lc.last_mentioned_at or edge.ingest_time,
        alpha=primary.alpha,
        floor=primary.floor,
        anchored=expiry is not None,
        event_time=edge.event_time,
        anticipation_per_hour=primary.anticipation_per_hour,
        post_event_per_hour=primary.post_event_per_hour,
        expires_at=expiry,
        archivable=archive,
        omega=now.omega,
        pressures=[(p.by, p.at, p.gamma) for p in lc.soft_pressures],
        activation=now.activation,
        state=now.state,
        samples=samples,
    )


def inspected_record(user_id: str, fact: InspectedFact) -> FactRecord:
    """The record of an inspected fact, with everything its activation depends on (category
    weights, times, mentions, emotional loading, transitions, soft pressures): what `fade`
    needs, without reading the user's whole memory again."""
    edge = EdgeEvent(
        edge_id=fact.edge_id,
        user_id=user_id,
        text=fact.text,
        categories=fact.categories or {fact.category: 1.0},
        event_time=fact.event_time,
        ingest_time=fact.ingest_time,
        emotional_loading=fact.emotional_loading,
    )
    return FactRecord(edge=edge, lifecycle=fact.lifecycle)
