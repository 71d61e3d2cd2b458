"""Does a user turn withdraw an earlier plan of the speaker? A trained linear probe (issue 11).

Retraction markers (`retraction.py`) catch the cancelling verbs and verdicts a list holds;
a withdrawal said otherwise ("I've let it go", "pulled my application") is missed and the
plan stays current (paper §3.3, A.9, AV7 selective forgetting). The probe reads the turn's
all-MiniLM-L6-v2 vector through a two-class logistic regression (`withdrawal`, `none`)
trained on the generator's TRAIN half and the human-written development sets
(`bench/withdrawal_probe.py`; `frecall bench train-withdrawals` rebuilds the asset bit for
bit). Same machinery and asset format as the attribute probe.

It reads the vector the raw turn is stored with: the rule extractor yields a candidate
retraction (`withdrawal.withdrawal_fact`, `prototype="withdrawal"`), and the extraction stage
of both deployments (`classify.embedded_edges`, after its one embedder call for the batch)
keeps it when the raw turn's vector scores at least the threshold — and only then embeds the
retraction's own text. No turn is embedded twice: before, the extractor embedded each user
turn for the probe and the stage embedded it again (ingest 0.62x, issue-11t).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import Protocol

import numpy as np

from schemas.events import EdgeEvent
from schemas.policy import Policy
from workers.extraction.attribute_probe import Probe, load_asset
from workers.extraction.model import ExtractedFact
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


class ReadsWithdrawal(Protocol):
    """Whether the turn whose stored vector this is gives up a plan (`WithdrawalGate`)."""

    def withdraws(self, vector: np.ndarray) -> bool: ...


class WithdrawalGate:
    """P(withdrawal) of a turn's vector through the probe, against the policy threshold."""

    def __init__(self, threshold: float, probe: Probe | None = None) -> None:
        self.probe = probe or default_withdrawal_probe()
        self.threshold = threshold

    @classmethod
    def for_embedder(cls, embedder: Embedder, policy: Policy) -> WithdrawalGate | None:
        """The gate the policy asks for, or None: disabled, or `embedder` is not the probe's
        model (its vectors mean nothing to the probe; candidates are then dropped)."""
        if not policy.withdrawal.enabled:
            return None
        probe = default_withdrawal_probe()
        if embedder.model_id != probe.model_id:
            return None
        return cls(policy.withdrawal.threshold, probe)

    def withdraws(self, vector: np.ndarray) -> bool:
        return withdrawal_probability(self.probe, vector) >= self.threshold


def is_candidate(fact: ExtractedFact) -> bool:
    return fact.prototype == "withdrawal"


def unconfirmed(
    edges: Sequence[EdgeEvent], facts: Sequence[ExtractedFact], gate: ReadsWithdrawal | None
) -> list[bool]:
    """Per fact of one turn (its edges: facts first, then its raw chunks, the first chunk
    last): whether to drop it — a candidate withdrawal the probe does not confirm from the
    raw turn's stored vector (no gate, or no vector: every candidate goes)."""
    if not any(is_candidate(f) for f in facts):
        return [False] * len(facts)
    raw = edges[-1] if edges and edges[-1].episodic else None
    vector = raw.embedding.to_array() if raw is not None and raw.embedding is not None else None
    keep = gate is not None and vector is not None and gate.withdraws(vector)
    return [is_candidate(f) and not keep for f in facts]
