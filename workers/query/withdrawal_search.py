"""A withdrawal found from its plan: the user's later word giving up a plan the question
ranks high, when that word itself ranks below the window (issue 11, AV7; `withdrawn.py`).

`withdrawn.py` reads the withdrawals among the question's first candidates. A question about
the plan ("which trail am I getting ready to walk?") matches the plan's words, and the turn
that gave it up ("X is off. I'm not doing it, Y broke her ankle") may rank far below: then
the plan is served as current though the user withdrew it (§3.3, A.9: a retracted plan's M_q
is 0). Round 18 left this class out ("withdrawals found beyond the top 10 by searching from
the plan"). Here, for a question about now or ahead, each raw turn among the first
`from_plans` candidates is a possible plan: the user's statements nearest it (the same exact
search, `targets` of them, told up to the question) that are about the same thing (cosine at
least `min_cosine`), raw turns told at least `min_gap_hours` after it and read as the user's
own withdrawal — by the probe or an asserted dismissal (`withdrawal_turns.own_reading`; not
the ingest's misread markers) — join the window's withdrawals. Each then meets every gate a
window withdrawal meets (its target is the user's live assertion nearest *it*, sharing its
topic; the user's newest word decides), so a withdrawal found this way withdraws only what it
would have withdrawn had it ranked. A pure function of the edge set, the question's ranking
and as_of; ties by edge id.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta

import numpy as np

from schemas.policy import WithdrawnPolicy
from workers.query.candidates import MergedCandidate
from workers.query.withdrawal_turns import PROBE, Nearest, Probability, own_reading

#: How a withdrawal found from its plan is sourced (`MergedCandidate.sources`).
SOURCE = "withdrawal-search"


def found_from_plans(
    window: Sequence[MergedCandidate], as_of: datetime, probability: Probability,
    rule: WithdrawnPolicy, nearest: Nearest,
) -> list[tuple[MergedCandidate, float, str | None]]:  # fmt: skip
    """The user's own withdrawals told after a raw turn among the window's first `from_plans`
    and nearest it, that are not in the window themselves, oldest first (ties by edge id):
    (the withdrawal as a candidate, the probe's probability, its dismissal family or None)."""
    if rule.from_plans <= 0:
        return []
    gap = timedelta(hours=rule.min_gap_hours)
    in_window = {m.record.edge_id for m in window}
    found: dict[str, tuple[MergedCandidate, float, str | None]] = {}
    for plan in window[: rule.from_plans]:
        edge = plan.record.edge
        if not edge.episodic or plan.vector is None or edge.ingest_time > as_of:
            continue
        for hit in nearest(plan.vector, as_of):
            later = hit.record.edge
            if (
                hit.dense is None
                or not later.episodic
                or later.edge_id in in_window
                or later.edge_id in found
                or later.ingest_time < edge.ingest_time + gap
                or later.ingest_time > as_of
            ):
                continue
            vector = np.asarray(hit.dense)
            if float(np.dot(plan.vector, vector)) < rule.min_cosine:
                continue  # not about the same thing as the plan searched from
            p = probability(vector)
            reading = own_reading(later.text, p, rule)
            if reading is None:
                continue
            candidate = MergedCandidate(hit.record, 0.0, (SOURCE,), vector)
            found[later.edge_id] = (candidate, p, None if reading == PROBE else reading)
    return sorted(found.values(), key=lambda x: (x[0].record.edge.ingest_time, x[0].record.edge_id))
