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
  few days", "all week", "this week"), not a frequency ("three days a week", "a day or two a
  month").

A causal "since" ("since Monday is a holiday") begins no state, and a text that also tells the
state as lasting ("diabetic since I was 12", "diagnosed years ago") is the lasting answer whose
flare the bound words date: neither is bounded (review r18 M2).

For a question about now or ahead whose own words ask for a lasting state of health
(`LASTING`, `HEALTH`), a candidate among the first `window` whose words bound it so ranks from
`demote_to` on, inside the window
(`latest_value.reorder`), with the bounding words in `why`: a demotion, not a mask — "this
week" may bound a visit, not the condition, and the pass (gold in the top 10) is kept. A pure
function of the question and the candidates' texts and ingest times.

The same words also say when an acute state is over (round 24, `passed_acute`): Table 1 row 4
("Acute: expire" — "Flu resolves; diabetes persists"). For a question about now or ahead with
words of health that asks for no lasting state ("what health problems do I have at the
moment?", "what do I take medication for?"), a candidate whose words bound it and whose span
— the duration it names ("for three weeks"), at least `recent_days` (the gold rules end an
acute state a week after it is told) — ended before `as_of` is a resolved episode, not a
current condition: it ranks from `demote_to` on, and the facts drawn from that turn (its
`episodic_of`) with it. An acute fact the extractor read carries its own anchor and expires;
this is the fact-less turn's counterpart.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import lru_cache

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
    rf"\b(?:(?:for|these|the (?:last|past))\s+{_COUNT}\s+"
    r"(?:days|hours|nights|weeks|day|hour|night|week)"
    r"(?!\s+(?:(?:or|to)\s+\w+\s+)?(?:a|an|per|each|every)\s+(?:day|night|week|month|year)\b)"
    r"|(?:this|all)\s+week)\b",
    re.I,
)
#: "since" and the words that may name the day it began.
_SINCE = re.compile(r"\bsince\s+((?:[\w']+\s+){0,2}[\w']+)", re.I)
#: A causal "since": the day is the subject of a clause ("Since Monday is a holiday, …",
#: "since today's my day off") — it gives a reason, it begins no state (review r18 M2).
_CAUSAL = re.compile(r"\s*(?:'s|is|was|are|were|will|falls|fell)\b", re.I)
#: Words that tell the state itself as lasting, though a flare of it is bounded ("Type 1
#: diabetic since I was 12. Sugar's been all over the place all week"): the candidate is the
#: lasting answer, its bound words date the flare (review r18 M2).
_LASTING_ONSET = re.compile(
    r"\b(?:since (?:I was|I've been|(?:my|the) (?:teens|twenties|childhood)|birth|childhood"
    r"|(?:19|20)\d\d)|diagnosed|chronic\w*|for years|all my life|life-?long|long[- ]term"
    r"|permanent(?:ly)?)\b",
    re.I,
)
_WEEK = timedelta(days=7)
#: The intents whose questions ask what holds now or from now on ("do I have any lasting
#: health problem you know of?" reads as upcoming).
_NOW_OR_AHEAD = frozenset({Intent.CURRENT, Intent.UPCOMING})


@dataclass(frozen=True, slots=True)
class Bounded:
    """A candidate whose `words` bound its state to a recent onset or a short duration."""

    words: str


@dataclass(frozen=True, slots=True)
class Over:
    """A candidate whose bounded state (`words`) ended on `ended`; `drawn_from`: the raw turn
    it was drawn from, when that turn's words are what bound it."""

    words: str
    ended: datetime
    drawn_from: str | None = None


_NUMBER_WORDS = {
    "a": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
    "a couple of": 2, "couple of": 2, "a few": 3, "few": 3, "several": 4,
}  # fmt: skip
_SPAN = re.compile(r"\b(a couple of|couple of|a few|\d+|[a-z]+)\s+(day|hour|night|week)s?\b", re.I)


def asks_lasting(question: str) -> bool:
    """Whether the question's words ask for a lasting state of health (`LASTING`, `HEALTH`)."""
    return LASTING.search(question) is not None and HEALTH.search(question) is not None


@lru_cache(maxsize=4096)
def bounded(text: str, told: datetime, recent_days: float) -> Bounded | None:
    """The words of `text` that bound what it states to a recent onset (a "since" whose day
    lies at most `recent_days` before `told`) or a short duration, if any. A text that also
    tells the state as lasting (`_LASTING_ONSET`) is not bounded: the bound dates a flare.
    Cached: a pure function of its arguments, asked of the same window candidates by every
    pass of `WindowRules.settle` and, since `passed_acute`, by any question in words of
    health — and a "since" costs a dateparser call."""
    if _LASTING_ONSET.search(text):
        return None
    if m := _SHORT.search(text):
        return Bounded(m.group(0))
    for m in _SINCE.finditer(text):
        mention = find_event_time(m.group(1), told, "past")
        if mention is None or _causal(text[m.start(1) :], mention.text):
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


def _causal(after_since: str, day: str) -> bool:
    """Whether the day named after "since" is the subject of a clause (`_CAUSAL`)."""
    at = after_since.lower().find(day.lower())
    return at >= 0 and _CAUSAL.match(after_since, at + len(day)) is not None


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


def span(words: str, recent_days: float) -> timedelta:
    """How long the bounding `words` say the state lasts: the duration they name ("for three
    weeks", "these two days"), "this week" / "all week" a week, an onset ("since Sunday")
    `recent_days`; never less than `recent_days`, the acute span of the gold rules."""
    floor = timedelta(days=recent_days)
    m = _SPAN.search(words)
    if m is None:
        return max(floor, _WEEK) if "week" in words.lower() else floor
    count = m.group(1).lower()
    n = int(count) if count.isdigit() else _NUMBER_WORDS.get(count, 1)
    unit = {"day": timedelta(days=1), "night": timedelta(days=1), "hour": timedelta(hours=1),
            "week": _WEEK}[m.group(2).lower()]  # fmt: skip
    return max(floor, n * unit)


def passed(
    intent: Intent,
    question: str,
    window: Sequence[FactRecord],
    as_of: datetime,
    recent_days: float,
) -> dict[str, Over]:
    """Edge id → the bounded state that was over before `as_of`, for the candidates of
    `window` a question about now or ahead, in words of health but for no lasting state,
    should not serve first (Table 1 row 4: acute states expire); the facts in the window
    drawn from such a raw turn follow it."""
    if (
        intent not in _NOW_OR_AHEAD
        or HEALTH.search(question) is None
        or asks_lasting(question)  # `demotions` judges those, whenever the state was told
    ):
        return {}
    out: dict[str, Over] = {}
    for record in window:
        told = record.edge.ingest_time
        found = bounded(record.edge.text, told, recent_days)
        if found is None:
            continue
        ended = told + span(found.words, recent_days)
        if ended < as_of:
            out[record.edge_id] = Over(found.words, ended)
    # The facts drawn from such a turn (its `episodic_of`) were told in it: they follow.
    drawn = {
        fact: record.edge_id
        for record in window
        if record.edge_id in out
        for fact in record.edge.episodic_of
    }
    for record in window:
        source = drawn.get(record.edge_id)
        if source is not None and record.edge_id not in out:
            out[record.edge_id] = Over(out[source].words, out[source].ended, source)
    return out


def explain_passed(o: Over) -> str:
    told_in = f" in {o.drawn_from}" if o.drawn_from else ""
    return (
        f'its words{told_in} bound it to a short time ("{o.words}") that ended '
        f"{o.ended:%Y-%m-%d}: an acute state is over (Table 1 row 4); the question asks "
        "what holds now"
    )


def explain(b: Bounded) -> str:
    return (
        f'its words bound it to a recent, short time ("{b.words}"): the question asks for '
        "a lasting state"
    )
