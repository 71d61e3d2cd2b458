"""The paper's worked examples as natural turns through the offline extractor (issue 11):
Table 13's personas, Table 1's transitions, Table 29, Appendix F, A.7 and A.13, B.5, B.6,
each with chat around it and asked in several phrasings (`bench/paper_turns/cases`)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from bench.paper_turns.cases import load
from bench.paper_turns.runner import Report, run
from frecall.bootstrap import build
from frecall.settings import Settings
from workers.extraction.rules import RuleExtractor

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Report]:
    app = build(Settings(data_dir=tmp_path_factory.mktemp("paper")), fsync=False)
    try:
        yield run(app, RuleExtractor(), load())
    finally:
        app.close()


def test_paper_turns_pass_with_few_stale_answers(report: Report) -> None:
    summary = report.summary()
    assert summary["n"] >= 100
    assert summary["pass"] >= 0.90, summary["failed"]
    assert summary["stale"] <= 0.05, summary["failed"]


def test_every_attack_vector_of_the_paper_is_asked(report: Report) -> None:
    assert set(report.summary()["per_av"]) == {f"AV{i}" for i in range(1, 10)}


def test_heldout_phrasings_load(tmp_path: Path) -> None:
    personas = load(Path(__file__).resolve().parents[2] / "bench" / "paper_turns" / "heldout")
    assert sum(len(p.questions) for p in personas) >= 40
