"""A habit said as a rate: "four espressos a day", "cut down to one espresso a day" (issue 11).

Preferences & Habits are replaced by slot key (paper Table 1 row 7: "likes pizza" superseded
by "likes sushi"), and a habit's amount is a number the paper wants kept exactly (A.7.1,
AV8: "7 bass"). A habit told with its rate has one grammatical shape whatever the habit is —
a count, the thing counted, then "a / per / every" and a period ("two coffees a day", "3
pints a week", "about ten cigarettes a day") — so the construction, not a list of habits,
keys it: the slot is the counted thing (`habit.espresso`), the value the whole rate. A later
rate of the same thing, however the change is said ("cut down to one espresso a day", "I'm
on two coffees a day now"), lands in the same slot and replaces the earlier one.

Only the speaker's habits count: the clause's subject is the user (chat drops the "I"), or the
rate follows a change of scale ("down to", "up to", "cut back to"). Units of time, money and
distance are not things counted ("40 hours a week" is a schedule, "€5 a day" a cost, "30 km
a week" a distance); those have their own families or none.
"""

from __future__ import annotations

import re

from workers.extraction import draft as d
from workers.extraction.clauses import Clause, subject_is_user, tentative
from workers.extraction.draft import Draft
from workers.extraction.lexicon import words

_I = re.IGNORECASE
_COUNT = (
    r"(?P<n>\d{1,3}(?:\.\d)?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve"
    r"|a\s+couple\s+of|a\s+few|a\s+single)"
)
#: What is counted: one or two words, or a measure "of" a thing ("cups of tea").
_THING = r"(?P<thing>(?:[a-z][\w-]*\s+of\s+)?[a-z][\w-]*(?:\s+[a-z][\w-]*)?)"
_PERIOD = r"(?P<per>day|night|week|weekday|month|morning|evening|year)"
_RATE = re.compile(
    rf"\b(?:(?:about|around|roughly|maybe|like|only|just|at\s+least|at\s+most)\s+)?{_COUNT}\s+"
    rf"{_THING}\s+(?:a|per|every|each)\s+{_PERIOD}\b",
    _I,
)
#: A change of scale just before the count makes the rate the speaker's new one.
_SCALE = re.compile(
    r"\b(?:(?:cut|cutting|cut\s+it|scaled|scaling|got|gotten|getting|brought|bringing)\s+"
    r"(?:down|back|up)|(?:down|up|back)|went|gone|going|moved|switched)\s+(?:to\s+)?$",
    _I,
)
#: Not a thing one habitually has: units of time, money, distance, weight, and counts of
#: occasions ("three times a week" is a frequency of something named elsewhere).
_UNITS = frozenset(
    words(
        "second seconds minute minutes min mins hour hours hr hrs day days week weeks month months "
        "year years time times shift shifts euro euros dollar dollars pound pounds quid buck bucks "
        "cent cents k km kms kilometre kilometres kilometer kilometers mile miles metre metres "
        "meter meters step steps kg kilo kilos lb lbs calorie calories kcal percent"
    )
)
#: A habit that held then: "I used to drink five coffees a day", "back when I smoked …".
_PAST = re.compile(r"\bused\s+to\b|\bback\s+(?:then|when|in)\b", _I)
#: A rate the speaker means to reach is not yet the habit: the deontic and intending modals
#: ("I should cut down to two", "trying to get to one a day", "gonna").
_AIM = re.compile(
    r"\b(?:should|shall|ought\s+to|need\s+to|have\s+to|has\s+to|must|gotta|try(?:ing)?\s+to"
    r"|aim(?:ing)?\s+(?:to|for)|plan(?:ning)?\s+to|going\s+to|gonna|want\s+to|wanna)\b",
    _I,
)
_SUBJECT = re.compile(r"\b(?:i|i'm|im|i've|ive|we|we're|we've)\b", _I)
_NOT_THINGS = frozenset(words("of the my our a an times more less than extra other"))


def find(clause: Clause) -> list[Draft]:
    text = clause.text
    out: list[Draft] = []
    for m in _RATE.finditer(text):
        thing = _counted(m["thing"])
        if thing is None:
            continue
        before = text[: m.start()]
        if (
            not _speakers(before)
            or tentative(text, m.start(), m.end())
            or _PAST.search(before)
            or _AIM.search(before)
        ):
            continue  # someone else's habit, one only weighed ("should cut down to …"), or over
        rate = " ".join(m.group(0).split())
        out.append(
            d.from_match(
                "habit.rate", f"habit.{thing.replace(' ', '_')}", rate, m, d.PREFERENCE, d.R,
                d.COMMITTED, 24, negatable=True, numeric=True,
                statement=f"User has {rate} (habit)",
            )
        )  # fmt: skip
    return out


def _speakers(before: str) -> bool:
    """Whether the clause up to the rate has the speaker as its subject: "I" / "we" with only
    discourse words before it ("honestly I smoke …"), or a change of scale said with the
    subject dropped ("cut down to …", as chat does)."""
    scale = _SCALE.search(before)
    if scale is not None and subject_is_user(before, scale.start()):
        return True
    subject = _SUBJECT.search(before)
    return subject is not None and subject_is_user(before, subject.start())


def _counted(phrase: str) -> str | None:
    """The counted thing's head, singular ("cups of tea" → "tea", "espressos" → "espresso"),
    or None when what is counted is a unit, an occasion or no noun."""
    words = phrase.lower().split()
    if "of" in words:
        words = words[words.index("of") + 1 :]
    if not words or any(w in _UNITS or w in _NOT_THINGS for w in words):
        return None
    head = words[-1]
    if head.endswith(("sses", "shes", "ches", "xes")):
        head = head[:-2]
    elif head.endswith("ies") and len(head) > 4:
        head = head[:-3] + "y"
    elif head.endswith("s") and not head.endswith(("ss", "us", "is")):
        head = head[:-1]
    return " ".join([*words[:-1], head]) if len(words) > 1 else head
