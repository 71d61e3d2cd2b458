"""Preferences & Habits: diet, food and drink, likes, routines — replaced, not accumulated.

Preferences supersede by slot key (Table 1 row 7; Appendix F: "likes pizza" → (user,
food_preference) → superseded by "likes sushi"). The slot is instance-qualified by *what*
the preference is about — user.diet, user.coffee_order, user.milk, user.food_preference —
so "I switched to oat milk" replaces the milk, not the diet. Being vegetarian is a diet
(here), not an identity: "I became a vegetarian" must not land in user.profession.
"""

from __future__ import annotations

import re

from workers.extraction import draft as d
from workers.extraction.clauses import Clause, head_noun, slug, subject_is_user, trim_phrase
from workers.extraction.draft import Draft
from workers.extraction.lexicon import COFFEE, DIETS, DRINKS, FOODS, HOBBIES, MILK, MUSIC, words

_I = re.IGNORECASE
_OBJ = r"(?P<obj>[^\s,.;!?][^,.;!?]*)"
_DIET_RE = "|".join(sorted((re.escape(k) for k in DIETS), key=len, reverse=True))
_DIET = re.compile(
    r"\b(?P<verb>i'm|im|i\s+am|i've\s+been|ive\s+been|been|became|become|becoming|went|gone"
    r"|going|turned|switched\s+to(?:\s+being)?|trying\s+to\s+be|stay|staying|eat|eating"
    r"|no\s+longer|not|back\s+to\s+being)\s+(?:a\s+|an\s+|fully\s+|mostly\s+|strictly\s+|now\s+"
    rf"|back\s+to\s+being\s+|full\s+)*(?P<obj>{_DIET_RE})\b"
    r"(?!\s+(?:food|restaurants?|place|recipes?|options?|dish(?:es)?|meals?|friends?|cheese"
    r"|burgers?|version))"
    # chat drops the verb: "vegetarian for like 5 years" (paper C.3)
    rf"|^(?:a\s+|fully\s+|strict\s+)?(?P<obj2>{_DIET_RE})\s+(?=for\b|since\b|now\b|these\s+days)",
    _I,
)
_ANIMAL = r"meat|fish|seafood|chicken|dairy|eggs|pork|beef|red\s+meat|animal\s+products|cheese"
#: Foods said together: "eggs and fish", "chicken, fish and eggs" (a coordination is one
#: object: the resumption is of all of them).
_FOODS = rf"(?:{_ANIMAL})(?:(?:\s*,\s*|\s+and\s+|\s+&\s+|\s+or\s+)(?:{_ANIMAL}))*"
_EAT_AGAIN = re.compile(
    r"\b(?:(?:started|start|starting|began|back\s+to|went\s+back\s+to|going\s+back\s+to)\s+"
    rf"eating\s+(?P<obj>{_FOODS})(?:\s+again)?|eating\s+(?P<obj2>{_FOODS})\s+again"
    rf"|eat\s+(?P<obj3>{_FOODS})\s+(?:again|now)"
    # the resumptive "back on", its subject dropped at the clause's start: "back on fish"
    rf"|^(?:i'm\s+|im\s+|i\s+am\s+|we're\s+)?back\s+on\s+(?:the\s+)?(?P<obj4>{_FOODS}))\b",
    _I,
)
_CUT_OUT = re.compile(
    r"\b(?:stopped|quit|gave\s+up|giving\s+up|cut\s+out|cutting\s+out|no\s+longer\s+eat"
    r"|don't\s+eat|do\s+not\s+eat|dont\s+eat|avoid|avoiding|off)\s+(?:eating\s+)?"
    rf"(?P<obj>{_ANIMAL}|gluten|sugar|carbs|alcohol|caffeine|booze|drinking|smoking|vaping"
    r"|cigarettes|nicotine)\b",
    _I,
)
_SMOKE = re.compile(
    r"\b(?:(?P<start>started|start|back\s+to|picked\s+up)\s+(?:smoking|vaping)(?:\s+again)?"
    r"|i\s+(?:still\s+)?(?:smoke|vape)\b|(?:i'm|im|i\s+am)\s+a\s+smoker)",
    _I,
)
_DRINKING = re.compile(
    r"\b(?:(?:i'm|im|i\s+am|been)\s+(?:now\s+)?sober(?:\s+for\s+(?P<for>[\w\s]+?))?"
    r"|(?:started|start)\s+drinking\s+again|(?:i|we)\s+don't\s+drink(?:\s+alcohol)?)\b",
    _I,
)
_LIKE = re.compile(
    r"\b(?P<verb>(?:really\s+|absolutely\s+|totally\s+)?(?:like|love|adore|prefer|enjoy"
    r"|crave|(?:am|'m|im)\s+(?:obsessed\s+with|addicted\s+to|a\s+(?:big\s+|huge\s+)?fan\s+of"
    r"|into|hooked\s+on)|can't\s+get\s+enough\s+of|live\s+on))\s+"
    rf"{_OBJ}",
    _I,
)
_DISLIKE = re.compile(
    r"\b(?P<verb>hate|dislike|can't\s+stand|cannot\s+stand|don't\s+like|do\s+not\s+like|dont\s+like"
    r"|not\s+a\s+fan\s+of|detest|loathe|(?:am|'m|im)\s+(?:not\s+into|over(?!\s+the\s+moon)|sick\s+of|tired\s+of"
    rf"))\s+{_OBJ}",
    _I,
)
_FAVORITE = re.compile(
    r"\bmy\s+(?:new\s+|all-time\s+|current\s+)?fav(?:ou?rite|e)?\s+(?P<what>[\w' -]{1,25}?)\s+"
    r"(?:is|are|has\s+to\s+be|these\s+days\s+is|right\s+now\s+is|at\s+the\s+moment\s+is)\s+"
    rf"{_OBJ}",
    _I,
)
_SWITCHED = re.compile(
    r"\b(?:switched|switching|switch|changed\s+over|converted|swapped|went\s+over)\s+"
    r"(?:from\s+(?P<old>[\w' -]+?)\s+)?(?:to|for)\s+" + _OBJ,
    _I,
)
_ORDER = re.compile(
    r"\b(?:my\s+(?:usual|go-to|regular|standard)\s+(?:coffee\s+)?(?:order\s+)?is|my\s+coffee"
    r"\s+order\s+is|i\s+(?:always|usually|normally)\s+(?:get|order|have|drink)|i\s+take\s+my"
    rf"\s+coffee|i\s+drink\s+my\s+coffee)\s+{_OBJ}",
    _I,
)
_ROUTINE = re.compile(
    r"\b(?:(?P<wake>wake\s+up|get\s+up)|(?P<bed>go\s+to\s+(?:bed|sleep)))\s+(?:at|around|by)\s+"
    r"(?P<obj>\d{1,2}(?::\d{2})?\s*(?:am|pm)?)"
    r"|\bi\s+(?:now\s+)?work\s+(?P<sched>night\s+shifts?|nights|from\s+home|remotely|remote"
    r"|part[-\s]time|full[-\s]time|weekends|hybrid|in\s+the\s+office)"
    r"|\b(?:i\s+|i'm\s+|im\s+)(?:now\s+)?(?P<sched2>fully\s+remote|remote\s+now|back\s+in\s+the\s+office)"
    r"|\bi\s+(?:now\s+)?(?P<commute>bike|cycle|drive|walk|take\s+the\s+(?:train|bus|tube|subway"
    r"|metro|ferry))\s+to\s+work",
    _I,
)
_PRONOUN_OBJECTS = frozenset(
    words(
        "it that this you them him her those these everything anything something one lots "
        "how when what where why being doing having going getting seeing working it's the way "
        "myself yourself your yours his their its me us i we every each so too most more much "
        "all both either"
    )
)
#: Things people choose one of: a new choice replaces the old (phone, editor, browser …).
_CHOICES = {
    **{w: "phone" for w in words("iphone android pixel samsung galaxy oneplus")},
    **{w: "computer" for w in words("mac macbook thinkpad pc")},
    **{w: "os" for w in words("windows linux ubuntu macos")},
    **{w: "editor" for w in words("vim neovim emacs vscode")},
    **{w: "browser" for w in words("chrome firefox safari brave")},
}  # fmt: skip


_NOT_A_VERB = re.compile(
    r"(?:'m|'re|'s|\b(?:am|are|is|was|were|be|been|feel|feels|felt|look|looks|looked|seem|seems"
    r"|sound|sounds|just|kind\s+of|sort\s+of|kinda|would|'d|more|less|much|things))\s*$",
    re.IGNORECASE,
)


def _generic_taste_ok(obj: str) -> bool:
    """A taste outside the lexicons must be a plain thing: "traveling", "the ocean" is not
    ("I love the blue vase in the pic" is about the other person's photo)."""
    first, *rest = obj.lower().split()
    if first in {"the", "this", "that", "these", "those", "a", "an", "your"} or first in _VERBS:
        return False  # "the things I love makes writing fun": "makes" is no taste
    return not (first.endswith("ing") and rest)  # "making this cake", "learning about …"


_VERBS = frozenset(words("makes is are was were has have gets got can will would does did"))


def classify(obj: str) -> tuple[str, d.UpdateSemantics] | None:
    """The preference slot an object belongs to, or None when it is a hobby, not a taste."""
    lower = re.sub(r"^(?:a|an|the|my|some|our)\s+", "", obj.lower())
    words = set(re.findall(r"[a-z&-]+", lower))
    if lower in _PRONOUN_OBJECTS or not words or lower.split()[0] in _PRONOUN_OBJECTS:
        return None
    if lower.startswith("to ") or lower in HOBBIES or head_noun(lower) in HOBBIES:
        return None
    singular = {w[:-1] for w in words if w.endswith("s")}  # "americanos", "macchiatos"
    coffee = bool((words | singular) & COFFEE) or any(c in lower for c in COFFEE if " " in c)
    if "milk" in lower or (words & MILK and not coffee):
        return "user.milk", d.R  # "oat milk", "bonsoy oat"; an "oat flat white" is an order
    if coffee:
        return "user.coffee_order", d.R
    if words & DRINKS:
        return "user.drink_preference", d.R
    if words & FOODS or any(f in lower for f in FOODS if " " in f):
        return "user.food_preference", d.R
    if words & MUSIC or "music" in words:
        return "user.music_preference", d.R
    for word in words:
        if word in _CHOICES:
            return f"user.{_CHOICES[word]}", d.R
    key = slug(lower, max_words=4)  # "Lord of the Rings" → lord_of_the_rings
    return (f"user.likes.{key}", d.A) if key else None


def _pref(
    kind: str,
    slot: str,
    value: str | None,
    m: re.Match[str],
    *,
    update: d.UpdateSemantics = d.R,
    confidence: float = d.COMMITTED,
    categories: d.Weights = d.PREFERENCE,
    priority: int = 50,
    negatable: bool = False,
    dates: d.DatePreference = "none",
) -> Draft:
    return d.from_match(
        kind,
        slot,
        value,
        m,
        categories,
        update,
        confidence,
        priority,
        negatable=negatable,
        dates=dates,
    )


def find(clause: Clause) -> list[Draft]:
    text = clause.text
    out: list[Draft] = []
    for m in _DIET.finditer(text):
        verb = (m["verb"] or "").lower()
        if m["verb"] and not subject_is_user(text, m.start()) and not verb.startswith("no"):
            continue
        diet = DIETS[(m["obj"] or m["obj2"]).lower()]
        neg = re.search(r"\b(?:not|no\s+longer|n't)\b", text[max(0, m.start() - 20) : m.end()], _I)
        out.append(
            _pref(
                "diet",
                "user.diet",
                f"not {diet}" if neg else diet,
                m,
                categories=d.DIET,
                negatable=True,
                priority=20,
                dates="past",
            )
        )
    for m in _EAT_AGAIN.finditer(text):
        food = (m["obj"] or m["obj2"] or m["obj3"] or m["obj4"]).lower()
        out.append(
            _pref(
                "diet.eats",
                "user.diet",
                f"eats {food}",
                m,
                categories=d.DIET,
                priority=20,
                dates="past",
            )
        )
    for m in _CUT_OUT.finditer(text):
        if subject_is_user(text, m.start()):
            out.append(_cut_out(" ".join(m["obj"].lower().split()), m))
    for m in _SMOKE.finditer(text):
        if subject_is_user(text, m.start()):
            out.append(_pref("habit.smoking", "user.smoking", "smokes", m, priority=21))
    for m in _DRINKING.finditer(text):
        value = "drinks" if "again" in m.group(0).lower() else "doesn't drink"
        out.append(_pref("habit.alcohol", "user.alcohol", value, m, priority=21, negatable=True))
    out.extend(_tastes(text))
    for m in _ROUTINE.finditer(text):
        if m["wake"] or m["bed"]:
            slot = "user.wake_time" if m["wake"] else "user.bedtime"
            out.append(_pref("habit.sleep", slot, m["obj"], m, confidence=d.STATED, priority=25))
        elif m["sched"] or m["sched2"]:
            out.append(
                _pref(
                    "habit.work_schedule",
                    "user.work_schedule",
                    m["sched"] or m["sched2"],
                    m,
                    confidence=d.STATED,
                    priority=25,
                )
            )
        else:
            out.append(
                _pref(
                    "habit.commute",
                    "user.commute",
                    m["commute"],
                    m,
                    confidence=d.STATED,
                    priority=25,
                )
            )
    return out


def _cut_out(food: str, m: re.Match[str]) -> Draft:
    if food in {"smoking", "vaping", "cigarettes", "nicotine"}:
        return _pref("habit.smoking", "user.smoking", "quit", m, priority=20, negatable=True)
    if food in {"alcohol", "booze", "drinking"}:
        return _pref(
            "habit.alcohol", "user.alcohol", "doesn't drink", m, priority=20, negatable=True
        )
    if food == "caffeine":
        return _pref(
            "habit.caffeine", "user.caffeine", "avoids caffeine", m, priority=20, negatable=True
        )
    if food in {"gluten", "sugar", "carbs"}:
        # Restrictions that coexist with a diet get their own slot: no sugar ≠ not vegetarian.
        return _pref(
            "diet.avoids",
            f"user.diet.{food}",
            f"avoids {food}",
            m,
            categories=d.DIET,
            priority=20,
            negatable=True,
        )
    return _pref(
        "diet.avoids", "user.diet", f"no {food}", m, categories=d.DIET, priority=20, negatable=True
    )


_FAVORITE_SLOTS = {
    "food": "user.food_preference", "dish": "user.food_preference",
    "meal": "user.food_preference", "cuisine": "user.food_preference",
    "drink": "user.drink_preference", "coffee": "user.coffee_order",
    "music": "user.music_preference", "genre": "user.music_preference", "milk": "user.milk",
}  # fmt: skip
_ENDED = re.compile(r"\b(?:anymore|any\s+more|no\s+longer|these\s+days)\b", _I)


def _tastes(text: str) -> list[Draft]:
    out: list[Draft] = []
    for m in _FAVORITE.finditer(text):
        what, obj = m["what"].lower().strip(), trim_phrase(m["obj"], 5)
        if obj:
            slot = _FAVORITE_SLOTS.get(what, f"user.favorite_{slug(what, max_words=2)}")
            out.append(_pref("preference.favorite", slot, obj, m, confidence=d.STATED, priority=26))
    for m in _SWITCHED.finditer(text):
        if not subject_is_user(text, m.start()):
            continue
        obj = trim_phrase(m["obj"], 4)
        found = classify(obj) or (classify(m["old"]) if m["old"] else None)
        if found is None:
            continue
        slot, update = found
        if update is d.A and m["old"] and (old := classify(m["old"])) and old[1] is d.R:
            slot = old[0]  # "switched from iPhone to a Nokia": the old choice names the slot
        out.append(_pref("preference.switched", slot, obj, m, priority=24))
    for m in _ORDER.finditer(text):
        obj = trim_phrase(m["obj"], 6)
        found = classify(obj)
        if found and found[0] in {"user.coffee_order", "user.milk", "user.drink_preference"}:
            out.append(
                _pref("preference.order", found[0], obj, m, confidence=d.STATED, priority=25)
            )
    for m in _LIKE.finditer(text):
        if not subject_is_user(text, m.start()) or re.search(
            r"(?:'d|\bwould)\s*$", text[: m.start()], _I
        ):
            continue  # "I'd love a summary": a request, not a taste
        if m["verb"].lower().endswith("like") and _NOT_A_VERB.search(text[: m.start("verb")]):
            continue  # "we're like a family", "feels like home": not a taste
        first = re.split(r"\s+(?:over|than|rather\s+than|instead\s+of)\s+", m["obj"])[0]
        obj = trim_phrase(first, 4)
        if (found := classify(obj)) is not None:
            slot, update = found
            if update is d.A and not _generic_taste_ok(first):
                continue
            conf = d.STATED if update is d.R else d.IMPLIED
            out.append(
                _pref("preference.like", slot, obj, m, update=update, confidence=conf, priority=60)
            )
    for m in _DISLIKE.finditer(text):
        if not subject_is_user(text, m.start()):
            continue
        obj = trim_phrase(m["obj"], 4)
        if (found := classify(obj)) is None:
            continue
        verb = m["verb"].lower()
        if _ENDED.search(text) or "over" in verb or "done" in verb:
            # "I don't like pizza anymore" ends the earlier preference: same slot, replaced.
            out.append(
                _pref(
                    "preference.ended",
                    found[0],
                    f"no longer likes {obj}",
                    m,
                    priority=59,
                    negatable=True,
                )
            )
        else:
            out.append(
                _pref(
                    "preference.dislike",
                    f"user.dislikes.{slug(obj, max_words=2)}",
                    obj,
                    m,
                    update=d.A,
                    confidence=d.STATED,
                    priority=59,
                    negatable=True,
                )
            )
    return out
