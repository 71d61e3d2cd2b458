"""The LLM path gets what the rule path gets (issue 11, item 5): slot association for facts the
model returned without a slot key, and long turns — a bounded prompt, the whole text kept as
chunks, the late fact found. Real `openai` client, local fake server, MiniLM embeddings."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from frecall.cli import main
from tests.e2e.llm_ingest import ingest_through_fake_llm
from tests.e2e.test_ingest_llm import _fact
from tests.e2e.test_long_turns import document
from workers.extraction.long_turns import WINDOW_CHARS

pytestmark = pytest.mark.e2e

LATE = "By the way, my usual coffee order is a cold brew now."


def fact(text: str, category: str, slot: str | None, value: str, confidence: float = 0.95,
         numeric: bool = False) -> dict[str, Any]:  # fmt: skip
    return _fact(text, category, slot, value, "replace", confidence, numeric)


def turns(long_text: str) -> list[tuple[str, str, str]]:
    return [
        ("t1", "My gym membership is $45 a month.", "2026-01-05T10:00:00Z"),
        ("t2", "My usual coffee order is a flat white.", "2026-01-06T10:00:00Z"),
        ("t3", "The gym charges me sixty dollars a month these days.", "2026-03-01T10:00:00Z"),
        ("t4", "Lately it's oat cortados for me.", "2026-03-02T10:00:00Z"),
        ("t5", long_text, "2026-04-01T10:00:00Z"),
    ]


REPLIES = [
    {"facts": [fact("User's gym membership costs $45 a month", "FINANCIAL_MATERIAL",
                    "user.gym_membership", "$45 a month", numeric=True)]},
    {"facts": [fact("User's usual coffee order is a flat white", "PREFERENCES_HABITS",
                    "user.coffee_order", "flat white")]},
    # The model gives no slot key for either restatement: association must place them.
    {"facts": [fact("User's gym membership costs $60 a month now", "FINANCIAL_MATERIAL",
                    None, "$60 a month", confidence=0.9, numeric=True)]},
    {"facts": [fact("User's usual coffee order is now an oat cortado", "PREFERENCES_HABITS",
                    None, "oat cortado", confidence=0.9)]},
    {"facts": [fact("User's usual coffee order is a cold brew now", "PREFERENCES_HABITS",
                    "user.coffee_order", "cold brew")]},
]  # fmt: skip


def export(capsys: pytest.CaptureFixture[str], data: Path) -> dict[str, dict[str, Any]]:
    capsys.readouterr()
    assert main(["export", "--data-dir", str(data), "--user", "gus", "--json"]) == 0
    facts = json.loads(capsys.readouterr().out)["facts"]
    return {f["edge"]["edge_id"]: f for f in facts}


def test_llm_facts_get_slot_association_and_long_turns(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    long_text = document(100_000).replace(
        "Anyway, unrelated, but I moved to Lisbon last month and I love it there.", LATE
    )
    assert long_text.endswith(LATE) and len(long_text) == 100_000 - 19
    data, requests = ingest_through_fake_llm(
        tmp_path, monkeypatch, "gus", turns(long_text), REPLIES
    )

    # The long turn's prompt is bounded: the window, not the paste, went to the model.
    prompt = requests[4]["messages"][-1]["content"]
    assert len(prompt) < WINDOW_CHARS + 3_000 and LATE in prompt
    assert all(len(r["messages"][-1]["content"]) < WINDOW_CHARS + 3_000 for r in requests)

    facts = export(capsys, data)
    gym_old, gym_new = facts["s1/t1#0"]["lifecycle"], facts["s1/t3#0"]["lifecycle"]
    assert gym_old["state"] == "superseded" and gym_old["superseded_by"] == "s1/t3#0"
    assert gym_new["associated"]["slot"] == "user.gym_membership" and gym_new["associated"]["hard"]
    cortado = facts["s1/t4#0"]["lifecycle"]
    assert cortado["associated"]["slot"] == "user.coffee_order"
    assert not cortado["associated"]["hard"]  # unsure: a soft update ...
    flat_white = facts["s1/t2#0"]["lifecycle"]
    assert flat_white["state"] == "superseded" and flat_white["superseded_by"] == "s1/t5#0"
    assert any(p["by"] == "s1/t4#0" for p in flat_white["soft_pressures"])  # ... then replaced

    chunks = [f["edge"] for f in facts.values() if f["edge"]["source_turns"] == ["t5"]
              and f["edge"]["episodic"]]  # fmt: skip
    assert len(chunks) > 50 and sum(len(c["text"]) for c in chunks) == len(long_text)

    capsys.readouterr()
    asked = ["--as-of", "2026-04-02T00:00:00Z", "What's my usual coffee order?"]
    assert main(["query", "--data-dir", str(data), "--user", "gus", "--json", *asked]) == 0
    top = json.loads(capsys.readouterr().out)["results"][0]
    assert "cold brew" in top["text"] and top["source_turns"] == ["t5"]


def test_llm_turns_without_facts_get_the_raw_turn_meaning(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The model returns no fact for any turn: the raw turns still expire by their date and
    join the slot their vectors name, as on the rule path (workers/extraction/raw_turns.py)."""
    said = [
        ("t1", "I only ever buy almond milk for my coffee", "2026-01-05T10:00:00Z"),
        ("t2", "Ana's christening is next Sunday, need to find a card", "2026-01-06T10:00:00Z"),
        ("t3", "the shop stopped stocking it so I'm on soy milk instead", "2026-03-01T10:00:00Z"),
    ]
    data, _ = ingest_through_fake_llm(
        tmp_path, monkeypatch, "gus", said, ({"facts": []} for _ in said)
    )

    facts = export(capsys, data)
    old, new = facts["s1/t1#raw"], facts["s1/t3#raw"]
    assert old["edge"]["slot_key"] == new["edge"]["slot_key"] == "user.milk"
    assert old["lifecycle"]["state"] == "superseded"
    assert old["lifecycle"]["superseded_by"] == "s1/t3#raw"
    assert facts["s1/t2#raw"]["edge"]["event_time"].startswith("2026-01-11")

    capsys.readouterr()
    asked = ["--as-of", "2026-04-02T00:00:00Z", "do I have anything coming up?"]
    assert main(["query", "--data-dir", str(data), "--user", "gus", "--json", *asked]) == 0
    served = [r["source_turns"] for r in json.loads(capsys.readouterr().out)["results"]]
    assert ["t2"] not in served  # the christening has passed
