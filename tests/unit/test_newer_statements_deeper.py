"""Witnesses of newer_statements' `pressers_from` (round 21, r21-deeper): a newer raw turn
ranked past the window presses a candidate of the first five by the window's gates, when it is
nearest that candidate of the five, not keyed apart from it, and the question says it asks
about the present.

Synthetic candidates and vectors written here for the test; none comes from a paper-turns set.
The question's words match the old statement, not the newer one, so the newer turn ranks past
the window (the largest class of round 20's diagnosis: "the newer statement not in the top 10").
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import numpy as np
import pytest

from schemas.categories import Category, Intent
from schemas.events import EdgeEvent
from schemas.policy import NewerStatementsPolicy, load_policy
from schemas.records import FactRecord, Lifecycle
from tests.unit.minilm_edges import (
    asker,
    embedded_stream,
    moved_by,
    ranking_properties,
    stored,
    told_turns,
    with_rule,
)
from workers.embedding.minilm import MiniLMEmbedder
from workers.query import newer_statements
from workers.query.candidates import MergedCandidate

NOW = datetime(2026, 5, 1, 10, tzinfo=UTC)
THEN = NOW - timedelta(days=200)
LATER = NOW - timedelta(days=20)
POLICY = with_rule(load_policy(), "newer_statements", enabled=True, pressers_from=30)
RULE = POLICY.newer_statements
DEMOTE_TO = POLICY.latest_value.demote_to


def _unit(*xs: float) -> np.ndarray:
    v = np.asarray([*xs, 0.0, 0.0, 0.0, 0.0][:5], dtype=np.float32)
    return v / np.linalg.norm(v)


OLD = _unit(1.0, 0.0)
NEW = _unit(0.8, 0.6)  # cosine 0.8 to OLD
OTHER = _unit(0.0, 0.0, 1.0)
NEAR_OTHER = _unit(0.45, 0.0, 0.89)  # cosine 0.45 to OLD, 0.89 to OTHER


def _candidate(
    edge_id: str, at: datetime, vector: np.ndarray, sigma: float, text: str | None = None
) -> MergedCandidate:
    edge = EdgeEvent(
        edge_id=edge_id, user_id="u1", text=text or f"statement {edge_id}",
        categories=Category.OTHER, ingest_time=at, episodic=True,
        source_turns=(edge_id.partition("#")[0],),
    )  # fmt: skip
    life = Lifecycle(last_mentioned_at=at)
    return MergedCandidate(FactRecord(edge=edge, lifecycle=life), sigma, ("dense",), vector)


STALE = _candidate("old#raw", THEN, OLD, 0.8)
#: Four candidates of the first five about something else, and five more for the window.
FILLERS = [_candidate(f"f{i}#raw", THEN, _unit(0.0, 0.0, 0.0, 1.0), 0.5) for i in range(9)]
WINDOW = [STALE, *FILLERS]
#: The newer statement says it holds now (the σ gate waived, as inside the window).
MARKED = _candidate("new#raw", LATER, NEW, 0.1, "these days it is the other one")
UNMARKED = _candidate("new#raw", LATER, NEW, 0.1, "it is the other one")


def _led(
    *deeper: MergedCandidate, window: list[MergedCandidate] = WINDOW,
    question: str = "which one do I have now?", rule: NewerStatementsPolicy = RULE,
    keys: dict[str, frozenset[str]] | None = None,
) -> dict[str, newer_statements.Newer]:  # fmt: skip
    return newer_statements.demotions(
        Intent.CURRENT, question, window, NOW, rule, DEMOTE_TO, deeper, keys
    )


def test_a_newer_turn_past_the_window_presses_the_old_one_and_says_why() -> None:
    led = _led(MARKED)
    assert set(led) == {"old#raw"}
    assert led["old#raw"].by == "new#raw" and led["old#raw"].deeper
    why = newer_statements.explain(led["old#raw"])
    assert "found past the window" in why and "which says it holds now" in why
    # Without the deeper candidates (main before round 21) nothing pressed it: stale.
    assert _led() == {}


def test_past_the_window_the_gates_are_the_windows() -> None:
    # Unmarked, a weaker match for the question: the σ gate holds as it does in the window.
    assert _led(UNMARKED) == {}
    # Told in the same session as the old statement: no pressing (min_gap_hours).
    same_session = _candidate(
        "new#raw", THEN + timedelta(hours=2), NEW, 0.1, MARKED.record.edge.text
    )
    assert _led(same_session) == {}
    # About something else (cosine below min_cosine).
    far = _candidate("new#raw", LATER, _unit(0.2, 0.0, 0.0, 0.0, 1.0), 0.1, "these days, yes")
    assert _led(far) == {}
    # Only the first five move: an old statement at 6th is not judged.
    assert _led(MARKED, window=[*FILLERS[:5], STALE, *FILLERS[5:]]) == {}


def test_a_deeper_turn_presses_only_the_candidate_of_the_first_five_it_is_nearest() -> None:
    other = _candidate("other#raw", THEN, OTHER, 0.7)
    window = [STALE, other, *FILLERS[:8]]
    # Cosine 0.45 to the old statement (above min_cosine), but nearer another of the five.
    near_other = _candidate("new#raw", LATER, NEAR_OTHER, 0.1, "these days it is the other one")
    led = _led(near_other, window=window)
    assert "old#raw" not in led
    assert set(led) == {"other#raw"}
    # Inside the window the same turn presses both (the window's rule is unchanged).
    inside = _led(window=[STALE, other, *FILLERS[:7], near_other])
    assert set(inside) == {"old#raw", "other#raw"}


def test_the_switch_reads_pressers_from_the_caller() -> None:
    # `deeper` empty (pressers_from at most the window): the rule is the window's alone.
    assert _led(rule=RULE.model_copy(update={"pressers_from": 0})) == {}


@pytest.mark.parametrize(
    ("question", "reads"),
    [
        ("which car do I drive now?", True),  # contrasts the present with before
        ("what do I drive these days?", True),
        ("which car do I drive?", False),  # the question vouches for nothing past the window
        ("what books am I reading now?", False),  # a set: a later item is one more
        ("what are all the places I have lived in these days?", False),
    ],
)
def test_only_a_question_that_says_now_reads_past_the_window(question: str, reads: bool) -> None:
    assert newer_statements.reads_deeper(question) is reads


def _keyed(candidate: MergedCandidate, key: str) -> MergedCandidate:
    edge = candidate.record.edge.model_copy(update={"slot_key": key})
    return MergedCandidate(
        FactRecord(edge=edge, lifecycle=candidate.record.lifecycle),
        candidate.sigma,
        candidate.sources,
        candidate.vector,
    )


def test_a_deeper_turn_keyed_apart_from_the_old_statement_does_not_press_it() -> None:
    # The old turn drew a fact of one slot, the newer turn one of another: the keys say they
    # are about different things, however near their vectors.
    keys = {"old#raw": frozenset({"user.music_preference"}), "new#raw": frozenset({"user.gym"})}
    assert _led(MARKED, keys=keys) == {}
    # A key in common, or no key on one side: the vectors decide, as in the window.
    same = {"old#raw": frozenset({"user.gym"}), "new#raw": frozenset({"user.gym"})}
    assert set(_led(MARKED, keys=same)) == {"old#raw"}
    assert set(_led(MARKED, keys={"old#raw": frozenset({"user.music_preference"})})) == {"old#raw"}
    # A keyed fact among the first five is keyed by its own slot key.
    fact = _keyed(_candidate("old#0", THEN, OLD, 0.8), "user.music_preference")
    window = [fact, *FILLERS]
    assert _led(MARKED, window=window, keys={"new#raw": frozenset({"user.gym"})}) == {}
    assert set(_led(MARKED, window=window)) == {"old#0"}
    # Inside the window keys do not gate (the window's rule is unchanged).
    inside = newer_statements.demotions(
        Intent.CURRENT, "which one do I have now?", [STALE, *FILLERS[:8], MARKED], NOW, RULE,
        DEMOTE_TO, (), keys,
    )  # fmt: skip
    assert set(inside) == {"old#raw"}


# The query path, on the real model: the question is asked in the old habit's words, and a
# dozen earlier chats on the same topic match it better than the newer turn, which ranks past
# the window. The newer turn says the change holds now.
OLD_TURN = "I swim thirty lengths at the leisure centre pool before work every morning"
NEW_TURN = "these days it's the rowing machine in the garage at six, the pool is shut for good"
CHATS = [
    "is chlorine bad for my hair if I swim every morning?",
    "what should I eat before a morning swim?",
    "my goggles keep fogging up, any tips?",
    "how many calories does swimming burn?",
    "can you suggest a swimming playlist?",
    "which swimming cap is best for long hair?",
    "how do I stop my ears hurting after swimming?",
    "my friend swims in the sea all year, is that safe?",
    "what is a good warm-up before swimming?",
    "is front crawl or breaststroke better for the back?",
    "do swimmers need to stretch?",
    "how often should I replace my swimsuit?",
]
STREAM = told_turns(
    [*[(t, []) for t in CHATS], (OLD_TURN, []), (NEW_TURN, [])], NOW, Category.PREFERENCES_HABITS
)
OLD_ID, NEW_ID = f"s{len(CHATS)}#raw", f"s{len(CHATS) + 1}#raw"
QUESTION = "where do I swim in the mornings now?"
#: The latest-value rule off: in a store this small its classifier takes chats for the newest
#: statement, which would hide what this rule does.
PATH = with_rule(load_policy(), "latest_value", enabled=False)
ON = with_rule(PATH, "newer_statements", enabled=True, pressers_from=30)
OFF = with_rule(PATH, "newer_statements", enabled=True, pressers_from=0)

embedded = embedded_stream(STREAM)
_ask = asker(ON, NOW)


def test_the_query_path_finds_the_newer_statement_past_the_window(
    embedder: MiniLMEmbedder, embedded: dict[str, EdgeEvent]
) -> None:
    vectors = stored([embedded[e.edge_id] for e in STREAM], PATH)
    off = [e for e, _ in _ask(vectors, embedder, QUESTION, OFF)]
    # Without the deeper pressers the old habit stood in the top 5 and the newer turn was not
    # in the top 10 (the class this rule is for).
    assert off.index(OLD_ID) < DEMOTE_TO and NEW_ID not in off
    answer = _ask(vectors, embedder, QUESTION)
    ids = [e for e, _ in answer]
    # The newer turn says the change itself ("… now"), so for this question about now it is
    # lifted to where the demoted block starts (round 26, `latest_value.deeper_marked_lifts`).
    assert ids.index(OLD_ID) >= DEMOTE_TO and NEW_ID in ids[: DEMOTE_TO + 1]
    assert any("found past the window: it leads" in w for w in dict(answer)[NEW_ID])
    unlifted = with_rule(ON, "latest_value", deeper_marked_lifts=False)
    assert NEW_ID not in [e for e, _ in _ask(vectors, embedder, QUESTION, unlifted)]
    assert moved_by(answer, f"a newer statement about what the question asks ({NEW_ID}") == {OLD_ID}
    why = dict(answer)[OLD_ID]
    assert any("found past the window" in w for w in why)
    # A question about the past keeps the history.
    past = _ask(vectors, embedder, "where did I swim in the mornings last year?")
    assert moved_by(past, "a newer statement") == set()


(
    test_the_ranking_does_not_depend_on_delivery_order,
    test_forgetting_an_edge_ends_where_never_telling_it_does,
) = ranking_properties(STREAM, QUESTION, ON, NOW)


def test_past_the_window_a_presser_must_be_closer_than_inside_it() -> None:
    """Past the window the question no longer vouches for the pair, so the newer turn must be
    closer to the candidate than a window presser (`deeper_min_cosine` 0.35 against
    `min_cosine` 0.3; round 22: a remark on another thing at cosine 0.31 pressed a gold turn)."""
    loose = _candidate("new#raw", LATER, _unit(0.32, 0.0, 0.0, 0.0, 0.947), 0.1,
                       "these days it is the other one")  # fmt: skip
    assert 0.3 <= float(np.dot(OLD, loose.vector)) < 0.35
    assert _led(loose) == {}
    # The same turn inside the window presses (the window's own gate is unchanged).
    assert set(_led(window=[STALE, *FILLERS[:8], loose])) == {"old#raw"}
    # With the floor at the window's, it presses from past the window too.
    assert set(_led(loose, rule=RULE.model_copy(update={"deeper_min_cosine": 0.3}))) == {"old#raw"}
