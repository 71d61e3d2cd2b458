"""The shipped withdrawal probe is what its training command makes (issue 11, AV7).

`frecall bench train-withdrawals --out DIR` must regenerate `workers/extraction/assets/
withdrawal_probe.{npy,json}` bit for bit: the asset is a build product of the generator's
TRAIN half and the development sets, never a file edited by hand. `bench withdrawal-probe`
measures it on the validation sets and the generator's TEST half, the development sets only
by leaving each out (its numbers are the report's, not asserted here: CONVENTIONS 17).
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
    assert main(["bench", "train-withdrawals", "--out", str(tmp_path)]) == 0
    assert "withdrawal_probe.npy" in capsys.readouterr().out
    for name in ("withdrawal_probe.npy", "withdrawal_probe.json"):
        assert (tmp_path / name).read_bytes() == (ASSETS / name).read_bytes(), name
    meta = json.loads((tmp_path / "withdrawal_probe.json").read_text("utf-8"))
    assert meta["training"]["generator"]["phrasings"] == "train"
    assert not {"heldout3", "heldout4", "heldout5"} & set(meta["training"]["development"])


def test_the_measurements_keep_validation_and_development_apart(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["bench", "withdrawal-probe", "--personas", "2", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert set(result) == {"generator-test", "heldout3", "heldout4", "heldout5"}
    assert all({"n", "positives", "auroc", "@0.9"} <= set(m) for m in result.values())
    assert main(["bench", "withdrawal-probe", "--leave-one-out", "--json"]) == 0
    left_out = json.loads(capsys.readouterr().out)
    assert set(left_out) == {"paper-cases", "cases", "heldout", "heldout2"}
