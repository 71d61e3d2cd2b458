"""Slot keys for plans and events, derived the same way wherever a thing is mentioned.

A later update only works if it lands in the earlier fact's slot (Appendix F): "my flight to
Tokyo" and "the Tokyo flight", "looking at golden retriever puppies" and "the dog thing" must
produce one key. Every family that names a plan or an event — when it is made, rescheduled or
cancelled — derives the key here.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from schemas.categories import Category
from workers.extraction import draft as d
from workers.extraction.clauses import head_noun, slug, trim_phrase
from workers.extraction.lexicon import PETS, words

#: Event nouns → (slot family, categories). Order matters: the first noun found wins.
EVENT_NOUNS: dict[str, tuple[str, Mapping[Category, float]]] = {
    "flight": ("flight", d.LOGISTICS), "plane": ("flight", d.LOGISTICS),
    "appointment": ("appointment", d.OBLIGATION), "appt": ("appointment", d.OBLIGATION),
    "checkup": ("appointment", d.OBLIGATION), "check-up": ("appointment", d.OBLIGATION),
    "surgery": ("appointment", d.OBLIGATION), "operation": ("appointment", d.OBLIGATION),
    "procedure": ("appointment", d.OBLIGATION), "inspection": ("appointment", d.OBLIGATION),
    "consultation": ("appointment", d.OBLIGATION), "session": ("appointment", d.OBLIGATION),
    "interview": ("interview", d.OBLIGATION), "hearing": ("appointment", d.OBLIGATION),
    "deadline": ("deadline", d.OBLIGATION), "exam": ("exam", d.EXAM),
    "test": ("exam", d.EXAM), "midterm": ("exam", d.EXAM), "final": ("exam", d.EXAM),
    "finals": ("exam", d.EXAM), "quiz": ("exam", d.EXAM), "defense": ("exam", d.EXAM),
    "defence": ("exam", d.EXAM), "meeting": ("meeting", d.OBLIGATION),
    "call": ("meeting", d.OBLIGATION), "standup": ("meeting", d.OBLIGATION),
    "presentation": ("meeting", d.OBLIGATION), "conference": ("meeting", d.OBLIGATION),
    "delivery": ("delivery", d.LOGISTICS), "package": ("delivery", d.LOGISTICS),
    "parcel": ("delivery", d.LOGISTICS), "reservation": ("reservation", d.LOGISTICS),
    "booking": ("reservation", d.LOGISTICS), "trip": ("trip", d.TRIP),
    "vacation": ("trip", d.TRIP), "holiday": ("trip", d.TRIP), "getaway": ("trip", d.TRIP),
    "honeymoon": ("trip", d.TRIP), "visit": ("trip", d.TRIP), "wedding": ("event", d.LOGISTICS),
    "party": ("event", d.LOGISTICS), "concert": ("event", d.LOGISTICS),
    "dinner": ("event", d.LOGISTICS), "recital": ("event", d.LOGISTICS),
    "graduation": ("event", d.LOGISTICS), "ceremony": ("event", d.LOGISTICS),
    "class": ("event", d.LOGISTICS), "lesson": ("event", d.LOGISTICS),
    "survey": ("event", d.OBLIGATION), "shift": ("event", d.OBLIGATION),
    "rehearsal": ("event", d.OBLIGATION), "audition": ("event", d.OBLIGATION),
    "orientation": ("event", d.OBLIGATION),
    "tournament": ("event", d.LOGISTICS), "race": ("event", d.LOGISTICS),
    "match": ("event", d.LOGISTICS), "retreat": ("event", d.LOGISTICS),
    "move": ("event", d.LOGISTICS), "funeral": ("event", d.LOGISTICS),
}  # fmt: skip
#: Appointment kinds named by the professional: "the dentist" is an appointment.
APPOINTMENT_KINDS = frozenset(
    words(
        "dentist doctor doc gp therapist vet optometrist dermatologist physio physiotherapist "
        "chiropractor orthodontist gynecologist obgyn cardiologist surgeon specialist "
        "psychiatrist hairdresser barber eye dental haircut therapy counseling counselling "
        "massage acupuncture ultrasound scan mri xray x-ray blood bloodwork vaccination "
        "vaccine dermatology cataract hair nail"
    )
)
EVENT_NOUN_RE = "|".join(sorted(EVENT_NOUNS, key=len, reverse=True))
APPOINTMENT_KIND_RE = "|".join(sorted(APPOINTMENT_KINDS, key=len, reverse=True))
#: Each event noun's word pattern (singular or plural), compiled once: `event_slot` tries
#: them in order for every phrase, and more patterns than `re`'s cache holds were compiled
#: again and again at ingest (round 18 profile).
_EVENT_NOUN_WORDS = {noun: re.compile(rf"\b{re.escape(noun)}s?\b") for noun in EVENT_NOUNS}
_APPOINTMENT_KIND = re.compile(rf"\b({APPOINTMENT_KIND_RE})\b")
_NOT_CONTENT = frozenset(
    words(
        "the my our a an this that thing plan idea project stuff whole it to for of about get "
        "getting go going apply applying do doing build building start starting open opening"
    )
)
_PLAN_PREFIXES = (
    "pet.", "trip.", "project.", "plan.", "appointment.", "flight.", "meeting.", "event.",
    "deadline.", "exam.", "interview.", "delivery.", "reservation.",
)  # fmt: skip
_QUALIFIER_STOP = frozenset(
    words(
        "my the our a an this that next upcoming new big first annual weekly monthly i have has "
        "had got get is are was on at for with and about of to we you it in i'm im 'm morning "
        "evening afternoon daily early late last final big small quick short long important "
        "scheduled booked some any your his her their its these those"
    )
)


def is_plan_slot(slot: str | None) -> bool:
    """Slots that a bare "scrap it" can refer to: plans and scheduled things, not state."""
    return slot is not None and slot.startswith(_PLAN_PREFIXES)


def pet_species(phrase: str) -> str | None:
    """The species a phrase is about, judged by its head: "the Husky Lakes camp" is a camp."""
    head = head_noun(phrase)
    return PETS.get(head)


def pet_plan_slot(species: str) -> str:
    return f"pet.{species}.plan"


def trip_slot(destination: str) -> str:
    return f"trip.{slug(destination, max_words=3)}.plan"


def flight_slot(destination: str | None) -> str:
    dest = slug(destination, max_words=3) if destination else ""
    return f"flight.{dest or 'next'}"


#: Heads that name the stage or paperwork of a plan, not the plan: "the kitchen renovation",
#: "the kitchen reno" and "the new kitchen" are one plan, as are "my book proposal" and "the
#: book", "the exchange application" and "the exchange" (the canonical key is the topic).
_STAGE_HEADS = frozenset(
    words(
        "renovation reno remodel refurb refurbishment makeover redo application applications "
        "proposal proposals plan plans project idea thing build semester programme programmes "
        "program programs course itinerary"
    )
)


#: Topics that name one plan in different words: a side venture is "the business" whatever it
#: sells ("my side hustle: a food truck" … "the bike repair shop is dead" … "the side hustle?
#: not happening"), and a semester or year abroad is an exchange.
_TOPIC_ALIASES = {
    **dict.fromkeys(words("hustle venture stall shop bakery cafe café store kiosk"), "business"),
    "abroad": "exchange",
}
#: Heads that are a venture only with their first word: a food truck, not "a new truck".
_VENTURE_PAIRS = frozenset({"food truck", "taco truck", "coffee truck", "coffee cart",
                            "food cart", "food stand", "coffee stand", "side gig"})  # fmt: skip


def plan_topic(name: str) -> str:
    """The topic a plan is about: its head noun, or the noun before a stage head ("a
    master's in data science" is about the master's)."""
    before = re.split(
        r"\b(?:in|at|to|for|with|about|by|from|of|on|near|selling|serving|that|which)\b",
        name,
        maxsplit=1,
    )[0]
    name = before if re.search(r"\w", before) else name
    content = [
        w.strip("'").replace("'", "")  # "master's" → masters
        for w in re.findall(r"[\w']+", name.lower())
        if w not in _NOT_CONTENT and w not in {"new", "own", "big", "little", "summer"}
    ]
    content = [w for w in content if w]
    while len(content) > 1 and content[-1] in _STAGE_HEADS:
        content.pop()
    if not content:
        return ""
    if " ".join(content[-2:]) in _VENTURE_PAIRS:
        return "business"
    return _TOPIC_ALIASES.get(content[-1], content[-1])


def project_slot(name: str) -> str:
    """Projects are keyed by their topic: "my PhD thesis", "the thesis" → project.thesis;
    "the kitchen renovation", "the kitchen reno" → project.kitchen."""
    head = plan_topic(name) or head_noun(name)
    return f"project.{head}" if head else "project.unnamed"


def qualifier(phrase: str, noun: str) -> str:
    """The word qualifying an event noun: "my chemistry exam" → chemistry, "my exam" → ''."""
    before = phrase.lower().split(noun.lower())[0]
    found = re.findall(r"[\w'-]+", before)
    # Only the word right before the noun qualifies it: "swamped with exams" has none.
    word = found[-1] if found else ""
    return "" if word in _QUALIFIER_STOP else word.removesuffix("'s").removesuffix("'")


def event_slot(phrase: str) -> tuple[str, Mapping[Category, float]] | None:
    """The slot of a scheduled thing named by `phrase` ("my flight to Tokyo", "the dentist").

    Unknown qualifiers become "next" ("my flight" → flight.next); the extractor replaces
    that with the matching slot from the conversation context when it can.
    """
    lower = phrase.lower()
    for noun, (family, cats) in EVENT_NOUNS.items():
        if not _EVENT_NOUN_WORDS[noun].search(lower):
            continue
        if family == "flight":
            m = re.search(r"\b(?:to|for)\s+(.+)$", phrase)
            dest = trim_phrase(m.group(1), 3) if m else qualifier(phrase, noun)
            return flight_slot(dest or None), cats
        if family == "trip":
            m = re.search(r"\b(?:to|in)\s+(.+)$", phrase)
            dest = trim_phrase(m.group(1), 3) if m else qualifier(phrase, noun)
            return (trip_slot(dest), cats) if dest else ("trip.next.plan", cats)
        if noun in {"surgery", "operation", "procedure", "inspection", "hearing"}:
            return f"appointment.{noun}", cats
        if family in {"exam"} and noun in {"defense", "defence"}:
            return "exam.defense", cats
        if family == "event":
            return f"event.{noun}", cats  # "my sister's wedding", "the wedding": one event
        kind = _kind_of(phrase, noun) or (noun if noun in {"package", "parcel"} else "")
        if kind in APPOINTMENT_KINDS or kind in {"doctor", "blood_test", "therapy"}:
            return f"appointment.{kind}", d.OBLIGATION  # "blood test", "vet visit"
        return f"{family}.{kind or 'next'}", cats
    m = _APPOINTMENT_KIND.search(lower)
    if m:
        return f"appointment.{_canonical_kind(m.group(1))}", d.OBLIGATION
    return None


def _kind_of(phrase: str, noun: str) -> str:
    """ "dentist appointment", "appointment with the dentist" → dentist ("for Luna" is not)."""
    if kind := qualifier(phrase, noun):
        return _canonical_kind(kind)
    m = re.search(rf"\b{re.escape(noun)}s?\s+(?:with|at)\s+(?:my\s+|the\s+|a\s+)?(.+)$", phrase)
    if m and (kind := slug(trim_phrase(m.group(1), 2), max_words=2)):
        return _canonical_kind(kind)
    return ""


def _canonical_kind(kind: str) -> str:
    kind = kind.lower().strip("'")
    return {
        "doc": "doctor", "gp": "doctor", "doctor's": "doctor", "dental": "dentist",
        "dentist's": "dentist", "physiotherapist": "physio", "eye": "optometrist",
        "hair": "haircut", "x-ray": "xray", "counselling": "therapy", "counseling": "therapy",
        "therapist": "therapy", "vaccine": "vaccination", "bloodwork": "blood_test",
        "blood": "blood_test",
    }.get(kind, kind)  # fmt: skip


def guess_slots(target: str) -> tuple[str, ...]:
    """Slots a cancelled thing may live in when the conversation does not tell us.

    "the dog thing" → pet.dog.plan; "my dentist appointment" → appointment.dentist;
    "the Japan trip" → trip.japan.plan; anything else → project.<head noun>.
    """
    if species := pet_species(target):
        return (pet_plan_slot(species),)
    found = event_slot(target)
    if found is not None:
        return (found[0],)
    head = head_noun(target)
    if not head or head in {"it", "that", "this", "everything", "all"}:
        return ()
    keys = [project_slot(target)]
    content = [w for w in re.findall(r"[a-z0-9']+", target.lower()) if w not in _NOT_CONTENT]
    if (pair := "_".join(content[-2:])) and pair != head and f"project.{pair}" not in keys:
        keys.append(f"project.{pair}")  # applications are keyed by two words: grad_school
    if re.search(rf"\b(?-i:[A-Z])\w*\s*$|\b(?-i:[A-Z]){re.escape(head[1:])}", target, re.I):
        keys.append(f"trip.{head}.plan")  # a proper noun may be a destination: "Japan"
    return tuple(keys)


def categories_for_slot(slot: str) -> Mapping[Category, float]:
    """The categories of a retraction: those of the plan it withdraws."""
    family = slot.split(".", 1)[0]
    return {
        "pet": d.PET_PLAN, "trip": d.TRIP, "flight": d.LOGISTICS, "delivery": d.LOGISTICS,
        "reservation": d.LOGISTICS, "event": d.LOGISTICS, "appointment": d.OBLIGATION,
        "deadline": d.OBLIGATION, "interview": d.OBLIGATION, "meeting": d.OBLIGATION,
        "exam": d.EXAM,
    }.get(family, d.PROJECT)  # fmt: skip


def describe_cancel(slot: str) -> str:
    """A self-contained statement of what was cancelled, from the slot it retracts."""
    parts = slot.split(".")
    family, name = parts[0], (parts[1].replace("_", " ") if len(parts) > 1 else "")
    if family == "pet":
        return f"User cancelled the plan to get a {name}"
    if family == "trip":
        where = "the next trip" if name == "next" else f"the trip to {name.title()}"
        return f"User cancelled {where}"
    if family == "flight":
        where = "" if name == "next" else f" to {name.title()}"
        return f"User's flight{where} was cancelled"
    if family in {"appointment", "meeting", "interview", "exam", "deadline", "delivery"}:
        what = "" if name == "next" else f"{name} "
        return f"User's {what}{family} was cancelled"
    return f"User dropped the {name} plan" if name else "User cancelled a plan"
