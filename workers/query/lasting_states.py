"""A question for a lasting state is not answered first by a recent, bounded one (issue 11).

Paper Table 1 row 4: a chronic condition holds with no end; an acute one is valid from when it
is told and soon over (the gold rules end it a week after). An extracted acute fact carries
that anchor (`patterns_wellbeing`) and expires; a turn that yielded no fact ("had this bug
since Thursday, can't keep anything down") is an undated raw turn, and a question asking for
what lasts — "a long-term condition", "chronic", "ongoing", "what do I live with" — serves it
first: it is newer, and it matches the question's words of illness as well as the lasting
condition does (round 18: 13 of the 16 stale long-term-condition answers of the validation
tellings).

Whether a statement is bounded is said by a closed grammatical family, not by a lexicon of
illnesses, and `workers/extraction/dates.py` reads the dates in it:

* an onset adverbial, "since" before a day that lies at most `recent_days` before the turn
  ("since Sunday", "since last night", "since the weekend"; not "since I was six", "since
  2009", nothing the date reader dates);
* a short duration of days, hours or nights ("for two days", "these three days", "the past
  few days", "all week", "this week"), not a frequency ("three days a week").

For a question about now or ahead whose own words ask for a lasting state of health
(`LASTING`, `HEALTH`), a candidate among the first `window` whose words bound it so ranks from
`demote_to` on, inside the window
(`latest_value.reorder`), with the bounding words in `why`: a demotion, not a mask — "this
week" may bound a visit, not the condition, and the pass (gold in the top 10) is kept. A pure
function of the question and the candidates' texts and ingest times.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from schemas.categories import Intent
from schemas.records import FactRecord
from workers.extraction.dates import find_event_time

#: A question's words asking for what lasts (Table 1 row 4's chronic against acute). "live
#: with" only where no "who" asks for the people one lives with.
LASTING = re.compile(
    r"\b(?:long[- ]term|long[- ]standing|chronic(?:ally)?|ongoing|lasting|life-?long"
    r"|permanent(?:ly)?|for good|in the long run)\b"
    r"|^(?!.*\bwho(?:m)?\b).*\blives? with\b",
    re.I,
)
#: … about health, the row the chronic/acute distinction belongs to (Table 1 row 4): a
#: "long-term career goal", a "permanent home" or a "long-term partner" is no condition, and a
#: turn begun "since Monday" may well be the answer there (review r18 M2).
HEALTH = re.compile(
    r"\b(?:health|healthy|medical|medically|condition|conditions|illness|illnesses|ill"
    r"|disease|diseases|diagnos\w*|ailment\w*|disorder\w*|medication\w*|medicine\w*|chronic\w*"
    r"|sick\w*|problems? with my)\b"
    r"|^(?!.*\bwho(?:m)?\b).*\blives? with\b",
    re.I,
)
_COUNT = r"(?:a|one|two|three|four|five|six|\d|a few|a couple of|couple of|few|several)"
#: A short duration that bounds a state, not a frequency ("three days a week").
_SHORT = re.compile(
    rf"\b(?:(?:for|these|the (?:last|past))\s+{_COUNT}\s+(?:days|hours|nights|day|hour|night)"
    r"(?!\s+(?:a|an|per|each|every)\b)"
    r"|(?:this|all)\s+week)\b",
    re.I,
)
#: "since" and the words that may name the day it began.
_SINCE = re.compile(r"\bsince\s+((?:[\w']+\s+){0,2}[\w']+)", re.I)
_WEEK = timedelta(days=7)
#: The intents whose questions ask what holds now or from now on ("do I have any lasting
#: health problem you know of?" reads as upcoming).
_NOW_OR_AHEAD = frozenset({Intent.CURRENT, Intent.UPCOMING})


@dataclass(frozen=True, slots=True)
class Bounded:
    """A candidate whose `words` bound its state to a recent onset or a short duration."""

    words: str


def asks_lasting(question: str) -> bool:
    """Whether the question's words ask for a lasting state of health (`LASTING`, `HEALTH`)."""
    return LASTING.search(question) is not None and HEALTH.search(question) is not None


def bounded(text: str, told: datetime, recent_days: float) -> Bounded | None:
    """The words of `text` that bound what it states to a recent onset (a "since" whose day
    lies at most `recent_days` before `told`) or a short duration, if any."""
    if m := _SHORT.search(text):
        return Bounded(m.group(0))
    for m in _SINCE.finditer(text):
        mention = find_event_time(m.group(1), told, "past")
        if mention is None:
            continue
        when = mention.when
        if told < when <= told + _WEEK:
            # A day of the week read ahead ("since the weekend", said on a Wednesday, is
            # read as the coming one): after "since" it is the one before.
            when -= _WEEK
        # Calendar days: "since Monday", said on a Monday, began a week ago at most.
        if 0 <= (told.date() - when.date()).days <= recent_days:
            return Bounded(f"since {mention.text}")
    return None


def demotions(
    intent: Intent, question: str, window: Sequence[FactRecord], recent_days: float
) -> dict[str, Bounded]:
    """Edge id → its bounding words, for the candidates of `window` a question about now or
    ahead asking for a lasting state should not serve first (a question about the past or a
    cancelled plan asks what was)."""
    if intent not in _NOW_OR_AHEAD or not asks_lasting(question):
        return {}
    out: dict[str, Bounded] = {}
    for record in window:
        found = bounded(record.edge.text, record.edge.ingest_time, recent_days)
        if found is not None:
            out[record.edge_id] = found
    return out


def explain(b: Bounded) -> str:
    return (
        f'its words bound it to a recent, short time ("{b.words}"): the question asks for '
        "a lasting state"
    )
