"""Two years of one heavy user's facts for `frecall bench growth` (paper Appendix L).

Built from the query benchmark's generator (`bench.corpus`: templates over all 11
categories, replace chains with soft updates, scheduled events with reschedules and
cancellations, project stages, accumulating one-off facts and restatements), with two
changes that matter for store growth:

* **Any span, even density.** `generate_facts` covers 548 days, but its first and last
  months are thin (episodes start uniformly and reserve room for their later facts). Spans
  are tiled with independent windows (ids and slot keys made distinct per window) of which
  only the middle `SPAN - 2·MARGIN` days are kept, so activity is level over the span.
* **Attributes, not episodes.** The corpus gives every replace episode its own slot
  (`pref.coffee:3`), so every episode leaves a current value behind. A person has a few
  coffee habits, not hundreds: here `REPLACE_GROUP` consecutive episodes of a replace kind
  share one slot, so their values supersede each other into one long chain (bounded, so
  the per-slot work of ingest stays realistic). Events, projects and one-off facts keep one
  slot each: every appointment, trip and friend is a thing of its own.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

from bench.corpus import FAMILIES, SPAN, generate_facts, generate_queries

USER = "ana"
#: The simulated period ends here (fixed, so runs are comparable); it starts `days` before.
END = datetime(2026, 11, 30, tzinfo=UTC)
#: Replace episodes per shared slot (our choice: ~8 episodes ≈ 18 values per attribute).
REPLACE_GROUP = 8
#: Thin edges of a generated window that are left out (measured: the density of a 548-day
#: window ramps up over its first ~4 months and down over its last ~4).
MARGIN = timedelta(days=120)
_REPLACE_KEYS = frozenset(f.key for f in FAMILIES if f.mode == "replace")
_SLOT = re.compile(r"^(?P<key>[^:]+):(?P<n>\d+)(?P<rest>.*)$")


def _parse_time(raw: str) -> datetime:
    return datetime.strptime(raw, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC)


def _slot(raw: str, window: int) -> str:
    match = _SLOT.match(raw)
    if match is None:
        return f"{raw}@w{window}"
    key, n = match["key"], int(match["n"])
    if key in _REPLACE_KEYS:
        n = (n - 1) // REPLACE_GROUP
    return f"{key}:{n}@w{window}{match['rest']}"


def life(n: int, days: int, seed: int, end: datetime = END) -> list[dict[str, Any]]:
    """`n` (or a few fewer) `ingest-edges` lines of `USER` over the `days` before `end`,
    in time order."""
    per_window = max(1, round(n * SPAN.days / days))
    got = _tiled(per_window, days, seed, end)
    if got and len(got) != n:
        # The kept middle of a window is denser than its average: one proportional correction.
        got = _tiled(math.ceil(per_window * n / len(got)), days, seed, end)
    if len(got) > n:
        # Thin evenly over time, so the density stays level.
        drop = {round(i * len(got) / (len(got) - n)) for i in range(len(got) - n)}
        got = [f for i, f in enumerate(got) if i not in drop][:n]
    return got


def _tiled(per_window: int, days: int, seed: int, end: datetime) -> list[dict[str, Any]]:
    start = end - timedelta(days=days)
    kept = SPAN - 2 * MARGIN
    windows = max(1, math.ceil(days / kept.days))
    out: list[dict[str, Any]] = []
    for w in range(windows):
        high = end - w * kept
        low = max(high - kept, start)
        for fact in generate_facts(per_window, seed + w, {USER: 1.0}, end=high + MARGIN):
            if not low <= _parse_time(fact["ingest_time"]) < high:
                continue
            fact = {**fact, "edge_id": f"{fact['edge_id']}-w{w}"}
            if fact.get("slot_key"):
                fact["slot_key"] = _slot(fact["slot_key"], w)
            if fact.get("retracts"):
                fact["retracts"] = [_slot(s, w) for s in fact["retracts"]]
            out.append(fact)
    out.sort(key=lambda f: (f["ingest_time"], f["edge_id"]))
    return out


def until(facts: list[dict[str, Any]], when: datetime) -> Iterator[dict[str, Any]]:
    """The facts stated at or before `when` (facts are in time order)."""
    for fact in facts:
        if _parse_time(fact["ingest_time"]) > when:
            return
        yield fact


def questions(n: int, seed: int) -> list[str]:
    """The same `n` questions at every checkpoint (current, historical, upcoming, past,
    cancelled phrasings about the user)."""
    return generate_queries(n, seed, USER)
