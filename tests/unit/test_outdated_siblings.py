"""Witnesses of the query-time rule for what was told with a replaced fact
(workers/query/outdated_siblings.py; the paper's "slot-key fragmentation", §6).

The statements are written here for the test; none comes from a paper-turns set. One turn
yields a tour business (replaced later) and its price (never restated): the price and the
raw turn stay active, and leave the top of a current question about the tours once the
statement that replaced the tours ranks above them — not of a past question, not when the
replacement ranks below them, and the same whatever order the edges were delivered in.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

import pytest

from schemas.categories import Category, Intent, LifecycleState
from schemas.events import EdgeEvent
from schemas.policy import load_policy
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
from workers.query import outdated_siblings

NOW = datetime(2026, 5, 1, 10, tzinfo=UTC)
POLICY = load_policy()
ON = with_rule(POLICY, "outdated_siblings", enabled=True)
OFF = with_rule(POLICY, "outdated_siblings", enabled=False)
#: Off, and newer_statements off too: since round 23 its drawn facts follow their led turn
#: from anywhere in the window, so on this stream it moves the price on its own as well.
ALONE_OFF = with_rule(OFF, "newer_statements", enabled=False)
DEMOTE_TO = POLICY.latest_value.demote_to


def _record(edge_id: str, *, of: tuple[str, ...] = (), state: str = "active",
            by: str | None = None) -> FactRecord:  # fmt: skip
    replaced = {"superseded_by": by} if state == "superseded" else {"retracted_by": by}
    return FactRecord(
        edge=EdgeEvent(
            edge_id=edge_id, user_id="u1", text=edge_id, categories=Category.OTHER,
            ingest_time=NOW, episodic=bool(of), episodic_of=of,
        ),
        lifecycle=Lifecycle(state=LifecycleState(state), **(replaced if by else {})),
    )  # fmt: skip


# A turn told a business (t1#0, replaced by n#0) and its price (t1#1); n#raw told the change.
OLD_RAW = _record("t1#raw", of=("t1#0", "t1#1"))
PRICE = _record("t1#1")
TOURS = _record("t1#0", state="superseded", by="n#0")
NEW_RAW = _record("n#raw", of=("n#0",))
CHAT = _record("c#raw", of=("c#0",))


def _demoted(window: Sequence[FactRecord], facts: Sequence[FactRecord],
             intent: Intent = Intent.CURRENT) -> dict[str, outdated_siblings.Demotion]:  # fmt: skip
    told = outdated_siblings.turn_facts(window)
    wanted = outdated_siblings.wanted(window, told)
    found = {f.edge_id: f for f in facts if f.edge_id in wanted}
    return outdated_siblings.demotions(intent, window, told, found)


def test_what_was_told_with_a_replaced_fact_yields_to_its_replacement() -> None:
    demoted = _demoted([NEW_RAW, PRICE, CHAT, OLD_RAW], [TOURS])
    assert set(demoted) == {"t1#1", "t1#raw"}
    assert demoted["t1#1"] == outdated_siblings.Demotion("t1#0", "n#0", "superseded")
    assert "superseded by n#0" in outdated_siblings.explain(demoted["t1#1"])


def test_a_replacement_ranked_below_keeps_the_candidate_in_front() -> None:
    """The question is about the price, not the tours: the price stays first."""
    assert set(_demoted([PRICE, OLD_RAW, NEW_RAW], [TOURS])) == set()
    assert set(_demoted([PRICE, NEW_RAW, OLD_RAW], [TOURS])) == {"t1#raw"}


def test_retracted_facts_count_and_current_facts_do_not() -> None:
    retracted = _record("t1#0", state="retracted", by="n#0")
    assert _demoted([NEW_RAW, OLD_RAW], [retracted])["t1#raw"].relation == "retracted"
    assert _demoted([NEW_RAW, OLD_RAW], [_record("t1#0")]) == {}
    assert _demoted([NEW_RAW, OLD_RAW], []) == {}  # the fact is not in the store (forgotten)


@pytest.mark.parametrize("intent", [Intent.PAST, Intent.HISTORICAL, Intent.UPCOMING])
def test_history_stays_for_other_questions(intent: Intent) -> None:
    assert _demoted([NEW_RAW, PRICE, OLD_RAW], [TOURS], intent) == {}


# ---- the query path, on MiniLM ---------------------------------------------------------

OLD_TURN = "I run kayak tours on the fjord every summer, we charge 90 euros a person"
NEW_TURN = "we stopped the kayak tours for good, these days I teach sailing to kids"
#: Neutral chatter of the same user between the two turns.
CHATTER = [
    "any tips for getting a toddler to sleep past six?",
    "my neighbour's dog barked all night again",
    "recommend a novel for a rainy weekend",
    "that bread recipe came out dense, what went wrong",
]


#: The two turns as the offline extractor stores them, with chatter between them.
STREAM = told_turns([
    (OLD_TURN, [("User runs kayak tours on the fjord", "project.tours", "kayak tours"),
                ("User charges 90 euros a person", "price.person", "90 euros")]),
    *[(text, []) for text in CHATTER],
    (NEW_TURN, [("User stopped the kayak tours", "project.tours", "stopped")]),
], NOW, Category.PROJECTS_ENDEAVORS)  # fmt: skip
QUESTION = "what kind of tours do I run these days?"


embedded = embedded_stream(STREAM)
_ask = asker(ON, NOW)


def _told_with(answer: list[tuple[str, list[str]]]) -> set[str]:
    return moved_by(answer, "told with ")


def test_the_query_path_serves_the_replacement_first_and_says_why(
    embedder: MiniLMEmbedder, embedded: dict[str, EdgeEvent]
) -> None:
    vectors = stored([embedded[e.edge_id] for e in STREAM], POLICY)
    answer = _ask(vectors, embedder, QUESTION)
    ids = [e for e, _ in answer]
    assert _told_with(answer) == {"s0#1", "s0#raw"}
    assert min(ids.index("s0#1"), ids.index("s0#raw")) >= DEMOTE_TO
    assert ids.index("s5#0") < DEMOTE_TO
    # Without the rule, the price and the old turn stood in the top 5 (stale).
    off = _ask(vectors, embedder, QUESTION, ALONE_OFF)
    assert _told_with(off) == set()
    assert min(i for i, (e, _) in enumerate(off) if e in {"s0#1", "s0#raw"}) < DEMOTE_TO
    assert _told_with(_ask(vectors, embedder, "what tours did I run back then?")) == set()


(
    test_the_ranking_does_not_depend_on_delivery_order,
    test_forgetting_an_edge_ends_where_never_telling_it_does,
) = ranking_properties(STREAM, QUESTION, ON, NOW)
