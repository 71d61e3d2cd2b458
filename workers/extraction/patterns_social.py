"""Relational Bonds: partners, people in single roles, friends, family (pets: `patterns_pets`).

Relational facts accumulate and change only by explicit dissolution (Table 1 row 2:
"Dating Alex" → "Broke up with Alex"). The partner is one slot, `user.partner`: a new
partner and a break-up are both high-confidence replaces of it, the break-up with no value.
Single-holder roles (apprentice, boss, landlord …) are slots of their own so that "now I have
Deniz as my apprentice" supersedes Burak (AV4); friends and colleagues accumulate per name.
`named` (is this word a person's name?) and `CAP` (a capitalized name) are shared with the
pets family.
"""

from __future__ import annotations

import re

from workers.extraction import draft as d
from workers.extraction.clauses import Clause, subject_is_user
from workers.extraction.dates import has_date_cue
from workers.extraction.draft import Draft, from_match
from workers.extraction.lexicon import words

_I = re.IGNORECASE
_PARTNER = (
    r"boyfriend|girlfriend|partner|wife|husband|fianc[ée]e?|fiance|fiancee|bf|gf|spouse"
    r"|other\s+half|significant\s+other|hubby|missus"
)
_NAME = r"(?P<name>[A-Za-z][\w'-]*)"
CAP = r"(?-i:[A-Z][\w'-]+)"  # names after a role noun must be capitalized: "my wife is amazing"
_UNNAMED = frozenset(
    words(
        "someone somebody anyone anybody a guy a girl this guy this girl a man a woman him her "
        "them people someone new other"
    )
)
_NOT_NAMES = frozenset(
    words(
        "and is was has had just i we said says thinks wants got loves likes who to of the a an "
        "are were will would can could doesn't don't didn't isn't wasn't for with at in on my "
        "me he she they it that this so but or because when if also still really now then "
        "always never have been being am be do does did say lives works dr doctor lot things "
        "more less around how what whether double it you from"
    )
)

_DATING = re.compile(
    r"\b(?:dating|seeing|going\s+out\s+with|in\s+a\s+relationship\s+with|started\s+dating"
    r"|fell\s+for|moved\s+in\s+with|(?:got\s+)?(?:married|engaged)\s+to|married)\s+"
    rf"(?P<who>someone(?:\s+new)?|somebody|a\s+(?:guy|girl|man|woman)|{_NAME})",
    _I,
)
_MY_PARTNER = re.compile(
    rf"\bmy\s+(?P<new>new\s+)?(?P<rel>{_PARTNER})(?:'s\s+name\s+is|\s+is\s+called|\s+is"
    rf"|,)?\s+(?P<name>{CAP})",
    _I,
)
_TOGETHER = re.compile(
    r"\b(?:me\s+and\s+(?P<n1>[A-Za-z]\w*)|(?P<n2>[A-Za-z]\w*)\s+and\s+(?:i|me))\s+"
    r"(?:have\s+been|'ve\s+been|are|been|got|just\s+got|are\s+now|finally\s+got)\s+"
    r"(?:together|dating|married|engaged|going\s+out|a\s+couple|official)",
    _I,
)
_IS_MY_PARTNER = re.compile(
    rf"\b(?P<name>{CAP})\s+(?:is|'s)\s+(?:now\s+)?my\s+(?:new\s+)?(?:{_PARTNER})\b", _I
)
#: "I'm with Farid now", "…we split, and now there's Luca": the current partner, named.
_WITH_NOW = re.compile(
    rf"\b(?:i'm|i\s+am|im)\s+(?:now\s+)?(?:with|seeing)\s+(?P<name>{CAP})\s+(?:now|these\s+days"
    rf"|nowadays)\b|^\s*(?:and\s+)?now\s+(?:there's|there\s+is|it's)\s+(?P<name2>{CAP})\s*[!.]*$",
    _I,
)
_STATUS = re.compile(
    r"\b(?:got|getting|just\s+got|are|we're|i'm|im|am|finally\s+got)\s+(?P<status>married|"
    r"engaged|hitched)\b(?!\s+to)",
    _I,
)
_ENDED = re.compile(
    r"\b(?:broke\s+up|split\s+up|splitting\s+up|breaking\s+up|got\s+divorced|getting\s+divorced"
    r"|divorced|ended\s+things|called\s+it\s+quits|got\s+dumped|broke\s+(?:things|it)\s+off"
    r"|(?:separated|split|are\s+done|ended(?:\s+(?:it|things))?(?:\s+a\s+while\s+(?:back|ago))?)"
    r"(?!\s+(?:up|with|the|my|our|them|out)\b))"
    rf"(?:\s+with\s+{_NAME})?",
    _I,
)
_SINGLE = re.compile(r"\b(?:i'm|im|i\s+am)\s+(?:single|newly\s+single)\b|\bsingle\s+again\b", _I)
_WIDOWED = re.compile(rf"\bmy\s+(?P<rel>{_PARTNER})\s+(?:passed\s+away|died)\b", _I)

_ROLES = (
    "apprentice|boss|manager|supervisor|roommate|flatmate|housemate|landlord|landlady"
    "|therapist|mentor|advisor|adviser|coach|personal\\s+trainer|trainer|assistant|intern"
    "|nanny|babysitter|doctor|gp|dentist|tutor"
)
_ROLE = re.compile(
    rf"\bmy\s+(?P<new>new\s+)?(?P<role>{_ROLES})(?:'s\s+name\s+is|\s+is|,|\s+named|\s+called)?"
    rf"\s+(?P<name>{CAP})"
    rf"|\b(?:(?:now\s+)?i\s+have|hired|took\s+on)\s+(?P<name2>{CAP})(?:,[^,]*,)?\s+as\s+"
    rf"(?:my\s+|an?\s+)?(?:new\s+)?(?P<role2>{_ROLES})"
    rf"|\b(?P<name3>{CAP})\s+is\s+my\s+(?P<new3>new\s+)?(?P<role3>{_ROLES})\b",
    _I,
)
_MANY = (
    "friend|best\\s+friend|colleague|coworker|co-worker|neighbou?r|classmate|teammate"
    "|bandmate|client|mentee|buddy|pal|student"
)
_FRIEND = re.compile(
    rf"\b(?:my\s+(?P<new>new\s+)?(?P<rel>{_MANY})|made\s+a\s+new\s+(?P<rel2>{_MANY})|met\s+a\s+"
    rf"(?:new\s+)?(?P<rel3>{_MANY}))(?:,|\s+named|\s+called)?\s+(?P<name>{CAP})",
    _I,
)
_FAMILY = (
    "sister|brother|mom|mum|mother|dad|father|son|daughter|grandma|grandmother|grandpa"
    "|grandfather|aunt|uncle|cousin|niece|nephew|stepmom|stepdad|stepson|stepdaughter"
    "|twin|sibling|kid|baby"
)
_FAMILY_NAMED = re.compile(
    rf"\bmy\s+(?:little\s+|big\s+|older\s+|younger\s+|baby\s+)?(?P<rel>{_FAMILY})(?:,)?\s+"
    rf"(?P<name>{CAP})",
    _I,
)
_KIDS = re.compile(
    r"\b(?:i|we)\s+(?:have|'ve\s+got|got)\s+(?P<n>\d+|one|two|three|four|five|a|an)\s+"
    r"(?P<what>kids?|children|child|sons?|daughters?|grandkids|grandchildren)\b",
    _I,
)


def _role_key(role: str) -> str:
    role = " ".join(role.lower().split())
    # One person is one's boss, manager or supervisor: "my boss X" and later "my new manager
    # is Y" must land in one slot, or the old name stays current (Appendix F).
    return {"landlady": "landlord", "adviser": "advisor", "gp": "doctor", "flatmate": "roommate",
            "housemate": "roommate", "personal trainer": "trainer", "boss": "manager",
            "supervisor": "manager"}.get(role, role)  # fmt: skip


def named(name: str | None) -> str | None:
    """`name` if it is one (not "someone", not a function word), else None."""
    if not name or name.lower() in _NOT_NAMES or name.lower() in _UNNAMED:
        return None
    return name


def find(clause: Clause) -> list[Draft]:
    text = clause.text
    out: list[Draft] = []

    def partner(m: re.Match[str], value: str | None, kind: str, end: int | None = None) -> None:
        out.append(
            from_match(
                kind,
                "user.partner",
                value,
                m,
                d.RELATIONAL,
                d.R,
                d.COMMITTED,
                30,
                # A new or ended relationship has a date; "my wife Sarah" states no event.
                dates="none" if kind == "partner.named" else "past",
                negatable=kind == "partner.ended",
                span=(m.start(), end if end is not None else m.end()),
            )
        )

    for m in _DATING.finditer(text):
        if not subject_is_user(text, m.start()):
            continue
        verb = m.group(0).split()[0].lower()
        if (
            verb == "seeing"
            and (has_date_cue(text) or not (m["name"] or "x")[:1].isupper())
            and not m["who"].lower().startswith(("someone", "somebody"))
        ):
            continue  # "seeing the dentist on Friday", "seeing a therapist"
        name = named(m["name"])
        if name is None and m["name"]:
            continue  # "I'm married with two kids": no partner named
        if name is None:  # "i'm seeing someone now though, mika" (paper C.3)
            tail = re.search(
                r",\s*(?:(?:named|called|it's|her\s+name\s+is|his\s+name\s+is)\s+)?"
                r"([A-Za-z][\w'-]+)\s*[!.]*$",
                text[m.end() :],
            )
            name = named(tail.group(1)) if tail else None
        partner(m, name or "someone", "partner.new")
    for m in _MY_PARTNER.finditer(text):
        if name := named(m["name"]):
            partner(m, name, "partner.named")
    for m in _IS_MY_PARTNER.finditer(text):
        if name := named(m["name"]):
            partner(m, name, "partner.named")
    for m in _WITH_NOW.finditer(text):
        ended_before = _ENDED.search(clause.sentence_text or "")
        if (m["name"] or ended_before) and (name := named(m["name"] or m["name2"])):
            partner(m, name, "partner.new" if m["name"] else "partner.new_noun")
    for m in _TOGETHER.finditer(text):
        if name := named(m["n1"] or m["n2"]):
            partner(m, name, "partner.together")
    for m in _STATUS.finditer(text):
        if subject_is_user(text, m.start()):
            out.append(
                from_match(
                    "partner.status",
                    "user.relationship_status",
                    m["status"].lower(),
                    m,
                    d.RELATIONAL,
                    d.R,
                    d.COMMITTED,
                    31,
                    dates="past",
                )
            )
    for m in _ENDED.finditer(text):
        prefix = text[: m.start()]
        couple = re.search(
            r"\b(?:me\s+and\s+\w+|\w+\s+and\s+(?:i|me))(?:\s+(?:are|were|have|'ve|just|finally"
            r"|both|officially))*\s*$",
            prefix,
            _I,
        )
        if not subject_is_user(text, m.start()) and not couple:
            continue
        if re.search(r"\b(?:my\s+parents|they|he|she)\b", prefix, _I) and not couple:
            continue
        partner(m, None, "partner.ended")  # dissolution: a replace of the slot, no value
    for m in _SINGLE.finditer(text):
        partner(m, None, "partner.ended")
    for m in _WIDOWED.finditer(text):
        partner(m, None, "partner.ended")
    _people(text, out)
    return out


def _people(text: str, out: list[Draft]) -> None:
    for m in _ROLE.finditer(text):
        role = _role_key(m["role"] or m["role2"] or m["role3"])
        name = named(m["name"] or m["name2"] or m["name3"])
        if name is None:
            continue
        out.append(
            from_match(
                "relational.role",
                f"user.{role.replace(' ', '_')}",
                name,
                m,
                d.RELATIONAL,
                d.R,
                d.COMMITTED,
                32,
            )
        )
    for m in _FRIEND.finditer(text):
        rel = " ".join((m["rel"] or m["rel2"] or m["rel3"]).lower().split())
        rel = {
            "co-worker": "coworker",
            "colleague": "coworker",
            "neighbour": "neighbor",
            "best friend": "friend",
            "buddy": "friend",
            "pal": "friend",
        }.get(rel, rel)
        if name := named(m["name"]):
            out.append(
                from_match(
                    "relational.many",
                    f"user.{rel}.{name.lower()}",
                    name,
                    m,
                    d.RELATIONAL,
                    d.A,
                    d.STATED,
                    33,
                )
            )
    for m in _FAMILY_NAMED.finditer(text):
        if name := named(m["name"]):
            rel = m["rel"].lower().replace("mum", "mom")
            out.append(
                from_match(
                    "relational.family",
                    f"user.family.{rel}.{name.lower()}",
                    name,
                    m,
                    d.RELATIONAL,
                    d.A,
                    d.STATED,
                    34,
                )
            )
    for m in _KIDS.finditer(text):
        out.append(
            from_match(
                "relational.children",
                "user.children",
                f"{m['n']} {m['what']}",
                m,
                d.RELATIONAL,
                d.R,
                d.COMMITTED,
                34,
                numeric=m["n"].isdigit(),
            )
        )
