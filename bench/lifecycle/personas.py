"""Synthetic personas for the lifecycle benchmark (paper Appendix C.1, C.3).

The paper's 40 personas span 14 nationalities, ages 22–68 and occupations "from electrician
to hospice chaplain"; each is a temporal state machine over ~35 sessions in ~18 months.
Ours are drawn from the pools of `data/personas.toml` by a seeded `random.Random`, so
(index, seed) always gives the same person. Diversity matters for the same reason as in the
paper (C.1): a memory policy must not depend on who is talking.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from bench.tables import load, pools, records


@dataclass(frozen=True, slots=True)
class Nation:
    """Where a persona comes from: names and towns to draw, and the currency zone it lives
    in unless it moved abroad (C.3: Priya, Tamil-American, lives in Austin)."""

    name: str
    adjective: str
    language: str
    home_zone: str
    first_names: tuple[str, ...]
    last_names: tuple[str, ...]
    towns: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Zone:
    """A currency zone: moves stay inside one, so amounts keep one currency (rent in London
    is in pounds). `scale`: local amount of one USD (rent in yen is not rent in dollars)."""

    name: str
    symbol: str
    scale: float
    cities: tuple[str, ...]


_DATA = load("bench.lifecycle", "personas")
#: 16 nationalities (C.1 has 14), in the order personas cycle through them.
_NATIONS: dict[str, Nation] = records(Nation, _DATA["nations"])
#: Occupation → sector; the sector picks plausible employers (a chaplain does not work at a
#: game studio). Occupations follow C.1's range.
_OCCUPATIONS: dict[str, str] = dict(_DATA["occupations"])
EMPLOYERS: dict[str, tuple[str, ...]] = pools(_DATA["employers"])
ZONES: dict[str, Zone] = records(Zone, _DATA["zones"])
FIRST_NAMES: tuple[str, ...] = tuple(_DATA["names"]["any"])
#: For family members a name should fit the relation (a mother called Jonah reads oddly).
FEMALE_NAMES: tuple[str, ...] = tuple(_DATA["names"]["female"])
MALE_NAMES: tuple[str, ...] = tuple(_DATA["names"]["male"])


@dataclass(frozen=True, slots=True)
class Persona:
    """Who is talking: fixed attributes plus the timeline's frame (sessions, query time)."""

    pid: str
    name: str
    age: int
    nationality: str
    language: str
    currency: str
    #: USD → local amounts (rent in yen is not rent in dollars).
    scale: float
    #: The cities of the persona's zone: where it lives and may move to.
    cities: tuple[str, ...]
    hometown: str
    city: str
    occupation: str
    sector: str
    employer: str
    start: datetime
    sessions: tuple[datetime, ...]
    as_of: datetime

    @property
    def user_id(self) -> str:
        return self.pid


#: The paper's personas span ~35 sessions over 14.95–18.53 simulated months (C.4).
SESSIONS = 35
_EPOCH = datetime(2024, 1, 8, tzinfo=UTC)


def _session_times(rng: random.Random, start: datetime, days: int) -> tuple[datetime, ...]:
    """35 session starts over `days`: the first at `start`, the last at the end, in order;
    sessions are at least two days apart so a session stays one sitting."""
    offsets = sorted(rng.sample(range(2, days - 1), SESSIONS - 2))
    picked = [0]
    for off in offsets:
        picked.append(max(off, picked[-1] + 2))
    picked.append(max(days, picked[-1] + 2))
    return tuple(
        start + timedelta(days=d, hours=rng.randint(8, 21), minutes=rng.choice((0, 15, 30, 45)))
        for d in picked
    )


def make_persona(index: int, rng: random.Random) -> Persona:
    code = (
        list(_NATIONS)[index % len(_NATIONS)]
        if index < len(_NATIONS)
        else rng.choice(list(_NATIONS))
    )
    nation = _NATIONS[code]
    zone = ZONES[nation.home_zone if rng.random() < 0.7 else rng.choice(sorted(ZONES))]
    occupation = rng.choice(sorted(_OCCUPATIONS))
    sector = _OCCUPATIONS[occupation]
    age = rng.randint(22, 68)
    if occupation == "environmental science student":
        age = rng.randint(20, 26)
    start = _EPOCH + timedelta(days=rng.randint(0, 300))
    days = rng.randint(455, 563)  # ≈ 14.95–18.5 months, as in C.4
    sessions = _session_times(rng, start, days)
    as_of = (sessions[-1] + timedelta(days=1)).replace(hour=12, minute=0)
    return Persona(
        pid=f"p{index:02d}",
        name=f"{rng.choice(nation.first_names)} {rng.choice(nation.last_names)}",
        age=age,
        nationality=nation.adjective,
        language=nation.language,
        currency=zone.symbol,
        scale=zone.scale,
        cities=zone.cities,
        hometown=rng.choice(nation.towns),
        city=rng.choice(zone.cities),
        occupation=occupation,
        sector=sector,
        employer=rng.choice(EMPLOYERS[sector]),
        start=start,
        sessions=sessions,
        as_of=as_of,
    )
