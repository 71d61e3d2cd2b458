"""Raw turns (Appendix AA) that announce no pending plan: scored as unclassified text.

Shared by the query path (`workers/query/candidates.py`: the scorer's view of a raw turn)
and compaction (an expired raw turn is archived): both must agree on which raw turns have
an event that expires.
"""

from __future__ import annotations

from datetime import timedelta

from schemas.events import EdgeEvent
from schemas.policy import Policy
from scorer.context import EVENT_TIME_MEMBERSHIP

#: How long before the moment it was said an event must lie to have been told after it
#: happened: a whole day, so that a date-only "today" (midnight) is still a plan, and
#: "yesterday" (the statement's time less 24 h) is history.
TOLD_AFTER_MARGIN = timedelta(hours=24)


def told_after(edge: EdgeEvent, policy: Policy) -> bool:
    """Whether an edge's event anchor was already past when it was stated, in categories
    whose anchors are plans (`told_after_is_history`: Obligations, Logistics).

    Event-time validity and expiry are about what is pending: "deadlines increase in
    activation as they approach, then expire after passing" (§3.3; Table 1: "Flight at
    6am tomorrow" → expires). "Last week I went to a conference" or "I won my fourth
    tournament on Friday" never was pending: it is a record of what happened, no less
    true months later, and a question about it ("What passion connects him with people
    from all over the world?") is not answered by masking it. Health is not among them:
    its anchors are onsets ("down with the flu since yesterday"), and an acute condition
    expires after its buffer however it was told (Table 1: "Flu resolves").

    Only raw turns use it (`scored_as_other`): an extracted fact keeps its anchor and
    expires — "Ana had a dentist appointment on January 31", told a month later, must not
    answer "When is Ana's next dentist visit?" (paper cases: with facts included, that
    held-out phrasing served it first, stale).
    """
    event = edge.event_time
    if event is None or event > edge.ingest_time - TOLD_AFTER_MARGIN:
        return False
    membership = sum(
        w for c, w in edge.categories.items() if policy.category(c).told_after_is_history
    )
    return membership >= EVENT_TIME_MEMBERSHIP


def scored_as_other(edge: EdgeEvent, policy: Policy) -> bool:
    """Whether a fact is scored with OTHER's dynamics (decay, α, floor, routing) rather
    than its own categories': a raw turn that announces no plan (no event anchor), under
    the policy's `raw_turn_dynamics: "other"`.

    A raw turn is the fallback text for what extraction missed (Appendix AA): the facts
    taken from it carry their own categories' dynamics, while the rest of what it says is
    unclassified — a chatty turn that mentions one trip is not a logistics fact that loses
    40 % of its score in a few days. Its state (superseded, retracted, expired with its
    plan) still follows its facts' (docs/architecture.md, "Lifecycle state"). A turn that
    told its event after it happened (`told_after`) announces no plan either: unanchored,
    it does not expire, and compaction does not archive it as expired.
    """
    return (
        policy.raw_turn_dynamics == "other"
        and edge.episodic
        and (edge.event_time is None or told_after(edge, policy))
    )
