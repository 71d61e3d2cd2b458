"""Small builders for scorer tests: candidates in days relative to a fixed 'now'."""

from __future__ import annotations

import numpy as np

from schemas.categories import CATEGORY_INDEX, Category, Intent, LifecycleState
from schemas.policy import load_policy
from scorer.pool import Candidate, build_pool
from scorer.score import QueryContext, Scores, ScoringOptions, score_pool
from scorer.tables import STATE_CODES, PolicyTables

NOW_H = 500_000.0
DAY = 24.0
TABLES = PolicyTables.compile(load_policy())


def weights(*pairs: tuple[Category, float]) -> tuple[float, ...]:
    row = [0.0] * len(CATEGORY_INDEX)
    for cat, w in pairs:
        row[CATEGORY_INDEX[cat]] = w
    return tuple(row)


def cand(
    key: str,
    category: Category,
    sigma: float,
    age_days: float,
    *,
    state: LifecycleState = LifecycleState.ACTIVE,
    event_in_days: float | None = None,
    numeric: bool = False,
    superseded_days_ago: float | None = None,
    retracted_days_ago: float | None = None,
    pressures: tuple[tuple[float, float], ...] = (),
    mentions: int = 1,
    tentative: bool = False,
    episodic: bool = False,
    emotion: float = 0.0,
    weights_: tuple[float, ...] | None = None,
) -> Candidate:
    ingest = NOW_H - age_days * DAY
    return Candidate(
        key=key,
        weights=weights_ or weights((category, 1.0)),
        sigma=sigma,
        ingest_h=ingest,
        last_mention_h=ingest,
        mentions=mentions,
        event_h=None if event_in_days is None else NOW_H + event_in_days * DAY,
        numeric=numeric,
        state=STATE_CODES[state],
        superseded_at_h=None if superseded_days_ago is None else NOW_H - superseded_days_ago * DAY,
        retracted_at_h=None if retracted_days_ago is None else NOW_H - retracted_days_ago * DAY,
        pressures=tuple((NOW_H - d * DAY, g) for d, g in pressures),
        tentative=tentative,
        episodic=episodic,
        emotion=emotion,
    )


def score(
    cands: list[Candidate],
    intent: Intent = Intent.CURRENT,
    now_h: float = NOW_H,
    options: ScoringOptions | None = None,
    routing: np.ndarray | None = None,
    tables: PolicyTables = TABLES,
) -> Scores:
    return score_pool(
        build_pool(cands),
        QueryContext(as_of_h=now_h, intent=intent, routing=routing),
        tables,
        options or ScoringOptions(),
    )


def ranking(
    cands: list[Candidate],
    intent: Intent = Intent.CURRENT,
    now_h: float = NOW_H,
    routing: np.ndarray | None = None,
    tables: PolicyTables = TABLES,
) -> list[str]:
    """Keys of candidates with a positive score, best first (exact order)."""
    s = score(cands, intent, now_h, routing=routing, tables=tables)
    order = sorted(range(len(cands)), key=lambda i: -s.score[i])
    return [cands[i].key for i in order if s.score[i] > 0]
