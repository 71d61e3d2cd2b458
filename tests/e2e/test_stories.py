"""Stories told in ordinary language → `frecall ingest` (rule extractor) → the right memory.

One test per kind of change the paper's LifecycleBench attacks (Table 12): AV1 superseded
preference, AV2 expired logistics, AV4 multi-version fact, AV7 selective forgetting
(retraction), AV8 numeric preservation, AV9 soft supersession.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from frecall.cli import main

pytestmark = pytest.mark.e2e
T0 = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)
FILLER = [
    "I watched a documentary about octopuses last night.",
    "Work was busy today, lots of meetings.",
    "I'm reading a novel about a lighthouse keeper.",
    "The weather has been grey all week.",
    "I tried a new bakery near the station.",
    "My sister called to talk about her garden.",
]


def ingest(tmp_path: Path, user: str, days_and_texts: list[tuple[float, str]]) -> Path:
    """Write the turns (one session per day) and ingest them; returns the data dir."""
    tmp_path.mkdir(parents=True, exist_ok=True)
    turns = tmp_path / f"{user}.jsonl"
    with turns.open("w", encoding="utf-8") as fh:
        for i, (day, text) in enumerate(days_and_texts):
            at = T0 + timedelta(days=day, minutes=i)
            fh.write(
                json.dumps(
                    {
                        "user_id": user,
                        "session_id": f"s{int(day)}",
                        "turn_id": f"t{i}",
                        "role": "user",
                        "text": text,
                        "timestamp": at.isoformat(),
                    }
                )
                + "\n"
            )
    data = tmp_path / "data"
    assert main(["ingest", "--data-dir", str(data), "--extractor", "rules", str(turns)]) == 0
    return data


def ask(
    capsys: pytest.CaptureFixture[str], data: Path, user: str, question: str, day: float, k: int = 5
) -> list[dict]:  # type: ignore[type-arg]
    capsys.readouterr()
    as_of = (T0 + timedelta(days=day)).isoformat()
    assert (
        main(
            [
                "query",
                "--data-dir",
                str(data),
                "--user",
                user,
                "--as-of",
                as_of,
                "--k",
                str(k),
                "--json",
                question,
            ]
        )
        == 0
    )
    return json.loads(capsys.readouterr().out)["results"]  # type: ignore[no-any-return]


def texts(results: list[dict]) -> list[str]:  # type: ignore[type-arg]
    return [r["text"].lower() for r in results]


def with_filler(story: list[tuple[float, str]], until: float) -> list[tuple[float, str]]:
    chatter = [(d + 0.5, FILLER[int(d) % len(FILLER)]) for d in range(0, int(until), 3)]
    return sorted(story + chatter)


def test_av1_superseded_preference(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = ingest(
        tmp_path,
        "ana",
        with_filler(
            [
                (0, "I've been vegetarian for about five years now."),
                (40, "Big news: I started eating fish again last month."),
            ],
            60,
        ),
    )
    got = texts(ask(capsys, data, "ana", "What is my diet? Do I eat meat or fish?", 61))
    assert "fish" in got[0]
    assert not any("vegetarian" in t and "fish" not in t for t in got)


def test_av2_expired_logistics(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = ingest(
        tmp_path,
        "ben",
        [
            (0, "I have a flight to Lisbon at 6am on January 20."),
            (10, "I have a dentist appointment on February 10 at 3pm."),
        ],
    )
    upcoming = texts(ask(capsys, data, "ben", "What do I have coming up?", 30))
    assert any("dentist" in t for t in upcoming)
    assert not any("lisbon" in t for t in upcoming)
    current = texts(ask(capsys, data, "ben", "When is my flight to Lisbon?", 60))
    assert not any("lisbon" in t for t in current)  # expired beyond the buffer


def test_av4_multi_version_fact(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = ingest(
        tmp_path,
        "cai",
        with_filler(
            [
                (0, "I work at Google as a software engineer."),
                (30, "I left Google and joined Stripe this week."),
                (70, "Update: I just started a new job at Anthropic!"),
            ],
            90,
        ),
    )
    got = texts(ask(capsys, data, "cai", "Where do I work now?", 91))
    assert "anthropic" in got[0]
    assert not any("stripe" in t and "anthropic" not in t for t in got)


def test_av7_retracted_plan(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = ingest(
        tmp_path,
        "dee",
        with_filler(
            [
                (0, "I'm planning to adopt a dog this spring."),
                (20, "The dog thing is dead, my landlord said no pets."),
            ],
            30,
        ),
    )
    current = ask(capsys, data, "dee", "Am I getting a dog?", 31)
    assert not any(r["state"] == "retracted" for r in current)
    assert not any("planning to adopt" in t for t in texts(current))
    cancelled = ask(capsys, data, "dee", "Which of my plans fell through?", 31)
    assert any("adopt a dog" in t for t in texts(cancelled))


def test_av8_numeric_preservation(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = ingest(
        tmp_path,
        "eli",
        with_filler(
            [
                (0, "My rent is $950 a month for the flat on Elm Street."),
            ],
            150,
        ),
    )
    got = texts(ask(capsys, data, "eli", "How much rent do I pay?", 180, k=3))
    assert "$950" in got[0] or "950" in got[0]


def test_av9_soft_supersession(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    story = [
        (0, "I live in Munich with my partner."),
        (20, "I'm thinking about moving to Berlin next year, not decided yet."),
    ]
    data = ingest(tmp_path, "fay", with_filler(story, 30))
    got = texts(ask(capsys, data, "fay", "Where do I live?", 31))
    assert "munich" in got[0]
    moved = ingest(
        tmp_path / "later", "fay", with_filler([*story, (40, "We moved to Berlin!")], 50)
    )
    got = texts(ask(capsys, moved, "fay", "Where do I live?", 51))
    assert "berlin" in got[0] and "thinking" not in got[0]
    assert not any("munich" in t and "berlin" not in t for t in got)
