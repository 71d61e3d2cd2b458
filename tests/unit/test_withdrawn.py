"""Witnesses of the query-time rule for a withdrawal the ingest left unresolved
(workers/query/withdrawn.py; paper §3.3, A.9, AV7 — pass by absence, C.5).

The statements are written here for the test; none comes from a paper-turns set. A plan told
as a raw turn only (no fact, no slot: nothing the ingest's retraction could name) and, weeks
later, a raw turn giving it up, from which the ingest drew no retraction. For "are we …?" the
plan leaves the served top 10 — not for a past question, not when the later turn only weighs
or denies giving up, was told in the same session, is far from every earlier statement, was
resolved at ingest, or came after as_of; not under another embedder; and the same whatever
order the edges were delivered in, with repeats, forgets or an earlier as_of.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

import numpy as np
import pytest

from schemas.categories import Category, Intent, LifecycleState
from schemas.events import EdgeEvent
from schemas.policy import WithdrawnPolicy, load_policy
from schemas.query import QueryRequest
from schemas.records import FactRecord, Lifecycle
from tests.unit.minilm_edges import (
    as_of_property,
    embedded_stream,
    moved_by,
    ranking_properties,
    stored,
    told_turns,
    with_embeddings,
    with_rule,
)
from tests.unit.nearest_memory import unit as _unit
from workers.embedding.minilm import MODEL_ID, MiniLMEmbedder
from workers.extraction import own_withdrawal
from workers.ports import Hit
from workers.query import withdrawn
from workers.query.candidates import MergedCandidate
from workers.query.service import QueryService
from workers.stores.memory_vectors import InMemoryVectorIndex

NOW = datetime(2026, 5, 1, 10, tzinfo=UTC)
THEN = NOW - timedelta(days=200)
LATER = NOW - timedelta(days=20)
POLICY = load_policy()
ON = with_rule(POLICY, "withdrawn", enabled=True)
OFF = with_rule(POLICY, "withdrawn", enabled=False)
RULE = ON.withdrawn


#: A plan, a withdrawal of it (cosine 0.6), a statement on the topic farther from it (cosine
#: 0.33; 0.55 to the plan, below `same_plan_cosine`), another telling of the plan (0.9 to it,
#: 0.54 to the withdrawal) and one about something else. The stand-in probe reads the 4th
#: coordinate as "gives up".
PLAN = _unit(1.0, 0.0)
GIVES_UP = _unit(0.6, 0.0, 0.0, 0.8)
NEAR_ONLY = _unit(0.55, 0.835)
SAME_PLAN = _unit(0.9, 0.436)
ELSE = _unit(0.0, 0.0, 1.0)


def _probability(v: np.ndarray) -> float:
    return 0.99 if float(v[3]) > 0.5 else 0.01


def _candidate(edge_id: str, at: datetime, vector: np.ndarray, *, raw: bool = True,
               text: str | None = None, drawn: tuple[str, ...] = (), turn: str | None = None,
               last_mentioned: datetime | None = None) -> MergedCandidate:  # fmt: skip
    edge = EdgeEvent(
        edge_id=edge_id, user_id="u1", text=text or f"statement {edge_id}",
        categories=Category.OTHER, ingest_time=at, episodic=raw, episodic_of=drawn,
        slot_key=None if raw else f"project.{edge_id}", source_turns=(turn or edge_id,),
    )  # fmt: skip
    life = Lifecycle(last_mentioned_at=last_mentioned or at)
    return MergedCandidate(FactRecord(edge=edge, lifecycle=life), 0.6, ("dense",), vector)


OLD = _candidate("plan", THEN, PLAN)
OFF_TURN = _candidate("off", LATER, GIVES_UP)


def _given_up(*window: MergedCandidate, memory: Sequence[MergedCandidate] = (),
              intent: Intent = Intent.CURRENT, as_of: datetime = NOW,
              rule: WithdrawnPolicy = RULE,
              facts: Sequence[FactRecord] = ()) -> dict[str, withdrawn.Withdrawn]:  # fmt: skip
    """The rule over `window`, the user's memory being the window and `memory`."""
    everything = [*window, *memory]

    def nearest(vector: np.ndarray, before: datetime) -> list[Hit]:
        hits = [
            Hit(m.record, float(np.dot(vector, m.vector)), m.vector)
            for m in everything
            if m.vector is not None and m.record.edge.ingest_time < before
        ]
        return sorted(hits, key=lambda h: -h.score)[: rule.targets]

    def records(ids: Sequence[str]) -> list[FactRecord]:
        return [f for f in facts if f.edge_id in ids]

    def retracted(vector: np.ndarray) -> list[FactRecord]:
        return [m.record for m in everything if m.record.lifecycle.retracted_by is not None]

    return withdrawn.withdrawn(
        intent, window, as_of, rule, _probability, records, nearest, retracted
    )


def test_a_later_withdrawal_gives_up_the_statement_nearest_it_and_says_why() -> None:
    found = _given_up(OLD, OFF_TURN)
    assert found == {"plan": withdrawn.Withdrawn("off", "plan", 0.99, 0.6, "plan", 1.0)}
    why = withdrawn.explain(found["plan"])
    assert why.startswith("withdrawn: a later turn gives it up") and "cosine 0.60" in why
    # The facts told in the plan's turn go with it; the withdrawal itself stays.
    fact = _candidate("plan#0", THEN, PLAN, raw=False, turn="plan")
    assert set(_given_up(OLD, fact, OFF_TURN)) == {"plan", "plan#0"}
    for intent in (Intent.CURRENT, Intent.UPCOMING):
        assert set(_given_up(OLD, OFF_TURN, intent=intent)) == {"plan"}


def test_only_questions_about_now_or_ahead() -> None:
    for intent in (Intent.PAST, Intent.HISTORICAL, Intent.CANCELLED):
        assert _given_up(OLD, OFF_TURN, intent=intent) == {}
    assert _given_up(OLD, OFF_TURN, rule=OFF.withdrawn) == {}


def test_one_target_the_nearest_statement_of_the_whole_memory() -> None:
    # Only the nearest earlier statement is given up, not every one about the topic …
    near = _candidate("near", THEN, NEAR_ONLY)
    assert set(_given_up(OLD, near, OFF_TURN)) == {"plan"}
    # … and the nearest may be outside the window: then nothing in it is given up.
    assert _given_up(near, OFF_TURN, memory=[OLD]) == {}
    # Far from everything told before: no target.
    assert _given_up(_candidate("else", THEN, ELSE), OFF_TURN) == {}


@pytest.mark.parametrize(
    "later",
    [
        _candidate("off", LATER, GIVES_UP, text="should we give up on it?"),  # only weighed
        _candidate("off", LATER, GIVES_UP, text="we haven't given up on it"),  # denied
        _candidate("off", LATER, GIVES_UP, text="if the permit fails we'll drop it"),  # condition
        _candidate("off", THEN + timedelta(hours=2), GIVES_UP),  # the same session
        _candidate("off", LATER, GIVES_UP, raw=False),  # a fact, not the user's turn
        _candidate("off", LATER, NEAR_ONLY),  # not read as a withdrawal
        _candidate("off", LATER, GIVES_UP, turn="plan"),  # told in the plan's own turn
    ],
)
def test_only_an_asserted_later_session_withdrawal_gives_up(later: MergedCandidate) -> None:
    assert _given_up(OLD, later) == {}


@pytest.mark.parametrize(
    "said",
    [
        "the boat plan is not dead",  # a negated verdict (B4)
        "nobody said the boat plan is dead",  # nobody's word
        "I wish the boat plan were dead",  # a wish
        "my husband thinks the boat plan is dead",  # somebody else's word (B5)
        "my cousin's boat idea is dead",  # somebody else's plan
    ],
)
def test_a_withdrawal_that_is_not_the_users_own_gives_up_nothing(said: str) -> None:
    # The probe reads every one of these as a withdrawal (it cannot see negation or who speaks).
    assert _given_up(OLD, _candidate("off", LATER, GIVES_UP, text=said)) == {}


#: An earlier statement nearer the withdrawal than the plan (cosine 0.91), which the probe
#: does not read as a withdrawal (0.49 on the 4th coordinate).
NEARER = _unit(0.8, 0.0, 0.0, 0.45)


def test_the_target_is_a_live_assertion_a_question_or_a_dead_edge_is_skipped() -> None:
    question = _candidate("asked", THEN, NEARER, text="is the boat plan a good one?")
    assert set(_given_up(OLD, question, OFF_TURN)) == {"plan"}  # B6: not the question
    dead = _candidate("dead", THEN, NEARER)
    retracted = dead.record.model_copy(update={"lifecycle": Lifecycle(
        state=LifecycleState.RETRACTED, retracted_by="x", retracted_at=THEN + timedelta(days=1),
    )})  # fmt: skip
    gone = MergedCandidate(retracted, 0.6, ("dense",), NEARER)
    found = _given_up(OLD, gone, OFF_TURN)
    assert set(found) == {"plan"} and found["plan"].target == "plan"
    assert "the user's nearest earlier live assertion" in withdrawn.explain(found["plan"])


def test_an_earlier_withdrawal_said_again_is_skipped_for_the_plan() -> None:
    # N2: a repeated withdrawal (the first one out of the window) gives up the plan, the next
    # nearest statement, instead of nothing.
    first = _candidate("first-off", THEN + timedelta(days=30), GIVES_UP)
    assert set(_given_up(OLD, OFF_TURN, memory=[first])) == {"plan"}


#: Later than the withdrawal, before the question.
AFTER = LATER + timedelta(days=7)


@pytest.mark.parametrize(
    "later",
    [
        # A restatement of the plan the probe does not read as a withdrawal (R1).
        _candidate("again", AFTER, SAME_PLAN, text="we're back on with it, sanding next week"),
        # A withdrawal taken back, which the probe reads as one (B7).
        _candidate("undo", AFTER, GIVES_UP, text="the boat plan isn't dead after all"),
        _candidate("undo", AFTER, GIVES_UP, text="scrap what I said about dropping it"),
    ],
)
def test_the_users_newest_word_on_the_plan_decides(later: MergedCandidate) -> None:
    assert _given_up(OLD, OFF_TURN, later) == {}
    # Out of the window too: the user's memory is searched, not the ranking.
    assert _given_up(OLD, OFF_TURN, memory=[later]) == {}
    # As of a question before it, the withdrawal is still the newest word.
    assert set(_given_up(OLD, OFF_TURN, later, as_of=AFTER - timedelta(days=1))) == {"plan"}
    # Withdrawn again after it: withdrawn, with a restatement of the plan (not a turn the probe
    # reads as a withdrawal, which is no telling of the plan).
    again = _candidate("again-off", AFTER + timedelta(days=7), GIVES_UP)
    told = {"plan", "again"} if later.record.edge_id == "again" else {"plan"}
    assert set(_given_up(OLD, OFF_TURN, later, again)) == told


def test_a_plan_told_in_two_turns_is_withdrawn_whole() -> None:
    # R1b: another telling of the plan (cosine 0.9 to the target) goes with it, saying why …
    second = _candidate("second", THEN + timedelta(days=3), SAME_PLAN)
    found = _given_up(OLD, second, OFF_TURN)
    assert set(found) == {"plan", "second"}
    assert (found["second"].target, found["second"].told_in) == ("plan", "second")
    assert "told with second, the same plan (cosine 0.90 to plan)" in withdrawn.explain(
        found["second"]
    )
    # … a statement only on the topic (0.55 to the plan) does not.
    near = _candidate("near", THEN, NEAR_ONLY)
    assert set(_given_up(OLD, near, OFF_TURN)) == {"plan"}


def test_a_withdrawal_the_ingest_resolved_is_not_guessed_again() -> None:
    retraction = FactRecord(edge=EdgeEvent(
        edge_id="off#0", user_id="u1", text="User dropped the plan", categories=Category.OTHER,
        ingest_time=LATER, retracts=("project.other",), source_turns=("off",),
    ))  # fmt: skip
    resolved = _candidate("off", LATER, GIVES_UP, drawn=("off#0",))
    # Resolved: its retraction retracted one of the user's statements (round 18: one that
    # retracted nothing is read here, `test_withdrawn_unresolved.py`).
    hit = _candidate("boat", THEN, NEAR_ONLY)
    hit = MergedCandidate(hit.record.model_copy(update={"lifecycle": Lifecycle(
        retracted_by="off#0", retracted_at=LATER,
    )}), 0.6, ("dense",), NEAR_ONLY)  # fmt: skip
    assert _given_up(OLD, resolved, memory=[hit], facts=[retraction]) == {}
    # Drawn facts that retract nothing leave it to the rule.
    kept = retraction.model_copy(
        update={"edge": retraction.edge.model_copy(update={"retracts": ()})}
    )
    assert set(_given_up(OLD, resolved, facts=[kept])) == {"plan"}


def test_an_earlier_withdrawal_is_no_target() -> None:
    first = _candidate("first-off", THEN, GIVES_UP)
    assert _given_up(first, OFF_TURN) == {}


def test_time_as_of_the_question_decides() -> None:
    assert _given_up(OLD, OFF_TURN, as_of=LATER - timedelta(days=1)) == {}
    # Told again after the withdrawal: current again …
    restated = _candidate("plan", THEN, PLAN, last_mentioned=LATER + timedelta(days=3))
    assert _given_up(restated, OFF_TURN) == {}
    # … but not for a question dated before the restatement.
    assert set(_given_up(restated, OFF_TURN, as_of=LATER + timedelta(days=1))) == {"plan"}


# The query path, on the real model: a plan told as a raw turn only, given up weeks later in
# a raw turn the ingest drew no retraction from.
PLAN_TURN = (
    "we're building a treehouse for the kids in the big oak this summer, I've ordered the timber"
)
WITHDRAWAL_TURN = "the treehouse idea is dead, forget I ever mentioned it"
CHATTER = [
    "can you suggest a quick pasta sauce", "the bus was late again this morning",
    "what's a good stretch for a stiff neck", "my sister visits next month",
    "how long do I boil an egg", "the printer at work jammed twice today",
    "remind me what a good tip is in Portugal", "my phone screen cracked on the stairs",
    "which wine goes with grilled fish", "the neighbours' dog barked all night",
    "I need a birthday idea for my dad", "is it worth repainting the fence in autumn",
]  # fmt: skip
STREAM = told_turns([
    (PLAN_TURN, []), *[(t, []) for t in CHATTER[:6]],
    (WITHDRAWAL_TURN, []), *[(t, []) for t in CHATTER[6:]],
], NOW, Category.OTHER)  # fmt: skip
QUESTION = "are we building a treehouse this summer?"
#: A day before the withdrawal was told.
BEFORE = next(e.ingest_time for e in STREAM if e.edge_id == "s7#raw") - timedelta(days=1)

embedded = embedded_stream(STREAM)


def _ask(vectors: InMemoryVectorIndex, embedder: MiniLMEmbedder, question: str = QUESTION,
         policy: object = ON, k: int = 10) -> list[tuple[str, list[str]]]:  # fmt: skip
    service = QueryService(vectors, embedder, policy, clock=lambda: NOW)  # type: ignore[arg-type]
    result = service.query(QueryRequest(user_id="u1", query=question, as_of=NOW, k=k))
    return [(r.edge_id, r.why) for r in result.results]


def _gone(answer: list[tuple[str, list[str]]]) -> set[str]:
    return moved_by(answer, "withdrawn: a later turn gives it up")


def test_the_query_path_serves_the_plan_no_more_and_says_why(
    embedder: MiniLMEmbedder, embedded: dict[str, EdgeEvent]
) -> None:
    vectors = stored([embedded[e.edge_id] for e in STREAM], POLICY)
    # Without the rule the given-up plan leads the answer (AV7 fails: stale). (Round 25's
    # ending mark, "the treehouse idea is dead", alone presses it out of the first five too.)
    bare = with_rule(OFF, "newer_statements", ended_value_marks=False)
    off = [e for e, _ in _ask(vectors, embedder, policy=bare)]
    assert off.index("s0#raw") < 5
    on = _ask(vectors, embedder)
    assert "s0#raw" not in [e for e, _ in on]
    assert "s7#raw" in [e for e, _ in on]  # the withdrawal itself is served
    # Still in memory: a longer answer serves it last, saying why.
    every = _ask(vectors, embedder, k=50)
    assert every[-1][0] == "s0#raw" and _gone(every) == {"s0#raw"}
    # A question about the past keeps the history.
    assert _gone(_ask(vectors, embedder, "what did I say about a treehouse?", k=50)) == set()


def test_the_rules_memory_searches_are_exact(
    embedder: MiniLMEmbedder, embedded: dict[str, EdgeEvent], monkeypatch: pytest.MonkeyPatch
) -> None:
    # R2: the withdrawn set must be a function of the edge set, never of an HNSW graph.
    vectors = stored([embedded[e.edge_id] for e in STREAM], POLICY)
    asked: list[bool] = []
    search = vectors.search_dense

    def recording(user: str, vector: np.ndarray, limit: int, flt: object, *,
                  exact: bool = False) -> list[Hit]:  # fmt: skip
        asked.append(exact)
        return search(user, vector, limit, flt, exact=exact)  # type: ignore[arg-type]

    monkeypatch.setattr(vectors, "search_dense", recording)
    off = [e for e, _ in _ask(vectors, embedder, policy=OFF)]
    assert not any(asked)  # the ranking's own searches follow the store's plan
    on = [e for e, _ in _ask(vectors, embedder)]
    assert off != on and asked.count(True) >= 2  # the target and the plan's later words


def test_only_under_the_embedder_the_probe_reads(
    embedder: MiniLMEmbedder, embedded: dict[str, EdgeEvent]
) -> None:
    assert POLICY.withdrawn.embedder_model_id == MODEL_ID == embedder.model_id
    vectors = stored([embedded[e.edge_id] for e in STREAM], POLICY)
    other = with_rule(ON, "withdrawn", embedder_model_id="text-embedding-3-small")
    # Round 25's ending mark ("the treehouse idea is dead") is another rule's: off here.
    other = with_rule(other, "newer_statements", ended_value_marks=False)
    assert [e for e, _ in _ask(vectors, embedder, policy=other)].index("s0#raw") < 5


(
    test_the_ranking_does_not_depend_on_delivery_order,
    test_forgetting_an_edge_ends_where_never_telling_it_does,
) = ranking_properties(STREAM, QUESTION, ON, NOW)
test_a_question_before_the_withdrawal_reads_only_what_was_told = as_of_property(
    STREAM, QUESTION, ON, BEFORE
)


#: The plan, given up, then the withdrawal taken back in words the probe still reads as a
#: withdrawal (it cannot see "isn't"), or the plan told again (review R14, B7 and R1).
TAKEN_BACK = (
    "I was wrong about the treehouse, it isn't dead after all, we're going ahead",
    "the treehouse is back on after all, the kids start helping next week",
)


@pytest.mark.parametrize("later", TAKEN_BACK)
def test_a_withdrawal_taken_back_serves_the_plan_again(
    embedder: MiniLMEmbedder, later: str
) -> None:
    stream = told_turns([
        (PLAN_TURN, []), *[(t, []) for t in CHATTER[:6]], (WITHDRAWAL_TURN, []),
        *[(t, []) for t in CHATTER[6:9]], (later, []), *[(t, []) for t in CHATTER[9:]],
    ], NOW, Category.OTHER)  # fmt: skip
    vectors = stored(list(with_embeddings(embedder, stream).values()), POLICY)
    assert _gone(_ask(vectors, embedder, k=50)) == set()
    assert "s0#raw" in [e for e, _ in _ask(vectors, embedder)]


@pytest.mark.parametrize(
    ("text", "states"),
    [
        ("we're converting the barn. What should we ask the builder?", True),
        ("Quit smoking. Any tips for the first week?", True),
        ("Hi! Should we restore an old boat this summer?", False),
        ("Ugh. Should I have dropped the boat plan?", False),
        ("Thanks so much! Is it too late to book?", False),
        ("Or not. Would that be silly?", False),
    ],
)
def test_a_greeting_or_a_reaction_states_nothing(text: str, states: bool) -> None:
    # Review r18 M1: only a sentence that states something makes a turn an assertion.
    assert own_withdrawal.asserts(text) is states


def test_a_regret_question_after_a_withdrawal_takes_nothing_back() -> None:
    # Review r18 M1: the user's newest word on the plan must be a firm one (B7): a question
    # told after the withdrawal, even behind an interjection, leaves it withdrawn.
    for text in ("Ugh. Should I have dropped the boat plan?", "Should I have dropped it?"):
        later = _candidate("later", AFTER + timedelta(days=1), SAME_PLAN, text=text)
        assert set(_given_up(OLD, OFF_TURN, later)) == {"plan"}, text


def test_a_question_behind_a_greeting_is_no_plan_to_withdraw() -> None:
    question = _candidate("plan", THEN, PLAN, text="Hi! Should we restore an old boat this summer?")
    assert _given_up(question, OFF_TURN) == {}
