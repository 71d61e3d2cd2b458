"""Does a user turn withdraw an earlier plan of the speaker? A trained linear probe (issue 11).

Retraction markers (`retraction.py`) catch the cancelling verbs and verdicts a list holds;
a withdrawal said otherwise ("I've let it go", "pulled my application") is missed and the
plan stays current (paper §3.3, A.9, AV7 selective forgetting). The probe reads the turn's
all-MiniLM-L6-v2 vector through a two-class logistic regression (`withdrawal`, `none`)
trained on the generator's TRAIN half and the human-written development sets
(`bench/withdrawal_probe.py`; `frecall bench train-withdrawals` rebuilds the asset bit for
bit). Same machinery and asset format as the attribute probe.
"""

from __future__ import annotations

from functools import cache

import numpy as np

from workers.extraction.attribute_probe import Probe, load_asset
from workers.ports import Embedder

ASSET = "withdrawal_probe"
WITHDRAWAL = "withdrawal"


@cache
def default_withdrawal_probe() -> Probe:
    """The shipped probe (`assets/withdrawal_probe.*`)."""
    return load_asset(ASSET)


def withdrawal_probability(probe: Probe, vector: np.ndarray) -> float:
    """P(the turn whose vector this is withdraws a plan)."""
    row = probe.probabilities(np.asarray(vector, dtype=np.float32).reshape(1, -1))[0]
    return float(row[probe.labels.index(WITHDRAWAL)])


class WithdrawalScorer:
    """P(withdrawal) of a turn's text: its MiniLM vector (from `embedder`, the one the
    pipeline embeds the raw turn with — a `CachedEmbedder` then serves that vector twice)
    through the probe. `None` when the embedder is not the probe's model: its vectors mean
    nothing to the probe."""

    def __init__(self, embedder: Embedder, threshold: float, probe: Probe | None = None) -> None:
        self.probe = probe or default_withdrawal_probe()
        self.embedder = embedder
        self.threshold = threshold

    @classmethod
    def for_embedder(cls, embedder: Embedder, threshold: float) -> WithdrawalScorer | None:
        probe = default_withdrawal_probe()
        return cls(embedder, threshold, probe) if embedder.model_id == probe.model_id else None

    def withdraws(self, text: str) -> bool:
        vector = self.embedder.embed([text])[0]
        return withdrawal_probability(self.probe, vector) >= self.threshold
