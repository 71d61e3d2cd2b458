"""A date that names no event to expire: an onset, a day already past, a routine's day.

Date-aware expiry (paper Appendix K, §6: "Category-guarded (Logistical, Obligations, Health
only) with 14-day buffer"; §3.3: "deadlines increase in activation as they approach, then
expire after passing"; Table 1: "Flight at 6am tomorrow" expires) is for what is *pending*.
A raw turn without facts takes the first date it names, resolved ahead of the moment it was
said, as its event time when its vector is nearest an event-time category
(`raw_turns.with_raw_meaning`). Three grammatical roles of a date make that reading wrong,
and each turns a lasting statement into an appointment that leaves every current question
once its day has passed (round 17, found reading the validation tellings by class: a new
job, a new home or a weekly pastime told with a day, expired a week later):

* **an onset** — the date is where a lasting state begins: "made me site foreman *from
  Monday*", "porters' team, *starting Monday*", "the new rate applies *as of* 1 August".
  The state holds after the date (Table 1: "Joined Anthropic" is an Identity change, not a
  logistics entry). A range ("from Monday to Friday", "from 3 until 5") has an end: that is
  an event, and stays one.
* **a day already past** — a bare weekday after a verb in the past tense ("moved in
  Saturday", "it was confirmed Friday"): the user tells what happened, and "Saturday" is
  the last one, not the next (dateparser, asked for the future, reads the next). Told after
  it happened, it announces no plan (`lifecycle/raw_turns.told_after`). Verbs that schedule
  ("booked", "moved it to") are left out: their object day is ahead.
* **a routine's day** — `recurrence.recurring_day` (round 14, for extracted facts): "Wednesday
  nights I'm running …", "linocut class, tues eves", "my Thursday night pottery class".

A function of the turn's words only: replay and delivery order cannot change it.
"""

from __future__ import annotations

import re
from datetime import datetime

from workers.extraction.dates import DateMention, find_event_time
from workers.extraction.recurrence import recurring_day

_I = re.IGNORECASE
#: The words before a date that make it where something begins.
#: Only adverbials: "the conference starts Friday", "my chemo starts Monday" name an event
#: with the verb's subject, and keep their date (review r17 M2).
_ONSET = re.compile(
    r"\b(?:from|starting|as\s+(?:of|from)|effective|beginning|commencing"
    r"|with\s+effect\s+from)\s+(?:on\s+|this\s+|next\s+|the\s+)?$",
    _I,
)
#: … unless the date opens a range that ends ("from Monday to Friday", "from 3 - 5").
_RANGE_END = re.compile(r"^\s*(?:(?:to|until|till|through|thru)\b|[-–—]\s*\w)", _I)
#: A bare weekday (with a part of day), nothing that fixes which one.
_BARE_WEEKDAY = re.compile(
    r"^(?:on\s+)?(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday"
    r"|mon|tues?|wed|thu(?:rs?)?|fri|sat|sun)\.?"
    r"(?:\s+(?:morning|afternoon|evening|eve|night|nite))?$",
    _I,
)
#: A verb in the past tense before the weekday in its clause, with nothing between that
#: points ahead ("agreed to meet Friday", "booked for Friday", "will … Friday"): regular past
#: forms and a closed list of common irregular ones; "was/were" + a participle is the past
#: passive ("it was confirmed Friday"). A present passive ("is scheduled Friday", "I'm booked
#: Friday") and the verbs that schedule are not past tellings: their day is ahead. Read on
#: the text with its apostrophes straightened (phone keyboards type ’).
_SCHEDULING = (
    r"booked|scheduled|rescheduled|planned|arranged|reserved|postponed|pushed|penciled"
    r"|pencilled|slotted|fixed|set|confirmed|changed|moved\s+(?:it|that|this|them)"
)
_PAST_VERB = re.compile(
    r"\b(?:was|were)\s+\w+(?:ed|en|t)\b"
    rf"|\b(?!(?:{_SCHEDULING})\b)(?!\w*(?:eed|dred)\b)(?P<verb>\w{{3,}}ed|went|came|left|got"
    r"|began|arrived|flew|drove|rode|took|met|sold|bought|quit|won(?!'t)|lost|did|made|found"
    r"|heard|saw)\b",
    _I,
)
#: Before a past form, the words that make it no past telling: a copula or an intensifier (an
#: adjective: "I'm really excited about the party Saturday"), a perfect "have got" (possession
#: now: "I've got a dentist appointment Friday").
_NOT_PAST_BEFORE = re.compile(
    r"(?:\b(?:is|are|am|be|been|being|so|really|very|too|pretty|quite|feel|feeling|felt|get"
    r"|getting)|'m|'re|'s|'ve|\bhave|\bhas)\s+$",
    _I,
)
_AHEAD = re.compile(
    r"\b(?:to|will|would|shall|gonna|going|for|until|till|by|before|next|this|coming|plan"
    r"|planning|hope|hoping|want|need|should|must|can|could)\b|'ll\b|'d\b",
    _I,
)
_APOSTROPHE = re.compile(r"[’‘`´]")
#: Where a clause starts, read backwards from the date.
_CLAUSE_START = re.compile(r"[.;:!?\n(—–]|,\s")
#: Prepositions a found date may start with ("from Monday", "on Friday", "in Saturday,").
_LEAD = re.compile(r"^(?:(?:from|on|in|at|by|of|starting|as\s+of)\s+)+", _I)
#: How far back the words that give a date its role are read.
_LOOKBACK = 80


def no_event(text: str, mention: str) -> bool:
    """Whether the date `mention` (words found in `text`) names no pending event: an onset,
    a weekday already past, or a routine's day (module doc). The first occurrence of the
    mention in the text is read."""
    found = re.search(re.escape(mention), text, _I)
    if found is None:
        return False
    at = found.start()
    lead = _LEAD.match(mention)
    core = mention[lead.end() :] if lead else mention
    core = core.strip().rstrip(".,;:!?")
    start = at + (lead.end() if lead else 0)
    before = text[max(0, start - _LOOKBACK) : start]
    after = text[start + len(core) : start + len(core) + 20]
    if _ONSET.search(before) and not _RANGE_END.match(after):
        return True
    if _BARE_WEEKDAY.match(core) and _past_clause(before):
        return True
    return recurring_day(_sentence_around(text, start, start + len(core)), core)


def _past_clause(before: str) -> bool:
    """Whether the clause that ends at a date tells the past: a past verb in it, nothing
    after that verb pointing ahead."""
    before = _APOSTROPHE.sub("'", before)
    starts = [m.end() for m in _CLAUSE_START.finditer(before)]
    clause = before[starts[-1] :] if starts else before
    verbs = [m for m in _PAST_VERB.finditer(clause) if _told_as_past(clause, m)]
    return bool(verbs) and _AHEAD.search(clause[verbs[-1].end() :]) is None


def _told_as_past(clause: str, m: re.Match[str]) -> bool:
    """Whether a past form of `_PAST_VERB` tells what happened: not a capitalised word inside
    the clause (a name: "lunch with Ahmed Friday"), not an adjective or a possession after a
    copula, an intensifier or "have" (`_NOT_PAST_BEFORE`)."""
    if m["verb"] is None:
        return True  # the past passive
    if m.start() > 0 and clause[: m.start()].strip() and m["verb"][0].isupper():
        return False
    return _NOT_PAST_BEFORE.search(clause[: m.start()]) is None


def _sentence_around(text: str, start: int, end: int) -> str:
    """The sentence of `text` that holds [start, end): from after the last sentence end
    before it to the next one after it."""
    head = max(text.rfind(stop, 0, start) for stop in (". ", "! ", "? ", "\n"))
    tails = [i for stop in (". ", "! ", "? ", "\n") if (i := text.find(stop, end)) >= 0]
    return text[head + 1 : min(tails) + 1 if tails else len(text)]


def _heads_a_line(text: str, words: str) -> bool:
    """Whether the first occurrence of `words` in `text` opens a line (only spaces or a list
    mark before it on its line)."""
    found = re.search(re.escape(words), text, _I)
    if found is None:
        return False
    line_start = text.rfind("\n", 0, found.start()) + 1
    return text[line_start : found.start()].strip(" \t-*•") == ""


#: How many dates of a text are read for a pending one (`pending_date`).
_MAX_DATES = 3


def pending_date(text: str, at: datetime, ahead: bool = False) -> DateMention | None:
    """The first date of `text` (read ahead of `at`) that names a pending event: dates that
    begin a lasting state, name a day already past or a routine's day (`no_event`) are read
    past, up to `_MAX_DATES` of them.

    `ahead`: a date at the head of a line that still falls at or before `at` is read past
    too — a log line's or a diary's dated heading ("2025-07-08: booked the jabs: Monday 21
    July, 16:30", an ISO date the future preference cannot move) says when the line was
    written, and the pending event is a later date of the same turn (round 20: dated log
    entries, AV2). A past date inside a sentence still answers ("moved in last weekend! …
    school on Monday" is the move, past)."""
    for _ in range(_MAX_DATES):
        mention = find_event_time(text, at, "future")
        if mention is None:
            return None
        if not no_event(text, mention.text) and not (
            ahead and mention.when <= at and _heads_a_line(text, mention.text)
        ):
            return mention
        found = re.search(re.escape(mention.text), text, _I)
        if found is None:
            return None
        text = text[found.end() :]
    return None
