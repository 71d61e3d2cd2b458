"""Identity and relationship values said only in passing (paper C.1, cross-session drift).

Users rarely announce "my new manager is Fatima"; they say "Fatima, my boss, signed off on
my leave", "crazy day at PwC, back-to-back meetings", "date night with Ava", "the Kia Niro
handled the snow", "being a charge nurse means I sign off the rota". Each still states the
current value of a replace slot (`user.manager`, `user.employer`, `user.partner`,
`user.car`, `user.profession`), so it must land in that slot or the old value stays current.

Only cues that tie the value to the user are taken: a possessive ("my boss", "my Kia
Niro"), a relation only a partner has ("our anniversary", "date night"), work-only contexts
("shift at", "my team at"). A name alone ("Fatima wants the report") is not enough.
"""

from __future__ import annotations

import re

from workers.extraction import draft as d
from workers.extraction.clauses import Clause, trim_phrase
from workers.extraction.draft import Draft
from workers.extraction.lexicon import words
from workers.extraction.patterns_vehicle import CAR
from workers.extraction.patterns_work import TITLE

_I = re.IGNORECASE
_CAP = r"(?-i:[A-Z][\w'-]+)"
_BOSS = r"(?:boss|manager|line\s+manager|supervisor|team\s+lead|team\s+leader)"
_PARTNER_WORDS = r"(?:partner|boyfriend|girlfriend|husband|wife|fianc[ée]e?|other\s+half)"
_NOT_NAMES = frozenset(
    words(
        "i we he she they it my our the a an this that everyone nobody someone mum mom dad "
        "today yesterday tonight work home monday tuesday wednesday thursday friday saturday "
        "sunday god lol omg yes no ok okay so well"
    )
)

_MANAGER = re.compile(
    rf"(?:^|[,;]\s*)(?P<n1>{_CAP}),\s+(?:my|our)\s+(?:new\s+)?{_BOSS}\b"
    rf"|\b(?:(?:my|our|a|the|quick|short|long|weekly|monthly|usual)\s+)*(?:one-to-one|one-on-one|1:1|1-on-1|1-to-1"
    rf"|1-1|check-in)\s+with\s+(?P<n2>{_CAP})"
    rf"|\b(?P<n3>{_CAP})(?:\s+from\s+[\w' -]{{1,30}}?)?\s+is\s+(?:now\s+)?(?:my|our)\s+(?:new\s+)?"
    rf"{_BOSS}\b",
    _I,
)
#: "Ibrahim, my boss, signed off …": the comma splits the name from its clause.
_APPOSED_BOSS = re.compile(rf"^(?:my|our)\s+(?:new\s+)?{_BOSS}\b")
_NAME_BEFORE = re.compile(
    rf"(?:^|[,;]\s*)(?:(?:so|and|well|oh|btw|today|anyway)\s+)?(?P<n>{_CAP}),\s*$", _I
)
_PARTNER = re.compile(
    rf"\bdate\s+night\s+with\s+(?P<n1>{_CAP})"
    rf"|\b(?P<n2>{_CAP})\s+and\s+(?:i|me)\b[^.!?]{{0,60}}?\bour\s+(?:\w+\s+)?anniversary\b"
    rf"|\b(?:me|i)\s+and\s+(?P<n3>{_CAP})\b[^.!?]{{0,60}}?\bour\s+(?:\w+\s+)?anniversary\b"
    rf"|\banniversary\s+(?:dinner\s+|trip\s+|weekend\s+)?with\s+(?P<n4>{_CAP})"
    rf"|^(?P<n5>{_CAP})\s+[^.!?]{{0,80}}?[,;-]\s*(?:the\s+)?best\s+{_PARTNER_WORDS}\s+ever\b",
    _I,
)
_ORG = r"(?P<org>(?:the\s+)?(?-i:[A-Z])[\w.&'-]*(?:\s+(?-i:[A-Z&])[\w.&'-]*){0,3})"
_WORKPLACE = re.compile(
    rf"\b(?:my|our)\s+(?:team|manager|boss|colleagues|co-?workers|office|desk|department"
    rf"|shift|workplace|line\s+manager|ward|unit)\s+at\s+{_ORG}"
    rf"|\b(?:busy|crazy|long|hectic|rough|tough|stressful|manic|mad|quiet|slow|brutal)\s+"
    rf"(?:day|shift|week|morning|night)\s+at\s+{_ORG.replace('org', 'org2')}"
    rf"|\b(?:shift|canteen|cafeteria|staff\s+room|break\s+room)\s+at\s+"
    rf"{_ORG.replace('org', 'org3')}",
    _I,
)
_NOT_ORGS = frozenset(
    words("the home work i it this that monday tuesday wednesday thursday friday")
)
#: A car named by make and model with a possessive or an owner's chore ("filled up the Mazda 3").
_CAR_USE = re.compile(
    rf"\b(?:my|our)\s+(?:new\s+|trusty\s+|little\s+)?{CAR}"
    rf"|\b(?:filled\s+up|fill\s+up|serviced|service|washed|wash|parked|park|charged|charge"
    rf"|drove|drive|took|take|had|got)\s+the\s+{CAR.replace('car', 'car2')}"
    rf"(?=\s+(?:this|today|yesterday|last|at|to|in|into|for|serviced|washed|fixed|repaired"
    rf"|cleaned|MOT|valeted|checked)\b|\s*(?:$|[,.;!?]))"
    rf"|\bthe\s+{CAR.replace('car', 'car3')}\s+(?:handled|is\s+in\s+the\s+shop|broke\s+down"
    rf"|won't\s+start|needs\s+(?:a\s+|new\s+)|got\s+a\s+flat|passed\s+its|failed\s+its)",
    _I,
)
_NOT_MINE = re.compile(
    r"\b(?:sold|selling|sell|traded|trading|replaced|replacing|scrapped|got\s+rid\s+of|old"
    r"|previous|used\s+to|his|her|their|rented|rental|hire)\b",
    _I,
)
_ROLE = re.compile(
    rf"\b(?:being|as|in\s+my\s+(?:new\s+)?role\s+as)\s+(?:an?\s+|the\s+)?(?P<full>{TITLE}"
    r"(?:\s+of\s+(?:the\s+)?[\w-]+)?)"
    r"(?=\s+(?:means|is|has|I|i|now|at|and|,)\b|\s*(?:$|[,.;!?]))",
    _I,
)
_WORK_VERB = re.compile(r"\b(?:work|works|worked|working|job|employed)\b", _I)
_OTHERS = re.compile(
    r"\b(?:he|she|they|his|her|their|my\s+(?:mum|mom|dad|sister|brother|friend|wife|husband"
    r"|partner|son|daughter))\b",
    _I,
)


def find(clause: Clause) -> list[Draft]:
    text = clause.text
    out: list[Draft] = []
    for m in _MANAGER.finditer(text):
        if (name := _name(m, "n")) and not _OTHERS.search(text[: m.start()]):
            out.append(
                _draft("relational.manager_passing_noun", "user.manager", name, m, d.RELATIONAL)
            )
    sentence = clause.sentence_text or ""
    apposed = _APPOSED_BOSS.match(text)
    if apposed and (at := sentence.find(text)) > 0:
        before = _NAME_BEFORE.search(sentence[:at])
        if before and (name := _name(before, "n")):
            out.append(
                _draft("relational.manager_passing_noun", "user.manager", name, apposed,
                       d.RELATIONAL)
            )  # fmt: skip
    for m in _PARTNER.finditer(text):
        if name := _name(m, "n"):
            out.append(
                _draft("relational.partner_passing_noun", "user.partner", name, m, d.RELATIONAL)
            )
    for m in _WORKPLACE.finditer(text):
        org = trim_phrase(next(v for k, v in m.groupdict().items() if k.startswith("org") and v), 4)
        if org and org.lower() not in _NOT_ORGS and not _OTHERS.search(text[: m.start()]):
            out.append(_draft("identity.employer_passing_noun", "user.employer", org, m, d.WORK))
    if not _NOT_MINE.search(text):
        for m in _CAR_USE.finditer(text):
            car = next(v for k, v in m.groupdict().items() if k.startswith("car") and v)
            out.append(_draft("financial.car_passing", "user.car", " ".join(car.split()), m,
                              d.FINANCIAL))  # fmt: skip
            break
    for m in _ROLE.finditer(text):
        title = trim_phrase(m["full"], 5)
        # "I work at Google as an engineer" is the workplace's fact (patterns_identity): its
        # turn should expire with the workplace, not stay current through the title.
        if (
            title
            and not _OTHERS.search(text[: m.start()])
            and not _WORK_VERB.search(text[: m.start()])
        ):
            out.append(
                _draft("identity.profession_passing_noun", "user.profession", title, m, d.WORK)
            )
    return out


def _name(m: re.Match[str], prefix: str) -> str | None:
    name = next((v for k, v in m.groupdict().items() if k.startswith(prefix) and v), None)
    if not name or name.lower() in _NOT_NAMES:
        return None
    return name


def _draft(kind: str, slot: str, value: str, m: re.Match[str], cats: d.Weights) -> Draft:
    # Priority 60: the explicit families, when they match, say it better.
    return d.from_match(kind, slot, value, m, cats, d.R, d.COMMITTED, 60)
