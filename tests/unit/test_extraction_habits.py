"""Table tests for habits in free phrasing: music taste and workout time (AV1 staleness).

Each slot: phrasings (most outside any benchmark template), pairs whose later turn must land
in the earlier turn's slot with a new value, and rows that must yield nothing in the slot.
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


def in_slot(text: str, slot: str) -> list[ExtractedFact]:
    turn = TurnEvent(
        user_id="u1", session_id="s1", turn_id=f"t{zlib.crc32(text.encode())}",
        role="user", text=text, timestamp=TS,
    )  # fmt: skip
    return [f for f in EXTRACTOR.extract(turn) if f.slot_key == slot]


MUSIC = "user.music_preference"
WORKOUT = "user.workout_time"
ROWS: tuple[tuple[str, str, str], ...] = (
    ("my playlists are all techno", MUSIC, "techno"),
    ("I can't get enough synthwave", MUSIC, "synthwave"),
    ("Afrobeat is all I listen to", MUSIC, "afrobeat"),
    ("these days I mostly listen to indie folk", MUSIC, "indie folk"),
    ("I've moved on from hip hop, it's all heavy metal now", MUSIC, "heavy metal"),
    ("I'm really into drum and bass", MUSIC, "drum and bass"),
    ("My Spotify is basically just jazz", MUSIC, "jazz"),
    ("I hit the gym at lunchtime these days", WORKOUT, "at lunchtime"),
    ("My workouts are late at night now, mornings weren't working", WORKOUT, "late at night"),
    ("I train in the evening after work", WORKOUT, "in the evening after work"),
    ("We usually go to the gym before work", WORKOUT, "before work"),
    ("I work out at 6am, before the kids wake up", WORKOUT, "at 6am"),
    ("No more gym late at night, I go on weekends now", WORKOUT, "on weekends"),
)
PAIRS: tuple[tuple[str, str, str], ...] = (
    ("I mostly listen to techno", "my playlists are all indie folk", MUSIC),
    ("I'm really into hip hop", "Switched from hip hop to Afrobeat, no regrets", MUSIC),
    ("I can't get enough K-pop", "I've moved on from K-pop, it's all jazz now", MUSIC),
    ("I work out early in the morning", "My workouts are on weekends now", WORKOUT),
    ("I hit the gym late at night", "I've started working out at lunchtime instead", WORKOUT),
)
NOTHING: tuple[tuple[str, str], ...] = (
    ("my sister mostly listens to jazz", MUSIC),
    ("I'm not into techno anymore", MUSIC),
    ("we danced to some techno at the wedding", MUSIC),
    ("I don't work out at night", WORKOUT),
    ("I catch my train at 8am", WORKOUT),
    ("my partner trains at lunchtime", WORKOUT),
    ("I used to hit the gym at lunchtime", WORKOUT),
)


@pytest.mark.parametrize(("text", "slot", "value"), ROWS)
def test_habit_rows(text: str, slot: str, value: str) -> None:
    facts = in_slot(text, slot)
    assert facts and facts[0].value == value, f"{text!r}: {facts}"
    assert facts[0].update is UpdateSemantics.REPLACE and facts[0].confidence >= 0.95


@pytest.mark.parametrize(("earlier", "later", "slot"), PAIRS)
def test_habit_change_shares_the_slot(earlier: str, later: str, slot: str) -> None:
    old, new = in_slot(earlier, slot), in_slot(later, slot)
    assert old and new and old[0].value != new[0].value


@pytest.mark.parametrize(("text", "slot"), NOTHING)
def test_not_a_current_habit(text: str, slot: str) -> None:
    assert not in_slot(text, slot)
