"""How people state a fact, change it, hedge it, and ask about it (text track, issue 5).

Every kind of fact has at least five natural phrasings for each thing that can happen to it
(first statement, explicit change, implicit mention, hedge, commitment, decision against), so
the conversation is not a template echo and an extractor cannot key on one wording. Gold
edges carry a short third-person statement ("User lives in Porto"), as an extraction model
would write it. Questions are what a user would ask an assistant with memory, in the first
person, with "used to"/"before" forms for change questions (paper Appendix K).

Placeholders: {v} value, {old} previous value, {a_v}/{a_old} with the article. The phrasings
are data (`data/*.toml`, one phrasing family an array); this module holds their shape.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from bench.tables import load, records
from schemas.categories import Category


def article(word: str) -> str:
    return ("an " if re.match(r"[aeiouAEIOU8]", word) and not word.startswith("uni") else "a ") + (
        word
    )


def fill(template: str, **values: str) -> str:
    """Render a template; the first letter of the result is upper-cased."""
    extra = {f"a_{k}": article(v) for k, v in values.items() if v}
    out = template.format(**values, **extra)
    return out[:1].upper() + out[1:]


@dataclass(frozen=True, slots=True)
class Kind:
    """A slot-valued kind of fact (state that is replaced over time, paper Appendix F)."""

    name: str
    category: Category
    slot: str
    gold: str
    say: tuple[str, ...]
    ask: tuple[str, ...]
    change: tuple[str, ...] = ()
    gold_change: str = ""
    implicit: tuple[str, ...] = ()
    soft: tuple[str, ...] = ()
    gold_soft: str = ""
    commit: tuple[str, ...] = ()
    stay: tuple[str, ...] = ()
    gold_stay: str = ""
    #: Change questions ("used to", "before"): {v} is the value that replaced the answer.
    ask_before: tuple[str, ...] = ()
    numeric: bool = False


#: The slot-valued kinds of `data/states.toml` (city, employer, role, partner, …).
STATE_KINDS: dict[str, Kind] = records(Kind, load("bench.lifecycle", "states")["states"])
