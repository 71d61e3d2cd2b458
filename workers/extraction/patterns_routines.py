"""Habits said in free phrasing: the usual coffee, the milk one buys, the favourite cuisine,
how one gets to work, when one gets up (Preferences & Habits, replaced — AV1).

"Can't start the day without a cortado" and "I gave up cortados, I'm on macchiatos now" are
one slot (user.coffee_order), like "I'm a soy milk person" and "I only use Bonsoy oat in my
coffee" (user.milk); `patterns_prefs.classify` names the slot from the object, so these land
where the plain "my usual order is …" does. Only replace-semantics tastes count here: a
hobby or an unknown thing is left to the other families.
"""

from __future__ import annotations

import re

from workers.extraction import draft as d
from workers.extraction.clauses import Clause, subject_is_user, trim_phrase
from workers.extraction.draft import Draft
from workers.extraction.patterns_prefs import classify

_I = re.IGNORECASE
_OBJ = r"(?P<obj>[^\s,.;!?][^,.;!?]*?)"
_END = r"(?=\s*(?:$|[,.;!?]|\s(?:now|these\s+days|every|in\s+my|for\s+(?:me|my)|instead|is|are)\b))"
_TASTES: tuple[re.Pattern[str], ...] = tuple(
    re.compile(p, _I)
    for p in (
        rf"\bcan't\s+(?:start|get\s+through)\s+(?:the|my)\s+day\s+without\s+(?:a|an|my)\s+{_OBJ}{_END}",
        rf"^(?:a|an|my)\s+{_OBJ}\s+every\s+(?:morning|day|single\s+day)\b",
        rf"\b(?:i'm|im|i\s+am)\s+(?:now\s+)?on(?:to)?\s+(?!(?:my|a|an|the|his|her|our)\s){_OBJ}\s+(?:now|these\s+days)\b",
        rf"\bmy\s+(?:coffee\s+)?order\s+is\s+(?:now\s+)?(?:a|an)\s+{_OBJ}{_END}",
        rf"\bi\s+(?:only|always|usually|now)\s+(?:use|buy|get|drink|put)\s+{_OBJ}{_END}",
        rf"\bi\s+(?:use|buy|get|drink)\s+{_OBJ}\s+(?:now|these\s+days|instead\s+of)\b",
        rf"\b(?:i'm|im|i\s+am)\s+buying\s+{_OBJ}\s+(?:now|these\s+days|instead\s+of)\b",
        rf"\b(?:i'm|im|i\s+am)\s+(?:a|an)\s+{_OBJ}\s+(?:person|girl|guy|drinker)\b",
        rf"^{_OBJ}\s+is\s+the\s+only\s+(?:one|kind|thing)\s+i\s+(?:trust|use|buy|drink|like)\b",
        rf"\b(?:we|i)\s+always\s+have\s+{_OBJ}\s+in\s+the\s+fridge\b",
        # "I've moved to lactose-free milk": a taste, not a city (the slot is checked below)
        rf"\b(?:i've|i\s+have|we've|we\s+have|i|we)\s+(?:now\s+)?(?:moved|gone\s+over|changed)\s+"
        rf"to\s+(?P<obj2>[^\s,.;!?][^,.;!?]*?){_END}",
        rf"\bi\s+could\s+eat\s+{_OBJ}\s+every\s+(?:day|night|week|single\s+day)\b",
        rf"(?:^|[,;]\s*)(?:honestly\s+|ok\s+|okay\s+)?{_OBJ}\s+(?:food\s+)?is\s+my\s+(?:absolute\s+|new\s+"
        r"|all-time\s+|total\s+)?fav(?:ou?rite|e)\b",
        rf"(?:^|[,;]\s*){_OBJ}\s+has\s+overtaken\s+[\w' -]+\s+as\s+my\s+fav(?:ou?rite|e)\b",
        rf"\bnothing\s+beats\s+{_OBJ}{_END}",
        rf"(?:^|[,;]\s*){_OBJ}\s+is\s+my\s+(?:thing|jam|go-to)\s+(?:now|these\s+days)\b",
    )
)
_TASTE_SLOTS = frozenset({"user.coffee_order", "user.milk", "user.food_preference"})
_MODE = (
    r"(?P<mode>e-?scooter|scooter|e-?bike|bike|bicycle|car|train|tram|bus|tube|subway|metro|ferry"
    r"|foot|motorbike|moped|underground)"
)
_COMMUTE: tuple[re.Pattern[str], ...] = tuple(
    re.compile(p, _I)
    for p in (
        rf"\bi\s+(?:now\s+)?commute\s+(?:by|on)\s+{_MODE}\b",
        rf"\bi\s+(?:now\s+)?get\s+to\s+work\s+(?:by|on)\s+{_MODE}\b",
        rf"\bmy\s+commute\s+is\s+(?:now\s+)?(?:by|on)\s+{_MODE}\b",
        rf"\bi\s+(?:now\s+)?(?:go|ride|travel)\s+(?:to\s+work\s+)?(?:by|on)\s+{_MODE}\b",
    )
)
_TIME = r"(?P<t>\d{1,2}(?::\d{2})?\s*(?:am|pm)|\d{1,2}:\d{2})"
_WAKE: tuple[re.Pattern[str], ...] = tuple(
    re.compile(p, _I)
    for p in (
        rf"\b(?:i'm|im|i\s+am)\s+up\s+(?:at|by)\s+{_TIME}(?!\s+(?:worrying|thinking|because))",
        rf"\b(?:moved|set|changed|put)\s+my\s+alarm\s+(?:to|for)\s+{_TIME}",
        rf"\bmy\s+alarm\s+(?:goes\s+off|is\s+set|rings)\s+(?:at|for)\s+{_TIME}",
        rf"^{_TIME}\s+wake[-\s]?ups?\b",
    )
)


def find(clause: Clause) -> list[Draft]:
    text = clause.text
    out: list[Draft] = []
    for m in (m for pattern in _TASTES for m in pattern.finditer(text)):
        obj = trim_phrase(m.groupdict().get("obj") or m["obj2"], 5)
        found = classify(obj) if obj else None
        if found is None or found[0] not in _TASTE_SLOTS:
            continue
        if re.match(r"(?:i|we)\b", m.group(0), _I) and not subject_is_user(text, m.start()):
            continue
        negatable = m.group(0).lower().startswith(("can't", "nothing"))  # not negations
        out.append(_draft("habit.taste", found[0], obj, m, d.PREFERENCE, negatable))
    for m in (m for pattern in _COMMUTE for m in pattern.finditer(text)):
        mode = m["mode"].lower()
        if m.group(0).lower().startswith(
            ("i go", "i now go", "i ride", "i travel")
        ) and not re.search(r"\b(?:commut\w*|to\s+work)\b", clause.sentence_text or text, _I):
            continue  # "I go by bus": to work only if the sentence says so
        value = "on foot" if mode == "foot" else f"by {mode}"
        out.append(_draft("habit.commute", "user.commute", value, m, d.PREFERENCE))
    for m in (m for pattern in _WAKE for m in pattern.finditer(text)):
        out.append(_draft("habit.sleep", "user.wake_time", m["t"], m, d.PREFERENCE))
    return out


def _draft(
    kind: str, slot: str, value: str, m: re.Match[str], cats: d.Weights, negatable: bool = False
) -> Draft:
    return d.from_match(kind, slot, value, m, cats, d.R, d.COMMITTED, 23, negatable=negatable)
