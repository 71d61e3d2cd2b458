"""A 100,000-character turn through `frecall ingest` and `POST /v1/turns` (DESIGN §6: a turn
is never rejected for its length): kept whole, every chunk findable, its late fact found."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from frecall.api import create_api
from frecall.bootstrap import build
from frecall.cli import main
from frecall.embedded.deployment import EmbeddedDeployment
from frecall.settings import Settings
from workers.app import App
from workers.export import export_user
from workers.extraction.rules import RuleExtractor

pytestmark = pytest.mark.e2e
LATE_FACT = "Anyway, unrelated, but I moved to Lisbon last month and I love it there."


def document(chars: int) -> str:
    """A pasted server log of `chars` characters, no two lines alike, then the user's words."""
    lines: list[str] = []
    size = 0
    i = 0
    while size < chars - len(LATE_FACT) - 200:
        line = (
            f"2026-02-{1 + i % 28:02d} 10:{i % 60:02d}:{i % 59:02d} INFO worker-{i % 13} "
            f"processed batch {i * 7} of queue {'abcdefgh'[i % 8]} in {i % 97} ms\n"
        )
        lines.append(line)
        size += len(line)
        i += 1
    head = "Could you look at this log from our staging cluster? It keeps stalling.\n\n"
    text = head + "".join(lines)
    return text + " " * (chars - len(text) - len(LATE_FACT) - 2) + "\n\n" + LATE_FACT


def turn_line(text: str, turn_id: str = "t1") -> dict[str, Any]:
    return {
        "user_id": "ana",
        "session_id": "s1",
        "turn_id": turn_id,
        "role": "user",
        "text": text,
        "timestamp": "2026-03-01T12:00:00Z",
    }


def _reassembled(facts: list[dict[str, Any]]) -> str:
    raw = [f["edge"] for f in facts if f["edge"]["episodic"]]

    def part(edge: dict[str, Any]) -> int:
        suffix = edge["edge_id"].rsplit("#raw", 1)[1]
        return int(suffix[1:]) if suffix else 1

    return "".join(e["text"] for e in sorted(raw, key=part))


def test_cli_ingests_a_100k_turn_and_finds_its_late_fact(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = document(100_000)
    assert len(text) == 100_000
    turns = tmp_path / "turns.jsonl"
    turns.write_text(json.dumps(turn_line(text)) + "\n", encoding="utf-8")
    data = str(tmp_path / "data")
    assert main(["ingest", "--data-dir", data, str(turns)]) == 0
    capsys.readouterr()

    assert main(["export", "--data-dir", data, "--user", "ana", "--json"]) == 0
    exported = json.loads(capsys.readouterr().out)
    assert _reassembled(exported["facts"]) == text  # kept whole

    assert main(["query", "--data-dir", data, "--user", "ana", "--json",
                 "--as-of", "2026-03-02T00:00:00Z", "Which city do I live in?"]) == 0  # fmt: skip
    results = json.loads(capsys.readouterr().out)["results"]
    assert "Lisbon" in results[0]["text"] and results[0]["source_turns"] == ["t1"]

    # Every chunk is findable on its own: a line from the middle of the paste.
    assert main(["query", "--data-dir", data, "--user", "ana", "--json",
                 "processed batch 4900 of queue e"]) == 0  # fmt: skip
    results = json.loads(capsys.readouterr().out)["results"]
    assert any("processed batch 4900 of queue e" in r["text"] for r in results[:3])


@pytest.fixture
def deployment(tmp_path: Path) -> Iterator[App]:
    app = build(Settings(data_dir=tmp_path / "data", embedder="hashing"), fsync=False)
    try:
        yield app
    finally:
        app.close()


def test_http_takes_a_100k_turn(deployment: App) -> None:
    text = document(100_000)
    with TestClient(create_api(EmbeddedDeployment.over(deployment, RuleExtractor()))) as client:
        response = client.post("/v1/turns", json={"turns": [turn_line(text)]})
        assert response.status_code == 200, response.text
        body = response.json()
        assert body["failed"] == 0 and body["failures"] == []
        assert body["edge_ids"][-1] == "s1/t1#raw"
        assert len(body["edge_ids"]) > 100
    facts = export_user(deployment.vectors, "ana")["facts"]
    assert _reassembled(facts) == text
    late = [f["edge"] for f in facts if not f["edge"]["episodic"] and "Lisbon" in f["edge"]["text"]]
    assert late and late[0]["slot_key"] == "user.current_city"
