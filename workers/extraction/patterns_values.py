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

This module holds the constructions on the user's verb (a taste, a habit, a venture, a state,
a start, a switch, a resumption, an ending) and `find`, the one family entry point; the ones
keyed by a noun (`value.noun.*`: "my rent is …", a role, a price, a date) are in
`patterns_values_nouns`, what all of them share (the value phrase, the draft) in `value_phrase`.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from workers.extraction import draft as d
from workers.extraction.clauses import Clause
from workers.extraction.draft import Draft
from workers.extraction.lexicon import EMOTIONS
from workers.extraction.linear_scan import Gated, leftmost, only
from workers.extraction.patterns_values_nouns import (
    amounts_and_dates,
    new_holder,
    numbered,
    possessive,
    roles,
)
from workers.extraction.value_phrase import (
    NOT_VALUES,
    VALUE,
    is_value,
    trim_value,
    user_first,
    value_draft,
)

_I = re.IGNORECASE
_SUBJ = r"\b(?:i|we)(?:'ve|'m|'d|\s+have|\s+am|\s+are|'re)?"
#: Adverbs and auxiliaries between the subject and the verb.
_ADV = (
    r"(?:\s+(?:really|only|absolutely|totally|completely|just|still|now|also|always|usually"
    r"|basically|honestly|literally|finally|actually|kinda|sort\s+of|mostly|been|be|got|gotten"
    r"|become|so|pretty|genuinely|officially|even|never|already))*"
)
_FREQ = (
    r"(?:every|each|most)\s+(?:single\s+)?(?:day|morning|night|evening|afternoon|week|weekend"
    r"|month|monday|tuesday|wednesday|thursday|friday|saturday|sunday)s?"
    r"|on\s+(?:the\s+)?(?:weekends?|weeknights|mondays|tuesdays|wednesdays|thursdays|fridays"
    r"|saturdays|sundays)|(?:daily|weekly|nightly|religiously)"
    r"|(?:once|twice|three\s+times|\d+\s+times)\s+a\s+(?:day|week|month)|most\s+days"
    r"|all\s+(?:day|week|weekend|morning|evening|night|month)(?:\s+long)?"
)
#: The preference constructions, one regex branch each (`_prefer_matches` scans them).
_MINE = (
    r"(?:is|are)\s+(?:my|our)\s+(?:new\s+)?(?:thing|jam|go-to|favou?rite(?:\s+thing)?|obsession)\b"
)
_PREFER_BRANCHES = (
    # "I (really) love X", "we only trust X" — not "I'd love X" (a wish) or "we're like X"
    r"\b(?:i|we)(?:'ve|\s+have)?" + _ADV + r"\s+(?P<verb>love|like|prefer|adore|enjoy|trust"
    r"|swear\s+by|crave|live\s+on)\s+" + VALUE,
    # "I'm (really) into X", "I've been hooked on X"
    r"\b(?:i|we)(?:'m|'re|\s+am|\s+are|'ve\s+been|\s+have\s+been)"
    + _ADV
    + r"\s+(?P<verb2>into|hooked\s+on|obsessed\s+with|addicted\s+to|a\s+(?:big\s+|huge\s+)?"
    r"fan\s+of|all\s+about)\s+(?P<val3>[^\s,.;!?][^,.;!?]*)",
    # "X is my (new) thing": X is a lazy stretch up to the phrase, searched phrase first
    r"(?P<val2>[^\s,.;!?][^,.;!?]*?)\s+" + _MINE,
)
_PREFER = re.compile("|".join(_PREFER_BRANCHES), _I)
_PREFER_HEAD = only(_PREFER_BRANCHES, (0, 1), _I)
_PREFER_MINE = only(_PREFER_BRANCHES, (2,), _I)
#: Where "is my thing" can end a stretch: `\s+` before it, so preceded by whitespace.
_MINE_AT = re.compile(r"(?<=\s)(?=" + _MINE + ")", _I)
#: What a value stretch cannot cross (`VALUE`'s `[^,.;!?]`) and where one may begin.
_STOP = re.compile(r"[,.;!?]")
_STRETCH_START = re.compile(r"[^\s,.;!?]")
_HABIT_BRANCHES = (
    # "I <verb> <val> every day": the lazy <val> is searched frequency first
    _SUBJ + _ADV + r"\s+(?P<verb>[a-z]+)\s+(?P<val>[^,.;!?]*?)\s*(?P<freq>" + _FREQ + r")\b",
    r"(?P<freq2>"
    + _FREQ
    + r"),?\s+(?:i|we)"
    + _ADV
    + r"\s+(?P<verb2>[a-z]+)\s+(?P<val2>[^,.;!?]+)",
)
_HABIT = re.compile("|".join(_HABIT_BRANCHES), _I)
_HABIT_SAID = only(_HABIT_BRANCHES, (0,), _I)
_HABIT_FRONTED = only(_HABIT_BRANCHES, (1,), _I)
_SUBJ_AT = re.compile(r"\b(?=i|we)", _I)
#: Where a frequency phrase can begin (`_FREQ\b`); a number only at its first digit, which a
#: subject cannot follow inside the number (each digit of "1111…" would rescan the rest).
_FREQ_AT = re.compile(
    r"(?=(?:" + _FREQ.replace(r"|\d+\s+times", r"|(?<!\d)\d+\s+times") + r")\b)", _I
)
_SWITCH = re.compile(
    r"\b(?P<verb>switched|switching|changed|converted|swapped|upgraded|went\s+over|gone\s+over"
    r"|moved)\s+(?:[\w'-]+\s+){0,4}?(?:from\s+(?P<old>[\w' -]+?)\s+)?(?:over\s+)?(?:to|for)\s+"
    + VALUE,
    _I,
)
_START = re.compile(
    r"\b(?P<verb>started|began|begun|took\s+up|taken\s+up|picked\s+up|got\s+into|gotten\s+into"
    r"|found|discovered|turned\s+to)\s+" + VALUE,
    _I,
)
_AGAIN = re.compile(
    _SUBJ + _ADV + r"\s+(?P<val>[a-z]+ing\s+[^,.;!?]*?)\s+again\b"
    r"|\b(?:i'm|i\s+am|we're)\s+back\s+(?:on|to|into)\s+(?P<val2>[^,.;!?]+)",
    _I,
)
_NOW = re.compile(r"\bnow\s+(?:i|we)\s+(?P<verb>[a-z]+)\s+" + VALUE, _I)
_STOP = re.compile(
    _SUBJ + _ADV + r"\s+(?P<verb>quit|stopped|gave\s+up|given\s+up|dropped|ditched|done\s+with"
    r"|no\s+longer)\s+(?:doing\s+|playing\s+|going\s+to\s+)?"
    + VALUE
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
    r"(?:a\s+|an\s+|the\s+|my\s+|our\s+)?" + VALUE,
    _I,
)
#: "I'm a nurse", "I was ordained in …": a plain state, kept only if it names an attribute.
_COPULA = re.compile(
    r"\b(?:i'm|im|i\s+am|i\s+was|i've\s+been|ive\s+been|i\s+have\s+been)\s+(?:now\s+|still\s+)?"
    + VALUE,
    _I,
)


def _prefer_matches(text: str) -> Iterator[re.Match[str]]:
    """`_PREFER.finditer(text)` in linear time (review r16, H1): "… is my thing" found first."""
    mine = Gated(text, _PREFER_MINE, _STRETCH_START, _MINE_AT, _STOP)
    return leftmost((lambda pos: _PREFER_HEAD.search(text, pos), mine))


def _habit_matches(text: str) -> Iterator[re.Match[str]]:
    """`_HABIT.finditer(text)` in linear time (review r16, H1): the frequency found first."""
    said = Gated(text, _HABIT_SAID, _SUBJ_AT, _FREQ_AT, _STOP)
    return leftmost((said, lambda pos: _HABIT_FRONTED.search(text, pos)))


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


def find(clause: Clause) -> list[Draft]:
    """Provisional drafts of the value constructions in `clause`.

    The order of the constructions is the order of the drafts, which settles overlaps of one
    priority (`rules._clause_drafts`): the noun constructions interleave with the verb ones.
    """
    text = clause.text
    out = possessive(clause)
    out += roles(clause)
    for m in _prefer_matches(text):
        value = trim_value(m["val"] or m["val2"] or m["val3"])
        if not is_value(value) or re.match(r"[a-z]+ing\b", value, _I):
            continue  # "I love running my own studio": an activity, not a taste
        changed = bool(re.search(r"\bnow\b|\bthese\s+days\b|\bnew\b", m.group(0), _I))
        out.append(value_draft("value.prefer", m, value, statement=f"User likes {value}",
                               confidence=d.COMMITTED if changed else d.STATED))  # fmt: skip
    for m in _habit_matches(text):
        verb, value = (m["verb"], m["val"]) if m["verb"] else (m["verb2"], m["val2"])
        phrase = trim_value(f"{verb} {value}")
        if verb.lower() in NOT_VALUES or not is_value(phrase):
            continue
        out.append(value_draft("value.habit", m, phrase, require=True))
    for m in _RUN.finditer(text):
        value = trim_value(m["val"])
        if is_value(value):
            out.append(value_draft("value.run", m, value, statement=f"User {m['verb']}s {value}"))
    out += new_holder(clause)
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
        if user_first(text, m):
            out.append(value_draft("value.activity", m, m["val"].lower(), require=True))
    for pattern, kind, verb in ((_SWITCH, "value.switch", "switched to"),
                                (_START, "value.start", "started")):  # fmt: skip
        for m in pattern.finditer(text):
            value = trim_value(re.sub(r"^(?:on|with|in)\s+", "", m["val"], flags=_I))
            if not is_value(value) or not user_first(text, m):
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
        if not value or (m["val"] and not user_first(text, m)):
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
    out += numbered(clause)
    out += amounts_and_dates(clause)
    return out
