"""Event-time expressions → absolute UTC datetimes, resolved against the turn timestamp.

The event-time anchor h is one of the four necessary metadata dimensions (paper §3.3,
A.7.4): obligations and logistics are valid *until* h, and Appendix K's date-aware expiry
parses "ISO dates, month+day patterns, contextual months, and relative markers".

We lean on `dateparser` (`search_dates` with `RELATIVE_BASE` = the turn time) and add a thin
layer of our own only where it is wrong or silent (each case is covered in
tests/unit/test_dates.py):

* "on the 12th" / "the 3rd" — dateparser reads the ordinal as a *month* (→ Dec 12, Mar 12);
* "the day after tomorrow" — dateparser returns tomorrow;
* "a week from today" — dateparser goes backwards;
* "a couple of days", "a few weeks", "this weekend", "end of the month" — no result;
* chat spellings "tmrw", "2moro" — no result;
* dateparser happily reads "we" as Wednesday, "sat" as Saturday, "may" as May and
  "5 years" / "1100 a month" as dates, so every result must contain one of our date cues.

dateparser costs ~1 ms per call (and ~100 ms for its first), so nothing reaches it unless a
cheap regex of date cues matches first: most chat turns carry no date at all.
"""

from __future__ import annotations

import calendar
import logging
import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from functools import lru_cache
from typing import Literal

from dateparser.search import search_dates  # type: ignore[import-untyped]

from workers.extraction import clock_hours, spoken_days

logger = logging.getLogger(__name__)

Prefer = Literal["future", "past"]

_WEEKDAYS = "monday|tuesday|wednesday|thursday|friday|saturday|sunday"
_WD_ABBR = "mon|tue|tues|wed|thu|thur|thurs|fri|sat|sun"
_MONTHS = (
    "january|february|march|april|may|june|july|august|september|october|november|december|"
    "jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec"
)
#: The month and weekday names, for other modules' patterns.
MONTH_NAMES = _MONTHS
WEEKDAY_NAMES = _WEEKDAYS + "|" + _WD_ABBR
_NUM_WORDS = (
    "a|an|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|couple of|"
    "a couple of|a few|few|several|\\d+"
)
_UNITS = r"(?:minute|hour|day|week|month|year|fortnight)s?"
_TIME = r"\d{1,2}(?::\d{2})?\s*(?:am|pm|a\.m\.|p\.m\.)|(?:at\s+)\d{1,2}:\d{2}|noon|midnight"

#: A date cue: phrases, never lone words that are also ordinary words ("may", "sat", "we").
_CUE = re.compile(
    rf"\b(?:today|tonight|tomorrow|yesterday|(?:{_WEEKDAYS})s?"
    rf"|(?:on|next|this|last|coming|by|until|till|before|after)\s+(?:{_WD_ABBR})\b"
    r"|(?:next|this|last|coming)\s+(?:week|month|year|weekend|morning|afternoon|evening|night"
    r"|spring|summer|fall|autumn|winter)"
    r"|this\s+(?:morning|afternoon|evening)|(?:this|next|last|the|over\s+the|on\s+the)\s+weekend|end\s+of\s+(?:the\s+|this\s+|next\s+)?"
    r"(?:week|month|year)"
    rf"|(?:in|within|after)\s+(?:{_NUM_WORDS})\s+{_UNITS}"
    rf"|(?:{_NUM_WORDS})\s+{_UNITS}\s+(?:ago|from\s+(?:now|today|tomorrow))"
    rf"|(?:{_MONTHS})\.?\s+\d{{1,2}}(?:st|nd|rd|th)?\b"
    rf"|\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?(?:{_MONTHS})\b"
    rf"|(?:(?:in|on|by|until|since|early|late|mid|end\s+of|beginning\s+of|for)\s+|mid-)"
    rf"(?:{_MONTHS})\b"
    rf"|(?:{_MONTHS})\s+\d{{4}}"
    # "on 3/14", "3/14/2025" — a bare "24/7" or "1/2 cup" is no date
    r"|\d{4}-\d{1,2}-\d{1,2}|(?:on|by|until|till|due|before|after|from)\s+\d{1,2}/\d{1,2}\b"
    r"|\d{1,2}/\d{1,2}/\d{2,4}"
    r"|the\s+\d{1,2}(?:st|nd|rd|th)"
    rf"|{_TIME})",
    re.IGNORECASE,
)
#: Day-first numeric dates with dots, the written form of most of Europe (DIN 5008, and the
#: Nordic, Slavic and Turkish usage): "13.10.2026", "1.2.2025", or without the year "14.10."
#: and "01.02." — then day and month take two digits each and the closing dot, so that a
#: version ("Python 3.11."), a decimal ("1.93 m") or a price ("€12.50") is no date; never
#: after a currency sign or before a unit.
_DOTTED = re.compile(
    r"(?<![\w.,$€£¥])(?:(?P<d>[0-3]?\d)\.(?P<m>[01]?\d)\.(?P<y>(?:19|20)\d\d)(?![\d.]\d)"
    r"|(?P<d2>[0-3]\d)\.(?P<m2>[01]\d)\.(?!\d))"
    r"(?!\s*(?:%|€|\$|£|kr\b|eur\b|usd\b|gbp\b|nok\b|sek\b|dkk\b|chf\b|euros?\b|dollars?\b))",
    re.IGNORECASE,
)
_TIME_ONLY = re.compile(rf"^\s*(?:at\s+)?(?:{_TIME})\s*$", re.IGNORECASE)
_TIME_OF_DAY = re.compile(
    r"\b(?P<h>\d{1,2})(?::(?P<m>\d{2}))?\s*(?P<ap>am|pm|a\.m\.|p\.m\.)"
    r"|\bat\s+(?P<h24>\d{1,2}):(?P<m24>\d{2})\b|\b(?P<word>noon|midnight)\b",
    re.IGNORECASE,
)
_CHAT_SPELLINGS = re.compile(r"\b(?:tmrw|tmr|tmw|tmrrw|2moro|2morrow|tomoz|tomm?or+ow)\b", re.I)

# --- our own handlers: each is a case dateparser gets wrong or misses (see module doc) ---
_ORDINAL_DAY = re.compile(
    rf"\bthe\s+(?P<d>\d{{1,2}})(?:st|nd|rd|th)\b(?!\s+(?:of\s+)?(?:{_MONTHS})\b)", re.I
)
_DAY_AFTER = re.compile(r"\bday\s+after\s+tomorrow\b", re.I)
_DAY_BEFORE = re.compile(r"\bday\s+before\s+yesterday\b", re.I)
_FROM_NOW = re.compile(
    rf"\b(?P<n>{_NUM_WORDS})\s+(?P<u>{_UNITS})\s+from\s+(?P<ref>now|today|tomorrow)\b", re.I
)
#: British day counts (Appendix K's "relative markers"): "a fortnight today", "two weeks
#: tomorrow" (that day, N units on), "a week on Thursday", "three weeks on Friday" (the coming
#: weekday, N units on) and "Thursday week" (the coming Thursday, a week on). dateparser reads
#: the first as N units *ago* and drops the count of the others. An anniversary of something
#: done ("it's two weeks today since I quit", "been a fortnight today") looks back, not ahead.
_DAY_COUNT_ON = re.compile(
    rf"(?<!been\s)\b(?P<n>{_NUM_WORDS})\s+(?P<u>week|fortnight)s?\s+"
    rf"(?:(?P<ref>today|tonight|tomorrow)|on\s+(?P<wd>{_WEEKDAYS}))\b(?!\s+since\b)",
    re.I,
)
_WEEKDAY_WEEK = re.compile(rf"\b(?P<wd>{_WEEKDAYS})\s+week\b(?!\s+since\b)", re.I)
_VAGUE_IN = re.compile(
    rf"\b(?P<ago_in>in\s+)?(?P<n>a\s+couple\s+of|couple\s+of|a\s+few|few|several)\s+"
    rf"(?P<u>{_UNITS})(?P<ago>\s+ago)?\b",
    re.I,
)
_WEEKEND = re.compile(r"\b(?P<which>this|next|last|the|over\s+the|on\s+the)\s+weekend\b", re.I)
_END_OF = re.compile(
    r"\b(?:by\s+)?(?:the\s+)?end\s+of\s+(?:the\s+|this\s+)?(?P<next>next\s+)?"
    r"(?P<u>week|month|year)\b",
    re.I,
)
_BARE_MONTH = re.compile(
    r"\b(?:in|for|by|until|till|during|around|early|late|end\s+of|beginning\s+of"
    # rescheduling verbs: "pushed to October", "moved back to June"
    r"|(?:pushed|moved|postponed|delayed|bumped|rescheduled|put\s+off)(?:\s+back)?\s+to)\s+"
    rf"(?P<m>{_MONTHS})\b(?!\s*\d)(?!\s+of\b)",
    re.I,
)
_DEICTIC = re.compile(
    rf"\b(?:today|tonight|tomorrow|tmrw|(?:next|this|coming)\s+(?:(?:{_WEEKDAYS})|week|weekend"
    r"|month|morning|afternoon|evening)|(?:in|within)\s+(?:" + _NUM_WORDS + rf")\s+{_UNITS}"
    rf"|(?:{_NUM_WORDS})\s+{_UNITS}\s+from\s+(?:now|today))\b",
    re.I,
)
_MID_MONTH = re.compile(rf"\bmid-?\s*(?P<m>{_MONTHS})\b", re.I)

_WORD_NUMBERS = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
    "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12,
    "couple of": 2, "a couple of": 2, "a few": 3, "few": 3, "several": 3,
}  # fmt: skip
_MONTH_NUMBER = {
    name.lower(): i
    for names in (calendar.month_name, calendar.month_abbr)
    for i, name in enumerate(names)
    if name
} | {"sept": 9}

_TRAILING = re.compile(r"(?:\s+(?:at|on|and|in|by|the|of|for|to))+\s*$", re.IGNORECASE)
#: Anything further than this from the turn is a misparse, not an event time.
_MAX_DISTANCE = timedelta(days=366 * 10)


@dataclass(frozen=True, slots=True)
class DateMention:
    """A resolved event-time expression: the words that said it and the instant it means."""

    text: str
    when: datetime


@lru_cache(maxsize=1024)
def has_date_cue(text: str) -> bool:
    """Cheap gate: does `text` contain anything that looks like a date or time? A function of
    the text only, cached: the calendar and event patterns ask it of the same clause."""
    if (
        _CUE.search(text) is not None
        or _dotted(text) is not None
        or _CHAT_SPELLINGS.search(text) is not None
        or _BARE_MONTH.search(text) is not None
    ):
        return True
    spoken = spoken_days.digits(text)  # "on the twenty-first": a day said as a word
    return spoken != text and _CUE.search(spoken) is not None


def is_deictic(text: str) -> bool:
    """Whether `text` dates something relative to the moment it is said ("tomorrow", "next
    Thursday", "in three weeks", "a fortnight from now"): only someone speaking of their own
    life dates things so — the world's facts ("the average rent is …") are not deictic."""
    return _DEICTIC.search(text) is not None


def is_bare_month(words: str) -> bool:
    """Whether a mention names a month and no day ("for March", "in October")."""
    words = words.strip()
    return words.lower() in _MONTH_NUMBER or _BARE_MONTH.fullmatch(words) is not None


def resolve_event_time(text: str, base: datetime, prefer: Prefer = "future") -> datetime | None:
    """The first event time expressed in `text`, as a UTC datetime, or None.

    `base` is the turn timestamp (naive is read as UTC). `prefer` settles ambiguous
    expressions ("Friday", "March 5", "the 12th"): upcoming events prefer the future,
    completed ones ("I moved on March 5") the past.
    """
    mention = find_event_time(text, base, prefer)
    return mention.when if mention else None


def find_event_time(text: str, base: datetime, prefer: Prefer = "future") -> DateMention | None:
    """Like `resolve_event_time`, also returning the words of the expression (a day said as
    an ordinal word comes back in digits: `spoken_days`)."""
    text = spoken_days.digits(text)
    if not (has_date_cue(text) or clock_hours.has_clock(text)):
        return None
    base = base.replace(tzinfo=UTC) if base.tzinfo is None else base.astimezone(UTC)
    clock = clock_hours.rewrite(_CHAT_SPELLINGS.sub("tomorrow", text))
    text = clock.text
    mention = (
        _own_rules(text, base, prefer)
        or _with_dateparser(text, base, prefer)
        or _bare_month(text, base, prefer)
    )
    if mention is None or abs(mention.when - base) > _MAX_DISTANCE:
        return None
    return DateMention(clock.original(mention.text), mention.when)  # the user's own words


def _bare_month(text: str, base: datetime, prefer: Prefer) -> DateMention | None:
    """A month named without a day after a preposition ("scheduled for March", "the launch
    is in October", "by June") that dateparser missed in its sentence: the month's next (or,
    for completed events, last) occurrence, on the turn's day of the month as dateparser
    reads "in May" (paper Appendix K: "contextual months")."""
    m = _BARE_MONTH.search(text)
    if m is None:
        return None
    month = _MONTH_NUMBER[m["m"].lower()]
    midnight = base.replace(hour=0, minute=0, second=0, microsecond=0)
    year_first = midnight.replace(day=1, month=month)
    day = min(midnight.day, calendar.monthrange(year_first.year, month)[1])
    return DateMention(m.group(0), _month_day(midnight.replace(day=1), month, day, prefer))


def _own_rules(text: str, base: datetime, prefer: Prefer) -> DateMention | None:
    day = _own_day(text, base, prefer)
    if day is None:
        return None
    words, when = day
    return DateMention(words, _with_time_of_day(when, text))


def _own_day(text: str, base: datetime, prefer: Prefer) -> tuple[str, datetime] | None:
    midnight = base.replace(hour=0, minute=0, second=0, microsecond=0)
    if m := _DAY_AFTER.search(text):
        return m.group(0), midnight + timedelta(days=2)
    if m := _DAY_BEFORE.search(text):
        return m.group(0), midnight - timedelta(days=2)
    if m := _FROM_NOW.search(text):
        start = base + timedelta(days=1) if m["ref"].lower() == "tomorrow" else base
        return m.group(0), _shift(start, _count(m["n"]), m["u"])
    if counted := _counted_days(text, base, midnight, prefer):
        return counted
    if m := _VAGUE_IN.search(text):
        sign = -1 if m["ago"] else 1
        if m["ago_in"] or m["ago"]:
            return m.group(0), _shift(base, sign * _count(m["n"]), m["u"])
    if m := _WEEKEND.search(text):
        saturday = midnight + timedelta(days=(5 - midnight.weekday()) % 7)
        if m["which"].lower() == "next":
            saturday += timedelta(days=7)
        elif m["which"].lower() == "last":
            saturday -= timedelta(days=7)
        return m.group(0), saturday
    if m := _END_OF.search(text):
        return m.group(0), _end_of(midnight, m["u"].lower(), bool(m["next"]))
    if m := _MID_MONTH.search(text):
        return m.group(0), _month_day(midnight, _MONTH_NUMBER[m["m"].lower()], 15, prefer)
    if dotted := _dotted(text):
        words, month, day, year = dotted
        if year is None:
            return words, _month_day(midnight, month, day, prefer)
        return words, midnight.replace(year=year, month=month, day=day)
    if m := _ORDINAL_DAY.search(text):
        found = _day_of_month(midnight, int(m["d"]), prefer)
        return (m.group(0), found) if found else None
    return None


def _counted_days(
    text: str, base: datetime, midnight: datetime, prefer: Prefer
) -> tuple[str, datetime] | None:
    """`_DAY_COUNT_ON` and `_WEEKDAY_WEEK`: a day, then a count of weeks on from it."""
    if m := _DAY_COUNT_ON.search(text):
        if m["wd"]:
            start = _coming(midnight, m["wd"])
        else:
            ref = m["ref"].lower()
            start = base + timedelta(days=1) if ref == "tomorrow" else base
        sign = -1 if prefer == "past" and not m["wd"] else 1
        return m.group(0), _shift(start, sign * _count(m["n"]), m["u"])
    if m := _WEEKDAY_WEEK.search(text):
        return m.group(0), _coming(midnight, m["wd"]) + timedelta(days=7)
    return None


def _coming(midnight: datetime, weekday: str) -> datetime:
    """The next `weekday` after the day of `midnight` (a week on when it is that day)."""
    ahead = (_WEEKDAYS.split("|").index(weekday.lower()) - midnight.weekday()) % 7
    return midnight + timedelta(days=ahead or 7)


def _dotted(text: str) -> tuple[str, int, int, int | None] | None:
    """The first valid day-first dotted date (`_DOTTED`): its words, month, day and year (None
    when not written)."""
    for m in _DOTTED.finditer(text):
        day, month = int(m["d"] or m["d2"]), int(m["m"] or m["m2"])
        year = int(m["y"]) if m["y"] else None
        leap = 2025 if year is None else year  # a yearless 29.02. may not exist this year
        if 1 <= month <= 12 and 1 <= day <= calendar.monthrange(leap, month)[1]:
            return m.group(0), month, day, year
    return None


def _count(words: str) -> int:
    words = " ".join(words.lower().split())
    return int(words) if words.isdigit() else _WORD_NUMBERS.get(words, 1)


def _shift(start: datetime, n: int, unit: str) -> datetime:
    unit = unit.lower().rstrip("s")
    if unit == "month":
        return _add_months(start, n)
    if unit == "year":
        return _add_months(start, 12 * n)
    days = {"minute": 1 / 1440, "hour": 1 / 24, "day": 1, "week": 7, "fortnight": 14}[unit]
    return start + timedelta(days=days * n)


def _add_months(start: datetime, n: int) -> datetime:
    index = start.month - 1 + n
    year, month = start.year + index // 12, index % 12 + 1
    day = min(start.day, calendar.monthrange(year, month)[1])
    return start.replace(year=year, month=month, day=day)


def _end_of(midnight: datetime, unit: str, following: bool) -> datetime:
    if unit == "week":
        # The working week ends on Friday: "by the end of the week" is a deadline.
        friday = midnight + timedelta(days=(4 - midnight.weekday()) % 7)
        return friday + timedelta(days=7 if following else 0)
    if unit == "month":
        start = _add_months(midnight.replace(day=1), 1 if following else 0)
        return start.replace(day=calendar.monthrange(start.year, start.month)[1])
    return midnight.replace(year=midnight.year + (1 if following else 0), month=12, day=31)


def _month_day(midnight: datetime, month: int, day: int, prefer: Prefer) -> datetime:
    candidate = midnight.replace(month=month, day=day)
    if prefer == "future" and candidate < midnight:
        return candidate.replace(year=candidate.year + 1)
    if prefer == "past" and candidate > midnight:
        return candidate.replace(year=candidate.year - 1)
    return candidate


def _day_of_month(midnight: datetime, day: int, prefer: Prefer) -> datetime | None:
    """The nearest month (this one first) that has `day`, forwards or backwards."""
    if not 1 <= day <= 31:
        return None
    step = 1 if prefer == "future" else -1
    first = midnight.replace(day=1)
    for offset in range(0, 13):
        month = _add_months(first, step * offset)
        if day > calendar.monthrange(month.year, month.month)[1]:
            continue
        candidate = month.replace(day=day)
        if offset == 0 and (candidate - midnight).days * step < 0:
            continue
        return candidate
    return None


def _with_time_of_day(day: datetime, text: str) -> datetime:
    m = _TIME_OF_DAY.search(text)
    if m is None:
        return day
    if m["word"]:
        return day.replace(hour=12 if m["word"].lower() == "noon" else 0, minute=0)
    if m["h24"]:
        hour, minute = int(m["h24"]), int(m["m24"])
    else:
        hour, minute = int(m["h"]) % 12, int(m["m"] or 0)
        if m["ap"].lower().startswith("p"):
            hour += 12
    if hour > 23 or minute > 59:
        return day
    return day.replace(hour=hour, minute=minute)


def _month_of(words: str, text: str) -> bool:
    """A bare month ("March") that the text introduces as a time ("scheduled for March")."""
    month = words.strip().lower()
    return month in _MONTH_NUMBER and bool(
        re.search(rf"\b(?:in|for|by|until|since|during)\s+{re.escape(month)}\b", text, re.I)
    )


def _with_dateparser(text: str, base: datetime, prefer: Prefer) -> DateMention | None:
    settings = {
        # dateparser works on naive datetimes in the TIMEZONE given; ours is UTC.
        "RELATIVE_BASE": base.replace(tzinfo=None),
        "PREFER_DATES_FROM": prefer,
        "TIMEZONE": "UTC",
        "TO_TIMEZONE": "UTC",
        "RETURN_AS_TIMEZONE_AWARE": True,
    }
    try:
        found = search_dates(text, languages=["en"], settings=settings)
    except Exception:  # a third-party parser must never take the extractor down
        logger.warning("dateparser failed on %r", text, exc_info=True)
        return None
    # Keep only results that carry a real date cue: dateparser reads "we" as Wednesday.
    accepted = [
        (words, when) for words, when in found or () if _CUE.search(words) or _month_of(words, text)
    ]
    if not accepted:
        return None
    dated = [(w, t) for w, t in accepted if not _TIME_ONLY.match(w)]
    timed = [(w, t) for w, t in accepted if _TIME_ONLY.match(w)]
    if not dated:
        words, when = timed[0]
        return DateMention(words.strip(), when.astimezone(UTC))
    words, when = dated[0]
    words = _TRAILING.sub("", words)  # "Last Friday at" → "Last Friday"
    when = when.astimezone(UTC)
    if timed and not _TIME_OF_DAY.search(words):
        # "at 6am … on Friday" arrive as two results: the day from one, the time from the other.
        clock = timed[0][1]
        when = when.replace(hour=clock.hour, minute=clock.minute, second=0, microsecond=0)
        words = f"{words.strip()} {timed[0][0].strip()}"
    return DateMention(words.strip(), when)
