"""Witnesses of `set_questions` (round 17, AV5 broad aggregation): for a question that asks for
a set, a fact and its verbatim raw turn are one item and take one place in the window; the place
a duplicate frees goes to the candidate after the window that best matches the asked kind (the
extraction prototypes, §3.1 / §3.3); the top 5 and every non-duplicate of the window keep their
places. The statements are written for the test; none comes from a paper-turns set or LoCoMo.
"""

from __future__ import annotations

from datetime import UTC, datetime

import numpy as np
import pytest

from schemas.categories import Category
from schemas.events import EdgeEvent
from schemas.policy import load_policy
from schemas.records import FactRecord, Lifecycle
from workers.embedding.minilm import MODEL_ID, MiniLMEmbedder
from workers.extraction.prototypes import PrototypeClassifier, default_table
from workers.query import set_questions
from workers.query.candidates import MergedCandidate

AT = datetime(2026, 3, 1, 12, tzinfo=UTC)


def _candidate(
    edge_id: str,
    turn: str,
    sigma: float,
    *,
    episodic: bool = True,
    category: Category = Category.OTHER,
    vector: np.ndarray | None = None,
    text: str | None = None,
) -> MergedCandidate:
    edge = EdgeEvent(
        edge_id=edge_id, user_id="u1", text=text or edge_id, categories=category, ingest_time=AT,
        episodic=episodic, source_turns=(turn,),
    )  # fmt: skip
    record = FactRecord(edge=edge, lifecycle=Lifecycle())
    return MergedCandidate(record, sigma, ("dense",), vector)


def test_the_default_policy_turns_it_on_for_minilm() -> None:
    rule = load_policy().set_questions
    assert rule.enabled and rule.kind_weight == 1.0
    assert rule.chatter_yields and rule.chatter_margin == 0.0 and rule.questions_yield
    assert rule.embedder_model_id == MODEL_ID


@pytest.mark.parametrize(
    ("question", "many"),
    [
        ("List all my pastimes", True),
        ("What are her hobbies?", True),
        ("what are all of Bruno's instruments?", True),
        ("Which languages does he speak?", True),
        ("What is her job?", False),
        ("Where does she live?", False),
        ("What are you doing?", False),
        # A set asked about now: which items replaced the earlier ones (A.7.3), not every one.
        ("What tours do I guide now?", False),
        ("what are my hobbies these days?", False),
    ],
)
def test_a_set_question_is_a_grammatical_shape(question: str, many: bool) -> None:
    assert set_questions.asks_for_set(question) is many


def test_a_duplicate_in_the_window_gives_its_place_to_the_asked_kind() -> None:
    # Ranks 1-5: five distinct turns; rank 6 the raw turn of the fact at rank 2; 7-10 others;
    # after the window two candidates, the second of the asked kind.
    merged = [_candidate(f"e{n}", f"t{n}", 0.9 - n / 100) for n in range(9)] + [
        _candidate("e1-raw", "t1", 0.5), _candidate("chat", "t20", 0.3),
        _candidate("pastime", "t21", 0.2),
    ]  # fmt: skip
    ranked = [0, 1, 2, 3, 4, 9, 5, 6, 7, 8, 10, 11]
    margins = {10: -0.1, 11: 0.3}
    out, placed = set_questions.fill_window(ranked, merged, lambda i: True, margins, 1.0, 5, 10)
    assert out[:5] == ranked[:5]  # the top 5 is the lifecycle ranking's
    assert out[5:10] == [5, 6, 7, 8, 11]  # the kind's candidate takes the freed place
    assert out[10:] == [9, 10]  # the duplicate follows the window, then the rest
    assert placed == {"pastime"}
    # Without the kind evidence the freed place goes by σ: the chatter.
    out, placed = set_questions.fill_window(ranked, merged, lambda i: True, margins, 0.0, 5, 10)
    assert out[9] == 10 and placed == {"chat"}


def test_no_duplicate_no_change_and_masked_candidates_take_no_place() -> None:
    merged = [_candidate(f"e{n}", f"t{n}", 0.9 - n / 100) for n in range(12)]
    ranked = list(range(12))
    out, placed = set_questions.fill_window(ranked, merged, lambda i: True, {11: 0.5}, 1.0, 5, 10)
    assert out == ranked and placed == set()
    merged.append(_candidate("e0-raw", "t0", 0.5))
    ranked = [0, 1, 2, 3, 4, 5, 12, 6, 7, 8, 9, 10, 11]
    # e11 would lead the freed place by its kind, but the lifecycle masks it.
    masked = {11: 0.5}
    out, placed = set_questions.fill_window(ranked, merged, lambda i: i != 11, masked, 1.0, 5, 10)
    assert 11 not in out[:10] and placed == {"e9"}


def test_a_duplicate_in_the_top_five_stays() -> None:
    """The first places are the lifecycle ranking's, as for every window rule."""
    merged = [_candidate("fact", "t0", 0.9), _candidate("raw", "t0", 0.8)] + [
        _candidate(f"e{n}", f"t{n}", 0.5) for n in range(1, 12)
    ]
    ranked = list(range(13))
    out, _ = set_questions.fill_window(ranked, merged, lambda i: True, {}, 1.0, 5, 10)
    assert out == ranked


@pytest.fixture(scope="module")
def minilm() -> MiniLMEmbedder:
    return MiniLMEmbedder()


def test_a_pastime_told_in_its_own_words_is_nearer_the_hobby_kind(minilm: MiniLMEmbedder) -> None:
    texts = [
        "most Sunday afternoons I'm down at the lake with my fishing rod",
        "carving wooden spoons in the garage most evenings",
        "my landlord wants the rent by the 3rd",
        "can you proofread this email to my manager?",
    ]
    vectors = np.asarray(minilm.embed(texts), dtype=np.float32)
    classifier = PrototypeClassifier(minilm, default_table())
    margins = set_questions.kind_margins(classifier, vectors, Category.HOBBIES_RECREATION)
    assert min(margins[:2]) > max(margins[2:])


def test_chatter_in_the_window_yields_its_place_to_the_asked_kind() -> None:
    """Round 20: no duplicate in the window, but place 8 holds chatter (a turn stating nothing of
    a kind); the candidate after the window that best matches the asked kind takes it."""
    merged = [_candidate(f"e{n}", f"t{n}", 0.9 - n / 100) for n in range(10)] + [
        _candidate("request", "t20", 0.3), _candidate("pastime", "t21", 0.2),
    ]  # fmt: skip
    ranked = list(range(12))
    margins = {7: -0.4, 10: -0.1, 11: 0.3}  # σ + margin: chatter 0.43, request 0.2, pastime 0.5
    out, placed = set_questions.fill_window(
        ranked, merged, lambda i: True, margins, 1.0, 5, 10, chatter={7}
    )
    assert out[:5] == ranked[:5]
    assert out[5:10] == [5, 6, 8, 9, 11]  # the pastime in the window, the chatter out
    assert out[10:] == [7, 10]  # the chatter follows the window, then the rest
    assert placed == {"pastime"}
    # Without the chatter set nothing moves: no duplicate frees a place.
    out, placed = set_questions.fill_window(ranked, merged, lambda i: True, margins, 1.0, 5, 10)
    assert out == ranked and placed == set()


def test_chatter_keeps_its_place_when_nothing_after_the_window_beats_it() -> None:
    merged = [_candidate(f"e{n}", f"t{n}", 0.9 - n / 100) for n in range(10)] + [
        _candidate("weak", "t20", 0.1),
    ]
    ranked = list(range(11))
    margins = {7: 0.0, 10: -0.3}
    out, placed = set_questions.fill_window(
        ranked, merged, lambda i: True, margins, 1.0, 5, 10, chatter={7}
    )
    assert set(out[:10]) == set(range(10)) and placed == set()


def test_only_a_factless_turn_read_as_nothing_of_a_kind_is_chatter(minilm: MiniLMEmbedder) -> None:
    """`chatter_of`: the fact-less Other raw turns nearest the Other examples. A statement of a
    concrete kind (an instrument, a pet) is no chatter whatever kind the prototypes read it as,
    and an extracted fact never is."""
    texts = [
        "thanks!",
        "can you give me a quick recipe for tonight?",
        "I play the cello in a string quartet on Sunday afternoons",
        "our rabbit Pepper lives in a hutch by the back door",
        "thanks!",
    ]
    vectors = np.asarray(minilm.embed(texts), dtype=np.float32)
    merged = [_candidate(f"e{n}", f"t{n}", 0.5, vector=v) for n, v in enumerate(vectors[:4])]
    merged.append(
        _candidate("fact", "t4", 0.5, episodic=False, category=Category.OTHER, vector=vectors[4])
    )
    classifier = PrototypeClassifier(minilm, default_table())
    assert set_questions.chatter_of(merged, range(5), classifier, 0.0, False) == {0, 1}
    # A stricter margin asks more of the Other reading.
    assert set_questions.chatter_of(merged, range(5), classifier, 1.0, False) == set()


@pytest.mark.parametrize(
    ("text", "nothing"),
    [
        ("which tyres should I buy for a small hatchback?", True),
        ("is it normal for a boiler to click at night? it started on Monday?", True),
        # A statement with a question tagged on states what it states.
        ("my rent is 950 a month, is that a lot?", False),
        # A pastime told beside a question.
        ("Is raku glaze safe for mugs? It's what we fire in my Thursday pottery class.", False),
        ("thanks!", False),
    ],
)
def test_a_turn_states_nothing_when_every_sentence_asks(text: str, nothing: bool) -> None:
    assert set_questions.states_nothing(text) is nothing


def test_a_factless_turn_that_only_asks_is_chatter(minilm: MiniLMEmbedder) -> None:
    """Round 20: the prototypes read a question about tyres as no Other turn (it is near the
    financial examples); the grammar says it states nothing, so it yields for a set question —
    a fact drawn from a question-shaped turn never does."""
    texts = ["which tyres should I buy for a small hatchback?"] * 2
    vectors = np.asarray(minilm.embed(texts), dtype=np.float32)
    merged = [
        _candidate("asks", "t0", 0.5, vector=vectors[0], text=texts[0]),
        _candidate("fact", "t1", 0.5, episodic=False, vector=vectors[1], text=texts[1]),
    ]
    classifier = PrototypeClassifier(minilm, default_table())
    assert set_questions.chatter_of(merged, range(2), classifier, 0.0, False) == set()
    assert set_questions.chatter_of(merged, range(2), classifier, 0.0, True) == {0}
