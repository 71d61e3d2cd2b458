"""A routine told with a weekday is not a dated event (issue 11, round 14).

Obligations and logistics expire at their event time (paper Table 1 rows 9–10, §3.3,
Appendix K); a habit or pastime does not decay that way (Table 1: Preferences & Habits,
Hobbies & Recreation). A clause such as "choir is Thursday nights, I've done it for years"
or "every Monday at 6 I swim" names a weekday, so the date layer resolves it to the next
Thursday after the turn — and an event family that reads it as a one-off entry gives the
routine an event time, lets it expire a week later and ranks the pastime out of every
"what do I do …" question (AV5: the register layer spelled "Thurs" out as "Thursday", which
made such a clause datable at all).

`recurring_day(clause, mention)` says when a clause's date is the day a routine recurs on,
not the day of one event: the clause marks recurrence (every / each + a period, a plural
weekday, weekly, N times a week, usually, an ongoing practice "been going for two years")
*and* the mention names only a weekday or a time of day — no calendar date, no "next", no
"tomorrow". "Every Tuesday, but next Tuesday the dentist at 3pm" keeps its event: the
mention says "next Tuesday".
"""

from __future__ import annotations

import re
from datetime import datetime

_I = re.IGNORECASE
_DAY = r"(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)"
_DAY_ABBR = r"(?:mon|tues?|wed|thu(?:rs?)?|fri|sat|sun)"
_PERIOD = rf"(?:day|morning|afternoon|evening|night|week|weekday|weekend|month|{_DAY}|{_DAY_ABBR})"
_COUNT = r"(?:\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten|few|couple\s+of)"

#: What says the clause is a routine: a repeated period, a plural weekday used as an adverb
#: ("Tuesdays", "on Fridays") or a weekday before a plural part of the day ("Monday nights",
#: "Tue evenings": the plural says every such evening, as "Tuesdays" does; round 17), a
#: frequency word, or a practice kept up for a span of time ("been going 2 years", "have
#: done it for months").
_RECURRENCE = re.compile(
    rf"\b(?:every|each)\s+(?:other\s+|single\s+)?{_PERIOD}s?\b"
    rf"|\b(?:on\s+)?{_DAY}s\b"
    rf"|\b(?:{_DAY}|{_DAY_ABBR})\.?\s+(?:mornings|afternoons|evenings|eves|nights|nites)\b"
    r"|\b(?:weekly|fortnightly|daily|nightly|biweekly)\b"
    # a standing activity named by its weekday, spelled out ("sat in class" is no Saturday):
    # "my Thursday night pottery class"
    rf"|\b{_DAY}\s+(?:(?:morning|afternoon|evening|night)\s+)?(?:\w+\s+)?"
    r"(?:class|classes|club|league|lessons?|practice|rehearsals?|training|choir|group)\b"
    r"|\b(?:once|twice|\w+\s+times)\s+(?:a|per|every)\s+(?:day|week|month|fortnight)\b"
    r"|\b(?:usually|always|normally|typically|regularly|religiously)\b"
    r"|\bnon-?negotiable\b"
    rf"|\b(?:been|have|has|'ve)\s+(?:\w+ing|done\s+it|done\s+that)\s+(?:it\s+)?(?:for\s+)?"
    rf"(?:the\s+(?:past|last)\s+)?(?:{_COUNT})\s+(?:years?|months?|weeks?|yrs?|mos?)\b",
    _I,
)
#: A mention that names a weekday or a time of day and nothing that fixes one date.
_WEEKLY_MENTION = re.compile(
    rf"^(?:on\s+|at\s+|every\s+|each\s+)?(?:(?:{_DAY}|{_DAY_ABBR})s?\.?"
    r"(?:\s+(?:morning|afternoon|evening|eve|night|nite)s?)?)?"
    r"(?:\s*(?:at\s+)?\d{1,2}(?::\d{2})?\s*(?:am|pm|a\.m\.|p\.m\.)?)?\s*$",
    _I,
)


def recurring_day(clause: str, mention: str) -> bool:
    """Whether `mention` (the date words found in `clause`) is the weekday or hour a
    routine recurs on: the clause marks recurrence and the mention fixes no single date."""
    words = mention.strip()
    return (
        bool(words)
        and _WEEKLY_MENTION.match(words) is not None
        and _RECURRENCE.search(clause) is not None
    )


#: Frequency adverbs alone: "I always mix them up" characterises, it tells no routine.
_ADVERBS = frozenset({"usually", "always", "normally", "typically", "regularly", "religiously"})


def marks_recurrence(clause: str, *, adverbs: bool = True) -> bool:
    """Whether the clause marks a routine (a repeated period, a plural weekday, a frequency
    word, a practice kept up for a span), whatever its date mention: read by
    `patterns_pastimes` as the habitual aspect of an activity, without the frequency
    adverbs (`adverbs=False`)."""
    return any(adverbs or m.group(0).lower() not in _ADVERBS for m in _RECURRENCE.finditer(clause))


#: A repeated period only (not the frequency adverbs, not a practice's span): what makes a
#: clause's delivery, visit or booking a standing arrangement rather than one occasion.
_REPEATED = re.compile(
    rf"\b(?:every|each)\s+(?:other\s+|single\s+)?{_PERIOD}s?\b"
    rf"|\b(?:on\s+)?{_DAY}s\b"
    r"|\b(?:weekly|fortnightly|daily|nightly|biweekly)\b",
    _I,
)


def arrangement_occurrence(clause: str, when: datetime, told: datetime) -> bool:
    """Whether a date `when` found in `clause` is the day one occurrence of a standing
    arrangement came (round 26): the clause repeats a period ("every Friday", "weekly") and
    the date is the turn's own day or earlier ("… every Friday now, the first one came
    today"). The arrangement recurs; the day already come dates no pending event, and an
    obligation or a delivery dated by it would expire with that day (Table 1 rows 9–10) while
    the arrangement holds. A future day ("every Friday, the next one on the 3rd") is kept:
    it is the next occasion, which is pending."""
    return when.date() <= told.date() and _REPEATED.search(clause) is not None
