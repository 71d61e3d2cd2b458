"""The shipped attribute probe is what its training command makes (issue 11).

`frecall bench train-attributes --out DIR` must regenerate `workers/extraction/assets/
attribute_probe.{npy,json}` bit for bit: the asset is a build product of the generator's
TRAIN half and the prototype table, never a file edited by hand. `bench attribute-probe`
prints the comparison with the prototype classifier (its numbers are the report's, not
asserted here: CONVENTIONS 17).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from frecall.cli import main

pytestmark = pytest.mark.e2e

ASSETS = Path(__file__).resolve().parents[2] / "workers" / "extraction" / "assets"


def test_training_regenerates_the_shipped_probe_bit_for_bit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["bench", "train-attributes", "--out", str(tmp_path)]) == 0
    assert "attribute_probe.npy" in capsys.readouterr().out
    for name in ("attribute_probe.npy", "attribute_probe.json"):
        assert (tmp_path / name).read_bytes() == (ASSETS / name).read_bytes(), name
    meta = json.loads((tmp_path / "attribute_probe.json").read_text("utf-8"))
    assert meta["training"]["generator"]["phrasings"] == "train"


def test_the_comparison_reports_both_classifiers(capsys: pytest.CaptureFixture[str]) -> None:
    """The shipped probe trained on the development sets: it is judged on the generator's
    TEST half and the validation sets; the development sets only by leaving each out."""
    assert main(["bench", "attribute-probe", "--personas", "2", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert {"generator-test/question", "heldout3/statement", "heldout4/question"} <= set(result)
    assert not any(name.startswith(("heldout2/", "paper-cases/")) for name in result)
    for both in result.values():
        assert set(both) == {"prototypes", "probe"}
        assert {"accuracy", "macro_f1", "auroc"} <= set(both["probe"])
    assert main(["bench", "attribute-probe", "--leave-one-out", "--json"]) == 0
    left_out = json.loads(capsys.readouterr().out)
    assert {"paper-cases/question", "cases/statement", "heldout/question",
            "heldout2/statement"} <= set(left_out)  # fmt: skip
