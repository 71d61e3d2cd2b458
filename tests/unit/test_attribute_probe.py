"""The trained attribute probe (workers/extraction/attribute_probe.py) on MiniLM.

Questions and statements written here for the test, once, before either classifier was run
on them (none from a generator phrasing family or a paper-turns set): which single-valued
attribute each is about, as the latest-value rule asks it (`latest_value.asked_attributes`
with each classifier's policy thresholds). The probe must name more of them rightly than the
nearest prototypes do, and never name an attribute for chatter.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schemas.events import EdgeEvent
from schemas.policy import LatestValuePolicy
from schemas.query import ScoredFact
from workers.embedding.hashing import HashingEmbedder
from workers.embedding.minilm import MiniLMEmbedder
from workers.extraction.attribute_probe import AttributeClassifier, default_probe, load_probe
from workers.extraction.prototypes import PrototypeClassifier, default_table
from workers.query import latest_value
from workers.query.window_rules import _attribute_classifier

from .test_latest_value import CHANGES, CHATTER, POLICY, _edges
from .test_latest_value import _results as latest_value_results

RULE = POLICY.latest_value.model_copy(update={"enabled": True, "classifier": "prototypes"})
PROBE_RULE = RULE.model_copy(update={"classifier": "probe"})
ALLOWED = latest_value.single_valued(default_table(), RULE)

#: (text, the attribute it is about, or "" for none of them).
QUESTIONS = [
    ("where am I working these days?", "employer"),
    ("who pays my wages now?", "employer"),
    ("what do I do for a living?", "profession"),
    ("what's my line of work at the moment?", "profession"),
    ("which town do I call home right now?", "current_city"),
    ("where's my flat these days?", "current_city"),
    ("what do I drive now?", "car"),
    ("how much do I pay the landlord each month?", "rent"),
    ("how much money have I got put aside?", "savings"),
    ("what time do I get out of bed?", "wake_time"),
    ("who am I going out with?", "partner"),
    ("who's my boss?", "manager"),
    ("do I still eat meat?", "diet"),
    ("how do I get to the office?", "commute"),
    ("what's a nice soup for a cold day?", ""),
    ("can you recommend a film for tonight?", ""),
    ("how was the concert last weekend?", ""),
    ("help me plan a birthday party for my niece", ""),
    ("what's a good stretch for a sore back?", ""),
    ("when is my dentist appointment?", ""),
]


def _asked(
    classifier: AttributeClassifier, rule: LatestValuePolicy, vectors: np.ndarray
) -> list[str]:
    out = []
    for verdict in classifier.classify(vectors):
        asked = latest_value.asked_attributes(verdict, ALLOWED, rule.thresholds())
        out.append(asked[0] if len(asked) == 1 else "" if not asked else "+".join(asked))
    return out


def test_the_probe_names_the_asked_attribute_where_the_prototypes_do_not(
    embedder: MiniLMEmbedder,
) -> None:
    vectors = np.asarray(embedder.embed([q for q, _ in QUESTIONS]))
    gold = [a for _, a in QUESTIONS]
    probe = _asked(default_probe(), PROBE_RULE, vectors)
    prototypes = _asked(PrototypeClassifier(embedder), RULE, vectors)
    right_probe = sum(p == g for p, g in zip(probe, gold, strict=True))
    right_prototypes = sum(p == g for p, g in zip(prototypes, gold, strict=True))
    # Measured when written: probe 16/20, prototypes 11/20.
    assert right_probe >= 15, list(zip(probe, gold, strict=True))
    assert right_probe >= right_prototypes + 4
    # Chatter never reads as a single-valued attribute (a false demotion's source).
    assert all(p == "" for p, g in zip(probe, gold, strict=True) if g == "")


def test_probabilities_are_a_distribution_over_the_attributes_and_none(
    embedder: MiniLMEmbedder,
) -> None:
    probe = default_probe()
    verdicts = probe.classify(np.asarray(embedder.embed(["I moved to Leeds in May", "hi"])))
    for verdict in verdicts:
        assert set(verdict.attribute_scores) == set(probe.labels)
        assert "none" in verdict.attribute_scores
        assert sum(verdict.attribute_scores.values()) == pytest.approx(1.0, abs=1e-4)
    assert probe.classify(np.zeros((0, 384), dtype=np.float32)) == []


def test_a_probe_whose_labels_do_not_match_its_weights_is_refused() -> None:
    with pytest.raises(ValueError, match="classes"):
        load_probe(np.zeros((385, 3)), {"labels": ["a", "b"], "model": "m", "scale": 1.0})


def test_the_policy_switch_chooses_the_probe_and_its_thresholds(
    embedder: MiniLMEmbedder,
) -> None:
    classifier, rule = _attribute_classifier(embedder, PROBE_RULE)
    assert classifier is default_probe()
    assert (rule.question_min, rule.candidate_min) == (
        PROBE_RULE.probe_question_min,
        PROBE_RULE.probe_candidate_min,
    )
    classifier, rule = _attribute_classifier(embedder, RULE)
    assert isinstance(classifier, PrototypeClassifier)
    assert rule.question_min == RULE.question_min


def test_vectors_of_another_embedder_fall_back_to_the_prototypes() -> None:
    classifier, rule = _attribute_classifier(HashingEmbedder(), PROBE_RULE)
    assert isinstance(classifier, PrototypeClassifier)
    assert rule.classifier == "prototypes" and rule.question_min == RULE.question_min


def _results(
    embedder: MiniLMEmbedder, edges: Sequence[EdgeEvent], question: str
) -> list[ScoredFact]:
    return latest_value_results(embedder, edges, question, PROBE_RULE)


def _ranking(embedder: MiniLMEmbedder, edges: Sequence[EdgeEvent], question: str) -> list[str]:
    return [r.edge_id for r in _results(embedder, edges, question)]


@pytest.mark.parametrize(("question", "old", "new"), CHANGES)
def test_with_the_probe_the_older_statement_is_demoted_below_the_newer(
    embedder: MiniLMEmbedder, question: str, old: str, new: str
) -> None:
    edges = _edges(embedder, [old, *CHATTER * 2, new])
    results = _results(embedder, edges, question)
    ids = [r.edge_id for r in results]
    assert ids.index(edges[-1].edge_id) < ids.index("t0"), ids
    why = next(r.why for r in results if r.edge_id == "t0")
    assert any(w.startswith("an older statement of") for w in why), why
    newer = next(r.why for r in results if r.edge_id == edges[-1].edge_id)
    assert not any("older statement" in w for w in newer)


@settings(max_examples=8, deadline=None)
@given(data=st.data())
def test_with_the_probe_the_ranking_is_the_same_whatever_the_ingest_order(
    embedder: MiniLMEmbedder, data: st.DataObject
) -> None:
    question, old, new = CHANGES[0]
    edges = _edges(embedder, [old, *CHATTER, new])
    order = data.draw(st.permutations(edges))
    assert _ranking(embedder, order, question) == _ranking(embedder, edges, question)
