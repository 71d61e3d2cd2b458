"""The car the user drives: a replace slot (`user.car`, Financial & Material, Table 1 row 8).

A car is recognised by its make ("a VW Golf", "the Kia Niro", "my Tesla"), so "I drive the
kids to school" is no car. A change names both cars; the one the user has now is the one
after "got", "for", "with", "drive" ("sold the Golf and got a Civic", "traded in the Golf
for an Outback", "replaced the Civic with a Niro"), never the one sold or replaced.
"""

from __future__ import annotations

import re

from workers.extraction import draft as d
from workers.extraction.clauses import Clause, subject_is_user
from workers.extraction.draft import Draft
from workers.extraction.lexicon import words

_I = re.IGNORECASE
MAKES = frozenset(
    words(
        "toyota honda ford vw volkswagen tesla volvo kia mazda subaru skoda škoda bmw audi "
        "mercedes mercedes-benz nissan hyundai peugeot renault fiat chevy chevrolet jeep mini "
        "lexus porsche citroen citroën seat dacia opel vauxhall suzuki mitsubishi polestar "
        "rivian byd cupra jaguar land-rover landrover lancia alfa dodge ram gmc buick cadillac "
        "lincoln chrysler genesis infiniti acura smart saab mg"
    )
) | {"land rover", "alfa romeo", "range rover"}
_MAKE_RE = "|".join(sorted((re.escape(m) for m in MAKES), key=len, reverse=True))
#: A make and up to two model words ("VW Golf", "Tesla Model 3", "Mazda 3", "Volvo XC40").
_NOT_MODEL = (
    "now|and|for|with|too|again|instead|today|a|an|the|last|this|since|while|but|so|is|was"
    "|yesterday|tomorrow|tonight|on|at|in|from|after|before|which|that"
)
CAR = rf"(?P<car>(?:{_MAKE_RE})(?:\s+(?!(?:{_NOT_MODEL})\b)[\w-]+){{0,2}})"
_OWN = re.compile(
    r"\b(?:i|we)\s+(?:now\s+|still\s+)?(?:drive|have|own|lease|run)\s+(?:an?|the)\s+"
    r"|\b(?:i'm|we're|i\s+am|we\s+are)\s+(?:now\s+)?driving\s+(?:an?|the)\s+"
    r"|\b(?:i've|we've)\s+got\s+(?:an?|the)\s+"
    r"|\bmy\s+(?:new\s+|current\s+)?(?:car|ride|motor|wheels)(?:'s|\s+is)\s+(?:now\s+)?(?:an?\s+)?"
    r"|\bnew\s+car\s*[!:,-]+\s*(?:an?\s+|the\s+)?"
    r"|\b(?:bought|got|picked\s+up|leased|ordered|collected|getting)\s+(?:a\s+new\s+car\s*,?\s*)?"
    r"(?:an?|the|my|our)\s+(?:new\s+|used\s+|second-hand\s+|secondhand\s+)?"
    r"|\b(?:traded|trading|swapped|swapping|exchanged)\s+(?:in\s+)?(?:the|my|our)\s+[\w -]+?\s+for"
    r"\s+(?:an?\s+|the\s+)?"
    r"|\b(?:replaced|replacing)\s+(?:the|my|our)\s+[\w -]+?\s+with\s+(?:an?\s+|the\s+)?"
    r"|\b(?:switched|upgraded|downgraded|moved)\s+(?:from\s+(?:an?\s+|the\s+|my\s+)?[\w -]+?"
    r"\s+)?to\s+(?:an?\s+|the\s+)?",
    _I,
)
_CAR_AFTER = re.compile(rf"(?:{_OWN.pattern})(?:\s*){CAR}\b", _I)
#: A clause that is only a car ("New car! A Skoda Octavia"): the exclamation before it
#: splits the sentence, and a bare make-and-model in a user's turn is the car they got.
_BARE = re.compile(rf"^\s*(?:an?\s+|the\s+)?(?:new\s+)?{CAR}\s*[!.]*\s*$", _I)


def find(clause: Clause) -> list[Draft]:
    text = clause.text
    out: list[Draft] = []
    for m in (*_CAR_AFTER.finditer(text), *_BARE.finditer(text)):
        lead = m.group(0).lower().lstrip()
        if not subject_is_user(text, m.start()) and not lead.startswith(
            ("my ", "new ", "a ", "an ", "the ")
        ):
            continue
        out.append(
            Draft(
                kind="financial.car",
                categories=d.FINANCIAL,
                slot_key="user.car",
                value=" ".join(m["car"].split()),
                update=d.R,
                confidence=d.COMMITTED,
                span=(m.start(), m.end()),
                priority=25,
            )
        )
    return out[-1:]  # one car at a time: the last one named is the one the user has now
