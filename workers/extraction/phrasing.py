"""First person → "User …": a fact's text must stand on its own, outside the conversation.

The rewrite keeps the user's words and numbers verbatim (they are what BM25 and the numeric
rescue of Appendix H match on) and only swaps pronouns and fixes verb agreement:
"we finally moved to London" → "User finally moved to London".
"""

from __future__ import annotations

import re
from datetime import datetime

from workers.extraction.lexicon import words

_CONTRACTIONS: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(p, re.IGNORECASE), r)
    for p, r in (
        (r"\b(?:i'm|i am|im)\b", "User is"),
        (r"\b(?:i've|i have|ive)\b", "User has"),
        (r"\bi'd\b", "User would"),
        (r"\bi'll\b", "User will"),
        (r"\bi was\b", "User was"),
        (r"\b(?:we're|we are)\b", "User is"),
        (r"\b(?:we've|we have)\b", "User has"),
        (r"\bwe were\b", "User was"),
        (r"\bwe'll\b", "User will"),
        (r"\bwe'd\b", "User would"),
        (r"\bmyself\b", "themself"),
        (r"\b(?:my|our)\b", "User's"),
        (r"\b(?:mine|ours)\b", "User's"),
        (r"\bme\b", "User"),
    )
)
_US = re.compile(r"\bus\b")  # lower case only: "the US" is a country
_ADVERBS = (
    "just|really|also|finally|still|always|never|usually|often|sometimes|actually|now|only"
    "|already|recently|totally|definitely|kinda|basically|literally|officially|both|all"
    "|mostly|currently|normally|generally|honestly|even|eventually|seriously|last|first|once"
    "|then|later|too|barely|hardly|rarely|mainly|mostly|pretty"
)
_SUBJECT_VERB = re.compile(
    rf"\b(?:i|we)\b(?P<adv>(?:\s+(?:{_ADVERBS}))*)\s+(?P<verb>[a-z]+(?:n't|'t)?)\b",
    re.IGNORECASE,
)
_UNCHANGED = frozenset(
    words(
        "can could will would should might may must did had was were went got left quit broke "
        "began became took gave made found bought sold met ran won lost fell flew came saw told "
        "said thought felt kept spent paid put set cut hit let read drove rode wrote sent built "
        "caught taught brought fought sought heard knew grew threw drew swam sang began began "
        "stood understood woke wore chose forgot moved need used ought hadn't didn't couldn't "
        "wouldn't shouldn't wasn't weren't mustn't mightn't can't cannot won't tore swore shook "
        "spoke stole froze rose hid bit lit slid spun stuck struck hung dug led fed bled fled "
        "meant lent bent dealt learnt burnt laid held sat shot ate drank sank rang forgave blew "
        "withdrew overcame beat split spread hurt cost shut bet wound sought ground"
    )
)
_IRREGULAR = {
    "have": "has", "do": "does", "go": "goes", "am": "is", "are": "is", "don't": "doesn't",
    "dont": "doesn't", "haven't": "hasn't", "havent": "hasn't", "aren't": "isn't",
    "were": "was", "be": "is", "been": "has been",
}  # fmt: skip
_GERUND_OR_PAST = re.compile(r"^[a-z]+(?:ing|ed)$", re.IGNORECASE)
_PREFIX_FILLER = re.compile(
    r"^(?:(?:so|well|oh|ok|okay|um|uh|hey|yeah|yes|btw|anyway|lol|haha|omg|update|fyi|ps"
    r"|guess what|big news|quick update)\b[\s,:!]*)+",
    re.IGNORECASE,
)


def _conjugate(verb: str) -> str:
    lower = verb.lower()
    if lower in _IRREGULAR:
        return _IRREGULAR[lower]
    if lower in _UNCHANGED or lower.endswith("ed") or "'" in lower:
        return verb
    if re.search(r"(?:s|sh|ch|x|z|o)$", lower):
        return verb + "es"
    if re.search(r"[^aeiou]y$", lower):
        return verb[:-1] + "ies"
    return verb + "s"


def _swap_subject(match: re.Match[str]) -> str:
    return f"User{match['adv']} {_conjugate(match['verb'])}"


def third_person(clause: str, verb_first: bool = False) -> str:
    """Rewrite one first-person clause as a statement about "User".

    `verb_first`: the clause starts with its verb, the "I" dropped as chat does
    ("Works at Google on the Gemini team" → "User works at Google …").
    """
    text = _PREFIX_FILLER.sub("", clause.strip()).strip(" ,")
    for pattern, replacement in _CONTRACTIONS:
        text = pattern.sub(replacement, text)
    text = _SUBJECT_VERB.sub(_swap_subject, text)
    text = _US.sub("User", text)
    at = text.find("User")
    if at >= 0:  # "User defended User's thesis" → "User defended their thesis"
        head, tail = text[: at + 4], text[at + 4 :]
        text = head + re.sub(r"\bUser's\b", "their", tail)
    text = re.sub(r"\s+", " ", text).strip(" ,;:-")
    text = re.sub(r"[!?.]+$", "", text).strip()
    if not text:
        return text
    if "User" not in text:
        first = text.split()[0].lower()
        if first.endswith("ing"):
            text = f"User is {text[0].lower()}{text[1:]}"
        elif _GERUND_OR_PAST.match(first) or first in _UNCHANGED:
            text = f"User {text[0].lower()}{text[1:]}"
        elif verb_first and first in {"not", "no"}:
            # The copula is dropped with the subject: "not vegan anymore" → "User is not …"
            # (conjugating the negation as a verb made "User nots vegan anymore").
            text = f"User is {text[0].lower()}{text[1:]}"
        elif verb_first:
            word, _, rest = text.partition(" ")
            verb = word.lower() if re.search(r"[^s]s$", word.lower()) else _conjugate(word.lower())
            text = f"User {verb} {rest}".strip()
        else:
            text = f"User: {text}"
    return text[0].upper() + text[1:]


def with_date(text: str, when: datetime | None) -> str:
    """Append the resolved event time, so "tomorrow" still means something next month."""
    if when is None:
        return text
    stamp = (
        when.strftime("%Y-%m-%d")
        if (when.hour, when.minute) == (0, 0)
        else (when.strftime("%Y-%m-%d %H:%M UTC"))
    )
    return f"{text} (on {stamp})"


#: Canonical statements of the identity and relationship slots: how a question asks about
#: them ("who's my boss?", "where do I work?"), whichever way the user said it ("I report to
#: Kenji now", "crazy day at PwC"). The value must be a name, not a state word.
_STATEMENTS = {
    "user.manager": "User's manager (boss) is {}",
    "user.partner": "User's partner is {}",
    "user.employer": "User works at {}",
    "user.profession": "User's job title (role at work) is {}",
    "user.car": "User's car: User drives a {}",
    "user.current_city": "User lives in {}",
}
_NOT_VALUES = frozenset(words("someone somebody none single nobody unknown"))


def statement(slot: str | None, value: str | None) -> str | None:
    """The canonical statement of a current value of `slot`, if the slot has one."""
    template = _STATEMENTS.get(slot or "")
    if template is None or not value or value.lower() in _NOT_VALUES:
        return None
    return template.format(value)


def with_statement(text: str, canonical: str | None) -> str:
    """`canonical` followed by the user's own words, unless those already say it."""
    if not canonical or canonical.lower() in text.lower():
        return text
    return f"{canonical} ({text})"
