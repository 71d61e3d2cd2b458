"""Table tests for habits said in free phrasing (AV1): the usual coffee, the milk one buys,
the favourite cuisine, the commute, the wake-up time.

Each kind has at least five phrasings, most outside any benchmark template; an earlier habit
and a later one in other words must share one slot (so the newer supersedes the older).
Rows that must yield nothing guard against over-matching ("I'm up at 3am worrying", "I could
eat a horse", "I'm a people person", "I'm on my third coffee now").
"""

from __future__ import annotations

import zlib
from datetime import UTC, datetime

import pytest

from schemas.events import TurnEvent
from workers.extraction import RuleExtractor

TS = datetime(2025, 3, 12, 14, 30, tzinfo=UTC)
EXTRACTOR = RuleExtractor()


def values(text: str) -> dict[str, str | None]:
    turn = TurnEvent(
        user_id="u1", session_id="s1", turn_id=f"t{zlib.crc32(text.encode())}",
        role="user", text=text, timestamp=TS,
    )  # fmt: skip
    return {f.slot_key: f.value for f in EXTRACTOR.extract(turn) if f.slot_key}


ROWS = [
    ("A cortado every morning, without fail", "user.coffee_order", "cortado"),
    ("I gave up cortados, I'm on black americanos now", "user.coffee_order", "black americanos"),
    ("My order is a macchiato now", "user.coffee_order", "macchiato"),
    ("I can't start the day without a flat white", "user.coffee_order", "flat white"),
    ("im onto iced lattes these days", "user.coffee_order", "iced lattes"),
    ("I always buy whole milk", "user.milk", "whole milk"),
    ("I only use Bonsoy oat in my coffee", "user.milk", "Bonsoy oat"),
    ("I'm a soy milk person", "user.milk", "soy milk"),
    ("Coconut milk is the only one I trust for flat whites", "user.milk", "Coconut milk"),
    ("I'm buying oat milk instead of coconut milk these days", "user.milk", "oat milk"),
    ("We always have almond milk in the fridge", "user.milk", "almond milk"),
    ("I have moved to lactose-free milk", "user.milk", "lactose-free milk"),
    ("we've gone over to oat milk", "user.milk", "oat milk"),
    ("I'm flexitarian", "user.diet", "flexitarian"),
    ("I've been flexitarian for like 5 years", "user.diet", "flexitarian"),
    ("I could eat Peruvian every day", "user.food_preference", "Peruvian"),
    ("Honestly Mexican is my favourite now, sorry Japanese", "user.food_preference", "Mexican"),
    ("I've gone off Korean food, Thai is my thing now", "user.food_preference", "Thai"),
    ("Sichuan has overtaken Thai as my favourite food", "user.food_preference", "Sichuan"),
    ("Nothing beats Lebanese food for me", "user.food_preference", "Lebanese food"),
    ("I commute by tram", "user.commute", "by tram"),
    ("I get to work on foot now, much better than by tram", "user.commute", "on foot"),
    ("My commute is by e-scooter, rain or shine", "user.commute", "by e-scooter"),
    ("Switched my commute, I go by bike now", "user.commute", "by bike"),
    ("i now get to work by ferry", "user.commute", "by ferry"),
    ("5:30am wake-ups are my routine", "user.wake_time", "5:30am"),
    ("I'm up at 5:30am every day", "user.wake_time", "5:30am"),
    ("I've moved my alarm to 6am", "user.wake_time", "6am"),
    ("My alarm goes off at 7:30am", "user.wake_time", "7:30am"),
    ("No more 7am starts, I'm up at 6:30am these days", "user.wake_time", "6:30am"),
]


@pytest.mark.parametrize(("text", "slot", "value"), ROWS)
def test_habits_in_free_phrasing(text: str, slot: str, value: str) -> None:
    assert values(text).get(slot) == value, values(text)


PAIRS = [
    ("My usual order is a cortado", "I gave up cortados, I'm on macchiatos now"),
    ("I switched to oat milk", "I'm a soy milk person"),
    ("My favourite food is Japanese", "Honestly Mexican is my favourite now, sorry Japanese"),
    ("I take the train to work", "Switched my commute, I go by e-scooter now"),
    ("I wake up at 7am", "I've moved my alarm to 6am"),
]


@pytest.mark.parametrize(("earlier", "later"), PAIRS)
def test_a_changed_habit_shares_the_slot(earlier: str, later: str) -> None:
    assert set(values(earlier)) & set(values(later)), (values(earlier), values(later))


@pytest.mark.parametrize(
    "text",
    [
        "I'm up at 3am worrying",
        "I go by bus to see my mum",
        "I'm on my third coffee now",
        "I could eat a horse",
        "Nothing beats a good book",
        "My sister is a coffee person",
        "I'm a people person",
        "My alarm clock broke",
        "I moved to a new team",
    ],
)
def test_no_habit_where_there_is_none(text: str) -> None:
    slots = set(values(text))
    assert not slots & {
        "user.coffee_order", "user.milk", "user.food_preference", "user.commute",
        "user.wake_time",
    }, (text, slots)  # fmt: skip


def test_moving_to_a_city_is_still_a_move() -> None:
    assert values("We moved to Lisbon in May").get("user.current_city") == "Lisbon"
