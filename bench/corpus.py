"""Deterministic synthetic personal facts (`ingest-edges` lines) for `frecall bench query`.

A few users over ~18 months; one heavy user owns most facts, so every query exercises the
per-user filter against a store that also holds other tenants. Facts come in *episodes*
(a slot and its history): replace chains ("moved from Porto to Berlin"), soft updates
("is considering…", confidence 0.4), scheduled events with reschedules and cancellations
(retractions), project stages, and one-off facts, some restated later (near-duplicates).
Each user's facts are split over the 11 categories by `CATEGORY_SHARES`, and ~30 % of all
facts end up superseded. Text is drawn from many templates × entity lists, so BM25 and
dense search see a varied vocabulary (`data/corpus.toml`). Same `seed` (and `end`), same
lines.

Slot keys carry an episode number (`pref.coffee:3`): a store of 35k facts for one person
is not a real life, and bounded slots keep the per-slot work of ingest realistic.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from bench.tables import frozen, load, pools
from schemas.categories import Category

C = Category
CORPUS_END = datetime(2026, 9, 1, tzinfo=UTC)
SPAN = timedelta(days=548)
HEAVY_USER = "ana"
# fmt: off
DEFAULT_USERS: Mapping[str, float] = {"ana": 0.7, "ben": 0.12, "chloe": 0.08, "dmitri": 0.06,
                                      "emeka": 0.04}
CATEGORY_SHARES: Mapping[Category, float] = {
    C.PREFERENCES_HABITS: 0.18, C.LOGISTICAL_CONTEXT: 0.12, C.OBLIGATIONS: 0.10,
    C.HOBBIES_RECREATION: 0.10, C.FINANCIAL_MATERIAL: 0.08, C.RELATIONAL_BONDS: 0.08,
    C.PROJECTS_ENDEAVORS: 0.08, C.INTELLECTUAL_INTERESTS: 0.08, C.HEALTH_WELLBEING: 0.07,
    C.IDENTITY_SELF_CONCEPT: 0.06, C.OTHER: 0.05,
}
#: A second category for soft membership (paper §3.1), e.g. a purchase is also logistics.
_SECONDARY: Mapping[Category, Category] = {
    C.IDENTITY_SELF_CONCEPT: C.RELATIONAL_BONDS, C.RELATIONAL_BONDS: C.IDENTITY_SELF_CONCEPT,
    C.INTELLECTUAL_INTERESTS: C.HOBBIES_RECREATION, C.HOBBIES_RECREATION: C.HEALTH_WELLBEING,
    C.HEALTH_WELLBEING: C.PREFERENCES_HABITS, C.PREFERENCES_HABITS: C.HEALTH_WELLBEING,
    C.PROJECTS_ENDEAVORS: C.INTELLECTUAL_INTERESTS, C.FINANCIAL_MATERIAL: C.LOGISTICAL_CONTEXT,
    C.OBLIGATIONS: C.LOGISTICAL_CONTEXT, C.LOGISTICAL_CONTEXT: C.OBLIGATIONS,
    C.OTHER: C.PREFERENCES_HABITS,
}
# fmt: on

_DATA = load("bench", "corpus")
#: Entity and value lists (cities, employers, drinks, …) the templates draw from.
_W: dict[str, tuple[str, ...]] = pools(_DATA["vocabulary"])

#: Replace semantics need confidence ≥ 0.8, accumulate ones ≥ 0.95 to supersede (Appendix
#: Z): hard updates clear both; soft ones stay below and only lower the old value (Model 1).
HARD = (0.95, 1.0)
SOFT_CONFIDENCE = 0.4


@dataclass(frozen=True, slots=True)
class _Family:
    """Facts of one kind. mode: replace (v changes), stages (x's status changes), event
    (x rescheduled, maybe cancelled), single (one fact, maybe restated later).

    x: the episode's fixed entity; v: the value that changes (a dollar amount or a dose
    when `amount` is set).
    """

    category: Category
    key: str
    mode: str
    first: tuple[str, ...] = ()
    change: tuple[str, ...] = ()
    cancel: tuple[str, ...] = ()
    soft: tuple[str, ...] = ()  # tentative changes ("thinking about moving to …")
    values: tuple[str, ...] = ()
    entities: tuple[str, ...] = ("",)
    amount: tuple[int, int] | None = None
    weight: float = 1.0
    slotted: bool = True


def _family(key: str, row: Mapping[str, Any]) -> _Family:
    """A family of `data/corpus.toml`; `values`/`entities` name a vocabulary list."""
    fields = {name: frozen(value) for name, value in row.items()}
    fields["category"] = Category(row["category"])
    for pool in ("values", "entities"):
        if pool in row:
            fields[pool] = _W[row[pool]]
    return _Family(key=key, **fields)


FAMILIES: tuple[_Family, ...] = tuple(_family(k, row) for k, row in _DATA["families"].items())
_BY_CATEGORY = {c: [f for f in FAMILIES if f.category is c] for c in CATEGORY_SHARES}


def _when(t: datetime) -> str:
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


class _UserFacts:
    """One user's episodes; every random draw comes from the one seeded `rng`."""

    def __init__(self, rng: random.Random, user: str, begin: datetime, end: datetime) -> None:
        self.rng, self.user, self.name = rng, user, user.capitalize()
        self.begin, self.end = begin, end
        self.facts: list[tuple[datetime, dict[str, Any]]] = []
        self._episodes: dict[str, int] = {}

    def _fill(self, template: str, x: str, v: str, o: str, at: datetime) -> str:
        def pick(name: str) -> str:
            return self.rng.choice(_W[name])

        return template.format(
            n=self.name, x=x, v=v, o=o, d=f"{at:%B} {at.day}", t=f"{at:%H:%M}",
            c=pick("cities"), p=pick("people"), w=pick("weekdays"), venue=pick("venues"),
            r=pick("restaurants"), air=pick("airlines"), role=pick("roles"),
            rel=pick("relations"), hobby=pick("hobbies"), topic=pick("topics"),
            car=pick("cars"), commute=pick("commutes"),
        )  # fmt: skip

    def _add(self, fam: _Family, text: str, at: datetime, **fields: Any) -> None:
        r = self.rng
        category: Any = fam.category.value
        if r.random() < 0.25:
            w = round(r.uniform(0.6, 0.85), 2)
            category = {fam.category.value: w, _SECONDARY[fam.category].value: round(1 - w, 2)}
        fact: dict[str, Any] = {
            "user_id": self.user,
            "text": text,
            "category": category,
            "ingest_time": _when(at),
            "edge_id": f"{self.user}-{len(self.facts):06d}",
            "source_turns": [f"{self.user}-{at:%Y%m%d}-t{r.randrange(1, 40)}"],
            "numeric": fam.amount is not None,
        }
        if fam.category in (C.HEALTH_WELLBEING, C.RELATIONAL_BONDS) and r.random() < 0.1:
            fact["emotional_loading"] = round(r.uniform(0.4, 0.8), 2)
        fact.update({k: v for k, v in fields.items() if v is not None})
        self.facts.append((at, fact))

    def _slot(self, fam: _Family) -> str:
        k = self._episodes[fam.key] = self._episodes.get(fam.key, 0) + 1
        return f"{fam.key}:{k}"

    def _start(self, reserve_days: float) -> datetime:
        """A random start that leaves `reserve_days` for the rest of the episode."""
        room = max((self.end - self.begin).total_seconds() - reserve_days * 86400, 0.0)
        return self.begin + timedelta(seconds=self.rng.uniform(0, room))

    def _on_grid(self, day: datetime) -> datetime:
        """A time people book: between 08:00 and 20:00 on the quarter hour."""
        midnight = day.replace(hour=0, minute=0, second=0, microsecond=0)
        return midnight + timedelta(minutes=self.rng.randrange(8 * 60, 20 * 60, 15))

    def _value(self, fam: _Family, old: str) -> str:
        r = self.rng
        if fam.amount is None:
            return r.choice([v for v in fam.values if v != old])
        if fam.key == "health.medication":
            return f"{r.randrange(*fam.amount) // 5 * 5 + 5} mg"
        base = int(old.strip("$").replace(",", "")) * r.uniform(0.85, 1.3) if old else None
        return f"${int(base) if base else r.randrange(*fam.amount):,}"

    def episode(self, fam: _Family) -> None:
        x = self.rng.choice(fam.entities)
        {"single": self._single, "event": self._event}.get(fam.mode, self._chain)(fam, x)

    def _single(self, fam: _Family, x: str) -> None:
        r = self.rng
        at = self._start(60)
        v = self._value(fam, "") if fam.amount else ""
        text = self._fill(r.choice(fam.first), x, v, "", at)
        slot = self._slot(fam) if fam.slotted else None
        update = "accumulate" if slot else None
        self._add(fam, text, at, slot_key=slot, update=update, value=v or None)
        if slot and r.random() < 0.06:
            # Said again weeks later: folded into the first as a repeated mention.
            again = at + timedelta(days=r.uniform(3, 60))
            self._add(fam, text, again, slot_key=slot, update="accumulate")

    def _chain(self, fam: _Family, x: str) -> None:
        r = self.rng
        length = r.choices((1, 2, 3, 4), weights=(0.3, 0.35, 0.22, 0.13))[0]
        gaps = [r.uniform(5, 120) for _ in range(length - 1)]
        at = self._start(sum(gaps) + 40)  # and room for a cancellation
        slot = self._slot(fam)
        old = self._value(fam, "") if fam.mode == "replace" else ""
        text = self._fill(r.choice(fam.first), x, old, "", at)
        self._add(fam, text, at, slot_key=slot, update="replace", value=old or x)
        for gap in gaps:
            at += timedelta(days=gap)
            new = self._value(fam, old) if fam.mode == "replace" else ""
            if fam.soft and r.random() < 0.2:
                text = self._fill(r.choice(fam.soft), x, new, old, at)
                self._add(fam, text, at, slot_key=slot, update="soft", confidence=SOFT_CONFIDENCE)
                continue
            text = self._fill(r.choice(fam.change), x, new, old, at)
            confidence = round(r.uniform(*HARD), 2)
            self._add(fam, text, at, slot_key=slot, update="replace", confidence=confidence,
                      value=new or None)  # fmt: skip
            old = new
        if fam.cancel and r.random() < 0.08:
            self._retract(fam, x, slot, at + timedelta(days=r.uniform(2, 40)), at)

    def _event(self, fam: _Family, x: str) -> None:
        r = self.rng
        at = self._start(80)  # reschedules land before the event, ≤ ~80 days on
        event = self._on_grid(at + timedelta(days=r.uniform(1, 40)))
        slot = self._slot(fam)
        text = self._fill(r.choice(fam.first), x, "", "", event)
        self._add(fam, text, at, slot_key=slot, update="replace", event_time=_when(event))
        for _ in range(r.choices((0, 1, 2), weights=(0.62, 0.3, 0.08))[0]):
            at += (event - at) * r.uniform(0.2, 0.8)
            event = self._on_grid(event + timedelta(days=r.uniform(1, 20)))
            text = self._fill(r.choice(fam.change), x, "", "", event)
            confidence = round(r.uniform(*HARD), 2)
            self._add(fam, text, at, slot_key=slot, update="replace", confidence=confidence,
                      event_time=_when(event))  # fmt: skip
        if fam.cancel and r.random() < 0.12:
            self._retract(fam, x, slot, at + (event - at) * r.uniform(0.1, 0.9), event)

    def _retract(self, fam: _Family, x: str, slot: str, at: datetime, about: datetime) -> None:
        # The cancellation is a fact of its own slot that retracts the plan's slot.
        text = self._fill(self.rng.choice(fam.cancel), x, "", "", about)
        self._add(fam, text, at, slot_key=f"{slot}.cancelled", retracts=[slot])


def _apportion(total: int, shares: Mapping[Any, float]) -> dict[Any, int]:
    """Integer counts proportional to `shares` that sum to `total` (largest remainder)."""
    scale = total / sum(shares.values())
    exact = {k: s * scale for k, s in shares.items()}
    counts = {k: int(v) for k, v in exact.items()}
    by_remainder = sorted(exact, key=lambda k: (counts[k] - exact[k], str(k)))
    for k in by_remainder[: total - sum(counts.values())]:
        counts[k] += 1
    return counts


def generate_facts(
    n: int,
    seed: int = 0,
    users: Mapping[str, float] = DEFAULT_USERS,
    *,
    end: datetime = CORPUS_END,
) -> Iterator[dict[str, Any]]:
    """`n` ingest-edges lines (dicts matching `EdgeInput`) in ingest-time order.

    `users` maps user ids to their share of the facts; the name in the text is the user id
    capitalized. Ingest times span the 18 months before `end`; event times may lie after it.
    """
    rng = random.Random(seed)
    out: list[tuple[datetime, dict[str, Any]]] = []
    for user, count in _apportion(n, users).items():
        gen = _UserFacts(rng, user, end - SPAN, end)
        for category, budget in _apportion(count, CATEGORY_SHARES).items():
            families = _BY_CATEGORY[category]
            weights = [f.weight for f in families]
            have = len(gen.facts)
            while len(gen.facts) - have < budget:
                gen.episode(rng.choices(families, weights=weights)[0])
            # The last episode may overshoot the budget: keep its earliest facts.
            del gen.facts[have + budget :]
        out += gen.facts
    out.sort(key=lambda item: (item[0], item[1]["edge_id"]))
    for _, fact in out:
        yield fact


#: Questions by intent; {n} is the user's name, the other placeholders draw from `_W`.
_QUERIES: Mapping[str, tuple[str, ...]] = pools(_DATA["queries"])
_QUERY_MIX = {"current": 0.5, "historical": 0.2, "upcoming": 0.15, "past": 0.1, "cancelled": 0.05}
#: Placeholder of the questions → the vocabulary list it draws from.
_QUERY_FILLERS: Mapping[str, str] = dict(_DATA["query_fillers"])


def generate_queries(n: int, seed: int = 0, user: str = HEAVY_USER) -> list[str]:
    """`n` questions about `user`'s facts: current, historical ("used to", "before"),
    upcoming, past and cancelled phrasings, filled from the corpus's own vocabulary."""
    rng = random.Random(seed)
    kinds, weights = list(_QUERY_MIX), list(_QUERY_MIX.values())
    out = []
    for _ in range(n):
        template = rng.choice(_QUERIES[rng.choices(kinds, weights=weights)[0]])
        fill = {k: rng.choice(_W[v]) for k, v in _QUERY_FILLERS.items()}
        out.append(template.format(n=user.capitalize(), **fill))
    return out
