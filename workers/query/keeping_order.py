"""Which of a later pass's demotions the `_keeping` cap takes first (issue 11, AV4).

`WindowRules.settle` asks the window rules again of the ranking their own moves produce
(`latest_value.judge_lifted`); a later pass demotes only while more than `demote_to` of the
first pass's window stand unmoved (`window_rules._keeping`), so where it finds more older
statements than that budget allows, the order it takes them in decides which stays among the
first places. In window order (round 22) the first found is simply the better match to the
question — in a chat the user tells in one register ("…?!" questions, one greeting, one
formula), a remark on another topic ranks beside the middle version of a thrice-changed
value, and the one demotion the cap allows went to the remark (docs/extraction.md, round 26
"Left": the rhetorical-register cap).

Taken instead by how close each demoted candidate is to the newer statement that leads it
(the stored vectors' cosine, the same "about the same thing" reading every pair rule's
`min_cosine` makes): the version nearest its newer one is the surest older version (A.7.3:
for q_cur the newer statement of the same (subject, attribute) key leads; Appendix F's soft
supersession ties the two by that key), a remark that only touches the topic the least sure.
A candidate whose leading statement is not among the candidates (a presser read from the
store) counts as unrelated (cosine −1): the order among those is the window's. Ties keep
window order. A pure function of the candidate set: stored vectors and edge ids decide.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence, Set

import numpy as np


def closeness(
    demoted: str,
    leaders: Set[str],
    vectors: Mapping[str, np.ndarray | None],
) -> float:
    """The largest cosine of a demoted candidate's stored vector to a statement that leads it
    (−1 when either vector is missing)."""
    own = vectors.get(demoted)
    if own is None:
        return -1.0
    found = [float(np.dot(own, v)) for n in sorted(leaders) if (v := vectors.get(n)) is not None]
    return max(found, default=-1.0)


def by_closeness(
    window: Sequence[str],
    fresh: Set[str],
    leaders: Mapping[str, Set[str]],
    vectors: Mapping[str, np.ndarray | None],
) -> list[str]:
    """`window` (edge ids in ranking order) with the newly demoted (`fresh`) ones first,
    nearest their leading statement first (`closeness`), ties in window order; the others
    follow in window order (the cap counts them, it takes only fresh ones)."""
    position = {e: i for i, e in enumerate(window)}
    moved = sorted(
        (e for e in window if e in fresh),
        key=lambda e: (-closeness(e, leaders.get(e, frozenset()), vectors), position[e]),
    )
    return moved + [e for e in window if e not in fresh]
