"""Every benchmark harness runs through the CLI at tiny sizes (a smoke test, not timing).

Checks the `--json` contracts (docs/architecture.md, "Entry points") and the report
artefacts (markdown, JSON, valid PNG). Sizes are minimal and the hashing embedder stands in
for MiniLM where the command takes `--embedder`; the numbers themselves are not asserted
(CONVENTIONS 17).
"""

from __future__ import annotations

import json
import struct
from pathlib import Path
from typing import Any

import pytest

from frecall.cli import main

pytestmark = pytest.mark.e2e

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
LIFECYCLE_CONFIGS = {"full", "flat"}


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> Any:
    code = main(list(argv))
    out = capsys.readouterr().out
    assert code == 0, out
    return json.loads(out)  # exactly one JSON object on stdout


def assert_png(path: Path) -> None:
    data = path.read_bytes()
    assert data[:8] == PNG_SIGNATURE, path
    assert data[12:16] == b"IHDR"
    width, height = struct.unpack(">II", data[16:24])
    assert width > 100 and height > 100
    assert data.rstrip(b"\x00")[-8:-4] == b"IEND"


@pytest.fixture(scope="module")
def lifecycle_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("lifecycle") / "bench"
    assert main(["bench", "lifecycle", "generate", "--personas", "2", "--seed", "7",
                 "--out", str(out)]) == 0  # fmt: skip
    return out


def test_bench_scorer(capsys: pytest.CaptureFixture[str]) -> None:
    got = run_json(capsys, "bench", "scorer", "--iterations", "5", "--sizes", "20,100", "--json")
    assert set(got["p50_us"]) == set(got["p95_us"]) == {"20", "100"}
    assert all(v > 0 for v in got["p50_us"].values())


def test_bench_query(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    got = run_json(capsys, "bench", "query", "--sizes", "150", "--queries", "3",
                   "--embedder", "hashing", "--data-dir", str(tmp_path), "--json")  # fmt: skip
    assert set(got["p50_ms"]) == set(got["p95_ms"]) == {"150"}
    assert got["facts"]["150"] == 150


def test_bench_locomo_on_the_tiny_fixture(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    got = run_json(capsys, "bench", "locomo", "--data", str(FIXTURES / "locomo_tiny.json"),
                   "--embedder", "hashing", "--data-dir", str(tmp_path), "--json")  # fmt: skip
    for key in ("recall@5", "recall@10"):
        assert {"hybrid", "bm25", "dense"} <= set(got[key])
    assert got["counts"]["questions"] == 4
    assert {"single-hop", "temporal", "multi-hop"} == set(got["per_category"])


@pytest.mark.parametrize("track", ["gold", "text"])
def test_bench_lifecycle_run_with_report(
    capsys: pytest.CaptureFixture[str], lifecycle_dir: Path, tmp_path: Path, track: str
) -> None:
    report = tmp_path / "report"
    got = run_json(capsys, "bench", "lifecycle", "run", str(lifecycle_dir), "--track", track,
                   "--embedder", "hashing", "--report", str(report), "--json")  # fmt: skip
    assert set(got["configs"]) >= LIFECYCLE_CONFIGS
    for config in got["configs"].values():
        assert {"pass", "stale", "per_av"} <= set(config)
    assert (report / "report.md").read_text().startswith(f"# Lifecycle benchmark — {track}")
    document = json.loads((report / "report.json").read_text())
    assert set(document["configs"]) == set(got["configs"])
    assert document["plots"] == ["report.png"]
    assert_png(report / "report.png")


def test_bench_lifecycle_noise_writes_reports(
    capsys: pytest.CaptureFixture[str], lifecycle_dir: Path
) -> None:
    got = run_json(capsys, "bench", "lifecycle", "noise", str(lifecycle_dir), "--levels", "0.1",
                   "--embedder", "hashing", "--json")  # fmt: skip
    assert got["levels"] == [0.1]
    assert all(set(row) == {"0.1"} for row in got["noise"].values())
    reports = lifecycle_dir / "reports"
    assert json.loads((reports / "noise.json").read_text())["noise"] == got["noise"]
    assert "noise.png" in (reports / "noise.md").read_text()
    assert_png(reports / "noise.png")


def test_bench_growth_with_report(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    report = tmp_path / "growth"
    got = run_json(capsys, "bench", "growth", "--facts", "600", "--checkpoints", "2",
                   "--queries", "5", "--embedder", "hashing", "--data-dir", str(tmp_path / "d"),
                   "--report", str(report), "--json")  # fmt: skip
    assert len(got["day"]) == len(got["checkpoints"]) == 2
    assert got["flat_facts"][-1] == got["facts"] > 500
    # Compaction bounds the store and never drops a fact that is still current.
    assert got["compacted_facts"][-1] < got["flat_facts"][-1]
    for row in got["checkpoints"]:
        assert row["compacted_states"].get("active") == row["flat_states"].get("active")
    for variant in ("flat", "compacted", "flat_ranking"):
        assert len(got["p50_ms"][variant]) == len(got["p95_ms"][variant]) == 2
    assert json.loads((report / "growth.json").read_text()) == got
    assert "growth.png" in (report / "growth.md").read_text()
    assert_png(report / "growth.png")


def test_bench_embedders(capsys: pytest.CaptureFixture[str]) -> None:
    # hashing as the baseline keeps it fast; minilm makes sure a real model is timed too.
    got = run_json(capsys, "bench", "embedders", "--embedders", "hashing,minilm", "--rounds",
                   "1", "--singles", "2", "--batched", "64", "--json")  # fmt: skip
    assert got["baseline"] == "hashing" and got["batch"] == 64
    assert set(got["variants"]) == {"hashing/t1", "hashing/t2", "minilm/t1", "minilm/t2"}
    for name, row in got["variants"].items():
        assert row["single_ms"] > 0 and row["batched_ms"] > 0
        if name.startswith("hashing/"):
            assert row["single_ms_vs_hashing"] == row["batched_ms_vs_hashing"] == 1.0
    assert got["variants"]["minilm/t2"]["model_id"] == "minilm-l6-v2-int8"


def test_bench_embedders_rejects_an_unknown_embedder(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "embedders", "--embedders", "minilm,nope"]) == 1
    assert "unknown embedder(s) nope" in capsys.readouterr().err


def test_bench_scale_with_report(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    report = tmp_path / "report"
    got = run_json(capsys, "bench", "scale", "--sizes", "120,300,600", "--users", "40",
                   "--queries", "3", "--data-dir", str(tmp_path / "d"), "--report", str(report),
                   "--direct-above", "300", "--json")  # fmt: skip
    rows = got["rows"]
    assert [row["facts"] for row in rows] == [120, 300, 600]
    assert [row["loaded"] for row in rows] == ["ingest", "ingest", "direct"]
    for row in rows:
        assert row["query_p50_ms"] <= row["query_p99_ms"]
        assert row["disk_bytes_per_fact"] > 0 and row["rss_bytes_per_fact"] > 0
        # Zipf: the largest user holds more than an equal share.
        assert row["largest_user_facts"] > row["facts"] / row["users_with_facts"]
    for row in rows[:2]:
        assert row["ingest_facts_per_s"] > 0 and row["replay_edges_per_s"] > 0
    # A direct load measures the store at its size, not the product's write paths.
    assert rows[2]["ingest_facts_per_s"] is None and rows[2]["replay_edges_per_s"] is None
    assert rows[2]["largest_user_facts"] > rows[1]["largest_user_facts"]
    assert (report / "scale.md").read_text().count("\n| ") == 4
    assert_png(report / "scale.png")


def test_bench_user_growth_against_a_baseline_tree(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    tree = Path(__file__).resolve().parents[2]  # this checkout, as its own baseline
    got = run_json(capsys, "bench", "user-growth", "--facts", "90", "--window", "30",
                   "--baseline", str(tree), "--json")  # fmt: skip
    assert set(got["runs"]) == {"this", "baseline"}
    for run in got["runs"].values():
        assert len(run["rates"]) == 3 and all(rate > 0 for rate in run["rates"])
    assert main(["bench", "user-growth", "--baseline", str(tmp_path)]) == 2


def test_bench_turn_ingest_against_a_baseline_tree(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    tree = Path(__file__).resolve().parents[2]  # this checkout, as its own baseline
    got = run_json(capsys, "bench", "turn-ingest", "--data", str(FIXTURES / "locomo_tiny.json"),
                   "--turns", "6", "--rounds", "2", "--embedder", "hashing",
                   "--baseline", str(tree), "--json")  # fmt: skip
    assert got["turns"] == 6 and set(got["runs"]) == {"this", "baseline"}
    for run in got["runs"].values():
        assert len(run["samples"]) == 2 and run["cpu_ms_per_turn"] > 0 and run["edges"] > 0
        assert {s["code"] for s in run["samples"]} == {str(tree)}
    assert set(got["ratio"]) == {"turns_per_s", "wall_ms_per_turn", "cpu_ms_per_turn"}
    assert main(["bench", "turn-ingest", "--data", "x", "--baseline", str(tmp_path)]) == 2


def test_bench_scale_refuses_decreasing_sizes(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "scale", "--sizes", "300,100"]) != 0
    assert "increasing" in capsys.readouterr().err


def test_bench_load_embedded(capsys: pytest.CaptureFixture[str]) -> None:
    got = run_json(capsys, "bench", "load", "--seconds", "2", "--writers", "1", "--readers", "2",
                   "--users", "5", "--embedder", "hashing", "--json")  # fmt: skip
    result = got["embedded"]
    assert result["errors"] == 0 and result["writes_lost"] == 0
    assert result["writes_acknowledged"] > 0
    assert result["export"]["exports"] >= 1
    assert {"POST /v1/edges", "POST /v1/query"} == set(result["endpoints"])


def test_bench_throughput(capsys: pytest.CaptureFixture[str]) -> None:
    got = run_json(capsys, "bench", "throughput", "--facts", "60", "--embed-facts", "20",
                   "--turns", "8", "--data", str(FIXTURES / "locomo_tiny.json"),
                   "--rounds", "1", "--embedder", "hashing", "--json")  # fmt: skip
    assert set(got["paths"]) == {"ingest-edges (embedded here)", "ingest-edges (with vectors)",
                                 "replay", "ingest (turns)"}  # fmt: skip
    for row in got["paths"].values():
        assert row["same_exports"] is True  # the bench itself fails when they differ
        for mode in ("one-by-one", "bulk"):
            stages = row[mode]["stages_ms_per_item"]
            assert row[mode]["per_s"] > 0 and "other" in stages
            assert row[mode]["cpu_ms_per_item"] > 0  # the load-robust measure beside the rate
    replayed = got["paths"]["replay"]["bulk"]["stages_ms_per_item"]
    assert {"vector index", "point building", "association"} <= set(replayed)
    assert "extraction" in got["paths"]["ingest (turns)"]["one-by-one"]["stages_ms_per_item"]


def test_bench_extraction_ablation(capsys: pytest.CaptureFixture[str], lifecycle_dir: Path) -> None:
    locomo = str(FIXTURES / "locomo_tiny.json")
    got = run_json(capsys, "bench", "extraction-ablation", "--modules", "patterns_calendar",
                   "--lifecycle", str(lifecycle_dir), "--locomo", locomo, "--rounds", "1",
                   "--embedder", "hashing", "--json")  # fmt: skip
    paper = {"paper cases", "paper heldout", "paper heldout2"}  # SETS; never a sealed set
    sets = {*paper, "locomo", f"lifecycle {lifecycle_dir.name}"}
    assert set(got["turns"]) == sets
    assert set(got["coverage"]["patterns_calendar"]) == sets
    assert "retraction" not in got["coverage"]  # a mechanism, never left out
    assert set(got["baseline"]) == set(got["without"]["patterns_calendar"]) == sets
    assert got["extraction_ms_per_turn"]["all"] > 0
