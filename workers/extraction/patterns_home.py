"""Where the user lives, said in passing: "settled into the new flat in Brisbane", "I've been
in Perth since uni", "home is Tokyo these days", "the trams here in Kyoto".

The slot is `patterns_identity`'s `user.current_city`, so a city mentioned this way supersedes
the one stated earlier (AV6: cross-session contradiction). "Here in X" is the speaker's
present location; a visit is usually said differently ("we're in Rome for the weekend",
which a trip pattern keeps as logistics), so it counts as living there.
"""

from __future__ import annotations

import re

from workers.extraction import draft as d
from workers.extraction.clauses import Clause, subject_is_user
from workers.extraction.draft import Draft
from workers.extraction.lexicon import NOT_PLACES

_I = re.IGNORECASE
_PLACE = r"(?P<place>(?-i:[A-Z])[\w'-]+(?:\s+(?-i:[A-Z])[\w'-]+){0,2})"
#: Modifiers that make a possessed dwelling other than the user's present home — closed
#: grammatical classes, not wordings: temporal (former or future: "our old flat", "my next
#: flat"), irrealis ("my dream house", "my ideal place"), second homes ("our holiday flat",
#: "our summer house", "my second house"), a workplace or term-time lodging ("my work
#: place", "my student flat"), and kin nouns used as genitives without an apostrophe ("my
#: grandma house", "my parents place").
_NOT_PRESENT_HOME = (
    r"old|former|previous|last|first|childhood|ex|past|future|next|new-build|planned"
    r"|potential|prospective|dream|ideal|perfect|imaginary|hypothetical|fantasy|forever"
    r"|holiday|vacation|summer|winter|beach|seaside|lake|lakeside|ski|country|weekend|second"
    r"|retirement|investment|rental|buy-to-let|spare|work|office|company|student|uni"
    r"|university|college|dorm|term-time|grandma|grandmas|grandpa|grandpas|gran|granny|nan"
    r"|nana|grandad|grandparents|mum|mums|mom|moms|mother|dad|dads|father|parents|sister"
    r"|sisters|brother|brothers|aunt|aunts|auntie|uncle|uncles|cousin|cousins|friend|friends"
    r"|boyfriend|girlfriend|partner|partners|family|in-laws"
)
_HOME: tuple[re.Pattern[str], ...] = tuple(
    re.compile(p, _I)
    for p in (
        r"\b(?:settled|settling|moved)\s+into\s+(?:the|our|my|a)\s+(?:new\s+)?(?:flat|apartment"
        rf"|place|house|home|condo)\s+in\s+{_PLACE}",
        rf"\b(?:i've|i\s+have|we've|we\s+have)\s+(?:been|lived)\s+in\s+{_PLACE}\s+(?:since|for)\b",
        rf"\bhome\s+is\s+{_PLACE}\s+(?:now|these\s+days|nowadays)\b",
        rf"\b{_PLACE}\s+is\s+(?:my\s+|our\s+)?home\s+(?:now|these\s+days)\b",
        rf"\bhere\s+in\s+{_PLACE}",
        # A noun phrase: the possessive, up to two modifiers ("our own house", "my tiny new
        # flat", "my gorgeous flat"), the dwelling noun, then where it is — only when the
        # modifiers keep it the user's present home (`_NOT_PRESENT_HOME`) and no modal makes
        # it a wish ("… in Tuscany would have a pool"). A genitive ("my mum's house") has an
        # apostrophe, which no modifier may carry.
        rf"\b(?:my|our)\s+(?:(?!(?:in|here|{_NOT_PRESENT_HOME})\b)[a-z][\w-]*\s+){{0,2}}?"
        r"(?:place|flat|apartment|house|neighbou?rhood)\s+(?:in|here\s+in)\s+"
        rf"{_PLACE}\b(?!\s+(?:would|could|might|will|shall|should|someday|one\s+day)\b)",
    )
)
_NOT_CITIES = frozenset({"the", "my", "our", "january", "february", "march", "april", "may",
                         "june", "july", "august", "september", "october", "november",
                         "december", "i"})  # fmt: skip


def find(clause: Clause) -> list[Draft]:
    text = clause.text
    out: list[Draft] = []
    for m in (m for pattern in _HOME for m in pattern.finditer(text)):
        place = m["place"]
        first = place.split()[0].lower() if place else ""
        if not place or first in _NOT_CITIES or first in NOT_PLACES:
            continue
        lead = m.group(0).lower()
        if lead.startswith(("settl", "moved", "i've", "i have", "we")) and not subject_is_user(
            text, m.start()
        ):
            continue
        verb_first = lead.startswith(("settl", "moved", "i've", "i have", "we"))
        out.append(
            Draft(
                kind="residence.home" if verb_first else "residence.home_noun",
                categories=d.RESIDENCE,
                slot_key="user.current_city",
                value=place,
                update=d.R,
                confidence=d.COMMITTED,
                span=(m.start(), m.end()),
                priority=42,
            )
        )
    return out[:1]
