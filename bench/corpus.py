"""Deterministic synthetic personal facts (`ingest-edges` lines) for `frecall bench query`.

A few users over ~18 months; one heavy user owns most facts, so every query exercises the
per-user filter against a store that also holds other tenants. Facts come in *episodes*
(a slot and its history): replace chains ("moved from Porto to Berlin"), soft updates
("is considering…", confidence 0.4), scheduled events with reschedules and cancellations
(retractions), project stages, and one-off facts, some restated later (near-duplicates).
Each user's facts are split over the 11 categories by `CATEGORY_SHARES`, and ~30 % of all
facts end up superseded. Text is drawn from many templates × entity lists, so BM25 and
dense search see a varied vocabulary. Same `seed` (and `end`), same lines.

Slot keys carry an episode number (`pref.coffee:3`): a store of 35k facts for one person
is not a real life, and bounded slots keep the per-slot work of ingest realistic.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from schemas.categories import Category

C = Category
CORPUS_END = datetime(2026, 9, 1, tzinfo=UTC)
SPAN = timedelta(days=548)
HEAVY_USER = "ana"
# fmt: off
DEFAULT_USERS: Mapping[str, float] = {"ana": 0.7, "ben": 0.12, "chloe": 0.08, "dmitri": 0.06,
                                      "emeka": 0.04}
CATEGORY_SHARES: Mapping[Category, float] = {
    C.PREFERENCES_HABITS: 0.18, C.LOGISTICAL_CONTEXT: 0.12, C.OBLIGATIONS: 0.10,
    C.HOBBIES_RECREATION: 0.10, C.FINANCIAL_MATERIAL: 0.08, C.RELATIONAL_BONDS: 0.08,
    C.PROJECTS_ENDEAVORS: 0.08, C.INTELLECTUAL_INTERESTS: 0.08, C.HEALTH_WELLBEING: 0.07,
    C.IDENTITY_SELF_CONCEPT: 0.06, C.OTHER: 0.05,
}
#: A second category for soft membership (paper §3.1), e.g. a purchase is also logistics.
_SECONDARY: Mapping[Category, Category] = {
    C.IDENTITY_SELF_CONCEPT: C.RELATIONAL_BONDS, C.RELATIONAL_BONDS: C.IDENTITY_SELF_CONCEPT,
    C.INTELLECTUAL_INTERESTS: C.HOBBIES_RECREATION, C.HOBBIES_RECREATION: C.HEALTH_WELLBEING,
    C.HEALTH_WELLBEING: C.PREFERENCES_HABITS, C.PREFERENCES_HABITS: C.HEALTH_WELLBEING,
    C.PROJECTS_ENDEAVORS: C.INTELLECTUAL_INTERESTS, C.FINANCIAL_MATERIAL: C.LOGISTICAL_CONTEXT,
    C.OBLIGATIONS: C.LOGISTICAL_CONTEXT, C.LOGISTICAL_CONTEXT: C.OBLIGATIONS,
    C.OTHER: C.PREFERENCES_HABITS,
}
# fmt: on

# One list a paragraph, "name: item|item|…", continued on indented lines.
_VOCABULARY = """
cities: Lisbon|Porto|Berlin|Munich|Hamburg|Vienna|Zurich|Amsterdam|Copenhagen|Oslo|Stockholm|
  Helsinki|Dublin|Edinburgh|Manchester|London|Paris|Lyon|Barcelona|Madrid|Valencia|Seville|Milan|
  Rome|Naples|Athens|Istanbul|Warsaw|Krakow|Prague|Budapest|Toronto|Montreal|Boston|Chicago|
  Austin|Seattle|Mexico City|Buenos Aires|Tokyo|Osaka|Seoul|Singapore|Melbourne|Cape Town|Nairobi
employers: Monzo|Spotify|Siemens|Zalando|Booking.com|Shopify|Atlassian|Canva|Deutsche Bahn|
  the city council|a small design studio|Novartis|Philips|Adyen|Klarna|SAP|Bosch|IKEA|
  a local bakery|the public library|a climate startup|the university hospital|Airbus|Ubisoft|
  a law firm downtown|Unilever|a logistics company|a housing nonprofit
roles: software engineer|product manager|data analyst|nurse|primary school teacher|UX designer|
  accountant|lawyer|architect|civil engineer|marketing lead|barista|pharmacist|researcher|
  sales manager|translator|physiotherapist|journalist|sous chef|electrician
drinks: oat flat whites|black coffee|double espressos|cappuccinos|green tea|chai lattes|matcha|
  decaf americanos|rooibos tea|cold brew|hot chocolate|iced lattes|yerba mate
diets: vegetarian|vegan|pescatarian|on a low-carb diet|gluten-free|eating meat again|dairy-free|
  doing intermittent fasting|cutting out sugar
cuisines: Thai|Ethiopian|Georgian|Japanese|Lebanese|Mexican|Korean|Peruvian|Sichuan|Neapolitan|
  Vietnamese|Turkish|South Indian|Greek|Portuguese
dishes: ramen|pho|shakshuka|falafel wraps|sushi|tacos al pastor|bibimbap|khachapuri|pad thai|
  dumplings|seafood paella|mushroom risotto|lentil soup|injera with misir wat|ceviche|pierogi|
  banh mi|butter chicken|moussaka|bacalhau
music: jazz|techno|indie folk|classical piano|K-pop|hip hop|bossa nova|heavy metal|synthwave|
  Afrobeat|punk rock|ambient electronica|fado
commutes: bike|tram|bus|car|train|e-scooter|ferry
bedtimes: 9:30pm|10pm|10:30pm|11pm|11:30pm|midnight|1am
workouts: early in the morning|during lunch breaks|in the evening after work|on weekends
restaurants: Taberna do Mar|Casa Pepe|Blue Lotus|Noodle Bar 88|Le Petit Zinc|Trattoria Sole|
  Cedar & Salt|The Green Fork|Sakura House|Bistro Nord|El Faro|Mama Ji's|Golden Dragon
hobbies: bouldering|pottery|salsa dancing|chess|birdwatching|sourdough baking|trail running|
  film photography|knitting|woodworking|sailing|swimming|yoga|gardening|board games|kayaking|
  skateboarding|watercolor painting|road cycling|fencing|choir singing|surfing|calligraphy|
  fly fishing|hiking|bullet journaling|beekeeping|stand-up comedy open mics
sports: tennis|padel|five-a-side football|volleyball|table tennis|squash|basketball|badminton|
  ultimate frisbee|water polo
outings: hiking|kayaking|camping|skiing|sailing|cycling|swimming in the lake
weekdays: Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday
venues: the climbing gym|the community centre|the park by the river|the public library|
  the sports hall|the coworking space|the old market hall|the lake|the botanical garden
people: Lena|Tomás|Priya|Kenji|Amara|Jonas|Sofia|Mateo|Yara|Omar|Ines|Lukas|Chen|Fatima|Noah|
  Elif|Rafael|Mira|Hugo|Zainab|Oscar|Leila|Marco|Aiko|Dara|Felix|Nadia|Ivan|Greta|Samir
relations: sister|brother|mother|father|cousin|best friend|colleague|neighbour|manager|flatmate|
  mentor|aunt|grandmother|old school friend|godson
conditions: asthma|type 1 diabetes|migraines|a gluten intolerance|hay fever|eczema|tinnitus|
  high blood pressure|an underactive thyroid|chronic lower back pain|ADHD
allergens: peanuts|shellfish|cats|penicillin|birch pollen|dust mites|sesame|kiwis|wasps
medications: levothyroxine|metformin|sertraline|cetirizine|vitamin D|iron tablets|lisinopril|
  magnesium|omeprazole
ailments: a cold|the flu|a sprained ankle|a sore throat|a stomach bug|a pulled hamstring|
  a sinus infection|a bad cough|tennis elbow|a fever
projects: a plant-watering app|the kitchen renovation|a novel about a lighthouse keeper|
  a master's thesis on urban heat islands|a podcast about local history|a board game prototype|
  marathon training|a community garden|a photo book of old shops|a home server|a cooking channel|
  a language-exchange meetup|an open-source budgeting tool|a wedding speech|a vegetable patch|
  a camper van conversion|a family cookbook|a mobile game about cats|a children's picture book
topics: Roman history|quantum computing|urban planning|behavioral economics|marine biology|
  the history of jazz|climate policy|Stoic philosophy|astronomy|linguistics|machine learning|
  medieval architecture|mushrooms and mycology|game theory|the French Revolution|neuroscience|
  typography|volcanoes|ancient Egypt|cryptography|soil science|origami math
books: Dune|Middlemarch|The Overstory|Sapiens|Klara and the Sun|The Left Hand of Darkness|
  Pachinko|Thinking, Fast and Slow|The Name of the Rose|Piranesi|Educated|Station Eleven|
  The Three-Body Problem|A Gentleman in Moscow|Project Hail Mary|The Remains of the Day|
  Braiding Sweetgrass|The Master and Margarita
items: road bike|standing desk|espresso machine|winter coat|pair of hiking boots|used car|laptop|
  pair of noise-cancelling headphones|sofa|tent|camera lens|mattress|air fryer|digital piano|
  washing machine|rain jacket|e-reader|robot vacuum
appointments: dentist appointment|annual checkup|eye exam|visa renewal appointment|driving test|
  parent-teacher meeting|car inspection|job interview|performance review|thesis defense|
  passport appointment|vet appointment for the cat|haircut|landlord inspection|therapy session|
  Spanish exam|blood test|mortgage meeting at the bank
deadlines: the tax return|the grant application|the rent deposit|the insurance claim|
  the visa paperwork|the quarterly report|the conference talk proposal|the school forms
airlines: TAP|Lufthansa|easyJet|KLM|Ryanair|Iberia|SAS|a night train|the ferry
cars: a red Golf|a grey Corolla|a blue Tesla Model 3|a white Fiat 500|a green Volvo estate|
  a black Skoda Octavia|a yellow Renault Zoe|a silver Honda Civic
animals: fox|heron|hedgehog|red squirrel|kingfisher|deer|woodpecker|owl|seal
plants: lemon tree|chili plant|bird feeder|tomato plant|bonsai|herb box
languages: Portuguese|German|Japanese|Spanish|Arabic|Turkish|Polish|Korean
"""


def _parse_vocabulary(text: str) -> dict[str, tuple[str, ...]]:
    joined = text.strip().replace("|\n  ", "|")
    pairs = (line.split(":", 1) for line in joined.split("\n"))
    return {name: tuple(items.strip().split("|")) for name, items in pairs}


_W = _parse_vocabulary(_VOCABULARY)

#: Replace semantics need confidence ≥ 0.8, accumulate ones ≥ 0.95 to supersede (Appendix
#: Z): hard updates clear both; soft ones stay below and only lower the old value (Model 1).
HARD = (0.95, 1.0)
SOFT_CONFIDENCE = 0.4


@dataclass(frozen=True, slots=True)
class _Family:
    """Facts of one kind. mode: replace (v changes), stages (x's status changes), event
    (x rescheduled, maybe cancelled), single (one fact, maybe restated later).

    x: the episode's fixed entity; v: the value that changes (a dollar amount or a dose
    when `amount` is set).
    """

    category: Category
    key: str
    mode: str
    first: tuple[str, ...] = ()
    change: tuple[str, ...] = ()
    cancel: tuple[str, ...] = ()
    soft: tuple[str, ...] = ()  # tentative changes ("thinking about moving to …")
    values: tuple[str, ...] = ()
    entities: tuple[str, ...] = ("",)
    amount: tuple[int, int] | None = None
    weight: float = 1.0
    slotted: bool = True


_F = _Family
_PROJECT_STAGES = (
    "{n} paused {x} for now", "{n} picked {x} back up after a break", "{n} finished {x}",
    "{n} is about halfway through {x}", "{n} put {x} on hold until spring",
)  # fmt: skip
_PH, _HW, _OB, _LC = C.PREFERENCES_HABITS, C.HEALTH_WELLBEING, C.OBLIGATIONS, C.LOGISTICAL_CONTEXT
# Templates: {n} name, {x} the episode's entity, {v} new value, {o} old value, {d} {t} date
# and time (the event's, for events), plus random fillers ({c} city, {p} person, …).
# fmt: off
FAMILIES: tuple[_Family, ...] = (
    _F(_PH, "pref.coffee", "replace", values=_W["drinks"],
       first=("{n} drinks {v} every morning", "{n}'s usual coffee order is {v}"),
       change=("{n} switched from {o} to {v}", "These days {n} prefers {v}"),
       soft=("{n} is thinking about switching to {v}",)),
    _F(_PH, "pref.diet", "replace", values=_W["diets"],
       first=("{n} is {v}", "{n} has been {v} for a while"),
       change=("{n} is now {v}, no longer {o}", "{n} changed diet and is {v}"),
       soft=("{n} is considering being {v} for a month",)),
    _F(_PH, "pref.cuisine", "replace", values=_W["cuisines"],
       first=("{n}'s favourite cuisine is {v}", "{n} loves {v} food"),
       change=("{n} likes {v} food more than {o} now",)),
    _F(_PH, "pref.dish", "replace", values=_W["dishes"],
       first=("{n} orders {v} whenever possible",),
       change=("{n}'s new comfort food is {v}, not {o}",)),
    _F(_PH, "pref.music", "replace", values=_W["music"], first=("{n} mostly listens to {v}",),
       change=("{n} moved on from {o} to {v}",)),
    _F(_PH, "habit.commute", "replace", values=_W["commutes"],
       first=("{n} commutes to work by {v}",),
       change=("{n} now gets to work by {v} instead of {o}",),
       soft=("{n} might start commuting by {v}",)),
    _F(_PH, "habit.bedtime", "replace", values=_W["bedtimes"],
       first=("{n} usually goes to bed around {v}",), change=("{n} goes to bed at {v} now",)),
    _F(_PH, "habit.workout", "replace", values=_W["workouts"], first=("{n} works out {v}",),
       change=("{n} moved the workouts to {v}",)),
    _F(_PH, "pref.restaurant", "replace", values=_W["restaurants"],
       first=("{n}'s favourite restaurant is {v} in {c}",),
       change=("{n} prefers {v} to {o} these days",), soft=("{n} wants to give {v} a try",)),
    _F(C.HOBBIES_RECREATION, "hobby", "single", entities=_W["hobbies"], weight=3,
       first=("{n} took up {x} recently", "{n} spends most weekends on {x}",
              "{n} has been into {x} for years", "{n} does {x} at {venue} on {w}s")),
    _F(C.HOBBIES_RECREATION, "hobby.sport", "replace", values=_W["sports"],
       first=("{n} plays {v} every {w}",), change=("{n} switched from {o} to {v} on {w}s",),
       soft=("{n} is curious about trying {v}",)),
    _F(C.HOBBIES_RECREATION, "outing", "single", entities=_W["outings"], slotted=False,
       first=("{n} went {x} near {c} last weekend", "{n} spent Saturday {x} with {p}")),
    _F(_OB, "appt", "event", entities=_W["appointments"], weight=3,
       first=("{n} has a {x} on {d} at {t}", "{n} needs to be at the {x} on {d}, {t}"),
       change=("{n}'s {x} was moved to {d} at {t}", "{n} rescheduled the {x} to {d}, {t}"),
       cancel=("{n} cancelled the {x} planned for {d}", "The {x} on {d} is off")),
    _F(_OB, "deadline", "event", entities=_W["deadlines"],
       first=("{n} must submit {x} by {d}", "{n} still has to finish {x}, due {d}"),
       change=("The deadline for {x} was extended to {d}",),
       cancel=("{n} no longer has to do {x}",)),
    _F(_LC, "trip", "event", entities=_W["cities"], weight=2,
       first=("{n} flies to {x} on {d} at {t} with {air}", "{n} takes {air} to {x} on {d}, {t}"),
       change=("{n}'s trip to {x} moved to {d} at {t}", "{n} rebooked the {x} trip for {d}"),
       cancel=("{n} cancelled the trip to {x}", "The {x} trip on {d} fell through")),
    _F(_LC, "dinner", "event", entities=_W["people"],
       first=("{n} is meeting {x} for dinner at {r} on {d} at {t}",),
       change=("Dinner with {x} moved to {d} at {t}",), cancel=("{n} called off dinner with {x}",)),
    _F(_LC, "delivery", "event", entities=_W["items"],
       first=("The {x} {n} ordered arrives on {d} around {t}",),
       change=("The {x} delivery is delayed to {d}",), cancel=("{n} cancelled the {x} order",)),
    _F(_LC, "pickup", "event", entities=_W["people"],
       first=("{n} is picking up {x} from the station on {d} at {t}",),
       change=("{x} now arrives on {d} at {t}, {n} still picks them up",)),
    _F(C.FINANCIAL_MATERIAL, "money.rent", "replace", amount=(700, 2600),
       first=("{n}'s rent is {v} a month", "{n} pays {v} a month for the flat"),
       change=("{n}'s rent went up from {o} to {v}", "{n}'s landlord set the rent to {v}")),
    _F(C.FINANCIAL_MATERIAL, "money.salary", "replace", amount=(32000, 150000),
       first=("{n} earns {v} a year",),
       change=("{n} got a raise to {v} a year", "{n}'s salary is now {v}, up from {o}")),
    _F(C.FINANCIAL_MATERIAL, "money.savings", "replace", amount=(1500, 30000),
       first=("{n} is saving {v} for a trip to {c}",), change=("{n} set the savings goal to {v}",)),
    _F(C.FINANCIAL_MATERIAL, "money.gym", "replace", amount=(19, 95),
       first=("{n}'s gym membership costs {v} a month",),
       change=("{n}'s gym membership went up to {v} a month",)),
    _F(C.FINANCIAL_MATERIAL, "purchase", "single", entities=_W["items"], amount=(30, 3000),
       weight=2, slotted=False, first=("{n} bought a {x} for {v}", "{n} spent {v} on a {x}")),
    _F(C.IDENTITY_SELF_CONCEPT, "home.city", "replace", values=_W["cities"], weight=2,
       first=("{n} lives in {v}", "{n} is based in {v}"),
       change=("{n} moved from {o} to {v}", "{n} relocated to {v} for good"),
       soft=("{n} is thinking about moving to {v}", "{n} might relocate to {v} next year")),
    _F(C.IDENTITY_SELF_CONCEPT, "work.employer", "replace", values=_W["employers"], weight=2,
       first=("{n} works at {v} as a {role}",),
       change=("{n} left {o} and joined {v}", "{n} started a new job at {v}"),
       soft=("{n} is interviewing at {v}", "{n} got an offer from {v} and is weighing it")),
    _F(C.IDENTITY_SELF_CONCEPT, "work.role", "replace", values=_W["roles"],
       first=("{n} works as a {v}",), change=("{n} retrained and now works as a {v}",),
       soft=("{n} is considering retraining as a {v}",)),
    _F(C.IDENTITY_SELF_CONCEPT, "identity", "single", entities=_W["languages"],
       first=("{n} grew up in {c}", "{n} speaks {x} fluently", "{n} has a degree in {topic}")),
    _F(C.RELATIONAL_BONDS, "rel.partner", "replace", values=_W["people"],
       first=("{n} is dating {v}", "{n}'s partner is {v}"),
       change=("{n} broke up with {o} and is now seeing {v}", "{n} and {v} are together now")),
    _F(C.RELATIONAL_BONDS, "rel.person", "single", entities=_W["people"], weight=3,
       first=("{n}'s {rel} {x} lives in {c}", "{n} had lunch with {x}, a {rel}",
              "{x} is {n}'s {rel} and loves {hobby}", "{n} and {x} went to {c} together")),
    _F(_HW, "health.condition", "single", entities=_W["conditions"],
       first=("{n} has {x}", "{n} was diagnosed with {x}")),
    _F(_HW, "health.allergy", "single", entities=_W["allergens"],
       first=("{n} is allergic to {x}",)),
    _F(_HW, "health.medication", "replace", entities=_W["medications"], amount=(5, 200),
       first=("{n} takes {v} of {x} daily",), change=("{n}'s {x} dose changed to {v}",)),
    _F(_HW, "health.acute", "event", entities=_W["ailments"],
       first=("{n} has {x} and is resting until {d}",),
       change=("{n} still has {x}, the doctor said rest until {d}",)),
    _F(C.PROJECTS_ENDEAVORS, "project", "stages", entities=_W["projects"],
       first=("{n} started working on {x}", "{n} kicked off {x}"), change=_PROJECT_STAGES,
       cancel=("{n} scrapped {x} altogether",)),
    _F(C.INTELLECTUAL_INTERESTS, "reading", "replace", values=_W["books"],
       first=("{n} is reading {v}",), change=("{n} finished {o} and started {v}",),
       soft=("{n} might pick up {v} next",)),
    _F(C.INTELLECTUAL_INTERESTS, "interest", "single", entities=_W["topics"], weight=2,
       slotted=False,
       first=("{n} is fascinated by {x}", "{n} watched a documentary about {x}",
              "{n} signed up for an online course on {x}", "{n} listens to podcasts about {x}")),
    _F(C.OTHER, "other.wildlife", "single", entities=_W["animals"], slotted=False,
       first=("{n} saw a {x} near {venue}", "{n} spotted a {x} on the way to {c}")),
    _F(C.OTHER, "other.misc", "single", entities=_W["plants"], slotted=False,
       first=("{n} drives {car}", "{n} lost an umbrella on the {commute} on {w}",
              "{n} got a parking ticket in {c}", "{n} keeps a {x} on the balcony",
              "{n}'s phone screen cracked at {venue}", "{n} won a {x} in a raffle")),
)
# fmt: on
_BY_CATEGORY = {c: [f for f in FAMILIES if f.category is c] for c in CATEGORY_SHARES}


def _when(t: datetime) -> str:
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


class _UserFacts:
    """One user's episodes; every random draw comes from the one seeded `rng`."""

    def __init__(self, rng: random.Random, user: str, begin: datetime, end: datetime) -> None:
        self.rng, self.user, self.name = rng, user, user.capitalize()
        self.begin, self.end = begin, end
        self.facts: list[tuple[datetime, dict[str, Any]]] = []
        self._episodes: dict[str, int] = {}

    def _fill(self, template: str, x: str, v: str, o: str, at: datetime) -> str:
        def pick(name: str) -> str:
            return self.rng.choice(_W[name])

        return template.format(
            n=self.name, x=x, v=v, o=o, d=f"{at:%B} {at.day}", t=f"{at:%H:%M}",
            c=pick("cities"), p=pick("people"), w=pick("weekdays"), venue=pick("venues"),
            r=pick("restaurants"), air=pick("airlines"), role=pick("roles"),
            rel=pick("relations"), hobby=pick("hobbies"), topic=pick("topics"),
            car=pick("cars"), commute=pick("commutes"),
        )  # fmt: skip

    def _add(self, fam: _Family, text: str, at: datetime, **fields: Any) -> None:
        r = self.rng
        category: Any = fam.category.value
        if r.random() < 0.25:
            w = round(r.uniform(0.6, 0.85), 2)
            category = {fam.category.value: w, _SECONDARY[fam.category].value: round(1 - w, 2)}
        fact: dict[str, Any] = {
            "user_id": self.user,
            "text": text,
            "category": category,
            "ingest_time": _when(at),
            "edge_id": f"{self.user}-{len(self.facts):06d}",
            "source_turns": [f"{self.user}-{at:%Y%m%d}-t{r.randrange(1, 40)}"],
            "numeric": fam.amount is not None,
        }
        if fam.category in (C.HEALTH_WELLBEING, C.RELATIONAL_BONDS) and r.random() < 0.1:
            fact["emotional_loading"] = round(r.uniform(0.4, 0.8), 2)
        fact.update({k: v for k, v in fields.items() if v is not None})
        self.facts.append((at, fact))

    def _slot(self, fam: _Family) -> str:
        k = self._episodes[fam.key] = self._episodes.get(fam.key, 0) + 1
        return f"{fam.key}:{k}"

    def _start(self, reserve_days: float) -> datetime:
        """A random start that leaves `reserve_days` for the rest of the episode."""
        room = max((self.end - self.begin).total_seconds() - reserve_days * 86400, 0.0)
        return self.begin + timedelta(seconds=self.rng.uniform(0, room))

    def _on_grid(self, day: datetime) -> datetime:
        """A time people book: between 08:00 and 20:00 on the quarter hour."""
        midnight = day.replace(hour=0, minute=0, second=0, microsecond=0)
        return midnight + timedelta(minutes=self.rng.randrange(8 * 60, 20 * 60, 15))

    def _value(self, fam: _Family, old: str) -> str:
        r = self.rng
        if fam.amount is None:
            return r.choice([v for v in fam.values if v != old])
        if fam.key == "health.medication":
            return f"{r.randrange(*fam.amount) // 5 * 5 + 5} mg"
        base = int(old.strip("$").replace(",", "")) * r.uniform(0.85, 1.3) if old else None
        return f"${int(base) if base else r.randrange(*fam.amount):,}"

    def episode(self, fam: _Family) -> None:
        x = self.rng.choice(fam.entities)
        {"single": self._single, "event": self._event}.get(fam.mode, self._chain)(fam, x)

    def _single(self, fam: _Family, x: str) -> None:
        r = self.rng
        at = self._start(60)
        v = self._value(fam, "") if fam.amount else ""
        text = self._fill(r.choice(fam.first), x, v, "", at)
        slot = self._slot(fam) if fam.slotted else None
        update = "accumulate" if slot else None
        self._add(fam, text, at, slot_key=slot, update=update, value=v or None)
        if slot and r.random() < 0.06:
            # Said again weeks later: folded into the first as a repeated mention.
            again = at + timedelta(days=r.uniform(3, 60))
            self._add(fam, text, again, slot_key=slot, update="accumulate")

    def _chain(self, fam: _Family, x: str) -> None:
        r = self.rng
        length = r.choices((1, 2, 3, 4), weights=(0.3, 0.35, 0.22, 0.13))[0]
        gaps = [r.uniform(5, 120) for _ in range(length - 1)]
        at = self._start(sum(gaps) + 40)  # and room for a cancellation
        slot = self._slot(fam)
        old = self._value(fam, "") if fam.mode == "replace" else ""
        text = self._fill(r.choice(fam.first), x, old, "", at)
        self._add(fam, text, at, slot_key=slot, update="replace", value=old or x)
        for gap in gaps:
            at += timedelta(days=gap)
            new = self._value(fam, old) if fam.mode == "replace" else ""
            if fam.soft and r.random() < 0.2:
                text = self._fill(r.choice(fam.soft), x, new, old, at)
                self._add(fam, text, at, slot_key=slot, update="soft", confidence=SOFT_CONFIDENCE)
                continue
            text = self._fill(r.choice(fam.change), x, new, old, at)
            confidence = round(r.uniform(*HARD), 2)
            self._add(fam, text, at, slot_key=slot, update="replace", confidence=confidence,
                      value=new or None)  # fmt: skip
            old = new
        if fam.cancel and r.random() < 0.08:
            self._retract(fam, x, slot, at + timedelta(days=r.uniform(2, 40)), at)

    def _event(self, fam: _Family, x: str) -> None:
        r = self.rng
        at = self._start(80)  # reschedules land before the event, ≤ ~80 days on
        event = self._on_grid(at + timedelta(days=r.uniform(1, 40)))
        slot = self._slot(fam)
        text = self._fill(r.choice(fam.first), x, "", "", event)
        self._add(fam, text, at, slot_key=slot, update="replace", event_time=_when(event))
        for _ in range(r.choices((0, 1, 2), weights=(0.62, 0.3, 0.08))[0]):
            at += (event - at) * r.uniform(0.2, 0.8)
            event = self._on_grid(event + timedelta(days=r.uniform(1, 20)))
            text = self._fill(r.choice(fam.change), x, "", "", event)
            confidence = round(r.uniform(*HARD), 2)
            self._add(fam, text, at, slot_key=slot, update="replace", confidence=confidence,
                      event_time=_when(event))  # fmt: skip
        if fam.cancel and r.random() < 0.12:
            self._retract(fam, x, slot, at + (event - at) * r.uniform(0.1, 0.9), event)

    def _retract(self, fam: _Family, x: str, slot: str, at: datetime, about: datetime) -> None:
        # The cancellation is a fact of its own slot that retracts the plan's slot.
        text = self._fill(self.rng.choice(fam.cancel), x, "", "", about)
        self._add(fam, text, at, slot_key=f"{slot}.cancelled", retracts=[slot])


def _apportion(total: int, shares: Mapping[Any, float]) -> dict[Any, int]:
    """Integer counts proportional to `shares` that sum to `total` (largest remainder)."""
    scale = total / sum(shares.values())
    exact = {k: s * scale for k, s in shares.items()}
    counts = {k: int(v) for k, v in exact.items()}
    by_remainder = sorted(exact, key=lambda k: (counts[k] - exact[k], str(k)))
    for k in by_remainder[: total - sum(counts.values())]:
        counts[k] += 1
    return counts


def generate_facts(
    n: int,
    seed: int = 0,
    users: Mapping[str, float] = DEFAULT_USERS,
    *,
    end: datetime = CORPUS_END,
) -> Iterator[dict[str, Any]]:
    """`n` ingest-edges lines (dicts matching `EdgeInput`) in ingest-time order.

    `users` maps user ids to their share of the facts; the name in the text is the user id
    capitalized. Ingest times span the 18 months before `end`; event times may lie after it.
    """
    rng = random.Random(seed)
    out: list[tuple[datetime, dict[str, Any]]] = []
    for user, count in _apportion(n, users).items():
        gen = _UserFacts(rng, user, end - SPAN, end)
        for category, budget in _apportion(count, CATEGORY_SHARES).items():
            families = _BY_CATEGORY[category]
            weights = [f.weight for f in families]
            have = len(gen.facts)
            while len(gen.facts) - have < budget:
                gen.episode(rng.choices(families, weights=weights)[0])
            # The last episode may overshoot the budget: keep its earliest facts.
            del gen.facts[have + budget :]
        out += gen.facts
    out.sort(key=lambda item: (item[0], item[1]["edge_id"]))
    for _, fact in out:
        yield fact


# fmt: off
_QUERIES: Mapping[str, tuple[str, ...]] = {
    "current": (
        "Where does {n} live?", "Where does {n} work these days?", "What is {n}'s job?",
        "What does {n} drink in the morning?", "What is {n}'s diet?", "How much is {n}'s rent?",
        "What is {n}'s salary?", "Who is {n} dating?", "What hobbies does {n} have?",
        "Does {n} still play {sport}?", "What is {n} reading right now?", "Does {n} know {p}?",
        "Does {n} have any allergies?", "What medication does {n} take?", "Does {n} like {dish}?",
        "What projects is {n} working on?", "Is {n} interested in {topic}?",
        "What kind of food does {n} like?", "How does {n} get to work?", "Does {n} enjoy {hobby}?",
        "Tell me about {n}'s {rel}.", "How much does {n}'s gym membership cost?",
    ),
    "historical": (
        "Which city did {n} live in before moving?", "What coffee did {n} drink before switching?",
        "What was {n}'s previous job?", "Which company did {n} work for previously?",
        "What did {n} used to eat?", "How has {n}'s rent changed?", "Who did {n} date before?",
        "What music did {n} listen to originally?", "What was {n}'s old address in {c}?",
    ),
    "upcoming": (
        "What appointments does {n} have coming up?", "When is {n}'s next flight?",
        "Does {n} have any deadlines soon?", "What is {n} scheduled to do this week?",
        "Is {n} going to {c} soon?", "When is {n}'s upcoming {appt}?", "Is {n} meeting {p} soon?",
    ),
    "past": (
        "What did {n} do last week?", "Did {n} go to the {appt} last month?",
        "Which trips did {n} take last year?", "What happened at {n}'s {appt}?",
        "Did {n} fly to {c} a few weeks ago?",
    ),
    "cancelled": ("What plans did {n} cancel?", "Which trips fell through for {n}?"),
}
_QUERY_MIX = {"current": 0.5, "historical": 0.2, "upcoming": 0.15, "past": 0.1, "cancelled": 0.05}
_QUERY_FILLERS = {"sport": "sports", "topic": "topics", "rel": "relations", "p": "people",
                  "dish": "dishes", "hobby": "hobbies", "c": "cities", "appt": "appointments"}
# fmt: on


def generate_queries(n: int, seed: int = 0, user: str = HEAVY_USER) -> list[str]:
    """`n` questions about `user`'s facts: current, historical ("used to", "before"),
    upcoming, past and cancelled phrasings, filled from the corpus's own vocabulary."""
    rng = random.Random(seed)
    kinds, weights = list(_QUERY_MIX), list(_QUERY_MIX.values())
    out = []
    for _ in range(n):
        template = rng.choice(_QUERIES[rng.choices(kinds, weights=weights)[0]])
        fill = {k: rng.choice(_W[v]) for k, v in _QUERY_FILLERS.items()}
        out.append(template.format(n=user.capitalize(), **fill))
    return out
