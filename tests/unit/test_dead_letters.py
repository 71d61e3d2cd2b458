"""Dead letters: one JSON object per rejected input, readable back in order."""

from __future__ import annotations

import json
import logging
from datetime import UTC, datetime
from pathlib import Path

import pytest

from workers.errors import StorageError
from workers.ports import DeadLetters
from workers.stores.dead_letters import FileDeadLetters, InMemoryDeadLetters, read_dead_letters

T0 = datetime(2026, 1, 1, 12, 30, tzinfo=UTC)


def clock() -> datetime:
    return T0


def test_file_dead_letters_round_trip(tmp_path: Path) -> None:
    path = tmp_path / "sub" / "dead.jsonl"
    letters: DeadLetters = FileDeadLetters(path, clock=clock)
    letters.put("turns.jsonl", "3", "text: field required", '{"user_id": "u1"}')
    letters.put("fr.turns", "0/17", "bad utf-8", "caf\udce9 \n\u2028 ünï")
    got = read_dead_letters(path)
    assert got == [
        {
            "at": "2026-01-01T12:30:00+00:00",
            "source": "turns.jsonl",
            "position": "3",
            "reason": "text: field required",
            "raw": '{"user_id": "u1"}',
        },
        {
            "at": "2026-01-01T12:30:00+00:00",
            "source": "fr.turns",
            "position": "0/17",
            "reason": "bad utf-8",
            "raw": "caf\udce9 \n\u2028 ünï",
        },
    ]
    lines = path.read_text(encoding="ascii").splitlines()
    assert len(lines) == 2
    assert all(json.loads(line)["source"] for line in lines)


def test_each_put_is_on_disk_immediately(tmp_path: Path) -> None:
    path = tmp_path / "dead.jsonl"
    letters = FileDeadLetters(path)
    letters.put("a", "1", "r", "x")
    assert len(read_dead_letters(path)) == 1
    assert datetime.fromisoformat(read_dead_letters(path)[0]["at"]).tzinfo is not None


def test_missing_file_reads_as_empty(tmp_path: Path) -> None:
    assert read_dead_letters(tmp_path / "none.jsonl") == []


def test_torn_last_line_is_skipped_with_a_warning(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "dead.jsonl"
    FileDeadLetters(path, clock=clock).put("a", "1", "r", "x")
    with path.open("a") as f:
        f.write('{"at": "2026')
    with caplog.at_level(logging.WARNING):
        assert len(read_dead_letters(path)) == 1
    assert any("torn" in r.getMessage() for r in caplog.records)


@pytest.mark.parametrize("bad", ["not json", '{"at": "x"}', "[1, 2]"])
def test_malformed_middle_line_raises_with_file_and_line(tmp_path: Path, bad: str) -> None:
    path = tmp_path / "dead.jsonl"
    letters = FileDeadLetters(path, clock=clock)
    letters.put("a", "1", "r", "x")
    with path.open("a") as f:
        f.write(bad + "\n")
    letters.put("a", "2", "r", "y")
    with pytest.raises(StorageError, match=r"dead\.jsonl:2"):
        read_dead_letters(path)


def test_unwritable_path_raises_storage_error(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    with pytest.raises(StorageError, match="dead letters: put failed"):
        FileDeadLetters(blocker / "dead.jsonl").put("a", "1", "r", "x")


def test_in_memory_dead_letters_record_the_same_shape() -> None:
    letters = InMemoryDeadLetters(clock=clock)
    sink: DeadLetters = letters
    sink.put("fr.turns", "2/5", "reason", "raw")
    assert letters.letters == [
        {
            "at": "2026-01-01T12:30:00+00:00",
            "source": "fr.turns",
            "position": "2/5",
            "reason": "reason",
            "raw": "raw",
        }
    ]
