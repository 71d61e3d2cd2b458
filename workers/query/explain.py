"""Human-readable reasons for a fact's rank or suppression (paper B.4; docs/architecture.md,
"One turn, from the command line to a query result")."""

from __future__ import annotations

import math
from datetime import datetime

from schemas.categories import Intent, LifecycleState
from schemas.policy import Policy
from schemas.records import FactRecord
from workers.query.candidates import dynamics_category


def _ago(now: datetime, then: datetime) -> str:
    """'in 3.0 d' for a future `then`, '2.5 d ago' for a past one (hours under a day)."""
    days = (then - now).total_seconds() / 86400
    amount = f"{abs(days):.1f} d" if abs(days) >= 1 else f"{abs(days) * 24:.0f} h"
    return f"in {amount}" if days >= 0 else f"{amount} ago"


def reasons(
    record: FactRecord,
    state: str,
    terms: dict[str, float],
    as_of: datetime,
    policy: Policy,
    intent: Intent = Intent.CURRENT,
) -> list[str]:
    """Why this fact scored as it did, term by term; the first line names its state."""
    edge, lc = record.edge, record.lifecycle
    out: list[str] = []
    if state == LifecycleState.SUPERSEDED and lc.superseded_at:
        out.append(f"superseded by {lc.superseded_by} at {lc.superseded_at.isoformat()}")
    elif state == LifecycleState.RETRACTED and lc.retracted_at:
        out.append(f"retracted by {lc.retracted_by} at {lc.retracted_at.isoformat()}")
    elif state == LifecycleState.EXPIRED and edge.event_time:
        buffer_d = policy.expiry_buffer_hours / 24
        out.append(f"expired: event at {edge.event_time.isoformat()} + {buffer_d:.0f}-day buffer")
    else:
        out.append(state)
    dynamics = dynamics_category(edge, policy)
    cat = policy.category(dynamics)
    if edge.event_time and terms["decay"] == 1.0 and cat.event_time:
        when = _ago(as_of, edge.event_time)
        out.append(f"event-time anchored ({when}): validity ×{terms['validity']:.2f}")
    else:
        age_d = (as_of - (lc.last_mentioned_at or edge.ingest_time)).total_seconds() / 86400
        half = math.log(2) / cat.decay_per_hour / 24
        out.append(
            f"decay ×{terms['decay']:.2f} (last mentioned {age_d:.1f} d ago, "
            f"{dynamics.value}{' (raw turn)' if dynamics != edge.primary_category else ''} "
            f"half-life {half:.1f} d"
            + (f", {lc.mentions} mentions" if lc.mentions > 1 else "")
            + ")"
        )
    if policy.recency_weight.get(intent, 1.0) == 0.0:
        out.append(f"age not weighed for a {intent.value} question")
    if terms["numeric_rescue"] > 0 and terms["numeric_rescue"] >= terms["blend"]:
        out.append("numeric rescue: kept at 0.95·σ")
    elif terms["floor"] > terms["blend"]:
        out.append(f"semantic floor {cat.floor:.2f}·σ")
    if lc.associated is not None:
        a = lc.associated
        how = "supersedes" if a.hard else "soft update of"
        out.append(f"no slot key: {how} {a.slot} (similarity {a.similarity:.2f} to {a.anchor})")
    if lc.named_by is not None:
        n = lc.named_by
        out.append(
            f"no slot key: a later change statement names it as ended ({n.by}; words "
            f"{', '.join(n.words)}; similarity {n.similarity:.2f})"
        )
    if terms["omega"] < 1.0:
        by = ", ".join(p.by for p in lc.soft_pressures)
        out.append(f"soft update pending from {by}: Ω ×{terms['omega']:.2f}")
    if terms["rho"] < 1.0:
        out.append(f"routing prior ×{terms['rho']:.2f}")
    if terms["mask"] == 0.0:
        out.append("masked for this query intent")
    elif terms["mask"] < 1.0:
        out.append(f"state weight ×{terms['mask']:.2f} for this intent")
    if terms["direction"] == 0.0:
        out.append("event on the wrong side of the query time for this intent")
    return out
