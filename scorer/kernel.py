"""The event-time validity kernel V_c(t, h) (paper Model 1, Appendix A.13)."""

from __future__ import annotations

import numpy as np


def validity(
    now_hours: float | np.ndarray,
    event_hours: np.ndarray,
    anticipation: np.ndarray,
    post_event: np.ndarray,
) -> np.ndarray:
    """V = exp(-ν (h - t)+) · exp(-μ (t - h)+), with μ ≫ ν.

    Before the event relevance *rises* as it approaches (derivative ν·V > 0); after it,
    relevance falls fast (derivative -μ·V < 0) — the anticipatory shape no function of age
    alone can express (Proposition 2). `event_hours` may hold NaN for unanchored facts:
    their V is 1.
    """
    ahead = event_hours - now_hours
    before = np.where(np.isnan(ahead), 0.0, np.maximum(ahead, 0.0))
    after = np.where(np.isnan(ahead), 0.0, np.maximum(-ahead, 0.0))
    return np.exp(-anticipation * before - post_event * after)
