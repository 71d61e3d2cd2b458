"""Everything in a persona's life that no question is about: the volume that buries the facts
that are asked about (paper C.1 "interleaved noise sessions"; C.4: 18.6 % of slots are
updated at least once, entries in every category).

Background threads use only slots that no scenario reserved, so they never change a
question's ground truth; filler facts have no slot (they compete in nothing).
"""

from __future__ import annotations

from datetime import timedelta

from bench.lifecycle import phrasing_events as ev
from bench.lifecycle.halves import pick
from bench.lifecycle.personas import FIRST_NAMES
from bench.lifecycle.phrasing import STATE_KINDS, Kind, fill
from bench.lifecycle.phrasing_filler import FILLER_KINDS, FILLER_VALUES, FILLER_WEIGHTS
from bench.lifecycle.phrasing_numbers import (
    CHAIN_KINDS,
    SINGLE_KINDS,
    chain_values,
    money,
    single_value,
)
from bench.lifecycle.phrasing_prefs import PREFERENCE_KINDS
from bench.lifecycle.phrasing_sets import SET_KINDS, SPECIES, STABLE_KINDS
from bench.lifecycle.scenarios import (
    chain,
    event_values,
    occurrences,
    pick_kind,
    say,
    stable_value,
    state_values,
)
from bench.lifecycle.timeline import Timeline, last_weekday_before
from bench.tables import load, pools

_DATA = load("bench.lifecycle", "background")
#: Chance that a persona mentions each slot-valued kind at all (everyone lives somewhere).
_STATE_ODDS: dict[str, float] = dict(_DATA["state_odds"])
_STABLE_ODDS: dict[str, float] = dict(_DATA["stable_odds"])
#: Members per accumulating domain: (min, max).
_SET_SIZES: dict[str, tuple[int, int]] = pools(_DATA["set_sizes"])
#: Unasked changes: share of background slots that change once.
CHANGE_ODDS = 0.3


def background(t: Timeline) -> None:
    """Slot-valued state, stable facts, sets, calendar and purchases no question is about."""
    _states(t)
    rng = t.rng
    for name, odds in _STABLE_ODDS.items():
        if f"kind:{name}" not in t.reserved and rng.random() < odds:
            t.reserve(f"kind:{name}")
            kind = STABLE_KINDS[name]
            value = stable_value(t, name)
            say(t, kind, rng.randint(0, t.last), kind.say, kind.gold, {"v": value}, "accumulate")
    for name, (lo, hi) in _SET_SIZES.items():
        if t.reserve(f"kind:{name}"):
            _members(t, name, rng.randint(lo, hi))
    for _ in range(rng.randint(2, 4)):
        calendar = pick_kind(t, ev.EVENT_KINDS)
        if calendar is not None:
            values = event_values(t, calendar)
            occurrences(t, calendar, values, rng.randint(1, 2), rng.random() < 0.25)
    if rng.random() < 0.3:
        plan = pick_kind(t, ev.PLAN_KINDS)
        if plan is not None:
            place = rng.choice(ev.PLAN_PLACES.get(plan.name, ("",)))
            values = {"place": place, "slug": place.lower().replace(" ", "_")}
            t.add(rng.randint(0, t.last), fill(pick(rng, plan.say), **values),
                  fill(plan.gold, **values), plan.category, plan.slot.format(**values),
                  confidence=0.9, tag=plan.name)  # fmt: skip
    _purchases(t, rng.randint(0, 2))


def _states(t: Timeline) -> None:
    p, rng = t.persona, t.rng
    kinds: dict[str, Kind] = {**STATE_KINDS, **PREFERENCE_KINDS, **CHAIN_KINDS}
    for name, odds in _STATE_ODDS.items():
        if f"kind:{name}" in t.reserved or rng.random() >= odds:
            continue
        t.reserve(f"kind:{name}")
        kind = kinds[name]
        n = 2 if kind.change and rng.random() < CHANGE_ODDS else 1
        if name in CHAIN_KINDS:
            values = chain_values(name, n, rng, p.scale, p.currency)
        elif name == "role" and n == 1:
            values = [p.occupation]
        else:
            values = state_values(t, name, n)
        chain(t, kind, values, t.spread(len(values), 0, t.last, gap=4))


def _members(t: Timeline, name: str, n: int) -> None:
    kind, rng = SET_KINDS[name], t.rng
    for v in rng.sample(kind.values, n):
        values = {"v": v, "slug": v.lower().replace(" ", "_"), "species": rng.choice(SPECIES)}
        slot = kind.slot.format(**values)
        start = rng.randint(0, t.last)
        t.add(start, fill(pick(rng, kind.say), **values), fill(kind.gold, **values),
              kind.category, slot, value=v, tag=name)  # fmt: skip
        if start < t.last - 3 and rng.random() < 0.2:
            t.add(rng.randint(start + 3, t.last), fill(pick(rng, kind.stop), **values),
                  fill(kind.gold_stop, **values), kind.category, slot, update="replace",
                  tag=name)  # fmt: skip


def _purchases(t: Timeline, n: int) -> None:
    p, rng = t.persona, t.rng
    kind = SINGLE_KINDS["purchase"]
    used = {f.slot for f in t.facts}
    for _ in range(n):
        values = single_value("purchase", rng, p.scale, p.currency)
        slot = kind.slot.format(**values)
        if slot not in used:
            used.add(slot)
            say(t, kind, rng.randint(0, t.last), kind.say, kind.gold, values, "accumulate")


def filler(t: Timeline, per_session: tuple[int, int] = (3, 7)) -> None:
    """One-off facts in every category, and small talk, in every session."""
    p, rng = t.persona, t.rng
    asked = {q.kind for q in t.questions if q.av == "AV5"}
    kinds = [k for k in FILLER_KINDS if k.domain not in asked]
    weights = [FILLER_WEIGHTS[k.name] for k in kinds]
    for s, start in enumerate(p.sessions):
        for _ in range(rng.randint(*per_session)):
            kind = rng.choices(kinds, weights)[0]
            say_t, gold_t = pick(rng, kind.pairs)
            values = {name: rng.choice(pool) for name, pool in sorted(FILLER_VALUES.items())}
            values["name"] = rng.choice(FIRST_NAMES)
            values["amount"] = money(rng.randint(20, 400), p.scale, p.currency)
            at = None
            if kind.event == "now":
                at = start
            elif kind.event == "past":
                weekday = rng.choice((5, 6))
                at = last_weekday_before(start, weekday)
                values["past"] = rng.choice(
                    ("last Saturday", "last weekend") if weekday == 5 else ("last Sunday",)
                )
            elif kind.event == "future":
                at = (start + timedelta(days=rng.randint(1, 20))).replace(
                    hour=rng.randint(8, 17), minute=0
                )
                values["when"] = ev.when_phrases(start, at, True, rng.randrange(4))[0]
                values["gold_when"] = "on " + ev.gold_when(at, True)
            t.add(s, fill(say_t, **values), fill(gold_t, **values), kind.category, None,
                  event_time=at, numeric=kind.numeric, tag=f"filler:{kind.name}")  # fmt: skip
        t.small_talk[s] = rng.choice((0, 0, 1, 1, 2))
