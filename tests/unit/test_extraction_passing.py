"""Table tests for values said in passing, languages, interests, hobbies and named pets.

Phrasings are mostly outside any benchmark template. For each kind: rows that must land in
the slot with the value, pairs (an earlier statement and a later one in other words share
one slot key — what supersession needs), and rows that must yield nothing in the slot.
Canonical statements ("User's manager (boss) is Kenji") head the fact text so a question in
the canonical words finds a fact said any other way.
"""

from __future__ import annotations

import zlib
from datetime import UTC, datetime

import pytest

from schemas.categories import UpdateSemantics
from schemas.events import TurnEvent
from workers.extraction import ExtractedFact, RuleExtractor

TS = datetime(2025, 3, 12, 14, 30, tzinfo=UTC)
EXTRACTOR = RuleExtractor()


def extract(text: str) -> list[ExtractedFact]:
    turn = TurnEvent(
        user_id="u1", session_id="s1", turn_id=f"t{zlib.crc32(text.encode())}",
        role="user", text=text, timestamp=TS,
    )  # fmt: skip
    return EXTRACTOR.extract(turn)


def in_slot(text: str, slot: str) -> list[ExtractedFact]:
    return [f for f in extract(text) if f.slot_key == slot]


# (text, slot, value) — the value said in passing lands in the slot, at supersession strength.
PASSING: tuple[tuple[str, str, str], ...] = (
    ("Ibrahim, my boss, signed off on my leave", "user.manager", "Ibrahim"),
    ("Quick one-to-one with Rolf this morning", "user.manager", "Rolf"),
    ("had my 1:1 with Anneke, went fine", "user.manager", "Anneke"),
    ("Dmitri from upstairs is my boss now, very strict", "user.manager", "Dmitri"),
    ("So Carla, my new manager, wants weekly updates", "user.manager", "Carla"),
    ("Ava and I went to Rome for our anniversary", "user.partner", "Ava"),
    ("date night with Lucia was lovely", "user.partner", "Lucia"),
    ("me and Theo had a quiet dinner for our fifth anniversary", "user.partner", "Theo"),
    ("booked an anniversary dinner with Omar", "user.partner", "Omar"),
    ("Pia made me breakfast in bed, best girlfriend ever", "user.partner", "Pia"),
    ("my team at the Polar Institute is doing a hackathon", "user.employer", "the Polar Institute"),
    ("crazy day at Atlassian, back-to-back meetings", "user.employer", "Atlassian"),
    ("the canteen at Greenfield Clinic is honestly decent", "user.employer", "Greenfield Clinic"),
    ("hectic week at Monzo, the release slipped", "user.employer", "Monzo"),
    ("my colleagues at Social Services threw me a party", "user.employer", "Social Services"),
    ("my Kia Niro is in the shop again", "user.car", "Kia Niro"),
    ("filled up the Mazda 3 this morning", "user.car", "Mazda 3"),
    ("the Volvo XC40 handled the snow fine", "user.car", "Volvo XC40"),
    ("had the Tesla Model 3 serviced today", "user.car", "Tesla Model 3"),
    ("someone dinged our Skoda Octavia in the car park", "user.car", "Skoda Octavia"),
    ("being a charge nurse means I sign off the rota now", "user.profession", "charge nurse"),
    ("first performance reviews as head of year, nerve-racking", "user.profession",
     "head of year"),
    ("my new desk as a team lead is by the window", "user.profession", "team lead"),
    ("in my new role as engineering manager I do a lot of hiring", "user.profession",
     "engineering manager"),
    ("As a paramedic, nights are the worst", "user.profession", "paramedic"),
)  # fmt: skip

# Said in passing, but not about the user's own slot: nothing in these slots.
NOT_PASSING: tuple[tuple[str, str], ...] = (
    ("My sister's boss is a nightmare", "user.manager"),
    ("She had her one-to-one with Rolf today", "user.manager"),
    ("Sam, my brother, is visiting", "user.manager"),
    ("Jordan and I went hiking on Sunday", "user.partner"),
    ("great day at the beach", "user.employer"),
    ("my friend's team at Google is hiring", "user.employer"),
    ("I sold my Honda Civic last week", "user.car"),
    ("the Tesla Model 3 is overrated if you ask me", "user.car"),
    ("as a kid I loved trains", "user.profession"),
    ("being a parent means no sleep", "user.profession"),
    ("my mum worked as a nurse, as a nurse she was on her feet all day", "user.profession"),
)

# (earlier, later): the later turn names a new value in the earlier turn's slot.
PASSING_PAIRS: tuple[tuple[str, str, str], ...] = (
    ("I report to Lorna", "Ibrahim, my boss, signed off on my leave", "user.manager"),
    ("My boss Helen is very hands-off", "had my one-to-one with Fatima today", "user.manager"),
    ("I'm dating Ivan", "date night with Lucia was lovely", "user.partner"),
    ("My partner Quinn is the best", "Ava and I went hiking for our anniversary", "user.partner"),
    ("I work at Shopify", "crazy day at Atlassian, back-to-back meetings", "user.employer"),
    ("I drive a Skoda Octavia", "the Kia Niro handled the snow fine", "user.car"),
    ("I'm a senior nurse", "being a charge nurse means I sign off the rota", "user.profession"),
)


@pytest.mark.parametrize(("text", "slot", "value"), PASSING)
def test_value_said_in_passing(text: str, slot: str, value: str) -> None:
    facts = in_slot(text, slot)
    assert facts, f"{text!r}: nothing in {slot}; got {[f.slot_key for f in extract(text)]}"
    assert facts[0].value == value
    assert facts[0].update is UpdateSemantics.REPLACE and facts[0].confidence >= 0.95


@pytest.mark.parametrize(("text", "slot"), NOT_PASSING)
def test_not_the_users_value(text: str, slot: str) -> None:
    assert not in_slot(text, slot), f"{text!r}: {in_slot(text, slot)}"


@pytest.mark.parametrize(("earlier", "later", "slot"), PASSING_PAIRS)
def test_passing_update_shares_the_slot(earlier: str, later: str, slot: str) -> None:
    old, new = in_slot(earlier, slot), in_slot(later, slot)
    assert old and new and old[0].value != new[0].value


# (text, slot, value): languages, one accumulate slot each, stopped by a replace.
LANGUAGES: tuple[tuple[str, str, str], ...] = (
    ("started Greek lessons", "interest.greek", "learning"),
    ("doing Portuguese on Duolingo every day", "interest.portuguese", "learning"),
    ("my Spanish classes are going well", "interest.spanish", "learning"),
    ("I'm brushing up on French before the trip", "interest.french", "learning"),
    ("Signed up for a Korean course at the community college", "interest.korean", "learning"),
    ("My Japanese tutor says I'm improving", "interest.japanese", "learning"),
    ("dropped my Spanish classes", "interest.spanish", "stopped"),
    ("I quit German, it wasn't clicking", "interest.german", "stopped"),
    ("I gave up on Japanese", "interest.japanese", "stopped"),
    ("stopped learning Arabic, too busy", "interest.arabic", "stopped"),
    ("I'm done with Mandarin lessons", "interest.mandarin", "stopped"),
)
NOT_LANGUAGES = (
    "I'm Greek",
    "We had Greek food last night",
    "My sister is learning Italian",
    "I love Spanish films",
    "Portuguese wine is underrated",
)


@pytest.mark.parametrize(("text", "slot", "value"), LANGUAGES)
def test_languages(text: str, slot: str, value: str) -> None:
    facts = in_slot(text, slot)
    assert facts and facts[0].value == value, f"{text!r}: {extract(text)}"
    expected = UpdateSemantics.REPLACE if value == "stopped" else UpdateSemantics.ACCUMULATE
    assert facts[0].update is expected
    assert not facts[0].retracts  # "gave up on Japanese" stops learning, retracts no plan
    lang = slot.split(".")[1].capitalize()
    assert ("learning " + lang) in facts[0].text


@pytest.mark.parametrize("text", NOT_LANGUAGES)
def test_not_learning_a_language(text: str) -> None:
    assert not [f for f in extract(text) if f.value in {"learning", "stopped"}]


# (text, slot, value, statement words): interests and hobbies in free phrasing.
LEISURE: tuple[tuple[str, str, str, str], ...] = (
    ("I keep watching documentaries about behavioural economics",
     "interest.behavioural_economics", "active", "interested in behavioural economics"),
    ("been listening to podcasts about the Cold War", "interest.cold_war", "active",
     "interested in"),
    ("I got into Roman history", "interest.roman_history", "active", "interested in roman"),
    ("I'm fascinated by philosophy of mind", "interest.philosophy_of_mind", "active",
     "philosophy of mind"),
    ("Astronomy is my new obsession", "interest.astronomy", "active", "interested in astronomy"),
    ("volcanoes don't grab me anymore", "interest.volcanoes", "lost interest", "lost interest"),
    ("Yoga is my new thing", "hobby.yoga", "active", "hobbies include yoga"),
    ("signed up for open-water swimming classes, loving it", "hobby.swimming", "active",
     "hobbies include swimming"),
    ("I quit sourdough baking", "hobby.baking", "stopped", "gave up baking"),
)  # fmt: skip
LEISURE_PAIRS = (
    ("I've been reading a lot about philosophy of mind", "I've moved on from philosophy of mind"),
    ("I got into medieval architecture", "medieval architecture doesn't grab me anymore"),
    ("Bouldering is my new thing", "I don't do bouldering anymore"),
    ("I keep watching documentaries about mycology", "I lost interest in mycology"),
    ("Sourdough baking is my latest passion", "I quit sourdough baking"),
)
NOT_LEISURE = (
    "My new thing is waking up early",  # a habit said the other way round: not matched here
    "It is my new favourite",
    "I got into Stanford",
    "She keeps watching videos about cats",
)


@pytest.mark.parametrize(("text", "slot", "value", "said"), LEISURE)
def test_interests_and_hobbies(text: str, slot: str, value: str, said: str) -> None:
    facts = in_slot(text, slot)
    assert facts and facts[0].value == value, f"{text!r}: {extract(text)}"
    assert said.lower() in facts[0].text.lower()


@pytest.mark.parametrize(("earlier", "later"), LEISURE_PAIRS)
def test_leisure_stop_shares_the_slot(earlier: str, later: str) -> None:
    old = [f for f in extract(earlier) if f.slot_key]
    new = [f for f in extract(later) if f.slot_key]
    assert old and new and old[0].slot_key == new[0].slot_key
    assert new[0].update is UpdateSemantics.REPLACE


@pytest.mark.parametrize("text", NOT_LEISURE)
def test_not_an_interest(text: str) -> None:
    assert not [f for f in extract(text) if (f.slot_key or "").startswith(("interest.", "hobby."))]


# Named pets: a slot per pet, so that one leaving ends that pet only.
PETS: tuple[tuple[str, str, str], ...] = (
    ("we have a guinea pig called Nala", "pet.nala", "Nala"),
    ("our parrot Pepper ate my sandwich", "pet.pepper", "Pepper"),
    ("Miso, our rabbit, is the boss of the house", "pet.miso", "Miso"),
    ("We adopted a dog, Luna", "pet.luna", "Luna"),
    ("my old tabby cat Biscuit hates the vet", "pet.biscuit", "Biscuit"),
)
PET_DEPARTURES: tuple[tuple[str, str], ...] = (
    ("we had to rehome Juniper, my allergies got worse", "pet.juniper"),
    ("Bruno went to live with my parents on their farm", "pet.bruno"),
    ("we gave Olive to my sister, she has a garden", "pet.olive"),
    ("Tofu passed away last week, I'm gutted", "pet.tofu"),
    ("said goodbye to Ziggy this week, old age", "pet.ziggy"),
    ("Had to put Rex down yesterday", "pet.rex"),
)
NOT_DEPARTURES = (
    "My grandma passed away last year",
    "Sam died in the film, I cried",
    "Said goodbye to Tom at the station",
    "I gave Sarah a lift",
)


@pytest.mark.parametrize(("text", "slot", "name"), PETS)
def test_named_pets(text: str, slot: str, name: str) -> None:
    facts = in_slot(text, slot)
    assert facts and facts[0].value == name, f"{text!r}: {extract(text)}"
    assert facts[0].update is UpdateSemantics.ACCUMULATE
    assert f"named {name}" in facts[0].text


@pytest.mark.parametrize(("text", "slot"), PET_DEPARTURES)
def test_named_pet_leaves(text: str, slot: str) -> None:
    facts = in_slot(text, slot)
    assert facts and facts[0].update is UpdateSemantics.REPLACE, f"{text!r}: {extract(text)}"
    assert facts[0].confidence >= 0.95


@pytest.mark.parametrize("text", NOT_DEPARTURES)
def test_not_a_pet_leaving(text: str) -> None:
    assert not [f for f in extract(text) if (f.slot_key or "").startswith("pet.")]


def test_hedged_value_gets_no_canonical_statement() -> None:
    facts = extract("I'm thinking about moving to Lisbon")
    assert facts and not any(f.text.startswith("User lives in Lisbon") for f in facts)


def test_canonical_statement_heads_the_users_words() -> None:
    (fact,) = in_slot("I report to Kenji now", "user.manager")
    assert fact.text.startswith("User's manager (boss) is Kenji")
    assert "reports to Kenji" in fact.text
