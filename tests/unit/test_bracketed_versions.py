"""Witnesses of the query-time rule for a middle version: a statement told between an older one
a slot- or attribute-tied window rule moved down and the newer statement that leads it moves
down too (workers/query/bracketed.py; A.7.3 q_cur, Appendix F; round 20).

The statements are vectors written here for the test; none comes from a paper-turns set. Three
versions of one thing, told months apart: the oldest is moved down by a rule that ties it to
the newest; the middle one, a raw turn, follows — not when the rule is off, for a question
not about the present, for a keyed middle statement, one told in the older one's session or
in the newer one's, one about another thing (cosine, or a nearer candidate), one past the
first `shown`, one another rule moved already; not for a pair newer_statements made (a cosine
alone ties it); the same whatever order the window lists the others in.
"""

from __future__ import annotations

import itertools
from datetime import UTC, datetime, timedelta

import numpy as np

from schemas.categories import Category, Intent
from schemas.events import EdgeEvent
from schemas.policy import BracketedVersionsPolicy, load_policy
from schemas.records import FactRecord, Lifecycle
from tests.unit.minilm_edges import with_rule
from workers.embedding.hashing import HashingEmbedder
from workers.query import bracketed, latest_value, newer_statements
from workers.query.bracketed import Bracketed
from workers.query.candidates import MergedCandidate
from workers.query.window_rules import WindowRules
from workers.stores.memory_vectors import InMemoryVectorIndex

NOW = datetime(2026, 5, 1, 10, tzinfo=UTC)
OLDEST = NOW - timedelta(days=300)
MIDDLE = NOW - timedelta(days=150)
NEWEST = NOW - timedelta(days=20)
POLICY = load_policy()
ON = with_rule(POLICY, "bracketed_versions", enabled=True)
RULE = ON.bracketed_versions
OFF = RULE.model_copy(update={"enabled": False})


def _unit(*xs: float) -> np.ndarray:
    v = np.asarray([*xs, 0.0, 0.0, 0.0, 0.0][:5], dtype=np.float32)
    return v / np.linalg.norm(v)


#: One thing told three ways (cosines 0.6–0.8 among them), and two other things.
V1 = _unit(1.0, 0.0)
V2 = _unit(0.8, 0.6)
V3 = _unit(0.6, 0.8)
ELSE = _unit(0.0, 0.0, 1.0)
ELSE_TOO = _unit(0.0, 0.0, 0.0, 1.0)


def _candidate(edge_id: str, at: datetime, vector: np.ndarray, *, keyed: bool = False,
               turn: str | None = None) -> MergedCandidate:  # fmt: skip
    edge = EdgeEvent(
        edge_id=edge_id, user_id="u1", text=f"statement {edge_id}",
        categories=Category.OTHER, ingest_time=at, episodic=not keyed,
        slot_key=f"user.{edge_id}" if keyed else None, source_turns=(turn or edge_id,),
    )  # fmt: skip
    life = Lifecycle(last_mentioned_at=at)
    return MergedCandidate(FactRecord(edge=edge, lifecycle=life), 0.6, ("dense",), vector)


OLD = _candidate("v1", OLDEST, V1)
MID = _candidate("v2", MIDDLE, V2)
NEW = _candidate("v3", NEWEST, V3)
OTHER = _candidate("x", MIDDLE, ELSE)
OTHER_TOO = _candidate("y", MIDDLE, ELSE_TOO)
#: The oldest version moved down by an attribute- or slot-tied rule, led by the newest.
PAIRS = {"v1": "v3"}


def _moved(*window: MergedCandidate, pairs: dict[str, str] = PAIRS,
           intent: Intent = Intent.CURRENT, rule: BracketedVersionsPolicy = RULE,
           shown: int = 5) -> dict[str, Bracketed]:  # fmt: skip
    return bracketed.demotions(intent, list(window), pairs, NOW, rule, shown)


def test_the_middle_version_follows_the_older_one_down() -> None:
    out = _moved(MID, OTHER, OLD, NEW, OTHER_TOO)
    assert set(out) == {"v2"}
    assert out["v2"] == Bracketed(older="v1", newer="v3", cosine=0.8)
    why = bracketed.explain(out["v2"])
    assert "v1" in why and "v3" in why and "middle version" in why


def test_not_when_off_or_for_a_question_not_about_the_present() -> None:
    assert _moved(MID, OTHER, OLD, NEW, rule=OFF) == {}
    for intent in (Intent.PAST, Intent.HISTORICAL, Intent.UPCOMING):
        assert _moved(MID, OTHER, OLD, NEW, intent=intent) == {}
    assert _moved(MID, OTHER, OLD, NEW, pairs={}) == {}


def test_a_keyed_middle_statement_is_its_slots_business() -> None:
    keyed = _candidate("v2", MIDDLE, V2, keyed=True)
    assert _moved(keyed, OTHER, OLD, NEW) == {}


def test_told_in_the_older_ones_session_or_the_newer_ones_it_is_no_version() -> None:
    # A reply hours after the older statement, in its conversation: no later version.
    same_session = _candidate("v2", OLDEST + timedelta(hours=2), V2)
    assert _moved(same_session, OTHER, OLD, NEW) == {}
    # Hours before the newer one: its own session, not an earlier version.
    just_before = _candidate("v2", NEWEST - timedelta(hours=2), V2)
    assert _moved(just_before, OTHER, OLD, NEW) == {}
    # Told before the older one, or after the newer one: not between them.
    before = _candidate("v2", OLDEST - timedelta(days=30), V2)
    after = _candidate("v2", NEWEST + timedelta(days=5), V2)
    assert _moved(before, OTHER, OLD, NEW) == {}
    assert _moved(after, OTHER, OLD, NEW) == {}


def test_about_another_thing_it_stays() -> None:
    # Far from the older version (cosine below min_cosine).
    far = _candidate("v2", MIDDLE, _unit(0.2, 0.0, 0.98))
    assert _moved(far, OLD, NEW) == {}
    # Near enough to the older version, but nearer still to another candidate: a topic of
    # its own that the chain only touches.
    topic = _candidate("v2", MIDDLE, _unit(0.5, 0.0, 0.86))
    near_topic = _candidate("z", MIDDLE - timedelta(days=40), _unit(0.0, 0.0, 1.0))
    assert float(np.dot(topic.vector, OLD.vector)) >= RULE.min_cosine  # type: ignore[arg-type]
    assert _moved(topic, OLD, NEW, near_topic) == {}
    assert set(_moved(topic, OLD, NEW)) == {"v2"}
    # Its own turn's records are one statement with it, not a nearer topic.
    own_fact = _candidate("v2#0", MIDDLE, _unit(0.82, 0.57, 0.05), turn="v2", keyed=True)
    assert set(_moved(MID, own_fact, OLD, NEW)) == {"v2"}


def test_only_the_first_shown_and_not_what_a_rule_moved_already() -> None:
    assert _moved(OTHER, OTHER_TOO, OLD, NEW, MID, shown=3) == {}
    assert _moved(MID, OLD, NEW, pairs={"v1": "v3", "v2": "v3"}) == {}


def test_the_same_whatever_order_the_window_lists_the_others_in() -> None:
    first = _moved(MID, OTHER, OLD, NEW, OTHER_TOO)
    for rest in itertools.permutations([OTHER, OLD, NEW, OTHER_TOO]):
        assert _moved(MID, *rest) == first


class _Rules(WindowRules):
    """The window rules with the attribute and newer-statement rules' verdicts given."""

    def __init__(self, latest: dict[str, str], newer: dict[str, str]) -> None:
        super().__init__(InMemoryVectorIndex(), HashingEmbedder(), ON)
        self._bracketed_calibrated = True  # the test's vectors stand for MiniLM's
        self._given_latest = latest
        self._given_newer = newer

    def _latest_value(self, *_: object) -> dict[str, latest_value.Demotion]:  # type: ignore[override]
        return {k: latest_value.Demotion("employer", v) for k, v in self._given_latest.items()}

    def _newer(self, *_: object) -> dict[str, newer_statements.Newer]:  # type: ignore[override]
        return {k: newer_statements.Newer(v, 0.6) for k, v in self._given_newer.items()}


def test_the_window_rules_bracket_with_attribute_tied_pairs_only() -> None:
    window = [MID, OTHER, OLD, NEW, OTHER_TOO]
    ranked = list(range(len(window)))
    qv = _unit(1.0)

    def moved(rules: _Rules) -> dict[str, list[str]]:
        return rules.moved_down("u1", Intent.CURRENT, qv, window, ranked, NOW, "where now?")

    # The probe's attribute ties the oldest to the newest: the middle one follows it down.
    out = moved(_Rules({"v1": "v3"}, {}))
    assert set(out) == {"v1", "v2"}
    assert "middle version" in out["v2"][0]
    # A newer on-topic raw turn alone (a cosine) ties nothing the middle one follows: as
    # brackets its pairs cost LoCoMo dev recall@5 (docs/extraction.md, round 20).
    assert set(moved(_Rules({}, {"v1": "v3"}))) == {"v1"}


def test_the_shipped_policy_runs_it_on_the_vectors_its_cosine_was_chosen_on() -> None:
    from workers.embedding.minilm import MODEL_ID

    assert POLICY.bracketed_versions.enabled
    assert POLICY.bracketed_versions.embedder_model_id == MODEL_ID
    # Under another embedder the window rules bracket nothing (as newer_statements).
    rules = WindowRules(InMemoryVectorIndex(), HashingEmbedder(), POLICY)
    assert not rules._bracketed_calibrated
