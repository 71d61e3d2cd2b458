"""Witnesses of `newer_statements.shown_newer_leads` (round 21, r21-av4; A.7.3 q_cur: of two
versions of one thing the newer leads a question about the present).

The statements are written here for the test; none comes from a paper-turns set. A value
changed and told again in weaker words than the question's: the older statement matches the
question better (σ higher), so `newer_statements`' σ condition kept it in front. When the
ranking shows the newer statement itself among the first 5, close to the older one (cosine at
least `shown_min_cosine`), and the question asks which value holds now, the newer leads
whatever its σ — not when the newer one is shown only past the first 5, not when the two are
merely on one topic, not for "still" or "anymore" (the question names the earlier state), not
for a question that names its own date, not with the switch off.
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
POLICY = load_policy()
RULE = POLICY.newer_statements
UNSHOWN = RULE.model_copy(update={"shown_newer_leads": False})
DEMOTE_TO = POLICY.latest_value.demote_to
ASKED = "which choir do I sing in now?"


def _unit(*xs: float) -> np.ndarray:
    v = np.asarray([*xs, 0.0, 0.0, 0.0][:4], dtype=np.float32)
    return v / np.linalg.norm(v)


ABOUT = _unit(1.0, 0.0)
#: Cosine 0.8 to ABOUT: two versions of one thing.
CLOSE = _unit(0.8, 0.6)
#: Cosine 0.35 to ABOUT: on one topic ("about the same thing", >= min_cosine 0.3), no version.
NEAR = _unit(0.35, float(np.sqrt(1 - 0.35**2)))
ELSE = _unit(0.0, 0.0, 1.0)


def _candidate(edge_id: str, at: datetime, vector: np.ndarray, sigma: float) -> MergedCandidate:
    edge = EdgeEvent(
        edge_id=edge_id, user_id="u1", text=f"statement {edge_id}", categories=Category.OTHER,
        ingest_time=at, episodic=True, source_turns=(edge_id,),
    )  # fmt: skip
    life = Lifecycle(last_mentioned_at=at)
    return MergedCandidate(FactRecord(edge=edge, lifecycle=life), sigma, ("dense",), vector)


OLD = _candidate("old", THEN, ABOUT, 0.7)
#: The newer version, a weaker match for the question (σ below the older's).
WEAKER = _candidate("new", LATER, CLOSE, 0.4)


def _demoted(*window: MergedCandidate, question: str = ASKED,
             rule: NewerStatementsPolicy = RULE) -> set[str]:  # fmt: skip
    return set(newer_statements.demotions(Intent.CURRENT, question, window, NOW, rule, DEMOTE_TO))


def test_a_shown_newer_version_leads_whatever_its_sigma_and_says_why() -> None:
    found = newer_statements.demotions(Intent.CURRENT, ASKED, [OLD, WEAKER], NOW, RULE, DEMOTE_TO)
    assert found == {"old": newer_statements.Newer("new", 0.8, shown=True)}
    assert "shown itself and close to this one" in newer_statements.explain(found["old"])
    # Without the switch the σ condition holds, as before round 21.
    assert _demoted(OLD, WEAKER, rule=UNSHOWN) == set()


def test_only_a_newer_version_shown_among_the_first() -> None:
    fillers = [_candidate(f"f{i}", THEN, ELSE, 0.6) for i in range(DEMOTE_TO - 2)]
    assert _demoted(OLD, *fillers, WEAKER) == {"old"}  # 5th: shown
    assert _demoted(OLD, *fillers, _candidate("f9", THEN, ELSE, 0.6), WEAKER) == set()  # 6th


def test_only_two_versions_not_two_remarks_on_one_topic() -> None:
    # On one topic (cosine 0.35 >= min_cosine) but below shown_min_cosine (0.4): σ decides.
    assert RULE.min_cosine <= 0.35 < RULE.shown_min_cosine
    assert _demoted(OLD, _candidate("new", LATER, NEAR, 0.4)) == set()
    assert _demoted(OLD, _candidate("new", LATER, NEAR, 0.7)) == {"old"}  # as relevant: σ passes


@pytest.mark.parametrize(
    "question",
    [
        "do I still sing with the choir?",  # names the earlier state: does it go on?
        "am I in a choir anymore?",
        "which choir am I currently singing in, on 3 March 2026?",  # its own date
        "what is my choir?",  # no present-time word, the copula (the unmarked path keeps σ)
        "which choir did I sing in?",  # the past
        "do you remember which choir I sing in?",  # to the assistant
    ],
)
def test_only_a_question_for_the_value_that_holds_now(question: str) -> None:
    assert not newer_statements.asks_current_value(question)
    assert _demoted(OLD, WEAKER, question=question) == set()


def test_the_questions_for_the_value_that_holds_now() -> None:
    for asked in (
        "which choir do I sing in now?", "what rate am I paying currently?",
        "where do I work these days?", "what's my current job?",
        "who do I bank with at the moment?", "what am I reading this week, now?",
    ):  # fmt: skip
        assert newer_statements.asks_current_value(asked), asked


# The query path, on the real model: a choir changed, the newer turn in fewer of the question's
# words; neither turn keyed.
OLD_TURN = "I sing alto in the Riverside Community Choir, rehearsals every Tuesday night"
NEW_TURN = "left Riverside for the cathedral chamber singers, a much smaller group, Thursdays"
CHATTER = [
    "can you suggest a quick pasta sauce",
    "the bus was late again this morning",
    "what's a good stretch for a stiff neck",
    "my sister visits next month",
    "how long do I boil an egg",
    "the printer at work jammed twice today",
]
STREAM = told_turns([
    (OLD_TURN, []), *[(t, []) for t in CHATTER[:3]],
    (NEW_TURN, []), *[(t, []) for t in CHATTER[3:]],
], NOW, Category.OTHER)  # fmt: skip
#: Without the switch; and without round 25's ending mark, which "left Riverside" also carries
#: (`test_ended_values.py`): either one alone leads the newer choir.
OFF = with_rule(POLICY, "newer_statements", shown_newer_leads=False, ended_value_marks=False)

embedded = embedded_stream(STREAM)
_ask = asker(POLICY, NOW)


def _led(answer: list[tuple[str, list[str]]]) -> set[str]:
    return moved_by(answer, "a newer statement about what the question asks")


def test_the_query_path_serves_the_newer_version_first(
    embedder: MiniLMEmbedder, embedded: dict[str, EdgeEvent]
) -> None:
    vectors = stored([embedded[e.edge_id] for e in STREAM], POLICY)
    answer = _ask(vectors, embedder, ASKED)
    ids = [e for e, _ in answer]
    assert _led(answer) == {"s0#raw"}
    assert ids.index("s0#raw") >= DEMOTE_TO and ids.index("s4#raw") < DEMOTE_TO
    # Without the switch the older choir stood first (stale), the newer one shown below it.
    off = [e for e, _ in _ask(vectors, embedder, ASKED, OFF)]
    assert off.index("s0#raw") == 0 and off.index("s4#raw") < DEMOTE_TO
    # "still" asks whether the earlier choir goes on: `shown_newer_leads` leaves it in front.
    # (Round 25's ending mark presses it for any current question, as a turn saying "now"
    # does: "left Riverside" is the answer to that question too.)
    unmarked = with_rule(POLICY, "newer_statements", ended_value_marks=False)
    still = [
        e for e, _ in _ask(vectors, embedder, "do I still sing in the Riverside choir?", unmarked)
    ]
    assert still.index("s0#raw") < DEMOTE_TO


(
    test_the_ranking_does_not_depend_on_delivery_order,
    test_forgetting_an_edge_ends_where_never_telling_it_does,
) = ranking_properties(STREAM, ASKED, POLICY, NOW)
