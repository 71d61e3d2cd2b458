"""The whole embedded deployment through the `frecall` CLI: its public contracts
(docs/architecture.md, "Entry points")."""

from __future__ import annotations

import json
import shutil
from importlib import resources
from pathlib import Path

import pytest

from frecall.cli import main
from workers.stores.dead_letters import read_dead_letters

pytestmark = pytest.mark.e2e
STORY = Path(str(resources.files("frecall.demo").joinpath("story.jsonl")))
AS_OF = "2026-09-21T09:00:00Z"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope="module")
def story_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    data = tmp_path_factory.mktemp("story")
    assert main(["ingest-edges", "--data-dir", str(data), str(STORY)]) == 0
    return data


@pytest.fixture
def data(story_dir: Path, tmp_path: Path) -> Path:
    """A private copy of the ingested story (tests below change it)."""
    copy = tmp_path / "data"
    shutil.copytree(story_dir, copy, ignore=shutil.ignore_patterns("LOCK"))
    return copy


def query(capsys: pytest.CaptureFixture[str], data: Path, text: str, *extra: str) -> dict:  # type: ignore[type-arg]
    code, out, _ = run(
        capsys,
        "query",
        "--data-dir",
        str(data),
        "--user",
        "maya",
        "--as-of",
        AS_OF,
        "--json",
        *extra,
        text,
    )
    assert code == 0
    return json.loads(out)  # type: ignore[no-any-return]


def test_query_json_contract_and_current_value(
    capsys: pytest.CaptureFixture[str], data: Path
) -> None:
    result = query(capsys, data, "Where does Maya live?")
    assert {"intent", "categories", "results"} <= result.keys()
    top = result["results"][0]
    assert {"edge_id", "text", "category", "state", "score", "terms", "source_turns"} <= top.keys()
    assert top["edge_id"] == "city-london" and top["state"] == "active"
    assert {"sigma", "activation", "rho", "omega", "mask", "score"} <= top["terms"].keys()
    served = {r["edge_id"] for r in result["results"]}
    assert not served & {"city-istanbul", "injection"}


def test_the_data_dir_goes_before_or_after_the_command(
    capsys: pytest.CaptureFixture[str], data: Path
) -> None:
    after = query(capsys, data, "Where does Maya live?")
    argv = ["query", "--user", "maya", "--as-of", AS_OF, "--json", "Where does Maya live?"]
    code, out, _ = run(capsys, "--data-dir", str(data), *argv)  # the documented form
    assert code == 0 and json.loads(out) == after
    code, out, _ = run(capsys, "-v", "--data-dir", str(data), "export", "--user", "maya")
    assert code == 0 and len(json.loads(out)["facts"]) == 29


def test_as_of_sees_the_past(capsys: pytest.CaptureFixture[str], data: Path) -> None:
    code, out, _ = run(
        capsys,
        "query",
        "--data-dir",
        str(data),
        "--user",
        "maya",
        "--json",
        "--as-of",
        "2026-07-05T00:00:00Z",
        "Where does Maya live?",
    )
    assert code == 0
    top = json.loads(out)["results"][0]
    assert top["edge_id"] == "city-istanbul" and top["state"] == "active"


def test_intents(capsys: pytest.CaptureFixture[str], data: Path) -> None:
    before = query(capsys, data, "Where did Maya live before moving to London?")
    assert before["intent"] == "historical"
    assert before["results"][0]["edge_id"] == "city-istanbul"
    upcoming = query(capsys, data, "What appointments are coming up?")
    ids = [r["edge_id"] for r in upcoming["results"]]
    assert ids[0] == "dentist" and "interview-monzo" not in ids and "flight-lisbon" not in ids
    cancelled = query(capsys, data, "Which of Maya's plans fell through?")
    assert cancelled["intent"] == "cancelled"
    assert cancelled["results"][0]["edge_id"] == "plan-dog"


def test_malformed_lines_are_reported_dead_lettered_and_the_rest_ingested(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    src = tmp_path / "facts.jsonl"
    good = {"user_id": "u", "text": "likes tea", "category": "PREFERENCES_HABITS"}
    src.write_text(
        "\n".join(
            [
                json.dumps(good),
                "{not json",
                json.dumps({"user_id": "u", "category": "OTHER"}),
                json.dumps({**good, "text": "likes coffee", "category": "NOT_A_CATEGORY"}),
                "",
                json.dumps({**good, "text": "plays chess", "category": "HOBBIES_RECREATION"}),
            ]
        )
        + "\n",
        encoding="utf-8",
    )
    data = tmp_path / "d"
    code, _, err = run(capsys, "ingest-edges", "--data-dir", str(data), str(src))
    assert code != 0
    for line in (2, 3, 4):
        assert f"{src}:{line}: " in err
    assert "invalid JSON" in err and "text" in err and "category" in err
    letters = read_dead_letters(data / "dead-letters.jsonl")
    assert [letter["position"] for letter in letters] == ["2", "3", "4"]
    code, out, _ = run(capsys, "export", "--data-dir", str(data), "--user", "u", "--json")
    texts = sorted(f["edge"]["text"] for f in json.loads(out)["facts"])
    assert texts == ["likes tea", "plays chess"]


def test_export_is_stable_and_replay_rebuilds_it_byte_for_byte(
    capsys: pytest.CaptureFixture[str], data: Path
) -> None:
    first = run(capsys, "export", "--data-dir", str(data), "--user", "maya", "--json")[1]
    assert run(capsys, "export", "--data-dir", str(data), "--user", "maya", "--json")[1] == first
    code, out, _ = run(capsys, "replay", "--data-dir", str(data), "--json")
    assert code == 0 and json.loads(out)["edges"] == 29
    assert run(capsys, "export", "--data-dir", str(data), "--user", "maya", "--json")[1] == first
    states = {f["edge"]["edge_id"]: f["lifecycle"]["state"] for f in json.loads(first)["facts"]}
    assert states["city-istanbul"] == "superseded" and states["plan-dog"] == "retracted"
    assert states["injection"] == "quarantined"


def test_forget_reaches_every_store_and_replay_does_not_bring_it_back(
    capsys: pytest.CaptureFixture[str], data: Path
) -> None:
    code, out, _ = run(
        capsys,
        "forget",
        "--data-dir",
        str(data),
        "--user",
        "maya",
        "--edge",
        "diet-pescatarian",
        "--json",
    )
    receipt = json.loads(out)
    assert code == 0 and receipt["removed"] == {
        "vector_index": 1,
        "slot_index": 1,
        "log": 1,
        "archive": 0,
    }
    log_bytes = b"".join(p.read_bytes() for p in (data / "log").rglob("*.jsonl"))
    assert b"started eating fish again" not in log_bytes
    run(capsys, "replay", "--data-dir", str(data))
    exported = json.loads(run(capsys, "export", "--data-dir", str(data), "--user", "maya")[1])
    states = {f["edge"]["edge_id"]: f["lifecycle"]["state"] for f in exported["facts"]}
    assert "diet-pescatarian" not in states
    assert states["diet-vegetarian"] == "active"  # its superseder is gone
    code, out, _ = run(capsys, "forget", "--data-dir", str(data), "--user", "maya", "--json")
    assert json.loads(out)["removed"]["vector_index"] == 28
    assert (
        json.loads(run(capsys, "export", "--data-dir", str(data), "--user", "maya")[1])["facts"]
        == []
    )


def test_query_batch_keeps_order_and_reports_bad_lines(
    capsys: pytest.CaptureFixture[str], data: Path, tmp_path: Path
) -> None:
    batch = tmp_path / "q.jsonl"
    batch.write_text(
        json.dumps({"user_id": "maya", "query": "How much rent does Maya pay?", "as_of": AS_OF})
        + "\n{broken\n"
        + json.dumps({"user_id": "maya", "query": "Where does Maya live?", "as_of": AS_OF, "k": 2})
        + "\n",
        encoding="utf-8",
    )
    code, out, err = run(capsys, "query", "--data-dir", str(data), "--batch", str(batch), "--json")
    lines = [json.loads(line) for line in out.splitlines()]
    assert code == 1 and f"{batch}:2: invalid JSON" in err
    assert lines[0]["results"][0]["edge_id"] == "rent-1100"
    assert "error" in lines[1]
    assert len(lines[2]["results"]) == 2 and lines[2]["results"][0]["edge_id"] == "city-london"


def test_inspect_groups_by_category_and_state(
    capsys: pytest.CaptureFixture[str], data: Path
) -> None:
    code, out, _ = run(
        capsys, "inspect", "--data-dir", str(data), "--user", "maya", "--as-of", AS_OF, "--json"
    )
    view = json.loads(out)["categories"]
    assert code == 0
    assert {f["edge_id"] for f in view["FINANCIAL_MATERIAL"]["superseded"]} == {"rent-950"}
    assert {f["edge_id"] for f in view["LOGISTICAL_CONTEXT"]["expired"]} == {"flight-lisbon"}
    assert any(
        "superseded by rent-1100" in f["why"][0] for f in view["FINANCIAL_MATERIAL"]["superseded"]
    )


def test_bad_arguments_give_clear_errors(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, _, err = run(capsys, "ingest-edges", "--data-dir", str(tmp_path), "missing.jsonl")
    assert code == 1 and "missing.jsonl: no such file" in err
    code, _, err = run(
        capsys, "query", "--data-dir", str(tmp_path), "--user", "u", "--as-of", "yesterday-ish", "x"
    )
    assert code == 1 and "--as-of" in err


def test_another_embedder_than_the_logs_is_a_clear_error_not_garbage(
    capsys: pytest.CaptureFixture[str], data: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The story was embedded by the default model; a query embedded by another model would
    # compare meaningless vectors, and a replay would build stores that no query can use.
    before = run(capsys, "export", "--data-dir", str(data), "--user", "maya", "--json")[1]
    monkeypatch.setenv("FR_EMBEDDER", "hashing")
    for argv in (
        ["query", "--data-dir", str(data), "--user", "maya", "--as-of", AS_OF, "where?"],
        ["replay", "--data-dir", str(data)],
    ):
        code, _, err = run(capsys, *argv)
        assert code == 1
        assert "'minilm-l6-v2-int8'" in err and "'hashing-64'" in err
        assert "FR_EMBEDDER=minilm " in err
    monkeypatch.delenv("FR_EMBEDDER")
    assert run(capsys, "export", "--data-dir", str(data), "--user", "maya", "--json")[1] == before


def test_compact_archives_long_dead_facts_and_forget_erases_the_archive(
    capsys: pytest.CaptureFixture[str], data: Path
) -> None:
    later = "2028-01-01T00:00:00Z"
    code, out, _ = run(capsys, "compact", "--data-dir", str(data), "--as-of", later, "--json")
    assert code == 0
    report = json.loads(out)
    assert report["archived"] > 0 and report["by_reason"]
    archive = data / "archive.jsonl"
    assert len(archive.read_text().splitlines()) == report["archived"]
    code, out, _ = run(capsys, "export", "--data-dir", str(data), "--user", "maya")
    assert len(json.loads(out)["facts"]) == report["remaining"]
    code, out, _ = run(capsys, "forget", "--data-dir", str(data), "--user", "maya", "--json")
    assert code == 0
    assert json.loads(out)["removed"]["archive"] == report["archived"]
    assert archive.read_text().strip() == ""


def test_replay_keeps_what_a_user_said_after_being_forgotten(
    capsys: pytest.CaptureFixture[str], data: Path, tmp_path: Path
) -> None:
    assert run(capsys, "forget", "--data-dir", str(data), "--user", "maya")[0] == 0
    again = tmp_path / "again.jsonl"
    again.write_text(STORY.read_text().splitlines()[0] + "\n")
    assert run(capsys, "ingest-edges", "--data-dir", str(data), str(again))[0] == 0
    before = run(capsys, "export", "--data-dir", str(data), "--user", "maya")[1]
    assert len(json.loads(before)["facts"]) == 1
    assert run(capsys, "replay", "--data-dir", str(data))[0] == 0
    assert run(capsys, "export", "--data-dir", str(data), "--user", "maya")[1] == before


def test_forgetting_a_user_erases_their_rejected_lines_too(
    capsys: pytest.CaptureFixture[str], data: Path, tmp_path: Path
) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"user_id": "ana", "text": "I live in Oslo"}\n{"user_id": "bo", "text": "x"}\n')
    assert run(capsys, "ingest-edges", "--data-dir", str(data), str(bad))[0] == 1
    assert len(read_dead_letters(data / "dead-letters.jsonl")) == 2
    code, out, _ = run(capsys, "forget", "--data-dir", str(data), "--user", "ana", "--json")
    assert code == 0 and json.loads(out)["removed"]["dead_letters"] == 1
    left = read_dead_letters(data / "dead-letters.jsonl")
    assert [json.loads(k["raw"])["user_id"] for k in left] == ["bo"]
