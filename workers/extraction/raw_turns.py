"""What the raw turn of a turn without facts still says, from its vector and its dates (issue 11).

When no rule (or LLM) extracted a fact, only the raw turn is kept (paper Appendix AA), with
no slot key and no event time: it never expires and nothing supersedes it. Two of the
paper's mechanisms need neither a pattern nor a fact, only the turn's own embedding (already
computed for storage) and its dates:

* **Date-aware expiry** (paper Appendix K/§6: "Parses ISO dates, month+day patterns,
  contextual months, and relative markers. Category-guarded (Logistical, Obligations, Health
  only) with 14-day buffer"; Table 29: "Greg's birthday is this Saturday" suppressed once
  past). A raw turn that names a date *after* the moment it was said (an upcoming event, the
  future-preference guard of Appendix B) and whose nearest category prototype is one of the
  event-time categories gets that date as its event time and that category: it expires like
  an extracted plan's turn does (`stage._raw_edges`). A date that begins a lasting state
  ("site foreman from Monday"), a weekday already past ("moved in Saturday") or a routine's
  day ("Wednesday nights I run") names no pending event (`date_roles.py`, round 17): the
  turn's next date is read instead. A date before the turn ("I went
  yesterday") is history, not logistics: untouched.
* **Latent slot** (paper Table 1 / §4 slot-key supersession; Figure 2A: "lives in Istanbul"
  superseded by "I moved to London"). A raw turn whose vector is clearly closest to one
  single-valued attribute's prototypes (where someone lives, works, worships, what they eat
  or drink, who they are with, …: `prototypes.toml`, written from the paper's definitions)
  joins that attribute's slot. It states no value, so it joins as an `accumulate` edge: it
  never supersedes anything by itself, and a later committed value of the slot (a keyed fact,
  whatever its wording) supersedes it like any earlier value (`lifecycle/rules.py`). Only a
  *replacement cue* ("… oat instead", "switched to …", "moved to …", "joined …" — Table 1's
  "Joined Anthropic" — "no longer …") makes
  it a replacement of what the slot held before — within the slot the prototypes identified,
  never across slots (measured on LoCoMo: a replacement cue matched by similarity alone
  superseded unrelated turns, docs/extraction.md).

Both are a function of the turn's text, timestamp and vector: stored in the edge log, so
replay and delivery order cannot change them. With an embedder whose similarities mean
nothing (the hashing test double) neither applies.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import datetime

from schemas.categories import Category, UpdateSemantics
from schemas.events import EdgeEvent, normalize_slot_key, normalize_weights
from workers.extraction.clauses import fold_apostrophes, negation_before, tentative
from workers.extraction.date_roles import pending_date
from workers.extraction.dates import MONTH_NAMES, WEEKDAY_NAMES, is_bare_month
from workers.extraction.foreign_days import in_english
from workers.extraction.prototypes import ATTRIBUTE_MARGIN, SECOND_CATEGORY, Verdict

#: The categories whose facts expire with their date (paper §6 "Category-guarded (Logistical,
#: Obligations, Health only)"; Table 1 rows 4, 9, 10).
EVENT_CATEGORIES = (
    Category.LOGISTICAL_CONTEXT,
    Category.OBLIGATIONS,
    Category.HEALTH_WELLBEING,
)
#: A raw turn joins an attribute's slot only this close to its prototypes (facts, which are
#: shorter and say one thing, need `prototypes.ATTRIBUTE_MIN` = 0.55). Measured: the paper
#: turns' single-attribute statements at 0.58–0.73, LoCoMo dev's chat turns (docs/extraction.md).
LATENT_MIN = 0.58
#: … and beat the next attribute by this much (a turn about work *and* a city is neither).
LATENT_MARGIN = max(ATTRIBUTE_MARGIN, 0.1)
#: The replacement family: the turn says its value took the place of another.
_REPLACEMENT = re.compile(
    r"\b(?:instead|switch(?:ed|ing)? (?:over )?to|changed (?:over )?to|replaced|moved (?:over )?to"
    r"|joined|converted to|no longer|not any ?more|anymore)\b"
)
#: A replacement said not to happen ("I'd never switch to …", "I won't use anything instead").
_NEGATED = negation_before(within_words=4)
#: A date that names one occurrence: relative to the turn ("tomorrow", "this Saturday", "next
#: week", "in two days"), with its weekday, or with its year. A bare month and day is also
#: how standing dates are told ("my birthday is March 16", "rent is due on the 1st"): with no
#: fact to say which, such a turn keeps no event time (measured: generator test phrasings,
#: 2 of 14 personas' birthdays expired and left the top 10).
_OCCURRENCE = re.compile(
    r"\b(?:today|tonight|tomorrow|next|this|coming|in (?:\d+|a|an|one|two|three|four|five|six)"
    r"|monday|tuesday|wednesday|thursday|friday|saturday|sunday|mon|tue|tues|wed|thu|thur|thurs"
    r"|fri|sat|sun|\d{4})\b"
    # a numeric date with its year, the year in two digits too ("13/05/25")
    r"|\b\d{1,2}/\d{1,2}/(?:\d{2}|\d{4})\b"
)
#: What recurs every year or month: a month named without a day ("scheduled for March", "the
#: launch is in October") is one occurrence, unless the turn says what it names comes back
#: ("my birthday is in March", "rent goes up every January").
_RECURRING = re.compile(
    r"\b(?:birthday|bday|anniversary|every|each|annual|annually|yearly|monthly|usually"
    r"|always)\b"
)
#: The user as the subject of a clause.
_SUBJECT = re.compile(r"\b(?:i|im|ive|ill|id)\b")
#: The user speaking of themself.
_FIRST_PERSON = re.compile(r"\b(?:i|im|ive|ill|id|my|me|mine|myself)\b")


#: A clock time in the date's words ("at 7:30pm", "08:30", "3 pm"): an appointment's time of
#: day. A standing date (a birthday, a rent day) is told without one (round 19, AV2).
_CLOCK = re.compile(r"\b\d{1,2}[:.]\d{2}\b|\b\d{1,2} ?(?:am|pm|a\.m\.|p\.m\.)|\bnoon\b")
#: Switch for the clock-time reading (module doc of `upcoming_category`).
CLOCK_TIME_EVENTS = True


#: A calendar day in a date's words: a day number beside a month or a weekday ("Monday 21
#: July", "21/07", "the 21st of July"). With a clock time it is one booking even in a turn
#: that says the kind of thing recurs ("the annual check-up: Monday 21 July, 16:30").
_DAY_NUMBER = r"\d{1,2}(?:st|nd|rd|th)?"
_CALENDAR_DAY = re.compile(
    rf"\b{_DAY_NUMBER}(?: of)?[ ,]+(?:{MONTH_NAMES})\b"
    rf"|\b(?:{MONTH_NAMES}|{WEEKDAY_NAMES})[ ,]+(?:the )?{_DAY_NUMBER}\b"
    r"|\b\d{1,2}/\d{1,2}\b|\b\d{4}-\d{2}-\d{2}\b"
)


def timed(words: str, text: str = "") -> bool:
    """Whether the date `words` carry a clock time (`_CLOCK`) *and* a day: a time of day
    alone ("mornings at 5:30") is a routine's, and so is a turn that says it recurs — unless
    the words name a calendar day (`_CALENDAR_DAY`): "every Monday at 7" recurs, "the annual
    jabs, Monday 21 July at 16:30" is one booking (round 20, AV2)."""
    lowered = words.lower()
    if not CLOCK_TIME_EVENTS or _CLOCK.search(lowered) is None:
        return False
    day = _CLOCK.sub(" ", lowered)
    if _RECURRING.search(text.lower()) and _CALENDAR_DAY.search(day) is None:
        return False
    return (
        _OCCURRENCE.search(day) is not None
        or is_bare_month(day)
        or re.search(r"\d", day) is not None
    )


def _names_the_day_told(when: datetime, told: datetime) -> bool:
    """Whether a date read a year ahead names the very day it was told on — a diary's or a
    log's heading ("3 Feb. Six years on the tugs … even at 4am", told on 3 February): the
    date reader, preferring the future, moves today's passed hour to next year. Today's
    date says when the turn was written, not that something lies a year ahead."""
    return when.year > told.year and (when.month, when.day) == (told.month, told.day)


def _one_occurrence(words: str, text: str, clock_time: bool = False) -> bool:
    """Whether the date `words` of a turn name one occurrence (module doc, `_OCCURRENCE`); a
    day with a clock time (`clock_time`, `timed`) does."""
    if _OCCURRENCE.search(words.lower()) or clock_time:
        return True
    return is_bare_month(words) and not _RECURRING.search(text.lower())


def is_replacement(text: str) -> bool:
    """Whether `text` says a value replaced another ("… bonsoy oat instead"), not negated and
    not only weighed ("might switch to oat", "should I switch to soy?": `clauses.tentative`)."""
    lowered = fold_apostrophes(text)
    for found in _REPLACEMENT.finditer(lowered):
        if tentative(lowered, found.start(), found.end()):
            continue  # "might switch to oat": the old value stands (Appendix F, AV9)
        word = found.group(0)
        if word.startswith(("no longer", "not any")) or word == "anymore":
            return True  # itself a negation: what it denies is the old value
        if not _NEGATED.search(lowered[max(0, found.start() - 40) : found.start()]):
            return True
    return False


def latent_slot(text: str, verdict: Verdict) -> str | None:
    """The single-valued attribute slot a raw turn clearly states as the user's own, if any.

    Three guards, each against a way a turn shares an attribute's words without stating it:
    the turn speaks of the user (I, my, me: "nurses, families, other chaplains" answers a
    question, "how we keep the old craft alive" is about a craft); it is the kind of statement
    the attribute's category makes (its nearest category example, attribute examples left
    out: "I'm drafting a book proposal on chaplaincy" is a project that names a profession's
    word); and one attribute stands clear of the others.
    """
    attribute = verdict.attribute
    if attribute is None or "{" in attribute.slot or verdict.similarity < LATENT_MIN:
        return None
    if not _FIRST_PERSON.search(text):
        return None
    kinds = verdict.kind_scores
    if not kinds or max(kinds, key=lambda c: (kinds[c], c.value)) is not attribute.category:
        return None
    runner_up = max(
        (s for name, s in verdict.attribute_scores.items() if name != attribute.name),
        default=-1.0,
    )
    if verdict.similarity - runner_up < LATENT_MARGIN:
        return None
    return attribute.slot


def upcoming_category(
    edge: EdgeEvent, verdict: Verdict, clock_time: bool = False
) -> Category | None:
    """The event-time category of a raw turn about an upcoming dated event, if it is one: the
    category of its nearest category example (attribute examples left out: a christening
    shares the words of a religion, it is still an appointment).

    A date told with a clock time (`clock_time`) is an appointment's (paper Table 1 "Flight at
    6am tomorrow"): there the nearest event-time category is taken when it is within
    `SECOND_CATEGORY` of the best, split or second (§3.1 soft membership holds it at least
    0.2) — round 19, AV2: dated appointments split between logistics and another category
    never expired."""
    scores = verdict.kind_scores or verdict.category_scores
    ranked = sorted(scores, key=lambda c: (-scores[c], c.value))
    best = ranked[0]
    if clock_time:
        event = min(EVENT_CATEGORIES, key=lambda c: (-scores.get(c, -1.0), c.value))
        if scores[best] - scores.get(event, -1.0) <= SECOND_CATEGORY:
            return event
    if best not in EVENT_CATEGORIES:
        return None
    # Classified, not shared: a second category within `SECOND_CATEGORY` would hold 0.2 of
    # it (§3.1 soft membership) — an even split of "see you tomorrow!" between logistics and
    # chat is no appointment (LoCoMo dev: 10 of 13 dated turns split within 0.03).
    if len(ranked) > 1 and scores[best] - scores[ranked[1]] <= SECOND_CATEGORY:
        return None
    return best


def with_raw_meaning(raw: Sequence[EdgeEvent], verdicts: Sequence[Verdict]) -> list[EdgeEvent]:
    """The raw chunks of one turn without facts, each with what its vector and dates say.

    Only a turn kept in one chunk: a pasted document is not a statement of the user's state.
    """
    if len(raw) != 1 or raw[0].quarantined or raw[0].episodic_of:
        return list(raw)
    edge, verdict = raw[0], verdicts[0]
    category = upcoming_category(edge, verdict)
    mention = None
    clock = False
    # A day told in another language is read as the English it says (`foreign_days`): the
    # same string for an English turn.
    said = in_english(edge.text)
    # The date is read only where it can matter: an event-time category, or a clock time
    # that may make a split turn an appointment (`timed`) — dateparser is the ingest's
    # costliest step, and most raw turns carry neither.
    if category is not None or (CLOCK_TIME_EVENTS and _CLOCK.search(said.lower())):
        mention = pending_date(said, edge.ingest_time, ahead=True)
        clock = (
            mention is not None
            and timed(mention.text, said)
            and not _names_the_day_told(mention.when, edge.ingest_time)
        )
        if category is None and clock:
            category = upcoming_category(edge, verdict, clock_time=True)
    if category is not None and (
        mention is not None
        and mention.when > edge.ingest_time
        and _one_occurrence(mention.text, said, clock)
    ):
        return [
            edge.model_copy(
                update={
                    "event_time": mention.when,
                    "categories": normalize_weights({category.value: 1.0}),
                }
            )
        ]
    lowered = fold_apostrophes(edge.text)
    slot = latent_slot(lowered, verdict)
    if slot is None:
        return [edge]
    # Only the user replaces their own value: "I'm on soy milk instead", not "my sister moved
    # to Denver" (a possessive speaks of the user's people, not of the user's state).
    replacing = is_replacement(edge.text) and _SUBJECT.search(lowered) is not None
    return [
        edge.model_copy(
            update={
                "slot_key": normalize_slot_key(slot),
                "update": UpdateSemantics.REPLACE if replacing else UpdateSemantics.ACCUMULATE,
            }
        )
    ]
