"""Everyday conversation volume: one-off facts in every category, small talk, and the
assistant's replies. Nothing here is asked about; it is what buries the facts that are
(paper Appendix C.1: "interleaved noise sessions", AV3 "buried under conversation volume").

Each filler kind pairs ≥ 5 utterances with their gold statements (`pairs`); `event` says how
its event-time anchor relates to the moment it is said.
"""

from __future__ import annotations

from dataclasses import dataclass

from bench.tables import load, pools, record
from schemas.categories import Category


@dataclass(frozen=True, slots=True)
class FillerKind:
    name: str
    category: Category
    #: AV5 domain it would add members to (skipped when that domain is asked about).
    domain: str
    pairs: tuple[tuple[str, str], ...]
    #: None, "now" (acute, anchored at the telling), "past" (days before), "future".
    event: str | None = None
    numeric: bool = False


_DATA = load("bench.lifecycle", "filler")
#: Friends, family, errands, meals, … (`data/filler.toml`); `pairs` as (say, gold).
FILLER_KINDS: tuple[FillerKind, ...] = tuple(
    record(FillerKind, name, {**row, "pairs": [(p["say"], p["gold"]) for p in row["pairs"]]})
    for name, row in _DATA["filler"].items()
)
#: Category shares of filler, close to the paper's corpus (C.4: Projects 20.7 %, Relational
#: 16.9 %, Obligations 14.2 % the three most frequent; OTHER ≈ 0).
FILLER_WEIGHTS: dict[str, float] = dict(_DATA["weights"])
FILLER_VALUES: dict[str, tuple[str, ...]] = pools(_DATA["filler_values"])
#: User turns without a fact (questions, thanks): the extractor must keep them out.
SMALL_TALK: tuple[str, ...] = tuple(_DATA["turns"]["small_talk"])
ASSISTANT: tuple[str, ...] = tuple(_DATA["turns"]["assistant"])
