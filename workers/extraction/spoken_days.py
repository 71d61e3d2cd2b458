"""A day of the month said as a word is a date: "on the twenty-first", "the third of May".

Spoken and dictated turns (voice notes, transcripts) say the day of the month as an ordinal
word; dateparser and our date cues read only digits ("the 21st", "3 May"), so such an event
got no event time and never expired (paper §3.3: obligations and logistics are valid until
their event time h; Appendix K: "month+day patterns"). Before parsing, an ordinal word is
written as digits — only where it can be nothing but a day, because "the first time", "the
second shop" and "on the third floor" are ordinals too:

* before "of <month>": "the fourth of June" → "the 4th of June";
* after a month, with or without "the": "June the fourth" → "June 4th";
* after a weekday and "the": "Friday the ninth" → "Friday the 9th";
* after "on the" when no noun follows it (a comma, the end, "at", "and", "for", a dash):
  "I'm flying on the twenty-second, early" → "on the 22nd".
"""

from __future__ import annotations

import re

# fmt: off
_UNITS = {
    "first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7,
    "eighth": 8, "ninth": 9,
}
_TEENS = {
    "tenth": 10, "eleventh": 11, "twelfth": 12, "thirteenth": 13, "fourteenth": 14,
    "fifteenth": 15, "sixteenth": 16, "seventeenth": 17, "eighteenth": 18, "nineteenth": 19,
    "twentieth": 20, "thirtieth": 30,
}
# fmt: on
_ORDINALS: dict[str, int] = {**_UNITS, **_TEENS}
_ORDINALS.update({f"twenty {w}": 20 + n for w, n in _UNITS.items()})
_ORDINALS["thirty first"] = 31

_WORD = r"(?P<w>(?:twenty[\s-]+)?(?:first|second|third|fourth|fifth|sixth|seventh|eighth|ninth)"
_WORD += r"|tenth|eleventh|twelfth|thirteenth|fourteenth|fifteenth|sixteenth|seventeenth"
_WORD += r"|eighteenth|nineteenth|twentieth|thirtieth|thirty[\s-]+first)"
_MONTH = (
    r"(?:january|february|march|april|may|june|july|august|september|october|november"
    r"|december|jan|feb|mar|apr|jun|jul|aug|sept?|oct|nov|dec)\.?"
)
_DAY = (
    r"(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday"
    r"|mon|tues?|wed|thu(?:rs?)?|fri|sat|sun)\.?"
)
_SPOKEN = re.compile(
    rf"\b{_WORD}(?=\s+of\s+{_MONTH}(?!\w))"
    rf"|(?<=\b)(?P<month>{_MONTH})\s+(?:the\s+)?{_WORD.replace('?P<w>', '?P<w2>')}\b"
    rf"|(?P<pre>\b{_DAY}\s+the\s+){_WORD.replace('?P<w>', '?P<w3>')}\b"
    rf"|(?P<on>\bon\s+the\s+){_WORD.replace('?P<w>', '?P<w4>')}\b"
    r"(?=\s*(?:$|[,.;:!?)\u2014\u2013-]|\s(?:at|and|for|in|or|then|from|till|until)\b))",
    re.IGNORECASE,
)
#: Every ordinal word 1–31 contains one of these: the cheap test before the regex.
_STEMS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth",
          "ninth", "tenth", "eleventh", "twelfth", "teenth", "tieth")  # fmt: skip
_SUFFIX = {1: "st", 2: "nd", 3: "rd", 21: "st", 22: "nd", 23: "rd", 31: "st"}


def digits(text: str) -> str:
    """`text` with each ordinal word that can only be a day of the month written as digits
    ("the 21st"); the same string when it has none."""
    low = text.lower()
    if not any(stem in low for stem in _STEMS):
        return text
    return _SPOKEN.sub(_digits, text)


def _digits(m: re.Match[str]) -> str:
    word = m["w"] or m["w2"] or m["w3"] or m["w4"]
    n = _ORDINALS[" ".join(word.lower().replace("-", " ").split())]
    day = f"{n}{_SUFFIX.get(n, 'th')}"
    if m["w"]:
        return day
    if m["w2"]:
        return f"{m['month']} {day}"
    return f"{m['pre'] or m['on']}{day}"
