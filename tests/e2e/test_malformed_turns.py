"""`frecall ingest` turn lines that do not parse (embedded): reported as `FILE:LINE: reason`,
kept in the dead-letter log, the exit status 1, and every good line still goes in. The
distributed producer, `fr.turns`,
`fr.edges`, `fr.commands` and `fr.transitions` are covered in
tests/integration/test_distributed.py."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from frecall.cli import main
from workers.stores.dead_letters import read_dead_letters

pytestmark = pytest.mark.e2e


def turn(turn_id: str, text: str, **changes: object) -> dict[str, object]:
    return {
        "user_id": "u",
        "session_id": "s1",
        "turn_id": turn_id,
        "role": "user",
        "text": text,
        "timestamp": "2026-03-01T10:00:00Z",
        **changes,
    }


def test_bad_turn_lines_are_reported_dead_lettered_and_the_rest_goes_in(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    lines = [
        json.dumps(turn("t1", "I work as a nurse.")),
        "{not json",
        json.dumps(turn("t2", "I like tea.", role="narrator")),
        json.dumps(turn("t3", "I like coffee.", timestamp="last tuesday")),
        json.dumps({k: v for k, v in turn("t4", "I have a dog.").items() if k != "session_id"}),
        "[1, 2, 3]",
        "",
        json.dumps(turn("t5", "I live in Lisbon.")),
        json.dumps(turn("t6", "I play chess on Sundays.")),
    ]
    src = tmp_path / "turns.jsonl"
    src.write_text("\n".join(lines) + "\n", encoding="utf-8")
    data = tmp_path / "d"
    code = main(["ingest", "--data-dir", str(data), str(src)])
    _, err = capsys.readouterr()
    assert code == 1
    bad = (2, 3, 4, 5, 6)
    for line in bad:
        assert f"{src}:{line}: " in err
    assert f"{src}:8:" not in err and f"{src}:9:" not in err and f"{src}:1:" not in err
    letters = read_dead_letters(data / "dead-letters.jsonl")
    assert [int(letter["position"]) for letter in letters] == list(bad)
    assert letters[0]["raw"] == "{not json"
    assert main(["export", "--data-dir", str(data), "--user", "u", "--json"]) == 0
    facts = json.loads(capsys.readouterr()[0])["facts"]
    kept = {f["edge"]["source_turns"][0].split("/")[-1] for f in facts if f["edge"]["source_turns"]}
    assert {"t1", "t5", "t6"} <= kept and not kept & {"t2", "t3", "t4"}
