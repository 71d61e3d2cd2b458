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

from workers.extraction.recurrence import recurring_day

_I = re.IGNORECASE
#: The words before a date that make it where something begins.
_ONSET = re.compile(
    r"\b(?:from|starting|starts?|started|as\s+(?:of|from)|effective|beginning|commencing"
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
#: Friday") and the verbs that schedule are not past tellings: their day is ahead.
_SCHEDULING = (
    r"booked|scheduled|rescheduled|planned|arranged|reserved|postponed|pushed|penciled"
    r"|pencilled|slotted|fixed|set|confirmed|changed|moved\s+(?:it|that|this|them)"
)
_PAST_VERB = re.compile(
    r"(?:\b(?:was|were)\s+\w+(?:ed|en|t)\b"
    r"|(?<!\bis )(?<!\bare )(?<!\bbe )(?<!\bbeen )(?<!\bam )(?<!'m )(?<!'s )(?<!'re )"
    rf"\b(?!(?:{_SCHEDULING})\b)(?!\w*eed\b)(?:\w{{3,}}ed|went|came|left|got|began|arrived"
    r"|flew|drove|rode|took|met|sold|bought|quit|won|lost|did|made|found|heard|saw)\b)",
    _I,
)
_AHEAD = re.compile(
    r"\b(?:to|will|would|shall|gonna|going|for|until|till|by|before|next|this|coming|plan"
    r"|planning|hope|hoping|want|need|should|must|can|could)\b|'ll\b|'d\b",
    _I,
)
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
    at = text.lower().find(mention.lower())
    if at < 0:
        return False
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
    starts = [m.end() for m in _CLAUSE_START.finditer(before)]
    clause = before[starts[-1] :] if starts else before
    verbs = list(_PAST_VERB.finditer(clause))
    return bool(verbs) and _AHEAD.search(clause[verbs[-1].end() :]) is None


def _sentence_around(text: str, start: int, end: int) -> str:
    """The sentence of `text` that holds [start, end): from after the last sentence end
    before it to the next one after it."""
    head = max(text.rfind(stop, 0, start) for stop in (". ", "! ", "? ", "\n"))
    tails = [i for stop in (". ", "! ", "? ", "\n") if (i := text.find(stop, end)) >= 0]
    return text[head + 1 : min(tails) + 1 if tails else len(text)]
