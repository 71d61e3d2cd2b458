"""Value constructions keyed by a noun: what the user's thing or role is, costs, or is dated.

The part of the value family (`patterns_values`) that reads a noun phrase rather than the
user's verb — the possessive copula ("my rent is …"), a role named beside a person ("Burak, my
apprentice", "our new landlord is Mr Aksoy"), a numbered thing ("gave me locker 112"), a price
or an amount that moved ("rent went up again, £1,450"), a thing with a date ("the viva is in
three weeks"). Their drafts are the `value.noun.*` kinds: the slot comes from the noun (one
slot per thing, so a later value replaces it), the rest of the draft is `value_draft`'s.
`patterns_values.find` calls these in its own order, which decides overlaps: keep it.
"""

from __future__ import annotations

import re
from functools import lru_cache

from workers.extraction import draft as d
from workers.extraction.clauses import Clause, has_first_person, head_noun, slug
from workers.extraction.dates import is_deictic
from workers.extraction.draft import Draft
from workers.extraction.lexicon import words
from workers.extraction.patterns_money import AMOUNT, owned_slot
from workers.extraction.slots import plan_topic
from workers.extraction.value_phrase import (
    NOT_VALUES,
    VALUE,
    is_value,
    noun_slot,
    trim_value,
    value_draft,
)

_I = re.IGNORECASE
_POSSESSIVE = re.compile(
    r"\b(?:my|our)\s+(?P<noun>(?:new\s+|current\s+|usual\s+)?[a-z][\w'-]*(?:\s+[a-z][\w'-]*){0,2}?)"
    r"\s+(?P<verb>is|are|was|'s|is\s+now|are\s+now|has\s+become|became|went\s+up\s+to"
    r"|went\s+down\s+to|changed\s+to|is\s+mostly|are\s+mostly)\s+" + VALUE,
    _I,
)
_APPOSITION = re.compile(
    r"(?-i:\b(?P<name>[A-Z][\w'-]+)),\s+(?:my|our)\s+(?P<noun>[a-z][\w'-]*)"
    r"(?=\s*,|\s+(?:who|has|had|is|was|and)\b)"
    r"|\b(?:my|our)\s+(?:new\s+)?(?P<noun2>[a-z][\w'-]*)\s+(?-i:(?P<name2>[A-Z][\w'-]+))\b",
    _I,
)
#: "now the new boy is Deniz", "our new landlord is Mr Aksoy": a role passed to someone new.
_NEW_ONE = re.compile(
    r"\b(?:now\s+)?(?:the|my|our)\s+new\s+(?P<noun>[a-z]+)\s+is\s+(?-i:(?P<name>[A-Z][\w'-]+))",
    _I,
)
#: "<thing> is 400 lira", "a beard shave is 250": the price of something the user sells or pays.
#: A bare number followed by a unit or a clock ("82 square metres", "1:56:32") is a measure,
#: which the possessive copula keeps whole ("my flat is 82 square metres").
_MEASURE_AFTER = (
    r"(?!\d|[:.]\d|\s*(?:square|sq\b|m²|m2\b|ft\b|feet|foot|km\b|kg\b|lbs?\b|miles?\b"
    r"|metres|meters|%|percent))"
)
_PRICED = re.compile(
    r"(?:^|\b(?:and|that|a|an|the|my|our)\s+)(?P<item>[a-z][\w' -]{1,40}?)\s+(?:is|are|costs?"
    r"|goes\s+for|runs)\s+(?:about\s+|around\s+|only\s+)?(?P<amt>"
    + AMOUNT
    + r"|\d[\d,]*"
    + _MEASURE_AFTER
    + ")"
    r"(?:\s+(?P<per>a\s+(?:month|year|week|night|head|person)|per\s+\w+))?",
    _I,
)
#: "<thing> went up again, <amount>", "<thing> has gone down to <amount>": the scale-change
#: construction (a motion verb with up/down) followed by an amount is the thing's new value,
#: whatever the thing is — not only the money family's listed items. Keyed as the possessive
#: family keys the thing ("my medical aid is …" → user.medical_aid), so the two meet in one
#: slot; "by <amount>" is a difference, not the value.
_PRICE_MOVED = re.compile(
    r"(?:^(?:(?:the|my|our)\s+)?|\b(?:the|my|our)\s+)(?P<item>[a-z][\w' -]{1,40}?)\s+"
    r"(?:went|goes|go|has\s+gone"
    r"|have\s+gone|is\s+going|are\s+going|came|comes|shot|jumped|crept)\s+(?P<dir>up|down)"
    r"(?:\s+again)?,?\s+(?:to\s+)?(?:about\s+|around\s+)?(?P<amt>" + AMOUNT + ")"
    r"(?:\s+(?P<per>a\s+(?:month|year|week|night|head|person)|per\s+\w+))?",
    _I,
)
#: "<the thing> is on / is scheduled for / meets on <date>": a dated event of any kind.
_DATED = re.compile(
    r"^(?:(?:my|our|the|a|an|his|her|their)\s+)?(?P<thing>[\w'-]+(?:\s+[\w'-]+){0,5}?)\s+"
    r"(?:is|are|'s|was|will\s+be|meets|meet|starts|begins|opens|happens|takes\s+place|falls"
    r"|leaves|departs|lands|arrives|closes)\s+(?:(?:scheduled|planned|set|booked|due|coming\s+up)"
    r"\s+)?(?:for|on|this|next|at|in|by|due|tomorrow|today|tonight)\b",
    _I,
)
_DATE_VALUE = re.compile(r"(?:on|this|next|at|in|due|scheduled|tomorrow|today|tonight)\b", _I)
_DIGIT = re.compile(r"\d")
_PRONOUNS = frozenset(words("it it's they that this which what everything something nothing"))
#: A numbered thing the user was given or moved to: "gave me locker 112", "moved me to gate B4".
_NUMBERED = re.compile(
    r"\b(?:me|us|i'm\s+in|i\s+am\s+in|i\s+have|i\s+got|i\s+was\s+given|my)\s+(?:to\s+)?"
    r"(?:(?:the|a|my)\s+)?(?P<noun>locker|room|desk|seat|gate|platform|table|cabin|bay|spot"
    r"|space|lot|slot|bed|ward|office|flat|apartment|unit)\s+(?:number\s+|no\.?\s+|#)?"
    r"(?P<val>[A-Z]?\d+[A-Z]?)\b",
    _I,
)
_NOT_NOUNS = frozenset(
    words(
        "day week weekend morning night evening life head mind brain heart god mom dad "
        "mother father plan plans idea guess point question problem bad fault turn thing "
        "stuff own answer excuse bet hope dream"
    )
)
#: Roles a person holds one of at a time: keyed by the role. Other people are keyed by name.
_SINGLE_ROLES = frozenset(
    words(
        "partner boyfriend girlfriend husband wife fiance fiancee fiancé fiancée spouse boss "
        "manager supervisor landlord landlady therapist doctor gp dentist coach mentor "
        "apprentice assistant trainer tutor advisor adviser roommate flatmate housemate"
    )
)


def possessive(clause: Clause) -> list[Draft]:
    """ "my rent is …", "my new phone plan is …": the possessed thing's value."""
    text = clause.text
    out: list[Draft] = []
    for m in _POSSESSIVE.finditer(text):
        noun = re.sub(r"^(?:new|current|usual)\s+", "", m["noun"].lower())
        value = trim_value(m["val"])
        if head_noun(noun) in _NOT_NOUNS or not is_value(value) or _DATE_VALUE.match(value):
            continue
        if head_noun(noun) in _SINGLE_ROLES and re.match(r"(?-i:[A-Z])", value):
            continue  # "my boss is Kenji": the relations family says it
        changed = bool(re.search(r"now|became|become|went|changed", m["verb"], _I))
        conf = d.COMMITTED if changed or "new" in m["noun"].lower() else d.STATED
        out.append(value_draft("value.noun.possessive", m, value, slot=noun_slot(noun),
                               confidence=conf, statement=f"User's {noun} is {value}",
                               numeric=bool(_DIGIT.search(value))))  # fmt: skip
    return out


def roles(clause: Clause) -> list[Draft]:
    """ "Burak, my apprentice, …", "my apprentice Burak": the clause may hold only the "my
    apprentice" half (clauses split at ", my"), so the sentence is searched — once, for all
    its clauses (review r16, H1: once per clause cost clauses × sentence on a long one)."""
    found, by_word = _appositions(clause.sentence_text or clause.text)
    if not found:
        return []
    text = clause.text
    if text.isascii() and by_word is not None:
        # Only an apposition whose noun follows "my"/"our" here can anchor in this clause.
        here = {m[1].lower() for p in _OWNED_WORD for m in p.finditer(text)}
        picked = sorted(i for word in here for i in by_word.get(word, ()))
    else:  # IGNORECASE folds a few non-ASCII letters as `lower` does not: try each
        picked = list(range(len(found)))
    anchors: dict[str, re.Match[str] | None] = {}
    out: list[Draft] = []
    for i in picked:
        name, noun, role = found[i]
        if noun not in anchors:
            anchors[noun] = re.search(rf"\b(?:my|our)\s+(?:new\s+)?{re.escape(noun)}\b", text, _I)
        if (anchor := anchors[noun]) is None:
            continue
        slot = f"user.{role}" if role in _SINGLE_ROLES else f"user.{role}.{slug(name)}"
        out.append(value_draft("value.noun.role", anchor, name, slot=slot,
                               statement=f"User's {role} is {name}"))  # fmt: skip
    return out


#: The first word after each "my"/"our" and after each "my new", overlapping ("my my dog").
_OWNED_WORD = (
    re.compile(r"\b(?:my|our)\s+(?=(\w+))", _I),
    re.compile(r"\b(?:my|our)\s+new\s+(?=(\w+))", _I),
)


@lru_cache(maxsize=256)
def _appositions(
    sentence: str,
) -> tuple[tuple[tuple[str, str, str], ...], dict[str, tuple[int, ...]] | None]:
    """(name, noun, role) of each role apposition in `sentence`, in order, and their indices
    by the noun's first word (lower case; None when a noun is not ASCII)."""
    found: list[tuple[str, str, str]] = []
    by_word: dict[str, list[int]] = {}
    for m in _APPOSITION.finditer(sentence):
        name, noun = (m["name"], m["noun"]) if m["name"] else (m["name2"], m["noun2"])
        role = head_noun(noun.lower())
        if not role or role in _NOT_NOUNS or name.lower() in NOT_VALUES:
            continue
        first = re.match(r"\w+", noun)
        by_word.setdefault(first[0].lower() if first else noun.lower(), []).append(len(found))
        found.append((name, noun, role))
    ascii_ = all(noun.isascii() for _, noun, _ in found)
    return tuple(found), {word: tuple(ix) for word, ix in by_word.items()} if ascii_ else None


def new_holder(clause: Clause) -> list[Draft]:
    """ "now the new boy is Deniz": a role passed to someone new."""
    out: list[Draft] = []
    for m in _NEW_ONE.finditer(clause.text):
        noun = m["noun"].lower()
        slot = f"user.{noun}" if noun in _SINGLE_ROLES else None
        out.append(value_draft("value.noun.role", m, m["name"], slot=slot, confidence=d.COMMITTED,
                               statement=f"User's new {noun} is {m['name']}"))  # fmt: skip
    return out


def numbered(clause: Clause) -> list[Draft]:
    """ "gave me locker 112": a numbered thing the user was given or moved to."""
    out: list[Draft] = []
    for m in _NUMBERED.finditer(clause.text):
        noun = m["noun"].lower()
        out.append(value_draft("value.noun.numbered", m, f"{noun} {m['val']}", slot=f"user.{noun}",
                               confidence=d.COMMITTED, numeric=True,
                               statement=f"User's {noun} is {m['val']}"))  # fmt: skip
    return out


def amounts_and_dates(clause: Clause) -> list[Draft]:
    """A thing's price, an amount that moved, a thing's date — when they are the user's."""
    text = clause.text
    out: list[Draft] = []
    # Prices and dates said of no one ("the average rent in London is £2,000") are the world's.
    personal = has_first_person(clause.sentence_text or text)
    for m in _PRICED.finditer(text if personal else ""):
        item = trim_value(m["item"], 4)
        if item and head_noun(item) not in _NOT_NOUNS:
            amount = m["amt"] + (f" {m['per']}" if m["per"] else "")
            # A possessed thing's amount is keyed as the possessive keys it ("my parking
            # permit is $60" and "parking permit came down, $45" meet in one slot).
            owned = re.match(r"(?:my|our)\b", m.group(0), _I) is not None
            thing = _np_head(item)
            key = (owned_slot(thing) or noun_slot(thing)) if owned else f"price.{slug(thing)}"
            out.append(value_draft("value.noun.price", m, amount, slot=key,
                                   numeric=True, statement=f"{item} costs {amount}"))  # fmt: skip
    # A moved amount is the user's when the sentence speaks of them or the thing opens the
    # clause with no owner named (chat drops the "my": "rent went up again, …").
    for m in _PRICE_MOVED.finditer(text):
        item = trim_value(m["item"], 3)
        owned = personal or m.start() == 0 or bool(re.match(r"(?:my|our)\b", m.group(0), _I))
        if item and owned and head_noun(item) not in _NOT_NOUNS and item.lower() not in _PRONOUNS:
            amount = m["amt"] + (f" {m['per']}" if m["per"] else "")
            moved = f"User's {item} went {m['dir'].lower()} to {amount}"
            slot = owned_slot(item) or noun_slot(item)
            out.append(value_draft("value.noun.moved", m, amount, slot=slot,
                                   confidence=d.COMMITTED, numeric=True,
                                   statement=moved))  # fmt: skip
    # … but a date relative to the moment of speaking is the speaker's ("the viva is in
    # three weeks", "parents' evening is next Thursday"): no "I" is needed.
    for m in _DATED.finditer(text if personal or is_deictic(text) else ""):
        thing = trim_value(m["thing"], 4)
        topic = plan_topic(thing) or head_noun(thing)
        if topic and topic not in _NOT_NOUNS and thing.lower() not in _PRONOUNS:
            out.append(value_draft("value.noun.dated", m, thing, slot=f"event.{slug(topic)}",
                                   dated=True))  # fmt: skip
    return out


#: Prepositions that open a noun's post-modifier: "the rent on our flat" is a rent.
_POST_MODIFIER = re.compile(r"\s+(?:on|of|for|at|in|with|from|to)\b.*$", _I)


def _np_head(phrase: str) -> str:
    """The noun phrase without its post-modifying prepositional phrase."""
    return _POST_MODIFIER.sub("", phrase) or phrase
