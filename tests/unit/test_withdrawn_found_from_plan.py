"""Witnesses of round 22's readings of a withdrawal (workers/query/withdrawn.py; paper §3.3,
A.9, AV7 — pass by absence, C.5): a withdrawal far from its plan's vector bound to it by the
topic the question names (`asked_topic.py`), a withdrawal ranked below the window found from
the plan (`withdrawal_search.py`), and a withdrawn plan's tellings just below the window.

Every sentence is written here for the test; none comes from a paper-turns set. Stand-in
vectors; the stand-in probe reads the 4th coordinate as "gives up".
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

from schemas.categories import Intent
from schemas.policy import WithdrawnPolicy, load_policy
from tests.unit.minilm_edges import with_rule
from tests.unit.nearest_memory import nearest_in
from tests.unit.nearest_memory import told as _candidate
from tests.unit.nearest_memory import unit as _unit
from workers.query import withdrawn
from workers.query.asked_topic import asked_topic
from workers.query.candidates import MergedCandidate

NOW = datetime(2026, 5, 1, 10, tzinfo=UTC)
THEN = NOW - timedelta(days=200)
LATER = NOW - timedelta(days=20)
POLICY = load_policy()
RULE = with_rule(POLICY, "withdrawn", enabled=True).withdrawn
NO_ASKED = RULE.model_copy(update={"asked_topic_min_cosine": None})
NO_SEARCH = RULE.model_copy(update={"from_plans": 0})


def _given_up(*window: MergedCandidate, memory: Sequence[MergedCandidate] = (),
              rule: WithdrawnPolicy = RULE, query: str = "",
              head: Sequence[MergedCandidate] = ()) -> dict[str, withdrawn.Withdrawn]:  # fmt: skip
    everything = [*window, *memory]

    nearest = nearest_in(everything, rule.targets)

    return withdrawn.withdrawn(
        Intent.CURRENT, window, NOW, rule, lambda v: 0.99 if float(v[3]) > 0.5 else 0.01,
        lambda ids: [], nearest, lambda v: [], query, head,
    )  # fmt: skip


# --- the topic the question names binds a far withdrawal (cosine 0.2 < min_cosine 0.3) -----
BAND = _candidate("band", THEN, _unit(1.0), "the lads and I are starting a band, I'm on bass")
# Mostly reasons, so far from the plan's vector; the dismissal: a negated pro-verb.
BAND_OFF = _candidate(
    "band-off", LATER, _unit(0.2, 0.0, 0.98),
    "the band thing is finished. the singer moved to Leeds and nobody can be bothered. "
    "we're done, not doing it",
)  # fmt: skip
ELSEWHERE = _candidate("else", THEN, _unit(0.0, 1.0), "my bass amp needs a new fuse")


def test_the_asked_topic_binds_a_far_withdrawal_to_the_plan_in_the_window() -> None:
    assert asked_topic("am I still in a band?", BAND_OFF.record.edge.text) == {"band"}
    found = _given_up(BAND, BAND_OFF, ELSEWHERE, query="am I still in a band?")
    assert set(found) == {"band"} and found["band"].cosine == 0.2
    # Without the question's topic, or with the rule off, the cosine gate keeps the plan.
    assert _given_up(BAND, BAND_OFF, ELSEWHERE) == {}
    assert _given_up(BAND, BAND_OFF, ELSEWHERE, query="am I still in a band?", rule=NO_ASKED) == {}
    # A topic the question names that the plan does not say binds nothing.
    assert _given_up(BAND, BAND_OFF, query="what did the singer do?") == {}


def test_the_asked_topic_needs_the_plan_in_the_window() -> None:
    assert _given_up(BAND_OFF, ELSEWHERE, memory=[BAND], query="am I in a band?") == {}


def test_the_asked_topic_keeps_the_floor() -> None:
    farther = _candidate("band-off", LATER, _unit(0.1, 0.0, 0.995), BAND_OFF.record.edge.text)
    assert _given_up(BAND, farther, query="am I still in a band?") == {}


# --- a withdrawal ranked below the window, found from the plan the window ranks high -------
TRIP = _candidate("trip", THEN, _unit(1.0), "we're sailing round the islands in June")
TRIP_OFF = _candidate("trip-off", LATER, _unit(0.6, 0.0, 0.0, 0.8), "calling the sailing off")
FILLER = [_candidate(f"f{i}", THEN, _unit(0.0, 0.0, 1.0), f"filler {i}") for i in range(3)]


def test_a_withdrawal_below_the_window_is_found_from_the_plan() -> None:
    found = _given_up(TRIP, *FILLER, memory=[TRIP_OFF])
    assert set(found) == {"trip"} and found["trip"].by == "trip-off"
    assert _given_up(TRIP, *FILLER, memory=[TRIP_OFF], rule=NO_SEARCH) == {}


def test_only_from_the_first_candidates_and_only_a_later_own_withdrawal() -> None:
    # The plan ranked below `from_plans` (10 since round 26): not searched from.
    assert _given_up(*FILLER, *FILLER, *FILLER, *FILLER, TRIP, memory=[TRIP_OFF]) == {}
    # Told before the plan, or not read as a withdrawal: nothing.
    early = _candidate("trip-off", THEN - timedelta(days=5), TRIP_OFF.vector, "sailing off")
    assert _given_up(TRIP, memory=[early]) == {}
    said = _candidate("trip-off", LATER, _unit(0.6, 0.8), "the sailing is going well")
    assert _given_up(TRIP, memory=[said]) == {}


def test_a_withdrawn_plans_telling_below_the_window_goes_too() -> None:
    fact = _candidate("trip#0", THEN, _unit(1.0), "User is sailing in June", raw=False, turn="trip")
    assert set(_given_up(TRIP, TRIP_OFF)) == {"trip"}
    assert set(_given_up(TRIP, TRIP_OFF, head=[TRIP, TRIP_OFF, fact])) == {"trip", "trip#0"}


def test_a_plan_anywhere_in_the_window_is_searched_from() -> None:
    # Round 26: a plan a window rule demoted to 7th (an older statement of another slot's
    # value, say) is still the question's plan; its withdrawal below the window is found.
    found = _given_up(*FILLER, *FILLER, TRIP, memory=[TRIP_OFF])
    assert set(found) == {"trip"} and found["trip"].by == "trip-off"
    assert _given_up(*FILLER, *FILLER, TRIP, memory=[TRIP_OFF],
                     rule=RULE.model_copy(update={"from_plans": 5})) == {}  # fmt: skip
