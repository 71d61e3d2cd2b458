"""Hobbies & Recreation and Intellectual Interests (Table 1 rows 3 and 6).

Hobbies are a per-hobby state, `hobby.<name>` = active / stopped (dormancy is the scorer's
business: slow decay); interests accumulate per topic, `interest.<topic>`, and may be
reactivated. Hobby names come from a lexicon so that "I took up pottery" and "I don't do
pottery anymore" share a slot; anything else the user "got into" is an interest.
"""

from __future__ import annotations

import dataclasses
import re

from workers.extraction import draft as d
from workers.extraction.clauses import Clause, slug, subject_is_user, trim_phrase
from workers.extraction.draft import Draft
from workers.extraction.draft import from_match as _draft
from workers.extraction.lexicon import FOODS, HOBBIES, words
from workers.extraction.patterns_prefs import classify

_I = re.IGNORECASE
_OBJ = r"(?P<obj>[^\s,.;!?][^,.;!?]*)"
_HOBBY_RE = "|".join(sorted((re.escape(k) for k in HOBBIES), key=len, reverse=True))
_HOBBY_START = re.compile(
    r"\b(?P<verb>(?:got|gotten|getting|has|had)\s+me\s+(?:really\s+|hooked\s+)?(?:into|on)"
    r"|introduced\s+me\s+to|took\s+up|taken\s+up|taking\s+up|started|starting|began|got\s+into|getting"
    r"\s+(?:really\s+|more\s+)?into|been|picked\s+up|joined\s+an?|signed\s+up\s+for"
    r"|learning(?:\s+to\s+play)?|learning\s+to|love|enjoy|do|doing|play|playing|go|going"
    r"|practice|practicing|found|discovered|back\s+to|returned\s+to|back\s+into|really\s+into"
    r"|into|obsessed\s+with|hooked\s+on)\s+"
    r"(?:the\s+|some\s+|a\s+|an\s+)?(?:(?:local|new|weekend|weekly|beginner'?s?|evening"
    rf"|morning|hot|community|free)\s+)*(?P<obj>{_HOBBY_RE})\b"
    r"(?!\s+(?:about|up\s+on|into|a\s+lot|for\s+(?:my|the|a)\s+(?:exam|test|class)|studio"
    r"|school|company|business|shop|store|concert|show|recital|game|match|performance|teacher"
    r"|instructor|player|fans?|movies?|videos?|competition)\b)"
    # "running my own studio", "reading her stuff": the verb, not the hobby
    r"(?<!ing(?=\s+(?:my|our|his|her|their|a|an|the|this|that)\s"
    # … but "birding this winter" is a time, not the verb's object
    r"(?!(?:week|weekend|month|year|winter|spring|summer|fall|autumn|season|morning|evening)\b)))"
    r"(?P<club>\s+(?:club|class|classes|team|league|group|lessons))?",
    _I,
)
#: A pastime told without a subject, by how often: "bouldering 3x a week now", "swimming
#: every morning before work" (chat drops the "I"; the frequency says it is a habit).
_HOBBY_HABIT = re.compile(
    rf"^(?:(?:been|still|now)\s+)?(?P<obj>{_HOBBY_RE})\s+(?:(?:\d+|one|two|three|four|five)"
    r"\s*(?:x|times)\b|once\b|twice\b|every\b|most\s+(?:days|evenings|mornings|weekends)\b"
    r"|on\s+(?:weekends|sundays|saturdays)\b|daily\b|nightly\b)",
    _I,
)
_HOBBY_STOP = re.compile(
    r"\b(?P<verb>gave\s+up|given\s+up|giving\s+up|give\s+up|quit|quitting|stopped|stopping"
    r"|dropped|no\s+longer\s+(?:do|play|go)|(?:don't|dont|do\s+not)\s+(?:do|play|go)|can't"
    r"\s+(?:do|play)|haven't\s+(?:been|gone|played|done)(?![^.]*\byet\b)|not\s+(?:doing|playing)"
    r"|had\s+to\s+"
    r"give\s+up)\s+(?:going\s+(?:to\s+)?|doing\s+|playing\s+)?(?:the\s+|my\s+|any\s+)?"
    r"(?P<obj>" + _HOBBY_RE + r")\b",
    _I,
)
_INTEREST = re.compile(
    r"\b(?P<verb>got\s+into|getting\s+(?:really\s+|more\s+)?into|gotten\s+into|really\s+into|(?:i'm|im|i\s+am)\s+"
    r"(?:so\s+|really\s+|super\s+)?into|interested\s+in|fascinated\s+(?:by|with)|obsessed\s+"
    r"with|reading\s+(?:a\s+lot\s+)?about|learning\s+about|studying(?!\s+for)|nerding\s+out"
    r"\s+(?:on|about)|curious\s+about|passionate\s+about|been\s+exploring|diving\s+into|deep"
    r"\s+into"
    # a habit of watching or reading about a subject is an interest in it
    r"|(?:keep|kept|been|always|love|started)\s+(?:watching|reading|listening\s+to|bingeing"
    r"|binging)\s+(?:\w+\s+)?(?:documentaries|docs|videos|podcasts|books|lectures|articles"
    r"|shows|youtube\s+videos)\s+(?:about|on)"
    r"|rabbit\s+hole\s+(?:on|about|of)|learning(?=\s+(?-i:[A-Z])))\s+" + _OBJ,
    _I,
)
_LOST_INTEREST = re.compile(
    r"\b(?:lost\s+(?:all\s+)?interest\s+in|(?:not|no\s+longer)\s+(?:really\s+)?(?:into|interested"
    r"\s+in)|bored\s+(?:of|with)|moved\s+on\s+from)\s+" + _OBJ,
    _I,
)
#: "Yoga is my new thing", "Roman history has become my obsession" (the subject first).
_NEW_THING = re.compile(
    r"^(?P<obj>[\w' -]{2,40}?)\s+(?:is|are|has\s+become|'s)\s+(?:really\s+)?my\s+(?:new|latest"
    r"|current|big|whole)\s+(?:thing|obsession|passion|hobby|addiction|love|jam|focus)\b",
    _I,
)
_NO_LONGER_GRABS = re.compile(
    r"^(?P<obj>[\w' -]{2,40}?)\s+(?:doesn't|does\s+not|don't|no\s+longer)\s+(?:really\s+)?"
    r"(?:grab|interest|excite|do\s+it\s+for|appeal\s+to)\s+me(?:\s+(?:anymore|any\s+more))?",
    _I,
)
_NOT_TOPICS = frozenset(
    words(
        "it that this you them him her me the idea the same it all anything something stuff things "
        "those these"
    )
)
#: Topics that are situations, not subjects: "got into a bad spot", "learning how to …".
_NOT_TOPIC_START = frozenset(
    words("a an trouble how what why when where to some this that your my his her their lots")
)


#: Canonical statements by kind, from the slot's name ("hobby.salsa" → "salsa").
_STATEMENTS = {
    "hobby.active": "User's hobbies include {}",
    "hobby.stopped": "User gave up {} (no longer a hobby)",
    "interest.active": "User is interested in {}",
    "interest.lost": "User lost interest in {}",
}


def find(clause: Clause) -> list[Draft]:
    out: list[Draft] = []
    _hobbies(clause.text, out)
    _interests(clause.text, out)
    return [
        dataclasses.replace(dr, statement=_STATEMENTS[dr.kind].format(
            dr.slot_key.split(".", 1)[1].replace("_", " ")))
        if dr.kind in _STATEMENTS and dr.slot_key else dr
        for dr in out
    ]  # fmt: skip


def _hobbies(text: str, out: list[Draft]) -> None:
    for m in _HOBBY_STOP.finditer(text):
        if subject_is_user(text, m.start()) or re.match(r"(?:not|no|don|can|haven)", m["verb"], _I):
            name = HOBBIES[m["obj"].lower()]
            out.append(
                _draft(
                    "hobby.stopped",
                    f"hobby.{name}",
                    "stopped",
                    m,
                    d.HOBBY,
                    d.R,
                    d.COMMITTED,
                    18,
                    negatable=True,
                    dates="past",
                )
            )
    for m in _HOBBY_HABIT.finditer(text):
        out.append(_draft("hobby.active", f"hobby.{HOBBIES[m['obj'].lower()]}", "active", m,
                          d.HOBBY, d.R, d.STATED, 19))  # fmt: skip
    for m in _HOBBY_START.finditer(text):
        verb = m["verb"].lower()
        obj = m["obj"].lower()
        # "my neighbour got me into birding": the user is who took it up
        by_user = " me " in f" {verb} " or subject_is_user(text, m.start())
        if not by_user or (obj == "fish" and verb not in {"go", "going"}):
            continue
        if verb in {"do", "doing", "go", "going", "play", "playing", "love", "enjoy"} and obj in {
            "cook",
            "run",
            "swim",
            "draw",
            "paint",
            "dance",
            "sing",
            "climb",
            "hike",
            "bake",
            "ski",
            "surf",
            "sketch",
            "knit",
            "fish",
            "the gym",
            "gym",
            "pool",
            "magic",
            "reading",
        }:
            continue  # "I go run errands", "play pool at the bar": too ambiguous to keep
        name = HOBBIES[obj]
        started = verb.startswith(
            (
                "took",
                "taken",
                "has",
                "had",
                "introduced",
                "taking",
                "start",
                "began",
                "got",
                "getting",
                "picked",
                "joined",
                "signed",
                "learning",
                "found",
                "discov",
                "back",
                "return",
            )
        )
        out.append(
            _draft(
                "hobby.active",
                f"hobby.{name}",
                "active",
                m,
                d.HOBBY,
                d.R,
                d.COMMITTED if started else d.STATED,
                19,
                dates="past" if started else "none",
            )
        )


def _interests(text: str, out: list[Draft]) -> None:
    for m in _NEW_THING.finditer(text):
        topic = trim_phrase(m["obj"], 3)
        lower = topic.lower()
        if not topic or lower in _NOT_TOPICS or lower.split()[0] in _NOT_TOPIC_START:
            continue
        if lower in HOBBIES:
            out.append(_draft("hobby.active", f"hobby.{HOBBIES[lower]}", "active", m, d.HOBBY,
                              d.R, d.COMMITTED, 19))  # fmt: skip
        elif slug(lower, max_words=3):
            out.append(_draft("interest.active", _interest_slot(topic), "active", m, d.INTEREST,
                              d.A, d.STATED, 58))  # fmt: skip
    for m in _NO_LONGER_GRABS.finditer(text):
        topic = trim_phrase(m["obj"], 3)
        if topic and topic.lower() not in _NOT_TOPICS and slug(topic, max_words=3):
            out.append(_draft("interest.lost", _interest_slot(topic), "lost interest", m,
                              d.HOBBY if topic.lower() in HOBBIES else d.INTEREST, d.R,
                              d.COMMITTED, 57, negatable=True))  # fmt: skip
    for m in _LOST_INTEREST.finditer(text):
        topic = trim_phrase(m["obj"], 3)
        if topic and topic.lower() not in _NOT_TOPICS:
            out.append(
                _draft(
                    "interest.lost",
                    _interest_slot(topic),
                    "lost interest",
                    m,
                    d.HOBBY if topic.lower() in HOBBIES else d.INTEREST,
                    d.R,
                    d.COMMITTED,
                    57,
                    negatable=True,
                )
            )
    for m in _INTEREST.finditer(text):
        if not subject_is_user(text, m.start()):
            continue
        topic = trim_phrase(m["obj"], 3)
        lower = topic.lower()
        learning = m["verb"].lower().startswith(("learning", "studying", "reading", "interested"))
        taste = classify(topic)
        if (
            not topic
            or lower in _NOT_TOPICS
            or lower in HOBBIES
            or (lower in FOODS and not learning)
            or (taste is not None and not taste[0].startswith("user.likes.") and not learning)
        ):
            continue
        if lower.split()[0] in _NOT_TOPIC_START or re.match(r"\w+ing\s+\w", lower):
            continue  # "passionate about making sure …": an activity, not a subject
        if lower.startswith("the ") and m["verb"].lower().startswith("got"):
            continue  # "got into the accident"
        if not slug(lower, max_words=3):
            continue
        out.append(
            _draft(
                "interest.active", _interest_slot(topic), "active", m, d.INTEREST, d.A, d.STATED, 58
            )
        )


def _interest_slot(topic: str) -> str:
    lower = topic.lower()
    if lower in HOBBIES:
        return f"hobby.{HOBBIES[lower]}"
    return f"interest.{slug(lower, max_words=3)}"
