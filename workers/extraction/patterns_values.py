"""Value families: the constructions English states a personal value with, whatever it is about.

Where the other families know what they look for (a city, an employer, a date), these only
know *how* a value is said — after a possessive copula ("my rent is …", "Burak, my
apprentice"), after a preference verb ("I only trust …", "… is my thing now"), with a habit's
frequency ("… most evenings", "on weekends I …"), after a verb of change ("switched to …",
"I've found … instead", "… again") or of ending ("I quit …", "… had to go", "haven't eaten …
in five years"). What the value is about — its category and, when the clause names no
attribute, its slot — is left to the prototype classifier (`prototypes.py`), which reads the
fact's embedding in the extraction stage. Their drafts are `provisional` and rank after every
specific family (priority 80), so they only speak where no specific family did.
"""

from __future__ import annotations

import re

from workers.extraction import draft as d
from workers.extraction.clauses import (
    ALSO,
    Clause,
    has_first_person,
    head_noun,
    slug,
    subject_is_user,
)
from workers.extraction.dates import is_deictic
from workers.extraction.draft import Draft
from workers.extraction.lexicon import EMOTIONS, words
from workers.extraction.patterns_money import AMOUNT, owned_slot
from workers.extraction.slots import plan_topic

_I = re.IGNORECASE
PRIORITY = 80
_SUBJ = r"\b(?:i|we)(?:'ve|'m|'d|\s+have|\s+am|\s+are|'re)?"
#: Adverbs and auxiliaries between the subject and the verb.
_ADV = (
    r"(?:\s+(?:really|only|absolutely|totally|completely|just|still|now|also|always|usually"
    r"|basically|honestly|literally|finally|actually|kinda|sort\s+of|mostly|been|be|got|gotten"
    r"|become|so|pretty|genuinely|officially|even|never|already))*"
)
_VAL = r"(?P<val>[^\s,.;!?][^,.;!?]*)"
_FREQ = (
    r"(?:every|each|most)\s+(?:single\s+)?(?:day|morning|night|evening|afternoon|week|weekend"
    r"|month|monday|tuesday|wednesday|thursday|friday|saturday|sunday)s?"
    r"|on\s+(?:the\s+)?(?:weekends?|weeknights|mondays|tuesdays|wednesdays|thursdays|fridays"
    r"|saturdays|sundays)|(?:daily|weekly|nightly|religiously)"
    r"|(?:once|twice|three\s+times|\d+\s+times)\s+a\s+(?:day|week|month)|most\s+days"
    r"|all\s+(?:day|week|weekend|morning|evening|night|month)(?:\s+long)?"
)
_POSSESSIVE = re.compile(
    r"\b(?:my|our)\s+(?P<noun>(?:new\s+|current\s+|usual\s+)?[a-z][\w'-]*(?:\s+[a-z][\w'-]*){0,2}?)"
    r"\s+(?P<verb>is|are|was|'s|is\s+now|are\s+now|has\s+become|became|went\s+up\s+to"
    r"|went\s+down\s+to|changed\s+to|is\s+mostly|are\s+mostly)\s+" + _VAL,
    _I,
)
_APPOSITION = re.compile(
    r"(?-i:\b(?P<name>[A-Z][\w'-]+)),\s+(?:my|our)\s+(?P<noun>[a-z][\w'-]*)"
    r"(?=\s*,|\s+(?:who|has|had|is|was|and)\b)"
    r"|\b(?:my|our)\s+(?:new\s+)?(?P<noun2>[a-z][\w'-]*)\s+(?-i:(?P<name2>[A-Z][\w'-]+))\b",
    _I,
)
_PREFER = re.compile(
    # "I (really) love X", "we only trust X" — not "I'd love X" (a wish) or "we're like X"
    r"\b(?:i|we)(?:'ve|\s+have)?" + _ADV + r"\s+(?P<verb>love|like|prefer|adore|enjoy|trust"
    r"|swear\s+by|crave|live\s+on)\s+"
    + _VAL
    # "I'm (really) into X", "I've been hooked on X"
    + r"|\b(?:i|we)(?:'m|'re|\s+am|\s+are|'ve\s+been|\s+have\s+been)"
    + _ADV
    + r"\s+(?P<verb2>into|hooked\s+on|obsessed\s+with|addicted\s+to|a\s+(?:big\s+|huge\s+)?"
    r"fan\s+of|all\s+about)\s+(?P<val3>[^\s,.;!?][^,.;!?]*)"
    r"|(?P<val2>[^\s,.;!?][^,.;!?]*?)\s+(?:is|are)\s+(?:my|our)\s+(?:new\s+)?(?:thing|jam"
    r"|go-to|favou?rite(?:\s+thing)?|obsession)\b",
    _I,
)
_HABIT = re.compile(
    _SUBJ + _ADV + r"\s+(?P<verb>[a-z]+)\s+(?P<val>[^,.;!?]*?)\s*(?P<freq>" + _FREQ + r")\b"
    r"|(?P<freq2>"
    + _FREQ
    + r"),?\s+(?:i|we)"
    + _ADV
    + r"\s+(?P<verb2>[a-z]+)\s+(?P<val2>[^,.;!?]+)",
    _I,
)
_SWITCH = re.compile(
    r"\b(?P<verb>switched|switching|changed|converted|swapped|upgraded|went\s+over|gone\s+over"
    r"|moved)\s+(?:[\w'-]+\s+){0,4}?(?:from\s+(?P<old>[\w' -]+?)\s+)?(?:over\s+)?(?:to|for)\s+"
    + _VAL,
    _I,
)
_START = re.compile(
    r"\b(?P<verb>started|began|begun|took\s+up|taken\s+up|picked\s+up|got\s+into|gotten\s+into"
    r"|found|discovered|turned\s+to)\s+" + _VAL,
    _I,
)
_AGAIN = re.compile(
    _SUBJ + _ADV + r"\s+(?P<val>[a-z]+ing\s+[^,.;!?]*?)\s+again\b"
    r"|\b(?:i'm|i\s+am|we're)\s+back\s+(?:on|to|into)\s+(?P<val2>[^,.;!?]+)",
    _I,
)
_NOW = re.compile(r"\bnow\s+(?:i|we)\s+(?P<verb>[a-z]+)\s+" + _VAL, _I)
_STOP = re.compile(
    _SUBJ + _ADV + r"\s+(?P<verb>quit|stopped|gave\s+up|given\s+up|dropped|ditched|done\s+with"
    r"|no\s+longer)\s+(?:doing\s+|playing\s+|going\s+to\s+)?"
    + _VAL
    + r"|\b(?:the|my|our)\s+(?P<val2>[\w' -]{2,30}?)\s+(?:had\s+to\s+go|is\s+(?:over|gone|history)"
    r"|went)\b(?!\s+(?:to|up|down|well|great|ok|fine))"
    r"|(?:i|we)\s+(?:don't|do\s+not|barely|hardly|rarely|never)\s+(?P<verb3>[a-z]+)\s+"
    r"(?P<val3>[^,.;!?]+?)\s+(?:anymore|any\s+more|these\s+days)",
    _I,
)
_ABSTAIN = re.compile(
    r"\b(?:i|we)\s+(?:haven't|have\s+not|havent)\s+(?P<verb>eaten|had|touched|drunk|smoked|used)"
    r"\s+(?P<val>[^,.;!?]+?)\s+(?:in|for)\s+(?P<span>(?:about\s+|over\s+|almost\s+)?[\w-]+\s+"
    r"(?:years?|months?))",
    _I,
)
_ACTIVITY = re.compile(
    r"\b(?:go|goes|going|been)\s+(?P<val>(?:[a-z]+\s+)?(?!going|coming|doing|getting)"
    r"[a-z]{3,}ing)\b",
    _I,
)
#: "I run polar bear tours", "we own a bakery": a venture or an activity the user leads.
_RUN = re.compile(
    _SUBJ + _ADV + r"\s+(?P<verb>run|own|operate|manage|host|lead|organi[sz]e|coach|teach)\s+"
    r"(?:a\s+|an\s+|the\s+|my\s+|our\s+)?" + _VAL,
    _I,
)
#: "now the new boy is Deniz", "our new landlord is Mr Aksoy": a role passed to someone new.
_NEW_ONE = re.compile(
    r"\b(?:now\s+)?(?:the|my|our)\s+new\s+(?P<noun>[a-z]+)\s+is\s+(?-i:(?P<name>[A-Z][\w'-]+))",
    _I,
)
#: "I'm a nurse", "I was ordained in …": a plain state, kept only if it names an attribute.
_COPULA = re.compile(
    r"\b(?:i'm|im|i\s+am|i\s+was|i've\s+been|ive\s+been|i\s+have\s+been)\s+(?:now\s+|still\s+)?"
    + _VAL,
    _I,
)


def _former_role(m: re.Match[str], first: str) -> bool:
    """ "I was a kid", "since I was a student", "I was the captain back then": the simple past
    of the copula with a noun phrase names a state that held then, not the slot's current
    value (Table 1: a later value replaces an earlier one, never the reverse). A participle
    after it is still a present identity ("I was ordained Episcopal", "I was born in …")."""
    return m.group(0).lower().startswith("i was") and first in ("a", "an", "the")


#: "first week teaching year 9", "my first day at the bakery": a new job or course begun.
_FIRST = re.compile(
    r"\b(?:my\s+)?first\s+(?:day|week|month|shift|semester|term)\s+(?:at|as|of|teaching"
    r"|working|in)\s+(?P<val>[^,.;!?]+)",
    _I,
)
_TOGETHER = re.compile(
    r"\b(?:we've|we\s+have|we're|we\s+are|we)\s+(?:been\s+)?together\b"
    r"|\b(?:i'm|i\s+am|i've\s+been)\s+(?:together\s+with|married\s+to|engaged\s+to)\s+"
    r"(?-i:(?P<name>[A-Z][\w'-]+))",
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
#: Values that are moods or verdicts, not values ("my day was long", "my trip was amazing").
_NOT_VALUES = frozenset(
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
        and first not in _NOT_VALUES
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


def _user_first(text: str, m: re.Match[str]) -> bool:
    return subject_is_user(text, m.start())


def find(clause: Clause) -> list[Draft]:
    """Provisional drafts of the value constructions in `clause`."""
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
        out.append(value_draft("value.noun.possessive", m, value, slot=_noun_slot(noun),
                               confidence=conf, statement=f"User's {noun} is {value}",
                               numeric=bool(_DIGIT.search(value))))  # fmt: skip
    out += _roles(clause)
    for m in _PREFER.finditer(text):
        value = trim_value(m["val"] or m["val2"] or m["val3"])
        if not is_value(value) or re.match(r"[a-z]+ing\b", value, _I):
            continue  # "I love running my own studio": an activity, not a taste
        changed = bool(re.search(r"\bnow\b|\bthese\s+days\b|\bnew\b", m.group(0), _I))
        out.append(value_draft("value.prefer", m, value, statement=f"User likes {value}",
                               confidence=d.COMMITTED if changed else d.STATED))  # fmt: skip
    for m in _HABIT.finditer(text):
        verb, value = (m["verb"], m["val"]) if m["verb"] else (m["verb2"], m["val2"])
        phrase = trim_value(f"{verb} {value}")
        if verb.lower() in _NOT_VALUES or not is_value(phrase):
            continue
        out.append(value_draft("value.habit", m, phrase, require=True))
    for m in _RUN.finditer(text):
        value = trim_value(m["val"])
        if is_value(value):
            out.append(value_draft("value.run", m, value, statement=f"User {m['verb']}s {value}"))
    for m in _NEW_ONE.finditer(text):
        noun = m["noun"].lower()
        slot = f"user.{noun}" if noun in _SINGLE_ROLES else None
        out.append(value_draft("value.noun.role", m, m["name"], slot=slot, confidence=d.COMMITTED,
                               statement=f"User's new {noun} is {m['name']}"))  # fmt: skip
    for m in _COPULA.finditer(text):
        value = trim_value(m["val"])
        first = value.split()[0].lower() if value else ""
        if _former_role(m, first):
            continue
        if is_value(value) and first not in EMOTIONS and not re.match(r"\d|[a-z]+ing$", first):
            out.append(value_draft("value.copula", m, value, require=True))
    for m in _FIRST.finditer(text):
        value = trim_value(m["val"])
        if is_value(value):
            out.append(value_draft("value.start", m, value, confidence=d.COMMITTED,
                                   statement=f"User started {value}"))  # fmt: skip
    for m in _ACTIVITY.finditer(text):
        if _user_first(text, m):
            out.append(value_draft("value.activity", m, m["val"].lower(), require=True))
    for pattern, kind, verb in ((_SWITCH, "value.switch", "switched to"),
                                (_START, "value.start", "started")):  # fmt: skip
        for m in pattern.finditer(text):
            value = trim_value(re.sub(r"^(?:on|with|in)\s+", "", m["val"], flags=_I))
            if not is_value(value) or not _user_first(text, m):
                continue
            if "into" in m["verb"].lower() and re.match(r"(?:a|an|the|trouble)\b", value, _I):
                continue  # "got into a bad spot" is no new pastime
            out.append(value_draft(kind, m, value, confidence=d.COMMITTED,
                                   statement=f"User {verb} {value}"))  # fmt: skip
    for m in _AGAIN.finditer(text):
        value = trim_value(m["val"] or m["val2"], 6)
        if is_value(value):
            out.append(value_draft("value.resume", m, value, confidence=d.COMMITTED,
                                   statement=f"User is {value} again"))  # fmt: skip
    for m in _NOW.finditer(text):
        value = trim_value(f"{m['verb']} {m['val']}")
        if is_value(value):
            out.append(value_draft("value.now", m, value, confidence=d.COMMITTED, require=True))
    for m in _STOP.finditer(text):
        raw = m["val"] or m["val2"] or f"{m['verb3']} {m['val3']}"
        value = trim_value(raw, 5)
        if not value or (m["val"] and not _user_first(text, m)):
            continue
        out.append(value_draft("value.stop", m, f"stopped {value}", confidence=d.COMMITTED,
                               negatable=True, statement=f"User stopped {value}"))  # fmt: skip
    for m in _ABSTAIN.finditer(text):
        value = trim_value(m["val"], 5)
        out.append(value_draft("value.abstain", m, f"no {value} for {m['span']}", negatable=True,
                               statement=f"User has not had {value} for {m['span']}"))  # fmt: skip
    for m in _TOGETHER.finditer(text):
        out.append(value_draft("value.together", m, m["name"] or "partner", slot="user.partner",
                               statement="User is in a relationship"))  # fmt: skip
    for m in _NUMBERED.finditer(text):
        noun = m["noun"].lower()
        out.append(value_draft("value.noun.numbered", m, f"{noun} {m['val']}", slot=f"user.{noun}",
                               confidence=d.COMMITTED, numeric=True,
                               statement=f"User's {noun} is {m['val']}"))  # fmt: skip
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
            key = (owned_slot(thing) or _noun_slot(thing)) if owned else f"price.{slug(thing)}"
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
            slot = owned_slot(item) or _noun_slot(item)
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


def _roles(clause: Clause) -> list[Draft]:
    """ "Burak, my apprentice, …", "my apprentice Burak": the clause may hold only the "my
    apprentice" half (clauses split at ", my"), so the sentence is searched."""
    out: list[Draft] = []
    sentence = clause.sentence_text or clause.text
    for m in _APPOSITION.finditer(sentence):
        name, noun = (m["name"], m["noun"]) if m["name"] else (m["name2"], m["noun2"])
        role = head_noun(noun.lower())
        if not role or role in _NOT_NOUNS or name.lower() in _NOT_VALUES:
            continue
        anchor = re.search(rf"\b(?:my|our)\s+(?:new\s+)?{re.escape(noun)}\b", clause.text, _I)
        if anchor is None:
            continue
        slot = f"user.{role}" if role in _SINGLE_ROLES else f"user.{role}.{slug(name)}"
        out.append(value_draft("value.noun.role", anchor, name, slot=slot,
                               statement=f"User's {role} is {name}"))  # fmt: skip
    return out


#: Prepositions that open a noun's post-modifier: "the rent on our flat" is a rent.
_POST_MODIFIER = re.compile(r"\s+(?:on|of|for|at|in|with|from|to)\b.*$", _I)


def _np_head(phrase: str) -> str:
    """The noun phrase without its post-modifying prepositional phrase."""
    return _POST_MODIFIER.sub("", phrase) or phrase


def _noun_slot(noun: str) -> str:
    """The slot a possessive names: "my phone plan" → user.phone_plan."""
    return f"user.{slug(noun, max_words=2)}"
