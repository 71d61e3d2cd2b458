"""An origin fact serves the questions that ask for an origin (§3.3; issue 11, AV3).

Where the user was born or grew up and the language they grew up speaking are Stable
Identity facts (Table 1 row 1), keyed `user.hometown` and `user.first_language`
(`patterns_identity`, and since round 25 `patterns_identity_passing`, which reads them told in
passing: "born and raised in …", "… is my mother tongue"). Such a fact is near, by MiniLM,
to almost any question about the user — "User's hometown (place of origin) is …" sat first
for "what are all of X's hobbies?" and, the question routed to Identity by "work" and read as
abstract, first and second for "how does X get to work?" — and takes a window place from
the turn that answers (docs/extraction.md, "Round 25 (r25-av3)", "Round 26 (r26-av3)").

Unlike a job or a home, which a question asks for in many words ("what do I do", "where am I
based", "how long was I with …"), an origin is asked for in its own: born, birthplace, grow
up, raised, brought up, childhood, home town, originally, origin, roots, heritage,
background, native, first language, mother tongue, "where is X from", "where do I come from".
So an origin fact is a candidate only for a question that says one of those words; for any
other it leaves the candidate pool, as a pastime fact leaves a question not routed to
Hobbies (`pastime_facts`). Its raw turn stays and is served by its own words as before.

A question that asks where something else comes from ("where does my weekly shop come
from?") asks no origin of the user: "from" counts only after a person — "I", "you" or a name
— as the subject of "be" or "come".
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from schemas.events import EdgeEvent
from workers.ports import Hit

#: The slots of an origin: where the user comes from, the language they grew up with, the
#: nation they belong to (and, prefixed, each citizenship: `user.citizenship.<country>`).
ORIGIN_SLOTS = frozenset({"user.hometown", "user.first_language", "user.nationality"})
_CITIZENSHIP = "user.citizenship."

#: The attribute's own words. A closed class, as `routing._KEYWORDS` is for a category.
_ORIGIN_WORDS = re.compile(
    r"\b(?:born|birth(?:place)?|gr[eo]w(?:n|ing)?\s+up|raised|brought\s+up|bred|childhood|as\s+a\s+"
    r"(?:kid|child)|home\s?town|originally|origins?|roots|heritage|ancestry|background|native"
    r"|first\s+language|mother\s+tongue|language\w*|tongue|dialect|nationality|nationals?"
    r"|citizen\w*|passports?|ethnicity|ethnic)\b",
    re.IGNORECASE,
)
#: "where is X from", "which town am I from", "where do I come from", "I'm from": the
#: subject a person (the user, the assistant's "you", a name).
_PERSON = r"(?:i|you|(?-i:[A-Z])[\w'-]+)"
_FROM = re.compile(
    rf"\b(?:(?:am|is|are|was|were)\s+{_PERSON}|{_PERSON}\s+(?:am|is|are|was|were)|i'm)\b"
    rf"(?:\s+\w+){{0,2}}\s+from\b"
    rf"|\b(?:do|does|did)\s+{_PERSON}\s+(?:\w+\s+)?(?:come|hail)\s+from\b",
    re.IGNORECASE,
)


def asks_for_origin(question: str) -> bool:
    """Whether the question asks where the user comes from or the language they grew up in,
    by the attribute's own words."""
    return bool(_ORIGIN_WORDS.search(question) or _FROM.search(question))


def is_origin_fact(edge: EdgeEvent) -> bool:
    """A stated origin: a non-episodic fact keyed to a home town, a first language, a
    nationality or a citizenship."""
    slot = edge.slot_key or ""
    return not edge.episodic and (slot in ORIGIN_SLOTS or slot.startswith(_CITIZENSHIP))


def without_origin_facts(by_source: Mapping[str, Sequence[Hit]]) -> dict[str, list[Hit]]:
    """Every source's hits without the origin facts (for a question that asks no origin)."""
    return {
        source: [h for h in hits if not is_origin_fact(h.record.edge)]
        for source, hits in by_source.items()
    }
