"""Health & Wellbeing, Hobbies & Recreation, Intellectual Interests.

Health splits by behaviour (Table 1 row 4, "flu resolves; diabetes persists"): chronic
conditions accumulate with no event time, acute ones carry the turn's time as their anchor
so that date-aware expiry (Appendix K) retires them. Hobbies are a per-hobby state
(`hobby.<name>` = active / stopped; dormancy is the scorer's business), interests accumulate
per topic (`interest.<topic>`) and are reactivatable.
"""

from __future__ import annotations

import re

from workers.extraction import draft as d
from workers.extraction.clauses import Clause, slug, subject_is_user, trim_phrase
from workers.extraction.draft import Draft
from workers.extraction.draft import from_match as _draft
from workers.extraction.lexicon import (
    ACUTE,
    BODY_PARTS,
    CHRONIC,
    INJURY_VERBS,
)

_I = re.IGNORECASE
_OBJ = r"(?P<obj>[^\s,.;!?][^,.;!?]*)"
_CHRONIC_RE = "|".join(sorted((re.escape(k) for k in CHRONIC), key=len, reverse=True))
_ACUTE_RE = "|".join(sorted((re.escape(k) for k in ACUTE), key=len, reverse=True))
_SEVERITY = (
    r"(?:(?:a|an|some|mild|severe|bad|chronic|really\s+bad|the|this|nasty|terrible|awful"
    r"|horrible)\s+)*"
)

_CHRONIC = re.compile(
    r"\b(?:have|has|got|with|diagnosed\s+with|suffer\s+from|suffering\s+from|living\s+with"
    r"|deal\s+with|dealing\s+with|struggle\s+with|struggling\s+with|battling|manage|managing"
    rf"|treated\s+for)\s+{_SEVERITY}(?P<obj>{_CHRONIC_RE})\b"
    r"|\b(?:i'm|im|i\s+am)\s+(?P<adj>diabetic|asthmatic|epileptic|autistic|bipolar|celiac"
    r"|coeliac|dyslexic)\b",
    _I,
)
_ALLERGY = re.compile(
    r"\ballergic\s+to\s+(?P<obj>[^,.;!?]+)|\b(?:have|got|with)\s+(?:an?\s+|a\s+severe\s+)?"
    r"(?P<obj2>[\w-]+)\s+allergy\b",
    _I,
)
_ACUTE = re.compile(
    r"\b(?:have|has|got|caught|catching|down\s+with|came\s+down\s+with|coming\s+down\s+with"
    r"|sick\s+with|recovering\s+from|getting\s+over|fighting|fighting\s+off|tested\s+positive"
    rf"\s+for|woke\s+up\s+with|nursing)\s+{_SEVERITY}(?P<obj>{_ACUTE_RE})\b",
    _I,
)
_INJURY = re.compile(
    rf"\b(?P<verb>{INJURY_VERBS})\s+(?:my\s+|a\s+|the\s+)?(?:left\s+|right\s+)?"
    rf"(?P<obj>{BODY_PARTS})\b",
    _I,
)
_SICK = re.compile(
    r"\b(?:i'm|im|i\s+am|feeling|been|got|getting)\s+(?:really\s+|so\s+|pretty\s+"
    r"|super\s+)?(?P<obj>sick|ill|unwell)\b",
    _I,
)
_RECOVERED = re.compile(
    r"\b(?:over|recovered\s+from|got\s+over|better\s+from|no\s+longer\s+have|shook\s+off"
    rf"|kicked|beat|beaten)\s+{_SEVERITY}(?P<obj>{_ACUTE_RE}|{_CHRONIC_RE})\b"
    rf"|\bmy\s+(?P<obj2>{_CHRONIC_RE}|{_ACUTE_RE})\s+(?:is|are)\s+(?:finally\s+)?(?:now\s+)?"
    r"(?P<state>gone|cured"
    r"|in\s+remission|under\s+control|better|healed)\b",
    _I,
)
_PREGNANT = re.compile(
    r"\b(?:i'm|im|i\s+am|we're|were|we\s+are)\s+(?:now\s+)?(?:pregnant|expecting"
    r"(?:\s+a\s+baby)?)\b",
    _I,
)
_MEDS = (
    r"metformin|insulin|sertraline|zoloft|prozac|lexapro|adderall|ritalin|vyvanse|wellbutrin"
    r"|lithium|levothyroxine|an\s+inhaler|antibiotics|antidepressants|birth\s+control|the\s+pill"
    r"|ozempic|wegovy|statins?|blood\s+thinners|melatonin|iron\s+supplements"
)
_MEDICATION = re.compile(
    r"\b(?P<verb>started|starting|(?:i'm|im|i\s+am)\s+(?:now\s+)?on|taking|prescribed|put\s+on"
    rf"|stopped\s+taking|off|came\s+off|quit)\s+(?P<obj>{_MEDS})\b",
    _I,
)


def _singular(word: str) -> str:
    """peanuts → peanut, cockroaches → cockroach, berries → berry (allergen slot keys)."""
    if word.endswith("ies"):
        return word[:-3] + "y"
    if re.search(r"(?:ch|sh|x|ss|z)es$", word):
        return word[:-2]
    return word[:-1] if word.endswith("s") and not word.endswith("ss") else word


def find(clause: Clause) -> list[Draft]:
    text = clause.text
    out: list[Draft] = []
    for m in _CHRONIC.finditer(text):
        if subject_is_user(text, m.start()) or m["adj"]:
            cond = CHRONIC[(m["obj"] or m["adj"]).lower()]
            out.append(
                _draft(
                    "health.chronic", f"health.{cond}", "has", m, d.CHRONIC, d.A, d.COMMITTED, 15
                )
            )
    for m in _ALLERGY.finditer(text):
        raw = trim_phrase(m["obj"] or m["obj2"], 3)
        if raw and subject_is_user(text, m.start()):
            allergen = _singular(slug(raw, max_words=2))
            out.append(
                _draft(
                    "health.allergy",
                    f"health.allergy.{allergen}",
                    raw,
                    m,
                    d.CHRONIC,
                    d.A,
                    d.COMMITTED,
                    15,
                )
            )
    for m in _ACUTE.finditer(text):
        if subject_is_user(text, m.start()):
            cond = ACUTE[m["obj"].lower()]
            out.append(
                _draft(
                    "health.acute",
                    f"health.{cond}",
                    "has",
                    m,
                    d.ACUTE,
                    d.A,
                    d.COMMITTED,
                    16,
                    dates="past",
                    dated_now=True,
                )
            )
    for m in _INJURY.finditer(text):
        if subject_is_user(text, m.start()):
            verb = m["verb"].lower()
            verb = {"broke": "broken", "tore": "torn", "hurt": "injured"}.get(verb, verb)
            key = f"{verb}_{m['obj'].lower()}"
            out.append(
                _draft(
                    "health.acute",
                    f"health.{key}",
                    "has",
                    m,
                    d.ACUTE,
                    d.A,
                    d.COMMITTED,
                    16,
                    dates="past",
                    dated_now=True,
                )
            )
    for m in _SICK.finditer(text):
        if subject_is_user(text, m.start()):
            out.append(
                _draft(
                    "health.acute",
                    "health.sick",
                    "has",
                    m,
                    d.ACUTE,
                    d.A,
                    d.STATED,
                    17,
                    dates="past",
                    dated_now=True,
                )
            )
    for m in _RECOVERED.finditer(text):
        raw = (m["obj"] or m["obj2"]).lower()
        cond = ACUTE.get(raw) or CHRONIC[raw]
        state = (m["state"] or "recovered").lower()
        out.append(
            _draft(
                "health.recovered",
                f"health.{cond}",
                state,
                m,
                d.ACUTE,
                d.R,
                d.COMMITTED,
                14,
                dates="past",
                dated_now=True,
                negatable=True,
            )
        )
    for m in _PREGNANT.finditer(text):
        out.append(
            _draft(
                "health.pregnancy",
                "health.pregnancy",
                "pregnant",
                m,
                d.ACUTE,
                d.A,
                d.COMMITTED,
                16,
                dates="future",
            )
        )
    for m in _MEDICATION.finditer(text):
        med = slug(m["obj"], max_words=2)
        stop = m["verb"].lower().startswith(("stopped", "off", "came", "quit"))
        out.append(
            _draft(
                "health.medication",
                f"health.medication.{med}",
                "stopped" if stop else "taking",
                m,
                d.ACUTE if stop else d.CHRONIC,
                d.R if stop else d.A,
                d.COMMITTED,
                17,
                negatable=stop,
            )
        )
    return out
