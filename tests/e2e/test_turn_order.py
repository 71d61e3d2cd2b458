"""Turns through `frecall ingest` (rule extractor) converge whatever the interleaving of users
(DESIGN.md §5: arrival order and replays converge to the same state; per-user order is the
partitioning's, so only users interleave): the same exports byte for byte and the same
answers; `frecall replay` rebuilds both; `frecall forget --user` leaves nothing of that user
served and every other answer as it was, and replay does not bring it back (round 27,
r27-mend's determinism check, here at the turn level; the edge-level properties are
tests/unit/test_stream_properties.py and tests/e2e/test_ranking_determinism.py).

Every sentence is written here for the test; none comes from a paper-turns set.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from itertools import zip_longest
from pathlib import Path
from typing import Any

import pytest

from frecall.cli import main

pytestmark = pytest.mark.e2e
T0 = datetime(2026, 2, 2, 8, 0, tzinfo=UTC)
AS_OF = (T0 + timedelta(days=90)).isoformat()

#: (day, text) of each user's turns, in the order they told them.
STORIES: dict[str, list[tuple[int, str]]] = {
    "ines": [
        (0, "I'm living in Porto these days, a flat near the river."),
        (3, "We're planning a kayak trip down the Douro in June."),
        (9, "My brother keeps borrowing my bike and never oils the chain."),
        (30, "Big change: I moved to Lyon last week for a new job."),
        (41, "Scrap the kayak trip, the river is closed all summer."),
        (50, "I'm learning to bake sourdough on Sundays."),
    ],
    "teo": [
        (1, "I play bass in a covers band on Friday nights."),
        (5, "I earn 41,000 a year at the print shop."),
        (20, "We're getting a puppy in the spring, a small terrier."),
        (35, "Forget the puppy plan, our lease forbids pets."),
        (44, "My salary went up, I make 46,000 a year now."),
        (52, "I switched from bass to drums in the band."),
    ],
}
QUESTIONS = [
    ("ines", "Where do I live now?"),
    ("ines", "What trip am I planning?"),
    ("ines", "What do I do on Sundays?"),
    ("teo", "How much do I earn?"),
    ("teo", "Are we getting a dog?"),
    ("teo", "What instrument do I play?"),
]


def _turn(user: str, n: int, day: int, text: str) -> str:
    at = T0 + timedelta(days=day, minutes=n)
    return json.dumps({"user_id": user, "session_id": f"{user}-d{day}", "turn_id": f"t{n}",
                       "role": "user", "text": text, "timestamp": at.isoformat()})  # fmt: skip


def _lines(user: str) -> list[str]:
    return [_turn(user, n, day, text) for n, (day, text) in enumerate(STORIES[user])]


def _cli(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    capsys.readouterr()
    assert main(list(argv)) == 0
    return capsys.readouterr().out


def _ingest(tmp_path: Path, data: Path, name: str, lines: list[str]) -> None:
    path = tmp_path / f"{name}.jsonl"
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    assert main(["ingest", "--data-dir", str(data), "--extractor", "rules", str(path)]) == 0


def _state(capsys: pytest.CaptureFixture[str], data: Path, batch: Path) -> tuple[str, list[Any]]:
    """(every user's export, the answers to QUESTIONS as JSON)."""
    exports = "".join(
        _cli(capsys, "export", "--data-dir", str(data), "--user", user, "--json")
        for user in sorted(STORIES)
    )
    out = _cli(capsys, "query", "--data-dir", str(data), "--batch", str(batch), "--json")
    return exports, [json.loads(line) for line in out.splitlines()]


@pytest.fixture
def batch(tmp_path: Path) -> Path:
    path = tmp_path / "questions.jsonl"
    path.write_text("".join(json.dumps({"user_id": u, "query": q, "as_of": AS_OF, "k": 5}) + "\n"
                            for u, q in QUESTIONS), encoding="utf-8")  # fmt: skip
    return path


def test_users_interleaved_otherwise_replay_and_forget(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], batch: Path
) -> None:
    # One user after the other, in one run.
    first = tmp_path / "first"
    _ingest(tmp_path, first, "one-by-one", _lines("ines") + _lines("teo"))
    exports, answers = _state(capsys, first, batch)
    # The lifecycle had work to do: something was replaced and something retracted.
    assert '"state":"superseded"' in exports and '"state":"retracted"' in exports
    assert all(a["results"] for a in answers)

    # Users alternating, the other one first, in two runs (each user's later turns arrive in
    # a later run than their earlier ones): the same state and the same answers.
    pairs = [t for row in zip_longest(_lines("teo"), _lines("ines")) for t in row if t]
    other = tmp_path / "other"
    _ingest(tmp_path, other, "early", pairs[:5])
    _ingest(tmp_path, other, "late", pairs[5:])
    assert _state(capsys, other, batch) == (exports, answers)

    # Replay rebuilds both from the log.
    _cli(capsys, "replay", "--data-dir", str(first), "--json")
    assert _state(capsys, first, batch) == (exports, answers)

    # Forgetting a user: nothing of theirs is served, the other's answers stay.
    _cli(capsys, "forget", "--data-dir", str(first), "--user", "teo", "--json")
    after_exports, after = _state(capsys, first, batch)
    for (user, _), before, now in zip(QUESTIONS, answers, after, strict=True):
        if user == "teo":
            assert now["results"] == []
        else:
            assert now == before
    assert '"teo"' in after_exports and "print shop" not in after_exports
    _cli(capsys, "replay", "--data-dir", str(first), "--json")
    assert _state(capsys, first, batch) == (after_exports, after)
