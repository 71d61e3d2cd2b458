"""Measures the user tracks as state: the size of their home and their race personal bests.

"Our flat is 82 square metres" and "106 square metres, that's our whole flat" are one slot
(`user.home_size`); "1:52:18 is my half-marathon best" and "New half-marathon PB: 1:47:53!"
are one slot per distance (`pb.half_marathon`), so the newer value supersedes the older one
(AV8: numeric preservation — the number is kept verbatim and the fact is numeric). A best
time without a distance ("ran 1:47:53 on Sunday, beat my old 1:52:18") takes the distance
of the best named earlier in the conversation.
"""

from __future__ import annotations

import re

from workers.extraction import draft as d
from workers.extraction.clauses import Clause, subject_is_user
from workers.extraction.draft import Draft

_I = re.IGNORECASE
_N = r"(?P<n>\d[\d,]*(?:\.\d+)?)"
_UNIT = (
    r"\s*(?P<unit>square\s+(?:metres|meters|feet|foot)|sq\.?\s*(?:m|ft|metres|meters|feet)\b"
    r"|m²|m2\b|sqm\b|sqft\b|ft²)"
)
_HOME = r"(?:place|flat|apartment|house|home|condo|studio|unit)"
_SIZE: tuple[re.Pattern[str], ...] = tuple(
    re.compile(p, _I)
    for p in (
        rf"\b(?:my|our|the)\s+(?:new\s+)?{_HOME}\s+(?:is|'s|measures)\s+(?:only\s+|just\s+|about\s+"
        rf"|around\s+|roughly\s+|nearly\s+|almost\s+|over\s+)?{_N}{_UNIT}",
        rf"^(?:about\s+|around\s+|only\s+|just\s+)?{_N}{_UNIT},?\s+(?:that's|that\s+is|it's)\s+"
        rf"(?:my|our|the)\s+(?:whole\s+|entire\s+|new\s+)?{_HOME}\b",
        rf"\b(?:we've|i've|we\s+have|i\s+have)\s+(?:got\s+)?(?:only\s+|just\s+|about\s+)?{_N}"
        rf"{_UNIT}(?!\s+(?:of|in)\b)(?=\s*(?:$|[,.;!]|\s+(?:now|total|in\s+(?:total|all))))",
    )
)
_TIME = r"(?P<t>\d{1,2}:\d{2}(?::\d{2})?)"
_DIST = (
    r"(?P<d>half[\s-]marathon|half|marathon|10\s?k|5\s?k|10\s?km|5\s?km|parkrun|ultra"
    r"|(?:10|5)\s?mile)"
)
_BEST = r"(?:best(?:\s+time)?|pb|pr|personal\s+(?:best|record))"
_PB: tuple[re.Pattern[str], ...] = tuple(
    re.compile(p, _I)
    for p in (
        rf"^{_TIME}\s+is\s+(?:now\s+)?my\s+{_DIST}\s+{_BEST}\b",
        rf"\bmy\s+{_BEST}\s+(?:for|in|at)\s+the\s+{_DIST}\s+(?:is|'s)\s+(?:now\s+)?{_TIME}",
        rf"\bmy\s+{_DIST}\s+{_BEST}\s+(?:is|'s)\s+(?:now\s+)?{_TIME}",
        rf"\bmy\s+best\s+{_DIST}\s+(?:is|'s)\s+(?:now\s+)?{_TIME}",
        rf"\bnew\s+{_DIST}\s+{_BEST}\s*(?:[:!,-]\s*|of\s+|is\s+)?{_TIME}",
        # A race run: a best only if the sentence says so (`_PROUD`). Without a distance it is
        # the one named earlier in the conversation.
        rf"\b(?:ran|did|finished|clocked)\s+(?:a\s+|the\s+)?{_TIME}\s+{_DIST}\b",
        rf"\b(?:ran|did|finished\s+in|clocked)\s+(?:a\s+)?{_TIME}\b(?!\s*{_DIST})",
    )
)
_PROUD = re.compile(
    r"\b(?:beat\s+my\s+(?:old|previous)|new\s+(?:pb|pr|personal\s+best)|my\s+best\s+yet"
    r"|(?:a\s+|my\s+)?(?:personal\s+best|pb|pr)|fastest\s+ever)\b",
    _I,
)
_DISTANCES = {"half": "half_marathon", "parkrun": "5k", "5km": "5k", "10km": "10k"}


def _distance(raw: str) -> str:
    key = re.sub(r"[\s-]+", "_", raw.lower()).replace("_k", "k").replace("_mile", "mile")
    return _DISTANCES.get(key, key)


def find(clause: Clause) -> list[Draft]:
    text = clause.text
    out: list[Draft] = []
    for m in (m for pattern in _SIZE for m in pattern.finditer(text)):
        if m.group(0)[:1].lower() in "wi" and not subject_is_user(text, m.start()):
            continue
        unit = "sq ft" if re.search(r"f(?:ee)?t|foot", m["unit"], _I) else "m²"
        out.append(_draft("measure.home_noun", d.FINANCIAL, "user.home_size",
                          f"{m['n']} {unit}", m, False))  # fmt: skip
        break
    for m in (m for pattern in _PB for m in pattern.finditer(text)):
        if not subject_is_user(text, m.start()):
            continue
        verb_first = re.match(r"(?:ran|did|finished|clocked)\b", m.group(0), _I)
        if verb_first and not _PROUD.search(clause.sentence_text or text):
            continue  # "ran 1:59:52 on Sunday": a race, not a best
        dist = m.groupdict().get("d")
        slot = f"pb.{_distance(dist)}" if dist else "pb.race"
        kind = "measure.pb" if verb_first else "measure.pb_noun"
        out.append(_draft(kind, d.HOBBY, slot, m["t"], m, not dist))
        break
    return out


def _draft(
    kind: str, cats: d.Weights, slot: str, value: str, m: re.Match[str],
    needs_context: bool,
) -> Draft:  # fmt: skip
    return d.from_match(
        kind, slot, value, m, cats, d.R, d.COMMITTED, 6,
        numeric=True, needs_context=needs_context,
    )  # fmt: skip
