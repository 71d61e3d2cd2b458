"""Witnesses of `newer_statements.turn_says_now` (issue-11aa): a newer raw turn whose own words
place it in the present ("… now", "these days") leads an earlier statement about the same
thing for any current question — the question need not say "now", and the newer turn need not
match the question as well as the earlier one.

The class it answers (paper A.7.3 q_cur, AV1 / AV4 / AV6): a value told once — often keyed by
the extractor — and its replacement told later in words no rule reads; the user marks the
change with a present-time adverbial, the asker does not ("where does she work?"), and the
old statement, nearer the question's words, stays on top. The statements here are written
for the test; none comes from a paper-turns set.
"""

from __future__ import annotations

from datetime import datetime, timedelta

import numpy as np
import pytest

from schemas.categories import Category, Intent
from schemas.events import EdgeEvent
from schemas.policy import NewerStatementsPolicy, load_policy
from schemas.records import FactRecord, Lifecycle
from tests.unit.minilm_edges import (
    asker,
    embedded_stream,
    ranking_properties,
    stored,
    told_turns,
    with_rule,
)

# The clock and the toy vectors of the rule's first witnesses (about one thing: cosine 0.8).
from tests.unit.test_newer_statements import ABOUT, ABOUT_TOO, ELSE, LATER, NOW, THEN, _led
from workers.embedding.minilm import MiniLMEmbedder
from workers.query import newer_statements
from workers.query.candidates import MergedCandidate

#: The latest-value rule off: in a store this small its attribute classifier takes chatter for
#: the newest statement of a commute, which would hide what this rule does.
POLICY = with_rule(load_policy(), "latest_value", enabled=False)
ON = with_rule(POLICY, "newer_statements", enabled=True, turn_says_now=True)
# Without the turn's mark and without the do-question's waiver ("how do I get to …?",
# present_habit_leads, witnessed in test_present_habit.py).
#: Nor the small first tier, which ties this pair on its own since round 26 (`small_tier_max`,
#: witnessed on the query path below).
UNMARKED = with_rule(
    POLICY, "newer_statements", enabled=True, turn_says_now=False, present_habit_leads=False,
    small_tier_max=0,
)  # fmt: skip
DEMOTE_TO = POLICY.latest_value.demote_to
#: No present-time word: only the newer turn's own words can open the rule.
ASKED = "what am I into?"


def _candidate(edge_id: str, at: datetime, vector: np.ndarray, sigma: float = 0.6, *,
               text: str, raw: bool = True) -> MergedCandidate:  # fmt: skip
    edge = EdgeEvent(
        edge_id=edge_id, user_id="u1", text=text, categories=Category.OTHER, ingest_time=at,
        episodic=raw, slot_key=None if raw else f"user.{edge_id}", source_turns=(edge_id,),
    )  # fmt: skip
    life = Lifecycle(last_mentioned_at=at)
    return MergedCandidate(FactRecord(edge=edge, lifecycle=life), sigma, ("dense",), vector)


OLD = _candidate("old", THEN, ABOUT, sigma=0.9, text="pottery on thursday evenings")
#: Matches the question worse than the old statement (σ 0.4 < 0.9), says it holds now.
MARKED = _candidate("new", LATER, ABOUT_TOO, sigma=0.4, text="it's all woodturning these days")
PLAIN = _candidate("new", LATER, ABOUT_TOO, sigma=0.4, text="woodturning on thursday evenings")


def _demoted(*window: MergedCandidate, rule: NewerStatementsPolicy = ON.newer_statements,
             intent: Intent = Intent.CURRENT, question: str = ASKED) -> set[str]:  # fmt: skip
    return set(newer_statements.demotions(intent, question, window, NOW, rule, DEMOTE_TO))


def test_a_newer_turn_that_says_now_leads_whatever_the_question_says_and_says_why() -> None:
    found = newer_statements.demotions(
        Intent.CURRENT, ASKED, [OLD, MARKED], NOW, ON.newer_statements, DEMOTE_TO
    )
    assert found == {"old": newer_statements.Newer("new", 0.8, marked=True)}
    assert "which says it holds now" in newer_statements.explain(found["old"])
    # Without the switch the question must say "now" and the newer turn match it as well.
    assert _demoted(OLD, MARKED, rule=UNMARKED.newer_statements) == set()


def test_a_newer_turn_without_present_time_words_still_needs_the_question_and_sigma() -> None:
    assert _demoted(OLD, PLAIN) == set()
    # σ lower; shown among the first and close, it leads with `shown_newer_leads` (round 21,
    # tests/unit/test_newer_statements_shown.py), which these witnesses leave out.
    unshown = ON.newer_statements.model_copy(update={"shown_newer_leads": False})
    assert _demoted(OLD, PLAIN, question="what am I into now?", rule=unshown) == set()
    stronger = _candidate("new", LATER, ABOUT_TOO, sigma=0.95, text=PLAIN.record.edge.text)
    assert _demoted(OLD, stronger, question="what am I into now?") == {"old"}


@pytest.mark.parametrize(
    "newer",
    [
        _candidate("new", LATER, ELSE, text="it's all woodturning these days"),  # else
        _candidate("new", THEN + timedelta(hours=3), ABOUT_TOO, text="woodturning now"),  # same day
        _candidate("new", LATER, ABOUT_TOO, raw=False, text="User does woodturning now"),  # a fact
        _candidate("new", THEN - timedelta(days=3), ABOUT_TOO, text="woodturning now"),  # older
    ],
)
def test_the_other_gates_still_hold_for_a_turn_that_says_now(newer: MergedCandidate) -> None:
    # (An older "newer" may itself be led by OLD, the newest: only OLD's fate is asked here.)
    assert "old" not in _demoted(OLD, newer)


def test_what_says_now_is_a_contrast_with_before_stated_not_asked() -> None:
    for text in (
        "it's all woodturning these days", "we're in Porto now", "now: rye toast",
        "I don't take sugar anymore", "I'm no longer at the library", "nowadays I walk",
        "I knit now, any pattern tips?", "currently reading a lot of poetry",
        "I used to be a banker. Now, I dance", "for years\nnow I knit", "I have two dogs now",
        "I knit every day now",  # a frequency, no duration
    ):  # fmt: skip
        assert newer_statements.says_now(text), text
    for text in (
        # Continuity, not change: the old value may well still hold.
        "I'm still at the library", "I've been knitting for four months now",
        "two years now since we married", "I'm busy right now", "she left just now",
        # A duration of any unit or wording, however spaced (review r15, F1).
        "I've been doing this for a long time now", "been waiting two hours now",
        "for some time now", "for decades now", "knitting for 3 yrs now", "for years  now",
        "a year and a half now", "it has been ages now", "six months or so now",
        # Asked, or resolved for later: nothing stated about the present.
        "by the way, what are you reading currently?", "do you still knit now?",
        "I'll keep a diary from now on",
    ):  # fmt: skip
        assert not newer_statements.says_now(text), text
    still = _candidate("new", LATER, ABOUT_TOO, sigma=0.4, text="I'm still doing pottery")
    assert _demoted(OLD, still) == set()


def test_only_current_questions() -> None:
    for intent in (Intent.PAST, Intent.HISTORICAL, Intent.UPCOMING, Intent.CANCELLED):
        assert _demoted(OLD, MARKED, intent=intent) == set()


# The query path, on the real model: the old way to work keyed by the extractor, the new one
# told later in words no rule keys, the change marked by the user, not by the asker.
OLD_TURN = "I cycle to the office every morning along the river path, forty minutes door to door"
NEW_TURN = "these days I take the tram to the office, my bike got stolen outside the station"
CHATTER = [
    "can you suggest a quick pasta sauce",
    "my sister visits next month",
    "what's a good stretch for a stiff neck",
    "the printer jammed twice today",
    "how long do I boil an egg",
]
STREAM = told_turns([
    (OLD_TURN, [("User commutes to the office by bike", "user.commute", "bike")]),
    *[(t, []) for t in CHATTER[:2]],
    (NEW_TURN, []),
    *[(t, []) for t in CHATTER[2:]],
], NOW, Category.PREFERENCES_HABITS)  # fmt: skip
QUESTION = "how do I get to the office?"

embedded = embedded_stream(STREAM)
_ask = asker(ON, NOW)


def test_the_query_path_lets_the_marked_change_lead_an_unmarked_question(
    embedder: MiniLMEmbedder, embedded: dict[str, EdgeEvent]
) -> None:
    assert not newer_statements.asks_now(QUESTION)
    vectors = stored([embedded[e.edge_id] for e in STREAM], POLICY)
    answer = _ask(vectors, embedder, QUESTION)
    ids = [e for e, _ in answer]
    assert _led(answer) == {"s0#0", "s0#raw"}  # the keyed fact and its turn
    assert min(ids.index("s0#0"), ids.index("s0#raw")) >= DEMOTE_TO
    assert ids.index("s3#raw") < DEMOTE_TO
    # Without the switch the old way to work stood in the top 5 (stale).
    off = _ask(vectors, embedder, QUESTION, UNMARKED)
    assert _led(off) == set()
    assert [e for e, _ in off].index("s0#0") < DEMOTE_TO
    # A question about the past keeps the history.
    assert _led(_ask(vectors, embedder, "how did I get to the office last year?")) == set()


def test_the_query_path_lets_a_small_tier_tie_the_unmarked_pair(
    embedder: MiniLMEmbedder, embedded: dict[str, EdgeEvent]
) -> None:
    # Round 26 (`small_tier.py`): with neither the turn's mark nor the do-question's waiver,
    # the two ways to work are still the few candidates the question singles out.
    vectors = stored([embedded[e.edge_id] for e in STREAM], POLICY)
    few = with_rule(UNMARKED, "newer_statements", small_tier_max=4)
    answer = _ask(vectors, embedder, QUESTION, few)
    assert "s0#raw" in _led(answer)
    assert [e for e, _ in answer].index("s3#raw") < DEMOTE_TO


(
    test_the_ranking_does_not_depend_on_delivery_order,
    test_forgetting_an_edge_ends_where_never_telling_it_does,
) = ranking_properties(STREAM, QUESTION, ON, NOW)
