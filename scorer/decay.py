"""Category-conditioned survival S_c(Δt) and its soft-membership rate (paper §3.3, Lemma 1)."""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np

from schemas.categories import Category


def effective_rate(weights: Mapping[Category, float], rates: Mapping[Category, float]) -> float:
    """λ_eff = (Σ_c w_c / λ_c)^-1: the weighted harmonic mean (paper A.14, Lemma 1).

    Timescales τ_c = 1/λ_c average linearly under soft membership, so rates combine
    harmonically: 30 % Identity + 70 % Logistical gives ≈ 0.00348/h (half-life ≈ 199.3 h).
    """
    total = sum(weights.values())
    if total <= 0:
        raise ValueError("category weights must sum to a positive value")
    return 1.0 / sum((w / total) / rates[c] for c, w in weights.items())


def half_life_hours(rate_per_hour: float) -> float:
    """t_1/2 = ln 2 / λ."""
    return math.log(2) / rate_per_hour


def reinforced_rate(rate: np.ndarray, mentions: np.ndarray, strength: float) -> np.ndarray:
    """Repeated mentions slow decay (paper Appendix G, "conversational frequency").

    λ' = λ / (1 + r·ln(mentions)); one mention leaves λ unchanged. `r` is our default.
    """
    return rate / (1.0 + strength * np.log(np.maximum(mentions, 1.0)))


def survival(rate: np.ndarray, age_hours: np.ndarray) -> np.ndarray:
    """S_c(Δt) = exp(-λ Δt) (paper Model 1); a negative age (future) counts as zero."""
    return np.exp(-rate * np.maximum(age_hours, 0.0))
