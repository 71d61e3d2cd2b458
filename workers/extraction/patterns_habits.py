"""Habits said in free phrasing: what music the user listens to, when they work out.

Both are replace slots of Preferences & Habits (Table 1 row 5): "my playlists are all
techno", "I can't get enough synthwave", "I've moved on from hip hop, it's all heavy metal
now" all set `user.music_preference`; "I hit the gym at lunchtime these days", "my
workouts are late at night now", "I train in the evening after work" set
`user.workout_time`. Genres come from a lexicon, so "I'm into hip hop" is a taste and not an
intellectual interest, and its later change lands in the same slot.
"""

from __future__ import annotations

import re

from workers.extraction import draft as d
from workers.extraction.clauses import Clause, subject_is_user
from workers.extraction.draft import Draft
from workers.extraction.lexicon import MUSIC

_I = re.IGNORECASE
_G = "|".join(sorted((re.escape(g) for g in MUSIC), key=len, reverse=True))
_GENRE = rf"(?P<g>{_G})\b"
_MUSIC = re.compile(
    rf"\b(?:mostly|mainly|only|always|just)\s+(?:listen(?:ing)?|listened)\s+to\s+{_GENRE}"
    rf"|^(?P<g2>{_G})\s+is\s+(?:all|what|mostly\s+what)\s+(?:i|we)\s+(?:listen\s+to|play|put\s+on)"
    rf"|\bcan(?:'t|not)\s+get\s+enough\s+(?:of\s+)?(?P<g3>{_G})\b"
    rf"|\bmy\s+(?:playlists?|spotify|music)\s+(?:are|is)(?:\s+(?:all|full\s+of|mostly|just|basically))+"
    rf"\s+(?P<g4>{_G})\b"
    rf"|\b(?:really\s+|so\s+|totally\s+|very\s+)?(?:into|obsessed\s+with|hooked\s+on)\s+"
    rf"(?P<g5>{_G})\b(?!\s+(?:history|culture|dancing|classes|lessons))"
    rf"|\bmoved\s+on\s+from\s+(?:{_G}),?\s+(?:it's|its|it\s+is)\s+(?:all\s+)?(?P<g6>{_G})\b"
    rf"|\bswitched\s+from\s+(?:{_G})\s+to\s+(?P<g7>{_G})\b"
    rf"|\bit's\s+all\s+(?P<g8>{_G})\s+(?:now|these\s+days)\b",
    _I,
)
_TIME = (
    r"(?P<t>(?:early|first\s+thing)\s+in\s+the\s+morning|in\s+the\s+mornings?|before\s+work"
    r"|at\s+lunch(?:time)?|during\s+(?:my\s+)?lunch(?:\s+break)?|in\s+the\s+evenings?"
    r"(?:\s+after\s+work)?|after\s+work|late\s+at\s+night|at\s+night|on\s+(?:the\s+)?weekends"
    r"|at\s+(?:the\s+)?weekends?|at\s+\d{1,2}(?::\d{2})?\s*(?:am|pm)?)"
)
_WORKOUT = re.compile(
    r"\b(?P<what>work(?:ing)?\s+out|train(?:ing)?|hit(?:ting)?\s+the\s+gym|go(?:ing)?\s+to\s+"
    r"the\s+gym|gym\s+sessions?|workouts?|exercis(?:e|ing)|lift(?:ing)?)\b"
    r"(?:\s+(?:are|is|happen|happens))?(?:\s+(?:always|usually|mostly|now|these\s+days|only))*"
    rf"\s+{_TIME}",
    _I,
)
#: "No more gym late at night, I go on weekends now": the second clause's "go" is the gym.
_GO = re.compile(rf"^(?:and\s+|but\s+)?(?:i|we)\s+(?:now\s+)?go\s+{_TIME}", _I)
_HABITUAL_I = re.compile(
    r"\b(?:i|we)(?:\s+(?:usually|always|mostly|normally|often|now|still|generally|tend\s+to))+"
    r"\s*$",
    _I,
)
_GYM_WORDS = re.compile(r"\b(?:gym|work(?:ing)?\s+out|workouts?|training)\b", _I)
_NOT_NOW = re.compile(
    r"\b(?:no\s+more|not|wasn't|used\s+to|instead\s+of|never|don't|do\s+not|doesn't|stopped"
    r"|quit)\b[^,]*$",
    _I,
)


def find(clause: Clause) -> list[Draft]:
    text = clause.text
    out: list[Draft] = []
    for m in _MUSIC.finditer(text):
        genre = next(v for k, v in m.groupdict().items() if v)
        if re.match(
            r"(?:mostly|mainly|only|always|just|can|really|so|totally|very|into|obsessed"
            r"|hooked)",
            m.group(0),
            _I,
        ) and not subject_is_user(text, m.start()):
            continue  # fmt: skip
        if _NOT_NOW.search(text[: m.start()]):
            continue
        genre = genre.lower()
        out.append(
            _draft("preference.music", "user.music_preference", genre, m,
                   f"User mostly listens to {genre} (music taste)")
        )  # fmt: skip
    for m in _WORKOUT.finditer(text):
        before = text[: m.start()]
        if m["what"].lower().startswith("train") and re.search(
            r"\b(?:my|the|a|our|his|her)\s*$", before, _I
        ):
            continue  # "my train at 8am" is a journey
        mine = (
            subject_is_user(text, m.start())
            or before.lower().endswith("my ")
            or _HABITUAL_I.search(before) is not None
        )
        if _NOT_NOW.search(before) or not mine:
            continue
        out.append(_workout(m))
    go = _GO.match(text)
    if not out and go is not None and _GYM_WORDS.search(clause.sentence_text or ""):
        out.append(_workout(go))
    return out


def _workout(m: re.Match[str]) -> Draft:
    when = " ".join(m["t"].lower().split())
    return _draft("preference.workout_time", "user.workout_time", when, m,
                  f"User works out at the gym {when} (workout time)")  # fmt: skip


def _draft(kind: str, slot: str, value: str, m: re.Match[str], said: str) -> Draft:
    # before interests ("into hip hop") and lost interests ("moved on from")
    # "can't get enough techno": negation is judged here (`_NOT_NOW`)
    return d.from_match(
        kind, slot, value, m, d.PREFERENCE, d.R, d.COMMITTED, 10, negatable=True, statement=said
    )
