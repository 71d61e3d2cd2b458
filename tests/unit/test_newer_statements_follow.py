"""Witnesses of newer_statements' `facts_follow` (round 20): a fact drawn from a raw turn a newer
turn leads follows the turn, when the present was said of the change.

Synthetic candidates and vectors written here for the test; none comes from a paper-turns set.
An old raw turn and the concise fact drawn from it (a far better match for the question than
the newer turn, so σ keeps the fact from being led on its own), and a newer raw turn about the
same thing. For a question that says "now", or a newer turn that says so, the fact follows
its turn — not with the switch off; after an unmarked pressing (neither says "now") only with
`follow_unmarked` (on since round 25) and never for a question that names its moment by the
calendar (a dated set, LoCoMo dev, round 18), or when the newer turn restates the amount; not
a fact drawn from another turn; a fact past the shown places too.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import numpy as np

from schemas.categories import Category, Intent
from schemas.events import EdgeEvent
from schemas.policy import NewerStatementsPolicy, load_policy
from schemas.records import FactRecord, Lifecycle
from tests.unit.minilm_edges import with_rule
from workers.query import newer_statements
from workers.query.candidates import MergedCandidate

NOW = datetime(2026, 5, 1, 10, tzinfo=UTC)
THEN = NOW - timedelta(days=200)
LATER = NOW - timedelta(days=20)
# `shown_newer_leads` off: with it the fact, shown beside a close newer turn, is led on its own
# (round 21, tests/unit/test_newer_statements_shown.py); these witnesses are of the follow.
POLICY = with_rule(
    load_policy(), "newer_statements", enabled=True, facts_follow=True, shown_newer_leads=False
)
RULE = POLICY.newer_statements
DEMOTE_TO = POLICY.latest_value.demote_to


def _unit(*xs: float) -> np.ndarray:
    v = np.asarray([*xs, 0.0, 0.0, 0.0][:4], dtype=np.float32)
    return v / np.linalg.norm(v)


ABOUT = _unit(1.0, 0.0)
ABOUT_TOO = _unit(0.8, 0.6)
ELSE = _unit(0.0, 0.0, 1.0)


def _candidate(
    edge_id: str, at: datetime, vector: np.ndarray, sigma: float, *,
    drawn: tuple[str, ...] = (), text: str | None = None,
) -> MergedCandidate:  # fmt: skip
    raw = edge_id.endswith("#raw")
    edge = EdgeEvent(
        edge_id=edge_id, user_id="u1", text=text or f"statement {edge_id}",
        categories=Category.OTHER, ingest_time=at, episodic=raw, episodic_of=drawn,
        slot_key=None if raw else "user.pastime", source_turns=(edge_id.partition("#")[0],),
    )  # fmt: skip
    life = Lifecycle(last_mentioned_at=at)
    return MergedCandidate(FactRecord(edge=edge, lifecycle=life), sigma, ("dense",), vector)


#: The fact matches the question far better (σ 0.9) than the newer turn (0.6): σ keeps it.
FACT = _candidate("old#0", THEN, ABOUT, 0.9)
TURN = _candidate("old#raw", THEN, ABOUT, 0.6, drawn=("old#0",))
NEWER = _candidate("new#raw", LATER, ABOUT_TOO, 0.6)
MARKED = _candidate("new#raw", LATER, ABOUT_TOO, 0.6, text="these days it is all pottery")


def _led(*window: MergedCandidate, question: str = "what am I into now?",
         rule: NewerStatementsPolicy = RULE) -> dict[str, newer_statements.Newer]:  # fmt: skip
    return newer_statements.demotions(Intent.CURRENT, question, window, NOW, rule, DEMOTE_TO)


def test_a_drawn_fact_follows_its_led_turn_and_says_why() -> None:
    led = _led(FACT, TURN, NEWER)
    assert set(led) == {"old#raw", "old#0"}
    assert led["old#0"].drawn_from == "old#raw" and led["old#0"].by == "new#raw"
    why = newer_statements.explain(led["old#0"])
    assert why.startswith("drawn from old#raw") and "may be outdated" in why
    # Off, only the turn is led: the fact, the better match, stayed in front (stale).
    off = RULE.model_copy(update={"facts_follow": False})
    assert set(_led(FACT, TURN, NEWER, rule=off)) == {"old#raw"}


def test_only_when_the_question_or_the_newer_turn_says_now() -> None:
    unmarked = "what am I into?"
    strict = RULE.model_copy(update={"follow_unmarked": False})
    # Unmarked pressing (unmarked_single_value) leads the turn; the fact does not follow.
    assert set(_led(FACT, TURN, NEWER, question=unmarked, rule=strict)) == {"old#raw"}
    # A newer turn that says it holds now marks the change itself.
    assert set(_led(FACT, TURN, MARKED, question=unmarked, rule=strict)) == {"old#raw", "old#0"}
    loose = RULE.model_copy(update={"follow_unmarked": True})
    assert set(_led(FACT, TURN, NEWER, question=unmarked, rule=loose)) == {"old#raw", "old#0"}


def test_the_policy_lets_a_fact_follow_an_unmarked_pressing() -> None:
    """Round 25 (r25-av6): the policy turns `follow_unmarked` on. The concise fact drawn from
    the older turn ("User is vegan") matched the question better than the newer turn, so σ
    kept it first once its own turn was led by a newer one for a question for one value: the
    stale answer the led turn no longer gave. The fact is as old as the turn it was drawn
    from (A.7.3: the newer statement leads, and the fact is the older turn's part)."""
    assert load_policy().newer_statements.follow_unmarked
    led = _led(FACT, TURN, NEWER, question="what am I into?")
    assert set(led) == {"old#raw", "old#0"} and led["old#0"].drawn_from == "old#raw"


def test_not_for_a_question_that_names_its_moment() -> None:
    """A question dated by the calendar asks what held then ("What new activity has she
    started learning in August 2023?", LoCoMo dev: the evidence fact followed a turn an
    unmarked later remark led, round 18); a deictic day is the asker's now."""
    loose = RULE.model_copy(update={"follow_unmarked": True})
    dated = "what was I into in August 2023?"
    assert set(_led(FACT, TURN, NEWER, question=dated, rule=loose)) == {"old#raw"}
    today = "what am I into today?"
    assert set(_led(FACT, TURN, NEWER, question=today, rule=loose)) == {"old#raw", "old#0"}


def test_not_after_a_turn_that_only_weighs_a_change() -> None:
    """A newer turn that weighs a change ("thinking about moving, not decided yet") may lead
    the older turn of an unmarked question, but the fact drawn from it still holds: it does not
    follow (Appendix F soft supersession, AV9; tests/e2e/test_stories.py's Munich story, which
    the unmarked follow broke before this gate)."""
    weighing = _candidate(
        "new#raw", LATER, ABOUT_TOO, 0.6, text="I'm thinking about taking up pottery, not decided"
    )
    assert set(_led(FACT, TURN, weighing, question="what am I into?")) == {"old#raw"}
    # A plain newer statement: the fact follows (the policy's `follow_unmarked`).
    assert set(_led(FACT, TURN, NEWER, question="what am I into?")) == {"old#raw", "old#0"}


def test_only_a_fact_drawn_from_the_led_turn() -> None:
    other = _candidate("other#0", THEN, ABOUT, 0.9)
    assert set(_led(other, TURN, NEWER)) == {"old#raw"}


def test_a_fact_about_something_else_follows_too() -> None:
    # Measured: requiring the fact to be about what the newer turn says changed nothing on
    # LoCoMo dev and kept a stale fact; the turn's own reading decides.
    fact = _candidate("old#0", THEN, ELSE, 0.9)
    led = _led(fact, TURN, NEWER)
    assert set(led) == {"old#raw", "old#0"} and led["old#0"].cosine == 0.0


def test_a_fact_past_the_shown_places_follows_too() -> None:
    """Round 23: a fact of the led turn ranked 6th-10th would be lifted into the first five by
    the demotions themselves, there served unjudged (heldout11: a stale fact drawn from a
    restated premium's older turn); it follows as one shown does (the window is the
    caller's: `WindowRules._newer` passes its first `latest_value.window`)."""
    chatter = [_candidate(f"c{i}#raw", THEN, ELSE, 0.8) for i in range(DEMOTE_TO)]
    assert set(_led(TURN, *chatter, FACT, NEWER)) == {"old#raw", "old#0"}


def test_a_restated_amount_lets_the_fact_follow_without_now() -> None:
    """Round 23: the newer number replaces the older (A.7.1) — no weak unmarked reading — so
    what was drawn from the older turn follows it for a question that does not say "now"."""
    fact = _candidate("old#0", THEN, ABOUT, 0.9, text="User's van is held together by prayer")
    turn = _candidate(
        "old#raw", THEN, ABOUT, 0.6, drawn=("old#0",), text="my annual premium is £612, ugh"
    )
    renewal = _candidate("new#raw", LATER, ABOUT_TOO, 0.5, text="annual premium will be £698")
    led = _led(fact, turn, renewal, question="how much is my van insurance?")
    assert set(led) == {"old#raw", "old#0"} and led["old#raw"].restated


def test_a_follower_carries_its_turns_shown_and_deeper_flags_by_name() -> None:
    """Round 25: `follow` passed the turn's `deeper` where `shown` stands, so a fact following a
    turn a deeper presser led read as led for being shown (and `demoted_refill` reads `shown`:
    a shown-only pressing is no pair)."""
    deeper = newer_statements.Newer("new#raw", 0.5, marked=True, deeper=True)
    shown = newer_statements.Newer("new#raw", 0.5, shown=True)
    for led in (deeper, shown):
        out = newer_statements.follow([FACT], [FACT, TURN, NEWER], {"old#raw": led})
        assert out["old#0"].drawn_from == "old#raw"
        assert (out["old#0"].shown, out["old#0"].deeper) == (led.shown, led.deeper)
    why = newer_statements.explain(
        newer_statements.follow([FACT], [FACT, TURN, NEWER], {"old#raw": deeper})["old#0"]
    )
    assert "found past the window" in why
