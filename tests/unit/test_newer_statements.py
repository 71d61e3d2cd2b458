"""Witnesses of the query-time rule for an earlier statement a newer on-topic raw turn leads,
for a question about the present (workers/query/newer_statements.py; A.7.3 q_cur, §3.5,
Appendix F).

The statements are written here for the test; none comes from a paper-turns set. A taste
replaced with both tellings fact-less (the offline extractor keys neither): nothing ties the
two turns but what they are about. For "what … now?" the earlier turn leaves the top 5 — not
for a question without a present-time word, not for a past question, not for a later turn
told in the same session, about something else, matching the question worse, told after
as_of, the candidate's own, or about how things were; not under an embedder the cosine
threshold was not chosen on; and the same whatever order the edges were delivered in.
"""

from __future__ import annotations

from collections.abc import Callable
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
from workers.embedding.minilm import MODEL_ID, MiniLMEmbedder
from workers.query import newer_statements
from workers.query.candidates import MergedCandidate

NOW = datetime(2026, 5, 1, 10, tzinfo=UTC)
THEN = NOW - timedelta(days=200)
LATER = NOW - timedelta(days=20)
POLICY = load_policy()
ON = with_rule(POLICY, "newer_statements", enabled=True)
OFF = with_rule(POLICY, "newer_statements", enabled=False)
RULE = ON.newer_statements
DEMOTE_TO = POLICY.latest_value.demote_to
ASKED = "what am I into now?"


def _unit(*xs: float) -> np.ndarray:
    v = np.asarray([*xs, 0.0, 0.0, 0.0][:4], dtype=np.float32)
    return v / np.linalg.norm(v)


#: Two statements about one thing (cosine 0.8) and one about another (cosine 0 with both).
ABOUT = _unit(1.0, 0.0)
ABOUT_TOO = _unit(0.8, 0.6)
ELSE = _unit(0.0, 0.0, 1.0)


def _candidate(edge_id: str, at: datetime, vector: np.ndarray, sigma: float = 0.6, *,
               raw: bool = True, drawn: tuple[str, ...] = (), turn: str | None = None,
               last_mentioned: datetime | None = None,
               text: str | None = None) -> MergedCandidate:  # fmt: skip
    edge = EdgeEvent(
        edge_id=edge_id, user_id="u1", text=text or f"statement {edge_id}",
        categories=Category.OTHER,
        ingest_time=at, episodic=raw, episodic_of=drawn,
        slot_key=None if raw else f"user.{edge_id}", source_turns=(turn or edge_id,),
    )  # fmt: skip
    life = Lifecycle(last_mentioned_at=last_mentioned or at)
    return MergedCandidate(FactRecord(edge=edge, lifecycle=life), sigma, ("dense",), vector)


OLD = _candidate("old", THEN, ABOUT)
NEW = _candidate("new", LATER, ABOUT_TOO)


def _demoted(*window: MergedCandidate, question: str = ASKED, intent: Intent = Intent.CURRENT,
             as_of: datetime = NOW, rule: NewerStatementsPolicy = RULE,
             shown: int = DEMOTE_TO) -> set[str]:  # fmt: skip
    return set(newer_statements.demotions(intent, question, window, as_of, rule, shown))


def tier_demotions(
    rule: NewerStatementsPolicy, tier: frozenset[str], question: str, demote_to: int = 5
) -> Callable[..., dict[str, newer_statements.Newer]]:
    """`newer_statements.demotions` for a current question as of NOW over a window whose first
    tier is `tier`: `found(*window, rule=…, tier=…, question=…)`, each default overridable (the
    first-tier witnesses: test_small_tier.py, test_low_cosine_versions.py)."""

    def found(
        *window: MergedCandidate, rule: NewerStatementsPolicy = rule,
        tier: frozenset[str] = tier, question: str = question,
    ) -> dict[str, newer_statements.Newer]:  # fmt: skip
        return newer_statements.demotions(
            Intent.CURRENT, question, window, NOW, rule, demote_to, tier=tier
        )

    return found


def test_an_earlier_statement_yields_to_a_newer_turn_about_it_and_says_why() -> None:
    found = newer_statements.demotions(Intent.CURRENT, ASKED, [OLD, NEW], NOW, RULE, DEMOTE_TO)
    assert found == {"old": newer_statements.Newer("new", 0.8)}
    why = newer_statements.explain(found["old"])
    assert "leads current questions" in why and "may be outdated" in why
    # The newer turn keeps its place; a keyed fact is pressed the same way.
    keyed = _candidate("job", THEN, ABOUT, raw=False)
    assert _demoted(keyed, NEW) == {"job"}


def test_only_a_question_about_the_present_and_only_a_current_one() -> None:
    # An unmarked question opens the rule only with `unmarked_single_value` (issue-11ag, on by
    # default, tests/unit/test_newer_statements_unmarked.py) or without `explicit_now`.
    gated = RULE.model_copy(update={"unmarked_single_value": False})
    assert _demoted(OLD, NEW, question="what am I into?", rule=gated) == set()
    assert _demoted(OLD, NEW, question="what am I into?",
                    rule=gated.model_copy(update={"explicit_now": False})) == {"old"}  # fmt: skip
    assert _demoted(OLD, NEW, question="what am I into?") == {"old"}
    for intent in (Intent.PAST, Intent.HISTORICAL, Intent.UPCOMING, Intent.CANCELLED):
        assert _demoted(OLD, NEW, intent=intent) == set()
    assert _demoted(OLD, NEW, rule=OFF.newer_statements) == set()


@pytest.mark.parametrize(
    "newer",
    [
        _candidate("new", LATER, ELSE),  # about something else
        _candidate("new", LATER, ABOUT_TOO, sigma=0.4),  # a weaker match for the question
        _candidate("new", LATER, ABOUT_TOO, raw=False),  # a keyed fact, not the user's turn
        _candidate("new", THEN + timedelta(hours=2), ABOUT_TOO),  # the same session
        _candidate("new", THEN - timedelta(days=1), ABOUT_TOO),  # older
        _candidate("new", LATER, ABOUT_TOO, drawn=("old",)),  # the turn it was drawn from
        _candidate("new", LATER, ABOUT_TOO, turn="old"),  # told in the same turn
    ],
)
def test_only_a_later_session_turn_about_it_and_as_relevant_presses(
    newer: MergedCandidate,
) -> None:
    # The σ condition itself: a weaker match shown among the first leads with
    # `shown_newer_leads` (round 21, tests/unit/test_newer_statements_shown.py).
    assert "old" not in _demoted(
        OLD, newer, rule=RULE.model_copy(update={"shown_newer_leads": False})
    )


def test_time_as_of_the_question_decides() -> None:
    # A newer turn told after the question's date does not count.
    assert _demoted(OLD, NEW, as_of=LATER - timedelta(days=1)) == set()
    # A statement said again after the newer turn is current again …
    restated = _candidate("old", THEN, ABOUT, last_mentioned=LATER + timedelta(days=3))
    assert _demoted(restated, NEW) == set()
    # … but not for a question dated before the restatement (R3: unknown at as_of).
    assert _demoted(restated, NEW, as_of=LATER + timedelta(days=1)) == {"old"}


def test_only_the_shown_candidates_move() -> None:
    fillers = [_candidate(f"f{i}", THEN, ELSE) for i in range(DEMOTE_TO)]
    assert _demoted(*fillers, OLD, NEW) == set()  # already past the top 5
    assert _demoted(OLD, *fillers, NEW) == {"old"}  # the presser may rank anywhere in the window


def test_the_newest_presser_is_named() -> None:
    newest = _candidate("newest", LATER + timedelta(days=2), ABOUT_TOO)
    found = newer_statements.demotions(
        Intent.CURRENT, ASKED, [OLD, newest, NEW], NOW, RULE, DEMOTE_TO
    )
    assert found["old"].by == "newest"
    assert found["new"].by == "newest"  # an intermediate statement yields too


def test_the_present_time_words_are_a_closed_family() -> None:
    for asked in (
        "what do I read now?", "what am I currently reading", "do I still swim?",
        "what do I drink these days?", "my current car?", "do I run anymore?",
        "do I run any more, now that the knee is bad?", "where do I live at the moment?",
        "what's my current job?", "nowadays, what do I cook?", "is he still seeing the physio",
    ):  # fmt: skip
        assert newer_statements.asks_now(asked), asked
    for asked in (
        "what do I read?", "what is Caroline's identity?", "who knows?",
        # Words of the family in another use: not about the present as against before.
        "do I have any more siblings?", "is there any more news about my sister?",
        "what's my current account bank?", "what do I know about current events?",
        "what current do I paddle against at the river?", "do I have a still camera?",
        "do I still remember my first dog?", "do I still think about Lisbon?",
        "does she still miss her old school?", "snowdays are fun", "a nowhere town",
    ):  # fmt: skip
        assert not newer_statements.asks_now(asked), asked


#: Later turns about how things were: they say nothing of the present.
_ABOUT_BEFORE = [
    "I still think about the piano teacher who used to shout at me when I was a kid",
    "back when we lived in Leeds I read crime novels every night",
    "when I was little my gran read me Le Guin",
    "I used to swim before work",
]


@pytest.mark.parametrize("text", _ABOUT_BEFORE)
def test_a_later_turn_about_the_past_presses_nothing(text: str) -> None:
    assert newer_statements.about_before(text)
    assert _demoted(OLD, _candidate("new", LATER, ABOUT_TOO, text=text)) == set()


def test_a_later_turn_that_contrasts_before_with_now_still_presses() -> None:
    for text in (
        "I used to read thrillers, now it's all science fiction",
        "back when I was a kid I hated fish, these days I eat it every week",
        "my reading has gone all science fiction",
    ):
        assert not newer_statements.about_before(text), text
        assert _demoted(OLD, _candidate("new", LATER, ABOUT_TOO, text=text)) == {"old"}, text


# The query path, on the real model: a taste told twice, months apart, neither turn keyed.
OLD_TURN = "my evenings are all about crime novels, I go through a Scandinavian thriller a week"
NEW_TURN = "my reading has gone all science fiction, a Le Guin or Iain Banks book every night"
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
#: Without the rule the earlier taste stands second (stale).
QUESTION = "what kind of books am I reading now?"

embedded = embedded_stream(STREAM)
_ask = asker(ON, NOW)


def _led(answer: list[tuple[str, list[str]]]) -> set[str]:
    return moved_by(answer, "a newer statement about what the question asks")


def test_the_query_path_serves_the_newer_statement_first_and_says_why(
    embedder: MiniLMEmbedder, embedded: dict[str, EdgeEvent]
) -> None:
    vectors = stored([embedded[e.edge_id] for e in STREAM], POLICY)
    answer = _ask(vectors, embedder, QUESTION)
    ids = [e for e, _ in answer]
    assert _led(answer) == {"s0#raw"}
    assert ids.index("s0#raw") >= DEMOTE_TO
    assert ids.index("s4#raw") < DEMOTE_TO
    # Without the rule, the earlier taste stood in the top 5 (stale).
    off = _ask(vectors, embedder, QUESTION, OFF)
    assert _led(off) == set()
    assert [e for e, _ in off].index("s0#raw") < DEMOTE_TO
    # A question without a present-time word, or about the past, keeps the history.
    assert _led(_ask(vectors, embedder, "what kind of books do I read?")) == set()
    assert _led(_ask(vectors, embedder, "what books did I read in the evenings?")) == set()


def test_only_under_the_embedder_its_cosine_threshold_was_chosen_on(
    embedder: MiniLMEmbedder, embedded: dict[str, EdgeEvent]
) -> None:
    # The policy names the model whose cosines set min_cosine: the one the service embeds with.
    assert POLICY.newer_statements.embedder_model_id == MODEL_ID == embedder.model_id
    vectors = stored([embedded[e.edge_id] for e in STREAM], POLICY)
    other = with_rule(ON, "newer_statements", embedder_model_id="text-embedding-3-small")
    answer = _ask(vectors, embedder, QUESTION, other)
    assert _led(answer) == set()
    assert [e for e, _ in answer].index("s0#raw") < DEMOTE_TO  # as with the rule off


(
    test_the_ranking_does_not_depend_on_delivery_order,
    test_forgetting_an_edge_ends_where_never_telling_it_does,
) = ranking_properties(STREAM, QUESTION, ON, NOW)


def test_a_newer_turn_restating_the_amount_presses_however_it_matches_the_question() -> None:
    """A.7.1: the newer number replaces the older. A renewal worded unlike the question (σ
    lower) still leads when it states the older amount's currency with another number; a
    later remark without a number, or with the same number, or in another currency, does not
    (round 20, AV8)."""
    asked = "how much is my car insurance a year?"
    old = _candidate("old", THEN, ABOUT, text="renewed the car insurance, £412.50 for the year")
    weaker = {"sigma": 0.4}
    new = _candidate("new", LATER, ABOUT_TOO, **weaker, text="renewal letter came: £455 a year")
    assert _demoted(old, new, question=asked) == {"old"}
    why = newer_statements.explain(newer_statements.demotions(
        Intent.CURRENT, asked, [old, new], NOW, RULE, DEMOTE_TO)["old"])  # fmt: skip
    assert "restates the amount" in why
    for text in ("renewal letter came, ugh", "renewal letter: £412.50 again", "paid $455"):
        assert _demoted(old, _candidate("new", LATER, ABOUT_TOO, **weaker, text=text),
                        question=asked) == set()  # fmt: skip
    off = RULE.model_copy(update={"restated_amount": False})
    assert _demoted(old, new, question=asked, rule=off) == set()
    # Other gates hold: a newer amount about something else presses nothing.
    elsewhere = _candidate("new", LATER, ELSE, **weaker, text="the dentist charged me £455")
    assert _demoted(old, elsewhere, question=asked) == set()


def test_an_amount_is_its_currency_period_and_number() -> None:
    """A recurring amount — currency and period — ties two statements to one price; a one-off
    amount ("bought shoes for …") restates none (round 20: on the generator's train half
    one-off purchases pressed the gym fee)."""
    assert newer_statements.restates_amount("rent is $1,200 a month", "now 1,350 dollars/month")
    assert newer_statements.restates_amount("the gym is ₺1,960 monthly", "up to ₺2,060 a month")
    assert not newer_statements.restates_amount(
        "rent is $1,200 a month", "still 1200 bucks a month"
    )
    assert not newer_statements.restates_amount("rent is $1,200 a month", "$1,350 a year")
    assert not newer_statements.restates_amount("the gym is ₺2,450 a month", "shoes for ₺8,120")
    assert not newer_statements.restates_amount("rent is $1,200 a month", "it's 30 minutes away")


def test_a_period_adjective_before_the_amount_names_its_period() -> None:
    """Round 23: "your annual premium is £612" states a yearly amount as "£612 a year" does —
    the period qualifies the noun the amount is the price of; within its clause only."""
    assert newer_statements.restates_amount(
        "your annual premium is £612", "the annual premium will be £698"
    )
    assert newer_statements.restates_amount("monthly rent comes to €900", "rent is €950 a month")
    assert not newer_statements.restates_amount("annual premium is £612", "£698 a month")
    # A period word in another sentence, or too far before, qualifies nothing.
    assert not newer_statements.restates_amount(
        "the annual party was fun. I paid £40", "the annual party was fun. I paid £45"
    )


def test_a_bare_number_restated_presses_for_a_quantity_question() -> None:
    """Round 24: a running total or a count has no currency or period to tie two statements of
    it; for a question that asks a quantity, a newer turn that states another bare number and
    shares a content word with the older, the two close (cosine >= restated_count_min_cosine),
    leads however its words match the question (A.7.1: the newer number replaces)."""
    asked = "how much is in the boat kitty?"
    old = _candidate("old", THEN, ABOUT, text="the boat kitty is at 1,850 after the car boot sale")
    weaker = {"sigma": 0.4}
    new = _candidate(
        "new", LATER, ABOUT_TOO, **weaker, text="boat kitty update: 2,600, Jo chipped in"
    )
    assert _demoted(old, new, question=asked) == {"old"}
    assert newer_statements.demotions(Intent.CURRENT, asked, [old, new], NOW, RULE, DEMOTE_TO)[
        "old"
    ].restated
    # A question that asks no quantity, the same number again, no shared word, or a newer
    # statement not close enough: the σ condition stands.
    assert _demoted(old, new, question="what is the boat kitty for?") == set()
    for text in ("boat kitty: 1,850 still", "booked 2 tickets for the ferry"):
        assert _demoted(old, _candidate("new", LATER, ABOUT_TOO, **weaker, text=text),
                        question=asked) == set()  # fmt: skip
    far = _candidate("new", LATER, _unit(0.45, 0.89), **weaker, text=new.record.edge.text)
    assert _demoted(old, far, question=asked) == set()
    off = RULE.model_copy(update={"restated_count_min_cosine": 1.1})
    assert _demoted(old, new, question=asked, rule=off) == set()


def test_a_bare_number_is_no_clock_time_date_year_or_code() -> None:
    assert newer_statements.restates_count("the jar holds 40 coins", "the jar holds 55 coins")
    assert not newer_statements.restates_count(
        "the bus at 7:45 on the 15th", "the bus at 8:10 on the 16th"
    )
    assert not newer_statements.restates_count("the flat since 2019", "the flat since 2021")
    assert not newer_statements.restates_count("the A40 was shut", "the A44 was shut")
