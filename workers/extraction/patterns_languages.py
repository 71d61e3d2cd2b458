"""Languages the user is learning: one accumulate slot per language (Table 1 row 6).

"I'm learning Dutch", "started Greek lessons", "doing Portuguese on Duolingo every day" and
"my Spanish classes are going well" all put `interest.<language>` to learning; "dropped my
Spanish classes", "I quit German, it wasn't clicking", "gave up on Japanese" replace it with
stopped. A language name alone ("I'm Greek", "Greek food") is no learning: a cue must say
so (lessons, classes, a course, an app, the learning verb itself).
"""

from __future__ import annotations

import re

from workers.extraction import draft as d
from workers.extraction.clauses import Clause, subject_is_user
from workers.extraction.draft import Draft
from workers.extraction.lexicon import LANGUAGES

_I = re.IGNORECASE
_LANG = "(?P<lang>" + "|".join(sorted(LANGUAGES, key=len, reverse=True)) + r")\b"
_COURSE = (
    r"(?:lessons?|class(?:es)?|course|tutoring|tutor|immersion|on\s+duolingo|with\s+a\s+tutor)"
)
_START = re.compile(
    rf"\b(?:started|starting|start|taking|take|took\s+up|doing|began|begun|signed\s+up\s+for"
    rf"|enrolled\s+in|booked)\s+(?:some\s+|an?\s+)?{_LANG}\s*{_COURSE}"
    rf"|\b(?:learning|studying|practi[cs]ing|brushing\s+up\s+on|picking\s+up|doing)\s+"
    rf"{_LANG.replace('lang', 'lang2')}(?!\s+(?:food|cuisine|films?|music|wine|history))"
    rf"|\bmy\s+{_LANG.replace('lang', 'lang3')}\s+(?:lessons?|class(?:es)?|course|tutor|teacher"
    rf"|homework|streak|vocab|grammar)\b"
    rf"|\b{_LANG.replace('lang', 'lang4')}\s+(?:lessons|classes|class|course)\s+(?:are|is|have"
    r"|has|start|started|going)\b",
    _I,
)
_STOP = re.compile(
    rf"\b(?:gave\s+up(?:\s+on)?|given\s+up(?:\s+on)?|giving\s+up(?:\s+on)?|quit|quitting"
    rf"|stopped(?:\s+(?:learning|studying|doing))?|dropped|dropping|done\s+with|finished\s+with"
    rf"|no\s+longer\s+(?:learning|studying|doing)|not\s+(?:learning|studying|doing))\s+"
    rf"(?:my\s+|the\s+)?{_LANG}(?:\s+{_COURSE})?",
    _I,
)


def find(clause: Clause) -> list[Draft]:
    text = clause.text
    out: list[Draft] = []
    stopped: set[str] = set()
    for m in _STOP.finditer(text):
        if not subject_is_user(text, m.start()):
            continue
        lang = m["lang"].capitalize()
        stopped.add(lang)
        out.append(_draft("interest.language_stopped", lang, "stopped", m, d.R,
                          f"User stopped learning {lang}"))  # fmt: skip
    for m in _START.finditer(text):
        lang = next(v for k, v in m.groupdict().items() if k.startswith("lang") and v)
        lang = lang.capitalize()
        if lang in stopped or not subject_is_user(text, m.start()):
            continue
        out.append(
            _draft("interest.language", lang, "learning", m, d.A, f"User is learning {lang}")
        )
    return out


def _draft(
    kind: str, lang: str, value: str, m: re.Match[str], update: d.UpdateSemantics, said: str
) -> Draft:
    # before "quit X" (a job) and "gave up on X" (a plan)
    return d.from_match(
        kind,
        f"interest.{lang.lower()}",
        value,
        m,
        d.INTEREST,
        update,
        d.COMMITTED,
        12,
        negatable=update is d.R,
        statement=said,
    )
