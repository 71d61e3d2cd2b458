"""Working life beyond "I work at X": who the user reports to, their title, and the
employer named in passing ("first week at PwC done", "my job at the library keeps me busy").

The slots are the ones `patterns_identity` and `patterns_social` use — `user.manager`,
`user.profession`, `user.employer` — so that "my boss is Helen" and a later "I report to
Priyanka now" supersede each other (Appendix F). A change names the new value last
("Kenji took over from Ibrahim as my manager", "moved up from analyst to team lead"): the
draft carries the new one, the old one is what it supersedes.
"""

from __future__ import annotations

import re

from workers.extraction import draft as d
from workers.extraction.clauses import Clause, subject_is_user, trim_phrase
from workers.extraction.draft import Draft
from workers.extraction.lexicon import PROFESSIONS, words

_I = re.IGNORECASE
_CAP = r"(?-i:[A-Z][\w'-]+)"
_NAME = rf"(?P<name>{_CAP}(?:\s+(?-i:[A-Z][\w'-]+))?)"
#: "manager" also heads a title ("engineering manager"), so it is listed with these.
_TITLE_HEADS = PROFESSIONS | frozenset(
    words(
        "lead head vp principal officer supervisor coordinator specialist associate executive "
        "partner fellow chief superintendent foreman"
    )
)
_TITLE_RE = "|".join(sorted((re.escape(p) for p in _TITLE_HEADS), key=len, reverse=True))
TITLE = rf"(?P<title>(?:[\w-]+\s+){{0,3}}(?:{_TITLE_RE}))\b"
_NOT_NAMES = frozenset(words("i we he she they it my our the a an this that everyone nobody"))

_REPORT_TO = re.compile(
    rf"\b(?:i|we|now\s+i)\s+(?:now\s+)?(?:report|reports|answer)\s+(?:directly\s+)?to\s+{_NAME}"
    rf"|\breporting\s+(?:directly\s+)?to\s+{_NAME.replace('name', 'name2')}",
    _I,
)
_MANAGES = re.compile(
    rf"\b{_NAME.replace('name', 'name3')}\s+(?:now\s+)?(?:manages|runs|leads|heads\s+up|heads)\s+"
    r"(?:our|my)\s+(?:team|department|group|unit|office|ward|desk|squad)\b"
    rf"|\b{_NAME.replace('name', 'name4')}\s+(?:took\s+over|has\s+taken\s+over|is\s+taking\s+"
    r"over)(?:\s+from\s+[\w' -]+?)?\s+as\s+(?:my|our)\s+(?:new\s+)?(?:manager|boss|supervisor"
    r"|line\s+manager|team\s+lead)\b"
    rf"|\b(?:we|i)\s+(?:got|have|get)\s+a\s+new\s+(?:manager|boss|supervisor|line\s+manager)"
    rf"(?:,|:|\s+called|\s+named|\s*-+)?\s+{_NAME.replace('name', 'name5')}"
    rf"|\bmy\s+(?:new\s+)?(?:line\s+manager|team\s+lead)(?:'s|\s+is|,)?\s+"
    rf"{_NAME.replace('name', 'name6')}",
    _I,
)
_NEW_TITLE = re.compile(
    rf"\b(?:(?:new\s+(?:job\s+)?title|new\s+role)\s*(?::|-+|is)|(?:my\s+)?(?:job\s+)?title\s+is"
    rf"\s+now:?)\s*(?:an?\s+|the\s+)?{TITLE}"
    rf"|\b(?:they|management|my\s+boss|my\s+manager|the\s+company)\s+(?:just\s+)?(?:made|named"
    rf"|appointed)\s+me\s+(?:an?\s+|the\s+)?{TITLE.replace('title', 'title2')}"
    rf"|\b(?:moved|stepped|went)\s+up\s+(?:from\s+(?:an?\s+)?[\w -]+?\s+)?to\s+(?:an?\s+|the\s+)?"
    rf"{TITLE.replace('title', 'title3')}"
    rf"|\b(?:i've|i\s+have|i\s+had|i'd)\s+been\s+(?:an?|the)\s+"
    rf"{TITLE.replace('title', 'title4')}\s+(?:for|since)\b"
    rf"|^(?:as|being)\s+(?:an?|the)\s+{TITLE.replace('title', 'title5')}\s*(?:,|$|\s+i\b)",
    _I,
)
_ORG_END = r"(?:done|now|for|since|keeps|is|was|and|but|so)\b"
_ORG = rf"(?P<org>(?:the\s+)?[\w.&'-]+(?:\s+(?!{_ORG_END})[\w.&'-]+){{0,3}})"
_AT_WORK = re.compile(
    rf"\b(?:first|second|last)\s+(?:week|day|month)\s+at\s+{_ORG}\s+(?:done|over|complete|"
    r"finished|down|behind\s+me|went)"
    rf"|\bmy\s+(?:job|work|role|position)\s+at\s+{_ORG.replace('org', 'org2')}\s+(?:keeps|is|has"
    r"|pays|means|takes|gets|involves)\b"
    rf"|\b(?:i'm|i\s+am|im)\s+(?:now\s+)?at\s+{_ORG.replace('org', 'org3')}\s+now\b"
    rf"|\b(?:i've|i\s+have)\s+(?:worked|been\s+working|been)\s+at\s+{_ORG.replace('org', 'org4')}"
    r"\s+(?:for|since)\b"
    rf"|\b(?:left|quit)\s+[\w.&' -]+?\s+and\s+(?:joined|moved\s+to|went\s+to)\s+"
    rf"{_ORG.replace('org', 'org5')}"
    rf"|\bhanded\s+in\s+my\s+notice\s+at\s+[\w.&' -]+?,?\s+(?:now\s+)?(?:i'm\s+)?at\s+"
    rf"{_ORG.replace('org', 'org6')}",
    _I,
)
_NOT_ORGS = frozenset(words("home work night the a it this that last first them you all least"))


def find(clause: Clause) -> list[Draft]:
    text = clause.text
    out: list[Draft] = []
    for m in _REPORT_TO.finditer(text):
        _manager(out, m, m["name"] or m["name2"])
    for m in _MANAGES.finditer(text):
        _manager(out, m, m["name3"] or m["name4"] or m["name5"] or m["name6"])
    for m in _NEW_TITLE.finditer(text):
        title = _first(m, "title")
        title = trim_phrase(title, 5)
        if title:
            kind = (
                "identity.profession"
                if m["title2"] or m["title3"] or m["title4"]
                else ("identity.profession_noun")
            )
            out.append(_draft(kind, "user.profession", title, m, d.WORK, 54))
    for m in _AT_WORK.finditer(text):
        raw = _first(m, "org")
        org = trim_phrase(raw, 4)
        if not org or org.lower() in _NOT_ORGS or not subject_is_user(text, m.start()):
            continue
        if not (org[:1].isupper() or org.lower().startswith("the ")):
            continue  # "my job at night" names no workplace
        kind = "identity.employer_noun" if m["org"] or m["org2"] else "identity.employer"
        out.append(_draft(kind, "user.employer", org, m, d.WORK, 44))
    return out


def _first(m: re.Match[str], prefix: str) -> str:
    """The first group named `prefix`, `prefix`2, … that matched."""
    return next(v for k, v in m.groupdict().items() if k.startswith(prefix) and v)


def _manager(out: list[Draft], m: re.Match[str], name: str | None) -> None:
    if not name or name.split()[0].lower() in _NOT_NAMES:
        return
    out.append(_draft("relational.role", "user.manager", name, m, d.RELATIONAL, 31))


def _draft(
    kind: str, slot: str, value: str, m: re.Match[str], cats: d.Weights, priority: int
) -> Draft:
    return d.from_match(kind, slot, value, m, cats, d.R, d.COMMITTED, priority)
