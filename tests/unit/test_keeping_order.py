"""A later pass takes its demotions nearest the statement that leads them first (issue 11,
round 27, r27-av4; `workers/query/keeping_order.py`, `latest_value.keeping_by_closeness`)."""

from __future__ import annotations

import numpy as np

from schemas.policy import load_policy
from workers.query import keeping_order
from workers.query.window_rules import _keeping


def _unit(*xs: float) -> np.ndarray:
    v = np.asarray([*xs, 0.0, 0.0, 0.0, 0.0][:5], dtype=np.float32)
    return v / np.linalg.norm(v)


#: "n" the newer statement; "mid" an earlier version of its thing (cosine 0.8 to it); "aside"
#: a remark that touches the topic (cosine 0.35); the rest unrelated.
VECTORS = {
    "n": _unit(1.0, 0.0, 0.0),
    "mid": _unit(0.8, 0.6, 0.0),
    "aside": _unit(0.35, 0.0, 0.94),
    "a": _unit(0.0, 1.0, 0.0),
    "b": _unit(0.0, 0.0, 0.0, 1.0),
    "c": _unit(0.0, 0.0, 0.0, 0.0, 1.0),
}
LEADERS = {"mid": {"n"}, "aside": {"n"}}


def test_the_nearest_to_its_leader_comes_first() -> None:
    window = ["n", "a", "aside", "mid", "b", "c"]
    out = keeping_order.by_closeness(window, {"aside", "mid"}, LEADERS, VECTORS)
    assert out == ["mid", "aside", "n", "a", "b", "c"]
    assert round(keeping_order.closeness("mid", {"n"}, VECTORS), 2) == 0.8
    # No leader among the candidates, or no vector: unrelated, window order among those.
    assert keeping_order.closeness("a", {"gone"}, VECTORS) == -1.0
    assert keeping_order.closeness("gone", {"n"}, VECTORS) == -1.0
    out = keeping_order.by_closeness(window, {"b", "a"}, {}, VECTORS)
    assert out[:2] == ["a", "b"]


def test_the_cap_then_takes_the_version_not_the_remark() -> None:
    window = ["n", "a", "aside", "mid", "b", "c"]
    judged = frozenset(window)
    fresh = {"aside": ["aside"], "mid": ["mid"]}
    # Six judged and unmoved against five first places: one demotion may go.
    assert list(_keeping(fresh, window, judged, set(), 5)) == ["aside"]  # window order
    ordered = keeping_order.by_closeness(window, fresh.keys(), LEADERS, VECTORS)
    assert list(_keeping(fresh, ordered, judged, set(), 5)) == ["mid"]


def test_the_same_whatever_the_order_of_the_leaders() -> None:
    leaders = {"mid": {"n", "a"}}
    assert keeping_order.closeness("mid", leaders["mid"], VECTORS) == keeping_order.closeness(
        "mid", {"a", "n"}, VECTORS
    )
    assert load_policy().latest_value.keeping_by_closeness
