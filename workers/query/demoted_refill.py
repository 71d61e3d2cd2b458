"""In which order the window rules' demoted candidates refill the first places (issue 11, AV4).

The window rules move candidates down to rank `demote_to` or later, never out of the window
(`latest_value.reorder`). Where fewer than `demote_to` candidates stay unmoved, the demoted
block refills the first places, and its order decides which of them is served there. The
demotions are not equally sure:

* a *paired* demotion names one newer statement of the same thing — a later raw turn about
  what the question asks, close to this candidate by the vectors (`newer_statements`; not a
  pressing made only because the newer turn is shown close to it, σ waived: below the bar of
  its gates such a turn is as often a later remark on the topic, round 23), a firm newer value
  of its slot (`pressed_values`), a replaced sibling (`outdated_siblings`), or a middle
  version between such a pair (`bracketed`). The two are versions of one thing:
  of two versions the newer leads a current question (A.7.3, Eq. 37–39), and the newer one
  is in the window;
* an *attribute-only* demotion (`latest_value`: the probe reads the candidate near the asked
  attribute and some later statement as the newest of it; `lasting_states`) names no such
  pair: the chatter of a conversation about work or a home is read near the attribute as
  often as an older value is (a parking permit, "yes send, thanks").

So the paired refill the first places last: an older version whose own newer version is in
the window is the one candidate of the block surely outdated for a current question, and
the rest keep the order they had (newest first where `demoted_newest_first` applies). Inside
the paired, a candidate goes after the statement that pressed it when both are demoted (a
chain v1 → v2 → v3 where v3's demotion of v2 lifted v1 back above it: v1 still follows
v2). Only the order inside the demoted block changes: what the window holds (pass at 10) is
what it was. The caller (`WindowRules.settle`) asks it only for a question that asks which
value holds now, as `demoted_newest_first`: ungated it cost LoCoMo dev recall@5 (round 25). A
pure function of the positions, the pairs and the order given.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import datetime


def order(
    moved: Sequence[int],
    told: Callable[[int], datetime] | None = None,
    paired: Mapping[int, frozenset[int]] | None = None,
) -> list[int]:
    """The demoted positions `moved` (in ranking order) in the order they refill the first
    places: newest first given `told` (stable for ties), and, given `paired` (a paired
    demoted position → the positions of the newer statements that pressed it), the paired
    after the attribute-only ones and each after its pressers demoted with it."""
    out = list(moved)
    if told is not None:
        out.sort(key=told, reverse=True)
    if not paired:
        return out
    free = [i for i in out if i not in paired]
    pending = [i for i in out if i in paired]
    placed: list[int] = []
    while pending:
        # The first pending one none of whose pressers waits behind it; a cycle (two
        # statements each told later than the other as of different questions cannot be,
        # but ties of ingest time can) falls back to the order given.
        waiting = set(pending)
        nxt = next((i for i in pending if not (paired[i] - {i}) & waiting), pending[0])
        placed.append(nxt)
        pending.remove(nxt)
    return free + placed
