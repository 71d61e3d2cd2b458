"""Candidates as plain values, and the columnar pool the scorer works on.

Times are hours since the Unix epoch (floats): λ in the policy is per hour.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import chain

import numpy as np

from schemas.categories import CATEGORY_ORDER

_NAN = math.nan

#: Column layout of `Pool.table`; the category weights follow in `CATEGORY_ORDER`.
(
    SIGMA,
    INGEST,
    LAST_MENTION,
    LOG_MENTIONS,
    EVENT,
    NUMERIC,
    EMOTION,
    STATE,
    SUPERSEDED_AT,
    RETRACTED_AT,
    TENTATIVE,
    EPISODIC,
) = range(12)
N_FIXED = 12


@dataclass(frozen=True, slots=True)
class Candidate:
    """One retrieved fact, reduced to what the lifecycle score needs (paper Eq. 2).

    weights: soft category membership in `CATEGORY_ORDER` (sums to 1).
    sigma: semantic similarity in [0, 1] after per-source normalization.
    state: stored lifecycle-state code (`scorer.tables.STATE_CODES`); the state *as of*
      the query time is derived from it and the transition times below.
    pressures: (time, γ) of later low-confidence same-slot edges, for Ω.
    tentative: the fact was a soft update ("thinking about moving"), never a committed value.
    episodic: a raw turn kept beside its extracted facts (Appendix AA).
    """

    key: str
    weights: tuple[float, ...]
    sigma: float
    ingest_h: float
    last_mention_h: float
    mentions: int = 1
    event_h: float | None = None
    numeric: bool = False
    emotion: float = 0.0
    state: int = 0
    superseded_at_h: float | None = None
    retracted_at_h: float | None = None
    pressures: tuple[tuple[float, float], ...] = ()
    tentative: bool = False
    episodic: bool = False


@dataclass(frozen=True, slots=True)
class Pool:
    """k candidates as one float table (rows = candidates) plus sparse soft pressures.

    Built once per query with a single array conversion: per-column conversions would cost
    more than scoring itself at the paper's k = 20.
    """

    keys: tuple[str, ...]
    table: np.ndarray  # (k, N_FIXED + C); NaN = absent time
    pressure_owner: np.ndarray  # int index into the pool, one entry per soft pressure
    pressure_at_h: np.ndarray
    pressure_log_survival: np.ndarray  # log(1 - γ)
    any_emotion: bool
    any_numeric: bool
    any_transition: bool  # some candidate has a superseded/retracted time or stored state
    any_tentative: bool
    any_episodic: bool

    def __len__(self) -> int:
        return len(self.keys)

    def col(self, index: int) -> np.ndarray:
        return self.table[:, index]

    @property
    def weights(self) -> np.ndarray:
        return self.table[:, N_FIXED:]

    @property
    def sigma(self) -> np.ndarray:
        return self.table[:, SIGMA]

    @property
    def state(self) -> np.ndarray:
        return self.table[:, STATE].astype(np.int64)


def _opt(value: float | None) -> float:
    return _NAN if value is None else value


def build_pool(candidates: Sequence[Candidate]) -> Pool:
    """Columnarize candidates. O(k) plus O(number of soft pressures).

    The conversion from Python objects is most of the cost at large k (measured with
    `frecall bench scorer`): one flat stream of floats fed to `np.fromiter` is cheaper
    than a list of row tuples, and the pool's flags are read off the table's columns
    instead of one pass over the objects each.
    """
    k = len(candidates)
    width = N_FIXED + len(CATEGORY_ORDER)
    log = math.log
    flat = chain.from_iterable(
        (
            c.sigma,
            c.ingest_h,
            c.last_mention_h,
            log(c.mentions) if c.mentions > 1 else 0.0,
            _NAN if c.event_h is None else c.event_h,
            c.numeric,
            c.emotion,
            c.state,
            _NAN if c.superseded_at_h is None else c.superseded_at_h,
            _NAN if c.retracted_at_h is None else c.retracted_at_h,
            c.tentative,
            c.episodic,
            *c.weights,
        )
        for c in candidates
    )
    table = np.fromiter(flat, dtype=np.float64, count=k * width).reshape(k, width)
    owners: list[int] = []
    at: list[float] = []
    log_surv: list[float] = []
    for i, cand in enumerate(candidates):
        if cand.pressures:
            for when, gamma in cand.pressures:
                owners.append(i)
                at.append(when)
                # γ = 1 would be a hard supersession; the rules never emit it as a
                # pressure, but clip so that log stays finite.
                log_surv.append(math.log1p(-min(gamma, 0.999)))
    times = table[:, (SUPERSEDED_AT, RETRACTED_AT)]
    return Pool(
        keys=tuple(c.key for c in candidates),
        table=table,
        pressure_owner=np.asarray(owners, dtype=np.int64),
        pressure_at_h=np.asarray(at, dtype=np.float64),
        pressure_log_survival=np.asarray(log_surv, dtype=np.float64),
        any_emotion=bool(table[:, EMOTION].any()),
        any_numeric=bool(table[:, NUMERIC].any()),
        any_tentative=bool(table[:, TENTATIVE].any()),
        any_episodic=bool(table[:, EPISODIC].any()),
        any_transition=bool(table[:, STATE].any() or not np.isnan(times).all()),
    )
