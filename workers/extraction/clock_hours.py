"""A bare hour after "at" next to a day is a clock time: "on Tuesday at 10", "at 4 on Friday".

The preposition "at" never introduces a day or a month, but dateparser reads the number as one
("Tuesday at 10" became 8 October), so the hour is written "H:MM" before parsing — only for
parsing: the mention keeps the user's own words (`Rewrite.original`).

Which half of the day (no am/pm said): an everyday appointment "at 4" is 4 pm, so hours 1–7
read as 13–19 (nobody books the dentist for 3 am); 8–12 stay as said (morning or noon);
"tonight" / "this evening" / "this afternoon" put every hour 1–11 in the afternoon or evening.
An explicit "a.m."/"pm" is read as said. A number that is no hour is never a clock, nor a day:
a decimal or a thousands group ("at 12.5 km", "at 10,000 feet"), a fraction, a percentage, or
more than 23 is hidden from the parser (which read "Friday at 10,000" as 10 October).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_WEEKDAYS = "monday|tuesday|wednesday|thursday|friday|saturday|sunday"
#: Weekday abbreviations; "wed", "sat" and "sun" are also English words, so only capitalised.
_WD_ABBR = r"(?:mon|tue|tues|thu|thur|thurs|fri|(?-i:Wed|Sat|Sun))\.?"
_PM_DAY = r"tonight|this\s+(?:afternoon|evening)"
_MONTHS = (
    r"(?:january|february|march|april|may|june|july|august|september|october|november|december"
    r"|jan|feb|mar|apr|jun|jul|aug|sept?|oct|nov|dec)\.?"
)
#: A day of a month, either order: "March 3", "3rd of March", "3 Mar".
_MONTH_DAY = (
    rf"(?:{_MONTHS}\s+\d{{1,2}}(?:st|nd|rd|th)?|\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTHS})"
)
_DAY_WORD = (
    rf"(?:{_WEEKDAYS}|{_WD_ABBR}(?![\w.])|today|tomorrow|this\s+morning|{_PM_DAY}|{_MONTH_DAY})"
)
#: An hour in digits or in words ("at 10", "at ten"): dateparser read "Tuesday at ten" as
#: 10 October and "March 3 at ten" as the year 2110.
_HOUR_WORDS = (
    "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven",
    "twelve",
)  # fmt: skip
_HOUR = r"\d{1,2}|" + "|".join(_HOUR_WORDS)
_NOT_CLOCK = (
    r"(?!\s*(?:(?:percent|per\s+cent)\b|%))"  # a rate
    r"(?![:/\d])(?![.,]\d)"  # a decimal, a thousands group, a fraction or a date
)
#: An explicit half of the day, "o'clock" or "-ish" after the hour ("at 5 a.m.", "at 9ish").
_SAID = r"(?:\s*(?P<{}>a\.m\.|p\.m\.|am\b|pm\b|o'clock\b|-?ish\b))?"
_BARE_HOUR = re.compile(
    rf"(?P<pre>\b(?P<day>{_DAY_WORD})\s+at\s+)(?P<h>{_HOUR})(?:\.(?P<m>[0-5]\d))?\b"
    rf"{_NOT_CLOCK}{_SAID.format('ap')}"
    rf"|(?P<pre2>\bat\s+)(?P<h2>{_HOUR})(?:\.(?P<m2>[0-5]\d))?\b{_NOT_CLOCK}"
    rf"{_SAID.format('ap2')}(?=\s+(?:on\s+|this\s+|next\s+)?(?P<day2>{_DAY_WORD})\b)",
    re.IGNORECASE,
)
#: Any other number after "at" next to a day is no part of the date either ("on Friday at
#: 10,000 feet", "Tuesday at 25"): hidden from the parser, which would read it as a day.
_AT_NUMBER = re.compile(
    rf"\b(?:{_DAY_WORD})\s+at\s+(?P<n>\d[\d.,/]*%?)(?![\w:%])"
    rf"|\bat\s+(?P<n2>\d[\d.,/]*%?)(?![\w:%])(?=\s+(?:on\s+|this\s+|next\s+)?(?:{_DAY_WORD})\b)",
    re.IGNORECASE,
)
_PM = re.compile(_PM_DAY, re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Rewrite:
    """`text` with its bare hours as clock times, and where each rewrite came from."""

    text: str
    #: (start, end) in the original text and (start, end) in `text`, per rewritten hour.
    edits: tuple[tuple[int, int, int, int], ...]
    source: str

    def original(self, words: str) -> str:
        """The user's own words for `words`, a span of the rewritten text."""
        if not self.edits:
            return words
        start = self.text.find(words)
        if start < 0:
            return words
        return self.source[self._back(start, True) : self._back(start + len(words), False)]

    def _back(self, at: int, is_start: bool) -> int:
        shift = 0
        for old_start, old_end, new_start, new_end in self.edits:
            if at <= new_start:
                break
            if at < new_end:  # inside a rewritten hour: the whole hour as said
                return old_start if is_start else old_end
            shift = old_end - new_end
        return at + shift


def has_clock(text: str) -> bool:
    """Whether `text` names a day with a bare hour ("Mon at 10"): a date cue of its own."""
    return _BARE_HOUR.search(text) is not None


def rewrite(text: str) -> Rewrite:
    """`text` with each bare hour after "at" next to a day written as "H:MM" (24-hour), and
    any other number there blanked out."""
    spans: list[tuple[int, int, str]] = []
    for m in _BARE_HOUR.finditer(text):
        if (clock := _clock(m)) is not None:
            spans.append((m.start("h" if m["h"] else "h2"), m.end(), clock))
    for m in _AT_NUMBER.finditer(text):
        start, end = m.span("n" if m["n"] else "n2")
        if not any(s <= start < e for s, e, _ in spans):
            spans.append((start, end, " " * (end - start)))
    if not spans:
        return Rewrite(text, (), text)
    parts: list[str] = []
    edits: list[tuple[int, int, int, int]] = []
    last = size = 0
    for start, end, new in sorted(spans):
        parts += [text[last:start], new]
        size += start - last
        edits.append((start, end, size, size + len(new)))
        size += len(new)
        last = end
    parts.append(text[last:])
    return Rewrite("".join(parts), tuple(edits), text)


def _clock(m: re.Match[str]) -> str | None:
    said_hour = (m["h"] or m["h2"]).lower()
    hour = int(said_hour) if said_hour.isdigit() else _HOUR_WORDS.index(said_hour) + 1
    said = (m["ap"] or m["ap2"] or "").lower().replace(".", "")
    day = " ".join((m["day"] or m["day2"] or "").lower().split())
    if hour > 23 or (said in ("am", "pm") and not 1 <= hour <= 12):
        return None
    if said in ("am", "pm"):
        hour = hour % 12 + (12 if said == "pm" else 0)
    elif 1 <= hour <= 11 and _PM.fullmatch(day):
        hour += 12  # "tonight at 8", "this evening at 9"
    elif 1 <= hour <= 7 and day != "this morning":
        hour += 12  # "at 4 on Friday": an everyday appointment's afternoon
    return f"{hour}:{m['m'] or m['m2'] or '00'}"
