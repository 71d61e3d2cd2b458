"""Whether an earlier turn is the thing a later statement names: by the name's head (issue 11).

A name of several words ("the second shop", "my home country", "the bear tours") is about
the thing its last content word — its head — denotes; the other words only say which one.
An earlier turn that shares a modifier but not the head ("a loving home", "back in a
second") is about something else: one shared word is not enough (LoCoMo dev: "moved from my
home country" superseded a turn about "a loving home"). Change naming
(`workers/lifecycle/change_naming.py`) and retraction retargeting
(`workers/lifecycle/retargeting.py`) both name an earlier turn this way.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence, Set


def words_by_head(named: Iterable[Sequence[str]], said: Set[str]) -> frozenset[str]:
    """The words of each named thing (content words, head last) that `said` (the earlier
    turn's words) contains — only of the things whose head it contains."""
    return frozenset(
        w for words in named if words and words[-1] in said for w in words if w in said
    )
