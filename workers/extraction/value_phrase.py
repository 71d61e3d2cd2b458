"""What the value families share: how a value phrase is cut and judged, and the draft they make.

The value constructions (`patterns_values` for the user's verbs, `patterns_values_nouns` for a
noun the user owns, `patterns_changes` for chat's elliptical changes) only know *how* a value
is said, so they need one notion of where the value phrase ends (`trim_value`), of what is no
value at all — a mood, a verdict, a pronoun (`is_value`) — and one draft shape: `provisional`,
priority 80, after every specific family, replace unless "also" makes it one more (`value_draft`).
"""

from __future__ import annotations

import re

from workers.extraction import draft as d
from workers.extraction.clauses import ALSO, slug, subject_is_user
from workers.extraction.draft import Draft
from workers.extraction.lexicon import words

_I = re.IGNORECASE
PRIORITY = 80
#: The value phrase a construction captures: up to the end of the clause, trimmed later.
VALUE = r"(?P<val>[^\s,.;!?][^,.;!?]*)"
#: Values that are moods or verdicts, not values ("my day was long", "my trip was amazing").
NOT_VALUES = frozenset(
    words(
        "so really very too pretty quite kinda kind sort a-bit great good bad fine ok okay "
        "amazing awesome terrible horrible crazy busy hard tough long short fun nice cool "
        "beautiful lovely wonderful perfect the best worst going coming doing getting being "
        "not no still just literally honestly actually here there gone back off on over done "
        "finally almost probably definitely super insane wild weird exhausting exhausted "
        "tired stressful stressed happy sad it that this what how why when where you your "
        "yours him them us me also in at on with like about into from by away up down sorry "
        "glad sure afraid ready able thinking"
    )
)
_CUT = re.compile(
    r"\s+(?:for|with|because|cause|since|when|while|after|before|until|so|but|and\s+(?:i|it|we"
    r"|that)|which|who|that|though|although|if|as|at\s+the|in\s+the|on\s+the|this|last|next"
    r"|yesterday|today|tomorrow|lately|anymore|again|instead|now|these\s+days|too|online"
    r"|most|every|each|daily|weekly|first\s+time|full\s+stop|honestly|lol|haha|out\s+on"
    r"|out\s+in|out\s+at|out\s+of|around)\b.*$",
    _I,
)


def trim_value(value: str, max_words: int = 6) -> str:
    """The value phrase: cut at the first word that starts a new thought."""
    value = _CUT.sub("", " " + value.strip()).strip(" '\"")
    return " ".join(value.split()[:max_words])


def is_value(value: str) -> bool:
    first = value.split()[0].lower() if value.split() else ""
    return (
        bool(first)
        and first not in NOT_VALUES
        and first not in _POSSESSORS  # "our kids are our future": a sentiment
        and len(value) <= 80
    )


_POSSESSORS = frozenset(words("my our his her their its"))
#: Families whose value may be one more among several (a taste, a habit, a pastime begun).
_ADDITIVE = frozenset({"value.prefer", "value.habit", "value.start", "value.activity"})


def value_draft(
    kind: str,
    m: re.Match[str],
    value: str,
    *,
    slot: str | None = None,
    confidence: float = d.STATED,
    negatable: bool = False,
    statement: str | None = None,
    require: bool = False,
    dated: bool = False,
    numeric: bool = False,
    priority: int = PRIORITY,
) -> Draft:
    # "I also love …", "… as well": one more value beside the others, not a replacement.
    also = ALSO.search(m.string) is not None
    return d.from_match(
        kind,
        slot,
        value,
        m,
        d.OTHER,
        d.A if also and kind in _ADDITIVE else d.R,
        confidence,
        priority,
        negatable=negatable,
        statement=statement,
        prototype="require" if require else "decide",
        dates="future" if dated else "none",
        needs_date=dated,
        numeric=numeric,
    )


def user_first(text: str, m: re.Match[str]) -> bool:
    return subject_is_user(text, m.start())


def noun_slot(noun: str) -> str:
    """The slot a possessive names: "my phone plan" → user.phone_plan."""
    return f"user.{slug(noun, max_words=2)}"
