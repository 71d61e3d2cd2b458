"""Facts that accumulate (AV5 broad aggregation) and stable identity (AV3).

AV5 asks for *all* current members of a set ("all of X's hobbies", Table 12); members the
user gave up must not be served as current. AV3 facts are said once, early, and must be
found under months of later conversation (paper Appendix K: "AV3 tradeoff").
"""

from __future__ import annotations

from dataclasses import dataclass

from bench.lifecycle.phrasing import Kind
from bench.tables import load, pools, records
from schemas.categories import Category


@dataclass(frozen=True, slots=True)
class SetKind:
    """A domain of accumulating members; one slot per member ({slug})."""

    name: str
    category: Category
    slot: str
    gold: str
    gold_stop: str
    say: tuple[str, ...]
    stop: tuple[str, ...]
    ask: tuple[str, ...]
    values: tuple[str, ...]


_DATA = load("bench.lifecycle", "sets")
#: Hobbies, languages being learnt, interests, pets (`data/sets.toml`).
SET_KINDS: dict[str, SetKind] = records(SetKind, _DATA["sets"])
SPECIES: tuple[str, ...] = tuple(_DATA["species"])
#: Hometown, nationality, family, allergies, … : said once, asked much later.
STABLE_KINDS: dict[str, Kind] = records(Kind, _DATA["stable"])
#: Values of the stable kinds that are not the persona's own (names are drawn elsewhere).
STABLE_VALUES: dict[str, tuple[str, ...]] = pools(_DATA["stable_values"])
