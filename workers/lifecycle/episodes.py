"""Raw turns and their facts: a raw turn's lifecycle follows the facts extracted from it.

A raw turn (episodic memory, paper Appendix AA) is linked to every fact extracted from it by
the pseudo-slot `EPISODE_PREFIX + fact_id`; when one of those facts is superseded or
retracted, the lifecycle stage re-derives the turn's state with `inherited` — partly
outdated (soft pressure, Model 1) while some of its facts hold, outdated once none does.
Pure functions of the lifecycles: the service (`service.py`) and the bulk path (`bulk.py`)
both call them.
"""

from __future__ import annotations

from schemas.categories import LifecycleState
from schemas.records import Lifecycle, SoftPressure

#: Pseudo-slot linking a fact to the raw turn it was extracted from (reverse index).
EPISODE_PREFIX = "~episode:"


def inherited(own: Lifecycle, facts: list[Lifecycle]) -> Lifecycle:
    """A raw turn's lifecycle from its facts' (paper Appendix AA; docs/architecture.md,
    "Lifecycle state").

    While any of its facts is current, or its facts are unknown, the turn keeps its own
    state — lowered through Ω (Model 1) by the share of its facts that no longer hold: "I run
    bear tours, $2,400 a head" is half outdated once the tours stop. Once every fact is
    superseded or retracted, the turn is no longer current either: retracted if any fact
    was retracted, else superseded, at the latest change.
    """
    if own.state is not LifecycleState.ACTIVE or not facts:
        return own
    if any(f.state is LifecycleState.ACTIVE for f in facts):
        return _partly_outdated(own, facts)
    retracted = [f for f in facts if f.state is LifecycleState.RETRACTED and f.retracted_at]
    if retracted:
        last = max(retracted, key=lambda f: (f.retracted_at, f.retracted_by or ""))
        return own.model_copy(
            update={
                "state": LifecycleState.RETRACTED,
                "retracted_by": last.retracted_by,
                "retracted_at": last.retracted_at,
            }
        )
    superseded = [f for f in facts if f.state is LifecycleState.SUPERSEDED and f.superseded_at]
    if not superseded:
        return own
    last = max(superseded, key=lambda f: (f.superseded_at, f.superseded_by or ""))
    return own.model_copy(
        update={
            "state": LifecycleState.SUPERSEDED,
            "superseded_by": last.superseded_by,
            "superseded_at": last.superseded_at,
        }
    )


def _partly_outdated(own: Lifecycle, facts: list[Lifecycle]) -> Lifecycle:
    """Soft pressure on a raw turn from each of its facts that was superseded or retracted:
    the i-th change (in time order) weighs 1/(n − i), so that Ω is, at any time, the share
    of the turn's n facts still current then."""
    changes = sorted(
        (when, by)
        for f in facts
        for when, by in (
            (f.superseded_at, f.superseded_by)
            if f.state is LifecycleState.SUPERSEDED
            else (f.retracted_at, f.retracted_by),
        )
        if f.state is not LifecycleState.ACTIVE and when is not None and by is not None
    )
    if not changes:
        return own
    n = len(facts)
    pressures = tuple(
        SoftPressure(by=by, at=when, gamma=1 / (n - i)) for i, (when, by) in enumerate(changes)
    )
    return own.model_copy(update={"soft_pressures": (*own.soft_pressures, *pressures)})
