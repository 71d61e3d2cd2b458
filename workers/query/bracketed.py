"""A version told between an older one the window rules moved down and the newer one that
leads it is an older version too (issue 11, round 20).

A slot changed twice (AV4, paper C.5) is often told as three turns the extractor keys
differently or not at all: the window rules tie the oldest to the newest (a newer raw turn
about the same thing, `newer_statements.py`; the attribute probe, `latest_value.py`; a firm
newer value of the slot, `pressed_values.py`; a replaced sibling, `outdated_siblings.py`),
while the middle one — no fact under the slot, worded unlike the newest, or matching the
question better — is tied to nothing and stays in the top 5 (docs/extraction.md, "Round 19
(r19-av4)"). The paper keeps every version and orders them when the question is asked: for
a current question the newest leads every older one (A.7.3, Eq. 37–39; a soft update keeps
both, not equal, Appendix F).

The rule, reading no wording: a candidate among the first `shown` that no rule moved, with no
slot key of its own (a raw turn or an unkeyed fact: a keyed fact's versions are its slot's
business, and a keyed value is never demoted by `latest_value` either), is *bracketed* by a
moved pair — an older statement `d` and the newer `n` that leads it, tied by one single-valued
attribute or slot (`latest_value`'s probe attribute, `pressed_values`' and
`outdated_siblings`' slot key; the query-time stand-in for "two versions of one
replace-semantics slot", Table 1 / A.7.1) — when

* it was told at least `min_gap_hours` after `d` and before `n` (each in another session,
  Appendix G's session clock: measured, a turn of `d`'s own LoCoMo session bracketed by a
  later one was the evidence more often than a version), as far as the question can know
  (`mentioned_as_of`), and `n` was told by `as_of`;
* it is about `d`'s thing: their stored vectors' cosine at least `min_cosine`;
* and about nothing else more: of every other candidate of the window (its own turn's
  records aside), the nearest to it is `d` or `n` — the chain's versions, not another topic
  the user talks about.

It then ranks from `demote_to` on with its reason in `why`, as the pair's older member does.
One step, no fixpoint: a bracketed candidate brackets nothing further. A pure function of the
window, the moved pairs and as_of (stored vectors and times decide; ties by newest `n`, then
edge id), so order-independence and replay hold as for the other window rules.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

import numpy as np

from schemas.categories import Intent
from schemas.policy import BracketedVersionsPolicy
from workers.query.candidates import MergedCandidate
from workers.query.pressed_values import mentioned_as_of


@dataclass(frozen=True, slots=True)
class Bracketed:
    """A candidate told between `older` (moved down) and `newer`, which leads it."""

    older: str
    newer: str
    cosine: float


def _shares_turn(a: MergedCandidate, b: MergedCandidate) -> bool:
    """One turn's records (a fact and its verbatim raw turn) are one statement, not two."""
    ea, eb = a.record.edge, b.record.edge
    return (
        ea.edge_id in eb.episodic_of
        or eb.edge_id in ea.episodic_of
        or not set(ea.source_turns).isdisjoint(eb.source_turns)
    )


def _nearest(c: MergedCandidate, window: Sequence[MergedCandidate]) -> set[str]:
    """The edge ids of the window candidates nearest `c` (ties all kept), its own turn aside."""
    assert c.vector is not None
    scored = [
        (float(np.dot(c.vector, m.vector)), m.record.edge_id)
        for m in window
        if m is not c and m.vector is not None and not _shares_turn(c, m)
    ]
    if not scored:
        return set()
    top = max(s for s, _ in scored)
    return {i for s, i in scored if s == top}


def demotions(
    intent: Intent,
    window: Sequence[MergedCandidate],
    moved: Mapping[str, str],
    as_of: datetime,
    rule: BracketedVersionsPolicy,
    shown: int = 5,
) -> dict[str, Bracketed]:
    """Edge id → the moved pair bracketing it, for the candidates among the first `shown` of
    `window` that no rule moved. `moved`: older edge id → the edge id of the newer statement
    that leads it (only pairs whose both members are in `window` count: their times and
    vectors are what the test reads)."""
    if not rule.enabled or intent is not Intent.CURRENT or not moved:
        return {}
    by_id = {m.record.edge_id: m for m in window}
    pairs = [
        (by_id[d], by_id[n])
        for d, n in sorted(moved.items())
        if d in by_id and n in by_id and by_id[d].vector is not None
    ]
    gap = timedelta(hours=rule.min_gap_hours)
    out: dict[str, Bracketed] = {}
    for c in window[:shown]:
        cid = c.record.edge_id
        if cid in moved or c.vector is None or c.record.edge.slot_key is not None:
            continue
        told = mentioned_as_of(c.record, as_of)
        nearest: set[str] | None = None
        found: list[tuple[datetime, str, Bracketed]] = []
        for d, n in pairs:
            older, newer = d.record.edge, n.record.edge
            if (
                c is d
                or c is n
                or _shares_turn(c, d)
                or _shares_turn(c, n)
                or c.record.edge.ingest_time - older.ingest_time < gap
                or newer.ingest_time > as_of
                or newer.ingest_time - told < gap
            ):
                continue
            assert d.vector is not None
            cosine = float(np.dot(c.vector, d.vector))
            if cosine < rule.min_cosine:
                continue
            nearest = _nearest(c, window) if nearest is None else nearest
            if not nearest & {older.edge_id, newer.edge_id}:
                continue
            found.append(
                (newer.ingest_time, newer.edge_id, Bracketed(older.edge_id, newer.edge_id,
                                                             round(cosine, 2)))
            )  # fmt: skip
        if found:
            out[cid] = max(found, key=lambda f: (f[0], f[1]))[2]
    return out


def explain(bracketed: Bracketed) -> str:
    return (
        f"told between an older version ({bracketed.older}, cosine {bracketed.cosine:.2f}, "
        f"nearest of the candidates) and the newer statement that leads it "
        f"({bracketed.newer}): a middle version, outdated too for current questions"
    )
