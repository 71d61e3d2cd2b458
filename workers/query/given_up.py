"""A question about what was given up is answered by the plan its withdrawal names (issue 11,
AV7; round 24).

"What did I give up on?" reads CANCELLED (`intent.py`, round 18). The withdrawal turn ranks
high for it — it says "given up", "forget that plan" — but the plan it withdraws, told months
before in a turn about something else as well, may rank far below the window: the answer
names the withdrawal and not what was withdrawn (A.9: the retracted plan is what a question
about cancelled plans admits; LifecycleBench C.5 counts the plan's turn as gold). The plan is
found as `withdrawn.py` finds it for a current question — the same reading of the window's
withdrawals, the same target, the same "the user's newest word decides" — and, instead of
leaving the served top k, each of its candidates ranked past the window moves up to just
after its withdrawal. Nothing else moves; a plan already in the window stays where it is. A
pure function of the ranking and the withdrawals' reading (`withdrawn.withdrawn`, `lift`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from workers.query.candidates import MergedCandidate
from workers.query.withdrawn import Withdrawn


def lift(
    served: Sequence[int], merged: Sequence[MergedCandidate], found: Mapping[str, Withdrawn],
    window: int,
) -> tuple[list[int], dict[str, str]]:  # fmt: skip
    """`served` with each candidate of `found` ranked past the first `window` moved to just
    after its withdrawal (`Withdrawn.by`), if that withdrawal is in the window; and edge id →
    the withdrawal that lifted it."""
    place = {merged[i].record.edge_id: n for n, i in enumerate(served)}
    lifted: dict[int, str] = {}
    for n, i in enumerate(served):
        w = found.get(merged[i].record.edge_id)
        if w is not None and n >= window and place.get(w.by, window) < window:
            lifted[i] = w.by
    if not lifted:
        return list(served), {}
    out: list[int] = []
    for i in served:
        if i in lifted:
            continue
        out.append(i)
        by = merged[i].record.edge_id
        out.extend(j for j in served if lifted.get(j) == by)
    return out, {merged[i].record.edge_id: by for i, by in lifted.items()}


def explain(by: str) -> str:
    return (
        f"lifted: the plan a window withdrawal gives up ({by}), for a question about what was "
        "given up"
    )
