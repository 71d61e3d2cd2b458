"""`frecall ingest` through the LLM extractor (real openai client, local fake server) and
through the rule extractor, on the same turns and the same lifecycle path."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from frecall.cli import main
from tests.fake_openai import ChatReply, serve_fake_openai
from workers.stores.dead_letters import read_dead_letters

pytestmark = pytest.mark.e2e

TURNS = [
    ("t1", "user", "I live in Istanbul.", "2026-03-01T10:00:00Z"),
    ("t2", "assistant", "Istanbul is a wonderful city.", "2026-03-01T10:00:05Z"),
    ("t3", "user", "I'm thinking about moving to London.", "2026-04-01T10:00:00Z"),
    (
        "t4",
        "user",
        "We finally moved to London! Rent here is £2,100 a month.",
        "2026-05-01T10:00:00Z",
    ),
    ("t5", "user", "Such a long week, honestly.", "2026-05-02T10:00:00Z"),
    ("t6", "user", "Anyway, more soon.", "2026-05-03T10:00:00Z"),
]


def _fact(
    text: str,
    category: str,
    slot: str | None,
    value: str | None,
    update: str,
    confidence: float,
    numeric: bool = False,
) -> dict[str, Any]:
    return {
        "reason": "stated by the user",
        "text": text,
        "categories": [{"category": category, "weight": 1.0}],
        "slot_key": slot,
        "value": value,
        "update": update,
        "confidence": confidence,
        "event_time": None,
        "retracts": [],
        "numeric": numeric,
        "emotional_loading": 0.0,
        "quarantined": False,
    }


REPLIES = [
    ChatReply.json(
        {
            "facts": [
                _fact(
                    "User lives in Istanbul",
                    "IDENTITY_SELF_CONCEPT",
                    "user.current_city",
                    "Istanbul",
                    "replace",
                    0.97,
                )
            ]
        }
    ),
    ChatReply.json(
        {
            "facts": [
                _fact(
                    "User is thinking about moving to London",
                    "IDENTITY_SELF_CONCEPT",
                    "user.current_city",
                    "London",
                    "soft",
                    0.4,
                )
            ]
        }
    ),
    ChatReply.json(
        {
            "facts": [
                _fact(
                    "User moved to London",
                    "IDENTITY_SELF_CONCEPT",
                    "user.current_city",
                    "London",
                    "replace",
                    0.97,
                ),
                _fact(
                    "User's rent is £2,100 a month",
                    "FINANCIAL_MATERIAL",
                    "user.rent",
                    "£2,100/month",
                    "replace",
                    0.95,
                    numeric=True,
                ),
            ]
        }
    ),
    ChatReply(content='{"facts": [ {"text": "half an answer'),  # t5: unparseable
]


def _write_turns(path: Path) -> None:
    with path.open("w", encoding="utf-8") as fh:
        for turn_id, role, text, ts in TURNS:
            fh.write(
                json.dumps(
                    {
                        "user_id": "gus",
                        "session_id": "s1",
                        "turn_id": turn_id,
                        "role": role,
                        "text": text,
                        "timestamp": ts,
                    }
                )
                + "\n"
            )


def _states(capsys: pytest.CaptureFixture[str], data: Path) -> dict[str, str]:
    capsys.readouterr()
    assert main(["export", "--data-dir", str(data), "--user", "gus", "--json"]) == 0
    facts = json.loads(capsys.readouterr().out)["facts"]
    return {f["edge"]["text"]: f["lifecycle"]["state"] for f in facts}


def _top(capsys: pytest.CaptureFixture[str], data: Path, question: str) -> dict[str, Any]:
    capsys.readouterr()
    assert (
        main(
            [
                "query",
                "--data-dir",
                str(data),
                "--user",
                "gus",
                "--as-of",
                "2026-05-10T00:00:00Z",
                "--json",
                question,
            ]
        )
        == 0
    )
    return json.loads(capsys.readouterr().out)["results"][0]  # type: ignore[no-any-return]


def test_same_turns_through_llm_and_rules(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    turns = tmp_path / "turns.jsonl"
    _write_turns(turns)
    llm_dir, rules_dir = tmp_path / "llm", tmp_path / "rules"
    with serve_fake_openai() as fake:
        fake.chat_replies.extend(REPLIES)
        fake.chat_default = ChatReply.error(500)  # t6: the endpoint keeps failing
        monkeypatch.setenv("FR_OPENAI_BASE_URL", fake.base_url)
        monkeypatch.setenv("FR_OPENAI_API_KEY", "sk-test")
        code = main(["ingest", "--data-dir", str(llm_dir), "--extractor", "llm", str(turns)])
        requests = fake.chat_requests()
    err = capsys.readouterr().err
    assert code == 1  # two turns failed extraction; everything else went in
    assert len(requests) == 4 + 3  # one call per user turn; the failing one tried 3 times
    assert f"{turns}:5: " in err and f"{turns}:6: " in err

    letters = read_dead_letters(llm_dir / "dead-letters.jsonl")
    assert [letter["position"] for letter in letters] == ["5", "6"]
    assert "half an answer" in letters[0]["reason"]  # the raw response is kept
    assert "extraction failed" in letters[1]["reason"]

    llm_states = _states(capsys, llm_dir)
    assert llm_states["User lives in Istanbul"] == "superseded"
    assert llm_states["User moved to London"] == "active"
    assert llm_states["Such a long week, honestly."] == "active"  # raw turn kept (App. AA)

    assert main(["ingest", "--data-dir", str(rules_dir), "--extractor", "rules", str(turns)]) == 0
    for data in (llm_dir, rules_dir):
        top = _top(capsys, data, "Where do I live now?")
        assert "london" in top["text"].lower() and "thinking" not in top["text"].lower()
        assert top["source_turns"] == ["t4"]
        rent = _top(capsys, data, "How much is my rent?")
        assert "2,100" in rent["text"]


def test_ingest_releases_its_connections_to_the_model(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Keep-alive sockets left to the garbage collector become a ResourceWarning in whichever
    # later test triggers the collection (stop 19's CI failed that way).
    turns = tmp_path / "turns.jsonl"
    _write_turns(turns)
    with serve_fake_openai() as fake:
        fake.chat_replies.extend(REPLIES)
        monkeypatch.setenv("FR_OPENAI_BASE_URL", fake.base_url)
        monkeypatch.setenv("FR_OPENAI_API_KEY", "sk-test")
        main(["ingest", "--data-dir", str(tmp_path / "d"), "--extractor", "llm", str(turns)])
        assert fake.chat_requests()  # the model was called over a real connection
        deadline = time.monotonic() + 10
        while fake.open_connections and time.monotonic() < deadline:
            time.sleep(0.05)  # the server notices the client's close asynchronously
        assert fake.open_connections == 0
