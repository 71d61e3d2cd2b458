"""A draft in its clause → a finished fact: the lifecycle decisions the rule extractor makes
per fact, once the pattern families have proposed drafts and the overlaps are settled.

* a hedged clause ("thinking about", "maybe") makes the fact `soft` at confidence 0.4, and a
  hedged retraction withdraws nothing yet (Appendix F);
* the event time is resolved against the turn timestamp (§3.3, Appendix K), preferring the
  past when the clause is told in the past tense; a draft that needs a date and has none is
  dropped;
* a meeting within 36 hours of the turn is logistics, further out an obligation;
* "also" makes a taste or a pastime one more value beside the others, not a replacement;
* the fact's text is the clause's segment in the third person, with its statement and date.

The rule extractor (`rules.py`) scans, calls `finish` on every kept draft, then links
retractions and references across the turn and its session.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta

from workers.extraction import draft as d
from workers.extraction.clauses import ALSO, Clause
from workers.extraction.dates import DateMention, Prefer, find_event_time
from workers.extraction.draft import Draft
from workers.extraction.foreign_days import in_english
from workers.extraction.lexicon import words
from workers.extraction.model import ExtractedFact
from workers.extraction.phrasing import statement, third_person, with_date, with_statement
from workers.extraction.recurrence import arrangement_occurrence, recurring_day

_PAST_TENSE = re.compile(
    r"\b(?:was|were|went|did|won|lost|attended|finished|happened|came|saw|met|enjoyed|loved"
    r"|visited|celebrated|competed|played|watched|went|ended|got\s+back)\b",
    re.IGNORECASE,
)
_TODAY = re.compile(r"\b(?:today|tonight|this\s+(?:morning|afternoon|evening))\b", re.IGNORECASE)
#: A meeting this close to the turn is logistics ("meetings today"), further out an obligation.
_NEAR = timedelta(hours=36)
MAX_TEXT = 4_900
_NOUN_FAMILIES = ("financial", "obligation", "logistics", "event", "retraction", "value.noun")
#: Kinds matched on a noun phrase in any family ("New title: …", "First week at …").
_NOUN_KINDS = ("_noun",)
_DETS = frozenset(words("my our the a an this that his her their its your"))


@dataclass(frozen=True, slots=True)
class Found:
    """A draft in place: its clause, its sentence, and how the sentence modifies it."""

    draft: Draft
    clause: Clause
    sentence: str
    sentence_drafts: int
    hedged: bool
    emotion: float
    segment: str  # the part of the clause that states this fact, for its text


def finish(f: Found, timestamp: datetime) -> ExtractedFact | None:
    dr = f.draft
    update, confidence = dr.update, dr.confidence
    if f.hedged:
        if dr.kind == "retraction":
            return None  # "maybe we'll scrap the trip" withdraws nothing yet
        update, confidence = d.S, min(confidence, d.HEDGED)
    mention = _event_time(f, timestamp) if dr.dates != "none" else None
    if dr.needs_date and mention is None:
        return None
    event_time = mention.when if mention else (timestamp if dr.dated_now else None)
    categories = dict(dr.categories)
    if dr.near_logistics and (
        (event_time is not None and abs(event_time - timestamp) <= _NEAR)
        or (event_time is None and _TODAY.search(f.clause.text))
    ):
        categories = dict(d.LOGISTICS)
    if update is d.R and ALSO.search(f.clause.text) and _additive(categories):
        update = d.A  # "I also love chocolate": one more taste beside the others, not a change
    value = dr.value
    if value is None and mention is not None and dr.kind.startswith(("obligation", "logistics")):
        value = mention.text
    first_word = f.segment.split()[0].lower() if f.segment.split() else ""
    # Only families that match on the user's verb can start a clause with it ("Works at …").
    verb_first = (
        f.clause.text.find(f.segment) == dr.span[0]
        and first_word not in _DETS
        and not dr.kind.startswith(_NOUN_FAMILIES)
        and not dr.kind.endswith(_NOUN_KINDS)
    )
    text = third_person(f.segment, verb_first) or f.clause.text
    if update is not d.S and confidence >= d.STATED:  # "thinking about moving to X" is no fact
        text = with_statement(text, dr.statement or statement(dr.slot_key, value))
    text = with_date(text, mention.when if mention else None)[:MAX_TEXT]
    return ExtractedFact(
        text=text,
        categories=categories,
        slot_key=dr.slot_key,
        value=value,
        confidence=confidence,
        update=update,
        event_time=event_time,
        numeric=dr.numeric,
        emotional_loading=f.emotion,
        prototype=dr.prototype or "check",
    )


#: Categories in which a value can be one more among several (tastes, pastimes, interests).
_ADDITIVE_CATEGORIES = frozenset(
    {d.C.PREFERENCES_HABITS, d.C.HOBBIES_RECREATION, d.C.INTELLECTUAL_INTERESTS}
)


def _additive(categories: dict[d.C, float]) -> bool:
    return max(categories.items(), key=lambda kv: kv[1])[0] in _ADDITIVE_CATEGORIES


def _event_time(f: Found, timestamp: datetime) -> DateMention | None:
    prefer: Prefer = "past" if f.draft.dates == "past" else "future"
    if f.draft.kind != "event.rescheduled" and _PAST_TENSE.search(f.clause.text):
        prefer = "past"  # "I won the tournament on Friday": the Friday that has been
    # A day told in another language is read as the English it says (`foreign_days`).
    clause = in_english(f.clause.text)
    segment = in_english(f.clause.text[f.draft.span[0] :])
    mention = find_event_time(segment, timestamp, prefer) or find_event_time(
        clause, timestamp, prefer
    )
    if (
        mention is None
        and f.sentence_drafts == 1
        and f.sentence != f.clause.text
        and f.draft.kind.startswith(("obligation", "logistics"))
    ):
        mention = find_event_time(in_english(f.sentence), timestamp, prefer)
    if mention is not None and recurring_day(clause, mention.text):
        return None  # "Tuesdays = choir": the day a routine recurs on dates no event
    if (
        mention is not None
        and f.draft.kind.startswith(("obligation", "logistics"))
        and arrangement_occurrence(clause, mention.when, timestamp)
    ):
        return None  # "a box every Friday now, the first came today": no one-off delivery
    return mention
