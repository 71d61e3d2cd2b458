"""`finditer` of an alternation in linear time, for branches that look far ahead.

A branch with an unanchored lazy stretch before a fixed phrase ("<val> is my thing", "I <verb>
<val> every day") costs `finditer` quadratic time on a long clause: from every start it scans
to the end of the clause for the phrase, and finds none (review r16, H1: 100 kB turns took up
to two minutes). Here such a branch is searched phrase first: the phrase's positions are found
once, and the branch is tried only at a start that has one ahead in the same stretch (no stop
character between).

`leftmost` yields exactly what `finditer` of the whole alternation yields — at each step the
leftmost match, the earlier branch on a tie, the next search from its end — from one search
per branch; `only` compiles one branch so that its matches carry the alternation's groups.
The extraction diff of round 17 (every development and validation user turn, the generator
halves, LoCoMo dev) found no fact and no draft that differs.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Container, Iterator, Sequence

#: One branch's leftmost match at or after a position of the text, or None.
Search = Callable[[int], re.Match[str] | None]


def only(branches: Sequence[str], keep: Container[int], flags: int) -> re.Pattern[str]:
    """`"|".join(branches)` with every branch not in `keep` made to fail at once: its matches
    have the groups (names and numbers) of the whole alternation."""
    return re.compile(
        "|".join(b if i in keep else f"(?!){b}" for i, b in enumerate(branches)), flags
    )


def leftmost(searches: Sequence[Search]) -> Iterator[re.Match[str]]:
    """The matches `finditer` of the alternation of these branches (in this order) yields.

    A branch's match found for an earlier position stays its leftmost while it starts at or
    after the current one (where a match is does not depend on where the search began: `\\b`
    and look-behinds read the whole text), so each branch is searched again only when it is
    overtaken. The branches never match empty.
    """
    found: list[re.Match[str] | None] = [None] * len(searches)
    searched = [False] * len(searches)
    pos = 0
    while True:
        best: re.Match[str] | None = None
        for i, search in enumerate(searches):
            m = found[i]
            if not searched[i] or (m is not None and m.start() < pos):
                m = found[i] = search(pos)
                searched[i] = True
            if m is not None and (best is None or m.start() < best.start()):
                best = m
        if best is None:
            return
        if best.end() <= best.start():
            raise ValueError(f"empty match of {best.re.pattern!r}")
        yield best
        pos = best.end()


class Gated:
    """`branch`'s leftmost match at or after a position, tried only where it can end.

    `starts` finds where the branch may begin; `gate` finds the phrase it must reach, every
    match of which lies inside a match of the branch's own phrase (a subset of where that
    phrase may begin is enough). A start is tried only when a gate lies after it and before the
    next `stop` character, which the branch's stretch cannot cross; a stretch with no gate
    left is skipped whole. The caller's branch must then rarely fail where a gate allows it.
    """

    def __init__(
        self,
        text: str,
        branch: re.Pattern[str],
        starts: re.Pattern[str],
        gate: re.Pattern[str],
        stop: re.Pattern[str],
    ) -> None:
        self._text = text
        self._branch = branch
        self._starts = starts
        self._gate = gate
        self._stop = stop
        #: Where the gates and the stops are: found at the first start (most clauses have none).
        self._marks: tuple[list[int], list[int]] | None = None

    def _found_marks(self) -> tuple[list[int], list[int]]:
        if self._marks is None:
            text = self._text
            self._marks = (
                [m.start() for m in self._gate.finditer(text)],
                [m.start() for m in self._stop.finditer(text)],
            )
        return self._marks

    def __call__(self, pos: int) -> re.Match[str] | None:
        text = self._text
        while (m := self._starts.search(text, pos)) is not None:
            gates, stops = self._found_marks()
            start = m.start()
            i = bisect_left(stops, start)
            end = stops[i] if i < len(stops) else len(text)
            j = bisect_right(gates, start)
            if j == len(gates) or gates[j] >= end:
                pos = max(end, start + 1)  # no gate left in this stretch
                continue
            if (found := self._branch.match(text, start)) is not None:
                return found
            pos = start + 1
        return None
