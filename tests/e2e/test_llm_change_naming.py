"""The LLM path gets change naming as the rule path does (issue 11): a turn the model
extracted nothing from is kept as its raw turn; a later fact that names its value as ended
("left Google") supersedes it, and a turn that only shares a common word stays current.
Real `openai` client, local fake server, MiniLM embeddings."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from frecall.cli import main
from tests.e2e.llm_ingest import ingest_through_fake_llm
from tests.e2e.test_ingest_llm import _fact

pytestmark = pytest.mark.e2e

TURNS = [
    ("t1", "ok. context: I'm an ML engineer at Google, Gemini memory team, so meetings never end",
     "2025-02-02T10:00:00Z"),
    ("t2", "what's a good way to stop my calendar from double-booking me?",
     "2025-03-01T10:00:00Z"),
    ("t3", "I left Google last month and joined Anthropic, first week was a blur",
     "2025-11-20T10:00:00Z"),
]  # fmt: skip

REPLIES: list[dict[str, Any]] = [
    {"facts": []},  # the model missed the employer: only the raw turn is kept
    {"facts": []},
    {"facts": [_fact("User left Google and works at Anthropic", "IDENTITY_SELF_CONCEPT",
                     "user.employer", "Anthropic", "replace", 0.95, False)]},
]  # fmt: skip


def test_llm_change_statement_supersedes_the_unslotted_old_turn(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    data, _ = ingest_through_fake_llm(tmp_path, monkeypatch, "pia", TURNS, REPLIES)

    capsys.readouterr()
    assert main(["export", "--data-dir", str(data), "--user", "pia", "--json"]) == 0
    facts = json.loads(capsys.readouterr().out)["facts"]
    by_turn = {(tuple(f["edge"]["source_turns"]), f["edge"]["episodic"]): f for f in facts}
    old = by_turn[(("t1",), True)]["lifecycle"]
    change, statement = by_turn[(("t3",), False)], by_turn[(("t3",), True)]
    assert old["state"] == "superseded"
    assert old["superseded_by"] == statement["edge"]["edge_id"]  # the user's own words
    assert old["named_by"]["words"] == ["googl"]
    assert change["lifecycle"]["state"] == "active"
    assert statement["lifecycle"]["state"] == "active"
    # "stop … double-booking" shares no word the statement names as ended: untouched.
    assert by_turn[(("t2",), True)]["lifecycle"]["state"] == "active"
