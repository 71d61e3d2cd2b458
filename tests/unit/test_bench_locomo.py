"""`frecall bench locomo` on a tiny LoCoMo-shaped conversation written by the test itself.

The real data (CC BY-NC 4.0) stays outside the repository; this fixture only mimics its
shape and its quirks (extra `*_date_time` keys, malformed evidence, empty evidence).
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from bench.locomo_data import convert, normalize_evidence, parse_session_time
from frecall.cli import main

CONFIGS = ("hybrid", "hybrid_flat", "bm25", "dense")


def _turn(dia_id: str, speaker: str, text: str, **extra: Any) -> dict[str, Any]:
    return {"speaker": speaker, "dia_id": dia_id, "text": text, **extra}


def _sample() -> dict[str, Any]:
    a, b = "Alice", "Bruno"
    return {
        "sample_id": "conv-test",
        "conversation": {
            "speaker_a": a,
            "speaker_b": b,
            "session_1_date_time": "1:56 pm on 8 May, 2023",
            "session_1": [
                _turn("D1:1", a, "Hi Bruno! How was your week?"),
                _turn("D1:2", b, "Busy with work, the office moved to a new building."),
                _turn("D1:3", a, "My parrot is called Kiwi and she adores sunflower seeds."),
                _turn("D1:4", b, "Ha, lovely. I started learning the cello last month."),
                _turn(
                    "D1:5",
                    a,
                    "Look at this!",
                    blip_caption="a photo of a green bird on a branch",
                    img_url=["https://example.invalid/x.jpg"],
                ),
                _turn("D1:6", b, "Cute! Talk soon."),
            ],
            "session_2_date_time": "10:04 am on 19 June, 2023",
            "session_2": [
                _turn("D2:1", b, "Hey Alice, I played my first cello recital on Saturday."),
                _turn("D2:2", a, "Congratulations! I went hiking in the mountains."),
                _turn("D2:3", b, "Which trail did you take?"),
                _turn("D2:4", a, "The ridge trail above the lake, it was windy."),
            ],
            # conv-26 quirk: a date for a session that has no turns.
            "session_3_date_time": "9:00 am on 1 July, 2023",
        },
        "qa": [
            {
                "question": "What is the name of Alice's parrot?",
                "answer": "Kiwi",
                "evidence": ["D1:3"],
                "category": 4,
            },
            {
                "question": "When did Bruno play his first cello recital?",
                "answer": "17 June 2023",
                "evidence": ["D2:01; D1:4"],
                "category": 2,
            },
            {
                "question": "What did Alice say about the ski trip?",
                "adversarial_answer": "it was cold",
                "evidence": ["D2:4", "D"],
                "category": 5,
            },
            {
                "question": "Where does Bruno work?",
                "answer": "an office",
                "evidence": [],
                "category": 4,
            },
        ],
    }


def test_session_time_parses_locomo_format() -> None:
    assert parse_session_time("1:56 pm on 8 May, 2023") == datetime(2023, 5, 8, 13, 56, tzinfo=UTC)
    assert parse_session_time("12:06 am on 11 November, 2022") == datetime(
        2022, 11, 11, 0, 6, tzinfo=UTC
    )
    with pytest.raises(ValueError):
        parse_session_time("sometime in May")


def test_evidence_quirks_are_normalized() -> None:
    ids, unparseable = normalize_evidence(["D8:6; D9:17", "D30:05", "D:11:26", "D9:1 D4:4", "D"])
    assert ids == {"D8:6", "D9:17", "D30:5", "D11:26", "D9:1", "D4:4"}
    assert unparseable == 1


def test_conversion_keeps_order_speakers_and_captions() -> None:
    conv = convert(_sample())
    assert [t.turn_id for t in conv.turns][:2] == ["D1:1", "D1:2"]
    assert len(conv.turns) == 10  # session_3 has a date but no turns
    assert all(t.role == "user" and t.user_id == "conv-test" for t in conv.turns)
    assert conv.turns[2].text.startswith("Alice: My parrot")
    assert conv.turns[4].text.endswith("[shares a photo: a photo of a green bird on a branch]")
    assert conv.turns[0].timestamp < conv.turns[1].timestamp < conv.turns[6].timestamp
    assert conv.turns[6].session_id == "session_2"
    assert conv.skipped_empty == 1 and conv.skipped_unknown == 0
    assert conv.dropped_evidence == 1  # the bare "D"
    assert conv.questions[1].evidence == {"D2:1", "D1:4"}
    # Asked a day after the last real session (not after the dangling session_3 date).
    assert conv.questions[0].as_of == datetime(2023, 6, 20, 10, 4, tzinfo=UTC)


def test_bench_locomo_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = tmp_path / "locomo.json"
    data.write_text(json.dumps([_sample()]), encoding="utf-8")
    argv = ["bench", "locomo", "--data", str(data), "--json", "--embedder", "hashing"]
    assert main([*argv, "--data-dir", str(tmp_path / "runs")]) == 0
    out = capsys.readouterr().out
    result = json.loads(out)  # exactly one JSON object on stdout
    for key in ("recall@5", "recall@10"):
        assert set(CONFIGS) <= set(result[key])
        assert all(0.0 <= result[key][name] <= 1.0 for name in CONFIGS)
    assert result["counts"]["questions"] == 3
    assert result["counts"]["skipped"] == 1
    per = result["per_category"]
    assert set(per) == {"single-hop", "temporal", "adversarial"}
    assert per["single-hop"]["hybrid"]["n"] == 1
    # "Alice's parrot" names its evidence turn outright: every ranking must find it.
    for name in CONFIGS:
        assert per["single-hop"][name]["recall@5"] == 1.0, name
    assert result["oracle"]["any_edge"] == 1.0
    assert result["ingest"]["turns"] == 10
    assert set(result["latency_ms"]["p50"]) == set(CONFIGS)


def test_failures_list_what_the_product_gains_and_loses_against_flat() -> None:
    """`--failures`: a question answered by one ranking within k and not by the other."""
    from bench.locomo import _changed
    from bench.locomo_data import Question

    at = datetime(2023, 7, 1, tzinfo=UTC)
    questions = [
        Question("u", f"When did Bruno play {n}?", 2, frozenset({f"D{n}:1"}), at) for n in range(4)
    ]
    ranks: dict[str, list[int | None]] = {"hybrid": [1, None, 12, 3], "hybrid_flat": [1, 4, 2, 11]}
    changed = _changed(questions, ranks, 10)
    assert [(c["change"], c["product_rank"], c["flat_rank"]) for c in changed] == [
        ("lost", None, 4),
        ("lost", 12, 2),
        ("gained", 3, 11),
    ]
    assert changed[0]["category"] == "temporal"
    assert changed[0]["intent"] == "past"
    assert changed[0]["evidence"] == ["D1:1"]


def test_failures_name_the_stage_that_undoes_each_change() -> None:
    """With `--ablations`, each changed question lists the ablations under which the product
    answers it as the flat ranking does (a loss recovered, a gain given back); similarity
    rankings (flat_sigma_*) undo everything and are not named."""
    from bench.locomo import _changed
    from bench.locomo_data import Question

    at = datetime(2023, 7, 1, tzinfo=UTC)
    questions = [Question("u", f"What is {n}?", 4, frozenset({f"D{n}:1"}), at) for n in range(2)]
    ranks: dict[str, list[int | None]] = {
        "hybrid": [None, 2],
        "hybrid_flat": [3, None],
        "no_routing": [4, None],  # recovers the loss, gives back the gain
        "no_window_rules": [None, 3],  # changes neither
        "flat_sigma_minmax": [3, None],
    }
    lost, gained = _changed(questions, ranks, 5)
    assert (lost["change"], gained["change"]) == ("lost", "gained")
    assert lost["undone_by"] == ["no_routing"]
    assert gained["undone_by"] == ["no_routing"]


def test_store_is_ingested_once_and_reused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`--store DIR`: the first run ingests and stamps DIR, the second asks the same store
    again without ingesting (same recall); other data in the same DIR is refused."""
    data = tmp_path / "locomo.json"
    data.write_text(json.dumps([_sample()]), encoding="utf-8")
    store = tmp_path / "store"
    argv = ["bench", "locomo", "--data", str(data), "--json", "--embedder", "hashing"]
    assert main([*argv, "--store", str(store), "--failures"]) == 0
    first = json.loads(capsys.readouterr().out)
    assert "reused" not in first["ingest"]
    assert {"changed_vs_flat@5", "changed_vs_flat@10"} <= set(first)
    assert main([*argv, "--store", str(store)]) == 0
    captured = capsys.readouterr()
    second = json.loads(captured.out)
    assert "reusing the ingested store" in captured.err
    assert second["ingest"]["reused"] is True
    assert second["recall@10"] == first["recall@10"]
    assert second["oracle"] == first["oracle"]
    other = tmp_path / "other.json"
    sample = _sample()
    sample["sample_id"] = "conv-other"
    other.write_text(json.dumps([sample]), encoding="utf-8")
    argv[3] = str(other)
    assert main([*argv, "--store", str(store)]) != 0
    assert "holds another ingest" in capsys.readouterr().err
