"""Values, retractions and dates said in free phrasing: general constructions, not sentences.

Issue 11 ("Growing regexes per phrasing does not converge"): each test below states one
construction in several wordings written for this file (none from the paper-turn sets), so a
change that only fits one sentence fails here.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from schemas.categories import Category, UpdateSemantics
from schemas.events import TurnEvent
from schemas.policy import load_policy
from tests.unit.extraction_helpers import facts_of
from tests.unit.test_raw_turns import raw_turn, verdict
from workers.extraction.dates import find_event_time, is_bare_month
from workers.extraction.raw_turns import with_raw_meaning
from workers.extraction.rules import RuleExtractor
from workers.lifecycle.rules import edge_expires_at
from workers.text.acronyms import expanded, long_forms

SAID = datetime(2025, 3, 1, 10, tzinfo=UTC)
POLICY = load_policy()


def turn(text: str, n: int = 0) -> TurnEvent:
    return TurnEvent(user_id="u1", session_id="s", turn_id=f"t{n}", role="user", text=text,
                     timestamp=SAID + timedelta(days=n))  # fmt: skip


# --- a month named without a day (paper Appendix K: "contextual months") ---


@pytest.mark.parametrize(
    ("text", "month", "year"),
    [
        ("the board review is slated for october, everyone is nervous", 10, 2025),
        ("our open day got pushed to june because of the strike", 6, 2025),
        ("the audit happens in february, so no holidays for me", 2, 2026),  # next February
        ("the kitchen fitters come by july at the latest", 7, 2025),
    ],
)
def test_a_bare_month_after_a_preposition_is_dated(text: str, month: int, year: int) -> None:
    mention = find_event_time(text, SAID, "future")
    assert mention is not None and is_bare_month(mention.text)
    assert (mention.when.year, mention.when.month) == (year, month)


@pytest.mark.parametrize(
    ("text", "slot"),
    [
        ("the viva is in three weeks, send snacks", "event.viva"),
        ("the recital is next saturday and the kid can't sit still", "event.recital"),
        ("physio assessment is tomorrow", "event.assessment"),
    ],
)
def test_a_dated_event_told_without_i_is_the_speakers_when_the_date_is_deictic(
    text: str, slot: str
) -> None:
    (fact,) = [f for f in RuleExtractor().extract(turn(text)) if f.slot_key == slot]
    assert fact.event_time is not None and fact.event_time > SAID


def test_an_event_of_the_world_without_a_deictic_date_is_not_the_users() -> None:
    for text in ("the general election is in november", "the average rent here is 900 a month"):
        assert not RuleExtractor().extract(turn(text))


def test_a_month_that_is_a_name_or_a_day_is_no_bare_month() -> None:
    assert find_event_time("I asked may for help with the garden", SAID, "future") is None
    mention = find_event_time("the recital is on October 12", SAID, "future")
    assert mention is not None and not is_bare_month(mention.text)


def test_a_fact_less_turn_of_a_bare_month_expires_unless_it_recurs() -> None:
    upcoming = verdict(kind=Category.OBLIGATIONS)
    for text in ("the grant panel is scheduled for may, wish me luck",
                 "big presentation to the investors in april"):  # fmt: skip
        (edge,) = with_raw_meaning(raw_turn(text), [upcoming])
        assert edge.event_time is not None and edge.event_time.month in (4, 5)
        assert edge_expires_at(edge, POLICY) is not None
    # What comes back every year is not one occurrence: it must not expire.
    for text in ("my birthday is in may, I always dread it",
                 "the club renews its fees every january"):  # fmt: skip
        (edge,) = with_raw_meaning(raw_turn(text), [upcoming])
        assert edge.event_time is None


# --- a plan's verdict on a name without a determiner (paper §3.3, Appendix K) ---


@pytest.mark.parametrize(
    ("plan", "verdict_text", "slot"),
    [
        ("thinking about building a treehouse for the kids this summer",
         "treehouse project is dead, the oak is rotten", "project.treehouse"),
        ("we're planning a road trip to portugal in august",
         "portugal trip got cancelled. car died", "trip.portugal.plan"),
        ("I want to open a bakery one day",
         "ok bakery idea is officially scrapped", "project.business"),
        ("planning a trip to iceland next spring",
         "iceland trip fell through, too expensive", "trip.iceland.plan"),
    ],
)  # fmt: skip
def test_a_verdict_on_a_bare_plan_name_retracts_it(plan: str, verdict_text: str, slot: str) -> None:
    extractor = RuleExtractor()
    first = turn(plan)
    planned = {f.slot_key for f in extractor.extract(first)}
    assert slot in planned
    retracted = {s for f in extractor.extract(turn(verdict_text, 1), [first]) for s in f.retracts}
    assert retracted == {slot}


@pytest.mark.parametrize(
    ("plan", "verdict_text", "slot"),
    [
        ("we're planning a canoe trip to the lakes in july",
         "the canoe trip isn't on anymore, the river is too high", "trip.lakes.plan"),
        ("thinking about getting a kitten for the flat",
         "ok forget the kitten, my flatmate is allergic", "pet.cat.plan"),
        ("I want to start a podcast about local history",
         "I've pulled the plug on the podcast, no time", "project.podcast"),
        ("I'm going to open a bakery next year",
         "we knocked the bakery on the head, the rent is mad", "project.business"),
    ],
)  # fmt: skip
def test_the_cancelling_verb_family_retracts_the_plan(
    plan: str, verdict_text: str, slot: str
) -> None:
    extractor = RuleExtractor()
    first = turn(plan)
    retracted = {s for f in extractor.extract(turn(verdict_text, 1), [first]) for s in f.retracts}
    assert slot in {f.slot_key for f in extractor.extract(first)}
    assert retracted == {slot}


@pytest.mark.parametrize(
    "text",
    ["battery is dead again, need a charger", "phone is dead lol", "ok party is over, home now",
     "coffee machine is off, can't function", "I always forget the password",
     "the lights are not on", "he pulled the plug on the kettle",
     "forget the fancy stuff, just give me a recipe"],
)  # fmt: skip
def test_a_bare_name_that_is_no_plan_retracts_nothing(text: str) -> None:
    assert not any(f.retracts for f in RuleExtractor().extract(turn(text)))


# --- a pastime told without "I": by how often, or with the user as the object ---


@pytest.mark.parametrize(
    ("text", "slot"),
    [
        ("swimming twice a week now, my shoulders feel great", "hobby.swimming"),
        ("knitting most evenings, it calms me down", "hobby.knitting"),
        ("my sister got me into pottery over christmas", "hobby.pottery"),
        ("a colleague has me hooked on chess this year", "hobby.chess"),
        ("my uncle introduced me to fishing when I was a kid", "hobby.fishing"),
    ],
)
def test_a_pastime_said_without_the_user_as_subject_is_a_hobby(text: str, slot: str) -> None:
    assert slot in {f.slot_key for f in RuleExtractor().extract(turn(text))}


def test_someone_elses_pastime_or_an_object_is_not_the_users_hobby() -> None:
    for text in ("my sister got into pottery over christmas",
                 "running my own studio is exhausting"):  # fmt: skip
        assert not any((f.slot_key or "").startswith("hobby.") for f in
                       RuleExtractor().extract(turn(text)))  # fmt: skip


# --- an acronym the turn spells out (wrong slot: "moved to the UCC" is no city) ---


def test_long_forms_are_only_those_the_text_spells_out() -> None:
    text = "I'm a Royal Society for the Protection of Birds volunteer, the RSPB is my weekend"
    assert long_forms(text) == {"RSPB": "Royal Society for the Protection of Birds"}
    assert long_forms("moved to the USA, the United Kingdom was too grey") == {}
    assert long_forms("NASA is hiring") == {}
    assert expanded("User joined the RSPB", long_forms(text)) == (
        "User joined the Royal Society for the Protection of Birds"
    )


@pytest.mark.parametrize(
    ("text", "long"),
    [
        ("After a lot of prayer I've moved to the PCA, the Presbyterian Church in America "
         "feels like home.", "Presbyterian Church in America"),
        ("I signed up as a Royal Navy Reserve rating; joining the RNR took me a year.",
         "Royal Navy Reserve"),
    ],
)  # fmt: skip
def test_a_fact_naming_a_defined_acronym_carries_its_long_form(text: str, long: str) -> None:
    """What the classifier reads (and the user is shown) is what the acronym stands for."""
    facts = RuleExtractor().extract(turn(text))
    assert facts and all(long in f.text for f in facts)


# --- a value said as a bare "… now", or given to the user by someone else ---


@pytest.mark.parametrize(
    ("text", "slot"),
    [
        ("finally got the rota sorted. early shifts now, 6 till 2", "user.work_schedule"),
        ("so, oat milk these days. dairy hates me", "user.milk"),
    ],
)
def test_a_bare_value_marked_now_takes_its_attribute_slot(text: str, slot: str) -> None:
    (fact,) = [f for f in facts_of(RuleExtractor(), turn(text)) if f.slot_key == slot]
    assert fact.update is UpdateSemantics.REPLACE


def test_a_bare_now_without_a_known_attribute_or_with_a_pronoun_is_no_fact() -> None:
    for text in ("it's raining now", "tired now, bed", "that is fine now"):
        assert not facts_of(RuleExtractor(), turn(text))


def test_a_value_given_by_someone_else_yields_to_a_numbered_thing() -> None:
    facts = facts_of(RuleExtractor(), turn("they moved me to desk 14 while the office is redone"))
    assert [(f.slot_key, f.value) for f in facts] == [("user.desk", "desk 14")]


# --- a role held since some time, and a clause that holds two attributes ---


@pytest.mark.parametrize(
    ("text", "role", "org"),
    [
        ("I've been the night receptionist at the Grand Hotel for six years", "receptionist",
         "the Grand Hotel"),
        ("honestly I have been a pharmacist at Boots since 2019", "pharmacist", "Boots"),
        ("ive been a mechanic at Kwik Fit for ages, the pay is fine", "mechanic", "Kwik Fit"),
    ],
)  # fmt: skip
def test_a_role_held_since_some_time_names_profession_and_employer(
    text: str, role: str, org: str
) -> None:
    """Each fact keeps its own slot although its text also holds the other attribute's words."""
    facts = {f.slot_key: f.value for f in facts_of(RuleExtractor(), turn(text))}
    assert facts.get("user.profession", "").endswith(role.split()[-1])
    assert facts.get("user.employer") == org


def test_a_past_role_is_not_said_to_be_held() -> None:
    assert "user.employer" not in {
        f.slot_key for f in facts_of(RuleExtractor(), turn("I was a porter at the Ritz once"))
    }


@pytest.mark.parametrize(
    "text",
    [
        "I've lived in Porto since I was a student.",
        "we moved to Leeds when I was a toddler",
        "my parents split up when I was a baby",
    ],
)
def test_the_simple_past_of_the_copula_with_a_noun_names_no_current_value(text: str) -> None:
    """ "since I was a teenager" is when, not what the user is: no fact may key it to a slot,
    where it would press the user's real job or role (a soft update of an accumulate slot)."""
    keyed = [(f.slot_key, f.value) for f in facts_of(RuleExtractor(), turn(text)) if f.slot_key]
    assert not any(v and v.lower().startswith(("a ", "the ")) for _, v in keyed), keyed


def test_a_participle_after_the_past_copula_is_still_told() -> None:
    """The guard is the noun phrase, not the tense: "I was ordained …" still says something."""
    values = [f.value for f in facts_of(RuleExtractor(), turn("I was ordained a deacon in 2011"))]
    assert any(v and v.lower().startswith("ordained") for v in values), values


# --- an amount after a scale-change verb; a priced noun's post-modifier ---


@pytest.mark.parametrize(
    ("first", "later", "slot"),
    [
        ("my phone contract is €32 a month", "phone contract went up again, €36 from may",
         "user.phone_contract"),
        ("our council tax is £140 a month, ouch", "the council tax has gone up to £152 a month",
         "user.council_tax"),
        ("my parking permit is $60 a quarter", "parking permit came down, $45 now",
         "user.parking_permit"),
        # a thing the money family keys itself: the moved amount takes the family's slot
        ("my gym membership is 45 euros a month",
         "the gym membership went up again, 52 euros a month now", "user.gym"),
    ],
)  # fmt: skip
def test_an_amount_after_a_scale_change_verb_meets_the_earlier_amount_in_its_slot(
    first: str, later: str, slot: str
) -> None:
    """A thing's amount said after "went up / has gone down / came down" (any thing, not the
    money family's listed items) is keyed as the possessive keys it, so the newer amount
    supersedes the older one in one slot (Table 1 row 8)."""
    (old,) = [f for f in facts_of(RuleExtractor(), turn(first)) if f.slot_key == slot]
    (new,) = [f for f in facts_of(RuleExtractor(), turn(later, 30)) if f.slot_key == slot]
    assert new.update is UpdateSemantics.REPLACE and new.numeric
    assert old.value != new.value
    assert "User's the " not in new.text  # the clause's determiner is not the thing's name


def test_a_difference_or_a_pronoun_after_a_scale_change_verb_is_no_value() -> None:
    for text in ("my phone contract went up by €4, annoying", "it went up to €36 again"):
        assert not any(f.numeric for f in facts_of(RuleExtractor(), turn(text))), text


@pytest.mark.parametrize(
    ("text", "slot"),
    [
        ("the rent for our two-bed is €1,400 a month, is that fair?", "user.rent"),
        ("the salary at my new place is $71,000", "user.salary"),
        ("the service fee on our building is £85 a month", "price.service_fee"),
    ],
)
def test_a_priced_nouns_post_modifier_does_not_name_its_slot(text: str, slot: str) -> None:
    """A priced "rent for our two-bed" is a rent: the slot is the noun before its prepositional
    phrase, and a noun that is an attribute's name takes the attribute's slot."""
    assert slot in {f.slot_key for f in facts_of(RuleExtractor(), turn(text))}


# --- a resumption of several foods; the resumptive "back on" without its subject ---


@pytest.mark.parametrize(
    "text",
    [
        "so i eat chicken and eggs again, the clinic said my b12 was tanking",
        "eating fish, eggs and dairy again after six years",
        "back on the fish. the lentil era did not agree with me",
        "I'm back on eggs or dairy most days",
    ],
)
def test_a_resumed_food_supersedes_the_diet_however_many_foods_are_named(text: str) -> None:
    """A coordination of foods is one object ("eggs and fish" as much as "fish"), and chat
    drops the subject of the resumptive "back on": either way the new eating lands in the
    diet slot, where it supersedes "I'm vegetarian" (paper AV1)."""
    (fact,) = [f for f in facts_of(RuleExtractor(), turn(text)) if f.slot_key == "user.diet"]
    assert fact.update is UpdateSemantics.REPLACE


def test_someone_elses_resumption_is_not_the_users_diet() -> None:
    for text in ("my sister is back on meat", "the dog is back on chicken and rice"):
        assert "user.diet" not in {f.slot_key for f in facts_of(RuleExtractor(), turn(text))}


# --- a negated state whose subject and copula chat dropped ---


@pytest.mark.parametrize(
    "text", ["not vegan anymore", "honestly not vegetarian anymore, I eat fish twice a week"]
)
def test_a_negated_state_without_its_subject_is_stated_as_a_state(text: str) -> None:
    """The fact reads "User is not vegan anymore": the negation is no verb to conjugate."""
    texts = [f.text for f in facts_of(RuleExtractor(), turn(text))]
    assert any(t.startswith("User is not ") for t in texts), texts
    assert not any(" nots " in t for t in texts), texts


@pytest.mark.parametrize(
    ("text", "role"),
    [
        ("I work as a lighthouse keeper on the coast", "lighthouse keeper"),
        ("these days I'm employed as a glazier, mostly shopfronts", "glazier"),
        ("honestly I'm a wheelwright by trade", "wheelwright"),
        ("I retrained as a farrier after the army", "farrier"),
        ("I make a living as a chimney sweep", "chimney sweep"),
    ],
)  # fmt: skip
def test_an_occupation_frame_names_a_profession_the_lexicon_does_not_know(
    text: str, role: str
) -> None:
    """The frame ("work as a", "employed as a", "… by trade") says the noun phrase is a job
    whatever the noun is (round 22): a trade outside the job lexicon is still the profession."""
    facts = {f.slot_key: f.value for f in facts_of(RuleExtractor(), turn(text))}
    assert facts.get("user.profession") == role


@pytest.mark.parametrize(
    "text",
    ["we work as a team on the weekends", "my sister works as a glazier", "I'm a wheelwright fan"],
)
def test_an_occupation_frame_needs_the_user_and_a_role(text: str) -> None:
    facts = {f.slot_key: f.value for f in facts_of(RuleExtractor(), turn(text))}
    assert "user.profession" not in facts
