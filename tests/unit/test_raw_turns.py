"""A turn without facts still says something: an upcoming date, or which single-valued slot it
is about (workers/extraction/raw_turns.py; issue 11's stale paper turns).

Witnesses (each fails without the mechanism: the raw turn keeps no event time and no slot),
the guards (a past date, a non-event category, a turn about someone else, a statement of
another kind that shares an attribute's words, a negated replacement), and that a latent
slot's lifecycle is a function of the edge set (order, duplicates, forget).
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from schemas.categories import Category, LifecycleState, UpdateSemantics
from schemas.events import EdgeEvent, TurnEvent
from schemas.policy import load_policy
from tests.unit.edge_helpers import axis, edge, near
from tests.unit.extraction_helpers import embedder
from tests.unit.lifecycle_properties import assert_delivery_order_free, assert_forget_converges
from tests.unit.test_retraction_retargeting import service, states
from workers.extraction.classify import embedded_edges
from workers.extraction.prototypes import Attribute, Verdict
from workers.extraction.raw_turns import is_replacement, latent_slot, with_raw_meaning
from workers.extraction.rules import RuleExtractor
from workers.extraction.stage import edges_for_turn
from workers.lifecycle.rules import edge_expires_at

POLICY = load_policy()
S = LifecycleState
SAID = datetime(2025, 3, 1, 10, tzinfo=UTC)  # a Saturday
MILK = Attribute("milk", "user.milk", Category.PREFERENCES_HABITS)


def verdict(
    attribute: Attribute | None = None,
    similarity: float = 0.7,
    runner_up: float = 0.3,
    kind: Category = Category.PREFERENCES_HABITS,
    best: Category = Category.PREFERENCES_HABITS,
) -> Verdict:
    scores = {c: 0.1 for c in Category}
    scores[best] = 0.6
    kinds = {c: 0.1 for c in Category}
    kinds[kind] = 0.5
    attrs = {"milk": similarity if attribute else 0.2, "coffee_order": runner_up}
    return Verdict({best: 1.0}, attribute, similarity, scores, attrs, kinds)


def raw_turn(text: str, *, chunks: int = 1) -> list[EdgeEvent]:
    turn = TurnEvent(user_id="u1", session_id="s", turn_id="t", role="user", text=text,
                     timestamp=SAID)  # fmt: skip
    return [e for e in edges_for_turn(turn, []) if e.episodic][:1] * chunks


def test_replacement_cues_and_their_negation() -> None:
    assert is_replacement("the shop ran out so I'm on soy milk instead")
    assert is_replacement("I switched to decaf after new year")
    assert is_replacement("I don't drink dairy anymore")  # itself says the old value ended
    assert not is_replacement("I wouldn't switch to soy milk instead, ever")
    # Only weighed, not made (Appendix F, AV9): the old value stands.
    assert not is_replacement("might switch to oat milk")
    assert not is_replacement("kinda thinking about switching to soy instead")
    assert not is_replacement("should I switch to decaf?")
    assert not is_replacement("if I moved to Denver I'd miss the mountains")
    assert is_replacement("I thought about it for weeks and I switched to decaf")
    assert not is_replacement("I'd never want anything instead of my flat white")
    assert not is_replacement("oat milk is the only milk I buy")


def test_a_latent_slot_needs_the_user_the_kind_and_a_clear_attribute() -> None:
    clear = verdict(MILK)
    assert latent_slot("oat milk is the only milk i buy", clear) == "user.milk"
    assert latent_slot("oat milk is the only milk they buy", clear) is None  # not the user
    assert latent_slot("i buy oat milk", verdict(MILK, kind=Category.PROJECTS_ENDEAVORS)) is None
    assert latent_slot("i buy oat milk", verdict(MILK, similarity=0.5)) is None  # too far
    assert latent_slot("i buy oat milk", verdict(MILK, runner_up=0.65)) is None  # not clear
    per_item = Attribute("hobby", "hobby.{head}", Category.HOBBIES_RECREATION)
    assert latent_slot("i knit", verdict(per_item, kind=Category.HOBBIES_RECREATION)) is None


def test_an_upcoming_dated_turn_of_an_event_category_expires() -> None:
    (edge_,) = with_raw_meaning(raw_turn("cousin's wedding is next Saturday"),
                                [verdict(kind=Category.LOGISTICAL_CONTEXT)])  # fmt: skip
    assert edge_.event_time == datetime(2025, 3, 8, tzinfo=UTC)
    assert edge_.categories == {Category.LOGISTICAL_CONTEXT: 1.0}
    assert edge_expires_at(edge_, POLICY) == edge_.event_time + timedelta(days=14)
    # An appointment that shares a religion's words ("christening") is still an appointment.
    (shared,) = with_raw_meaning(
        raw_turn("the christening is next Saturday"),
        [verdict(best=Category.IDENTITY_SELF_CONCEPT, kind=Category.LOGISTICAL_CONTEXT)],
    )
    assert shared.event_time == edge_.event_time
    # A turn split between an event category and another is not classified as an event.
    split = verdict(kind=Category.LOGISTICAL_CONTEXT)
    split.kind_scores[Category.RELATIONAL_BONDS] = 0.49  # type: ignore[index]
    (chat,) = with_raw_meaning(raw_turn("see you next Saturday!"), [split])
    assert chat.event_time is None
    # A date before the turn is history; a standing date; a non-event kind of statement, or a pasted
    # document: no event. The kind decides, not the attribute whose words it shares.
    for text, best, chunks in (
        ("cousin's wedding was last Saturday", Category.LOGISTICAL_CONTEXT, 1),
        # a bare month and day is how standing dates are told too: "my birthday is March 16"
        ("my birthday is March 16", Category.LOGISTICAL_CONTEXT, 1),
        ("the book club reads Dune next Saturday", Category.INTELLECTUAL_INTERESTS, 1),
        ("cousin's wedding is next Saturday", Category.LOGISTICAL_CONTEXT, 2),
    ):
        out = with_raw_meaning(raw_turn(text, chunks=chunks), [verdict(kind=best)] * chunks)
        assert all(e.event_time is None for e in out)


def test_a_numeric_date_with_a_short_year_names_one_occurrence() -> None:
    """A year makes a date one occurrence, in two digits too: a dated rota entry expires;
    the same day and month without a year may be a standing date and keeps none."""
    kind = [verdict(kind=Category.OBLIGATIONS)]
    (dated,) = with_raw_meaning(raw_turn("first-aid refresher on 20/03/25, room B"), kind)
    assert dated.event_time == datetime(2025, 3, 20, tzinfo=UTC)
    (standing,) = with_raw_meaning(raw_turn("first-aid refresher on 20/03, room B"), kind)
    assert standing.event_time is None


def test_the_pipeline_gives_fact_less_turns_their_meaning() -> None:
    """MiniLM vectors, the rule extractor, the extraction stage: as the product ingests."""
    extractor = RuleExtractor()
    texts = [
        "I only ever buy almond milk for my coffee",
        "the shop stopped stocking it so I'm on soy milk instead",
        "christening for Ana next Sunday, need to find a card",
        "Nurses, families, other chaplains",
    ]
    batch = []
    for i, text in enumerate(texts):
        turn = TurnEvent(user_id="u1", session_id="s", turn_id=f"t{i}", role="user", text=text,
                         timestamp=SAID + timedelta(days=i))  # fmt: skip
        facts = extractor.extract(turn)
        assert not facts  # the class under test: nothing extracted
        batch.append((edges_for_turn(turn, facts), facts))
    old, new, dated, answer = (edges[-1] for edges in embedded_edges(batch, embedder()))
    assert (old.slot_key, old.update) == ("user.milk", UpdateSemantics.ACCUMULATE)
    assert (new.slot_key, new.update) == ("user.milk", UpdateSemantics.REPLACE)
    assert dated.event_time is not None and edge_expires_at(dated, POLICY) is not None
    assert answer.slot_key is None and answer.event_time is None


VALUE = axis(0)


def latent(edge_id: str, day: int, update: str = "accumulate") -> EdgeEvent:
    e = edge(edge_id, day=day, slot="user.milk", update=update,
             vector=near(VALUE, 0.3, 1 + day // 5),
             text=f"turn {edge_id}", category=Category.OTHER)  # fmt: skip
    return e.model_copy(update={"episodic": True, "source_turns": (edge_id.split("#")[0],)})


def fact(edge_id: str, day: int, value: str) -> EdgeEvent:
    e = edge(edge_id, day=day, slot="user.milk", update="replace", vector=near(VALUE, 0.3, 9),
             text=f"User uses {value} milk", category=Category.PREFERENCES_HABITS)  # fmt: skip
    return e.model_copy(update={"value": value, "source_turns": (edge_id.split("#")[0],)})


STREAM = [
    latent("s1/old#raw", 0),  # "almond is the only milk I buy": no value
    latent("s2/chat#raw", 5),  # the slot mentioned again: adds up, replaces nothing
    fact("s3/soy#0", 10, "soy"),  # a committed value in the slot: replaces both
    latent("s4/aside#raw", 12),  # mentioned after the value: the value stays
    latent("s5/instead#raw", 20, update="replace"),  # "… oat instead": replaces the value
]


def test_a_latent_slot_is_replaced_by_a_value_and_replaces_only_with_a_cue() -> None:
    vectors = assert_delivery_order_free(service, STREAM, [*reversed(STREAM), STREAM[1]])
    lc = {r.edge_id: r.lifecycle for r in vectors.scroll("u1")}
    assert lc["s1/old#raw"].superseded_by == "s3/soy#0"
    assert lc["s2/chat#raw"].superseded_by == "s3/soy#0"
    assert lc["s3/soy#0"].superseded_by == "s5/instead#raw"
    assert lc["s4/aside#raw"].superseded_by == "s5/instead#raw"
    assert lc["s5/instead#raw"].state is S.ACTIVE


def test_forgetting_in_a_latent_slot_converges() -> None:
    for forgotten in ("s3/soy#0", "s1/old#raw", "s5/instead#raw"):
        assert_forget_converges(service, STREAM, [*reversed(STREAM)], forgotten)


def test_without_a_replacement_cue_nothing_supersedes_the_value() -> None:
    svc, vectors = service()
    for e in STREAM[:4]:
        svc.apply(e)
    assert states(vectors)["s3/soy#0"] is S.ACTIVE
    assert states(vectors)["s4/aside#raw"] is S.ACTIVE


def test_only_the_user_replaces_their_own_value() -> None:
    for text, update in (
        ("I'm on soy milk instead now", UpdateSemantics.REPLACE),
        ("my sister switched to soy milk, she loves it", UpdateSemantics.ACCUMULATE),
    ):
        (out,) = with_raw_meaning(raw_turn(text), [verdict(MILK)])
        assert (out.slot_key, out.update) == ("user.milk", update)


def test_a_fact_less_routine_on_a_weekday_gets_no_event_time() -> None:
    """A fact-less turn whose only date is the weekday a routine recurs on ("Thursday
    nights …") is no dated event, as for a fact (`recurrence.recurring_day`, round 17):
    with the next Thursday as its time it expired a week later and left every question
    about the user's pastimes (AV5). A one-off on the same weekday keeps its date."""
    kind = [verdict(kind=Category.LOGISTICAL_CONTEXT)]
    (routine,) = with_raw_meaning(raw_turn("Thursday nights I'm at the pool with the club"), kind)
    assert routine.event_time is None
    (one_off,) = with_raw_meaning(raw_turn("Thursday night I'm at the pool for a gala"), kind)
    assert one_off.event_time is not None


def test_a_date_with_a_clock_time_is_an_appointment() -> None:
    """Round 19 (AV2): a date told with a clock time is one occurrence (a standing date is told
    without one), and its nearest event category is taken within `SECOND_CATEGORY` of the best
    — split or second — where a date without a clock time keeps the split guard."""
    split = verdict(kind=Category.OBLIGATIONS)
    split.kind_scores[Category.RELATIONAL_BONDS] = 0.49  # type: ignore[index]
    (timed_,) = with_raw_meaning(raw_turn("the interview is on 12 March at 14:30"), [split])
    assert timed_.event_time == datetime(2025, 3, 12, 14, 30, tzinfo=UTC)
    assert timed_.categories == {Category.OBLIGATIONS: 1.0}
    second = verdict(kind=Category.IDENTITY_SELF_CONCEPT)
    second.kind_scores[Category.LOGISTICAL_CONTEXT] = 0.48  # type: ignore[index]
    (led,) = with_raw_meaning(raw_turn("the reunion is next Saturday at 7pm"), [second])
    assert led.event_time is not None and led.event_time > SAID
    assert led.categories == {Category.LOGISTICAL_CONTEXT: 1.0}
    # Without a clock time: the split stays no appointment, a bare day and month stays standing.
    (untimed,) = with_raw_meaning(raw_turn("the reunion is next Saturday"), [second])
    assert untimed.event_time is None
    (standing,) = with_raw_meaning(raw_turn("my birthday is March 16"),
                                   [verdict(kind=Category.LOGISTICAL_CONTEXT)])  # fmt: skip
    assert standing.event_time is None
    # A time of day without a day, or a turn that says it recurs, is a routine's time.
    for text in ("I paddle out at 6:30 before work", "every Saturday at 7pm I run"):
        (routine,) = with_raw_meaning(raw_turn(text), [second])
        assert routine.event_time is None, text
    # Far behind the best, a clock time does not make an event of it.
    far = verdict(kind=Category.IDENTITY_SELF_CONCEPT)
    far.kind_scores[Category.LOGISTICAL_CONTEXT] = 0.4  # type: ignore[index]
    (other,) = with_raw_meaning(raw_turn("the reunion is next Saturday at 7pm"), [far])
    assert other.event_time is None


def test_a_heading_with_the_day_told_is_no_appointment_a_year_ahead() -> None:
    """A diary's or a log's heading names the day it is written on; an hour said later in the
    turn ("even at 4am") is read with it, and, passed, lands a year ahead. Today's date says
    when the turn was written: no appointment (round 19, review of r19-av2)."""
    second = verdict(kind=Category.IDENTITY_SELF_CONCEPT)
    second.kind_scores[Category.LOGISTICAL_CONTEXT] = 0.48  # type: ignore[index]
    text = "1 Mar. Six years on the boats now, and I still love it, even at 4am."
    (heading,) = with_raw_meaning(raw_turn(text), [second])
    assert heading.event_time is None
    (led_by_logistics,) = with_raw_meaning(
        raw_turn(text), [verdict(kind=Category.LOGISTICAL_CONTEXT)]
    )
    assert led_by_logistics.event_time is None
    # Another day named with an hour is still one (SAID is 1 March).
    (ahead,) = with_raw_meaning(raw_turn("the reunion is on 8 Mar at 7pm"), [second])
    assert ahead.event_time == datetime(2025, 3, 8, 19, tzinfo=UTC)


def test_a_dated_log_line_heads_the_appointment_it_books() -> None:
    """A log line's dated heading (an ISO date the future preference cannot move) says when
    the line was written; the booking is the later date of the turn (round 20, AV2). A past
    date inside a sentence still answers: the turn is about it, nothing is booked."""
    second = verdict(kind=Category.IDENTITY_SELF_CONCEPT)
    second.kind_scores[Category.OBLIGATIONS] = 0.48  # type: ignore[index]
    logged = "2025-02-27: booked the boiler service: Thursday 13 March, 09:30.\n2025-02-28: rain."
    (booked,) = with_raw_meaning(raw_turn(logged), [second])
    assert booked.event_time == datetime(2025, 3, 13, 9, 30, tzinfo=UTC)
    told = "we moved in last weekend at 10am! the kids start school on Monday 10 March at 9am"
    (moved,) = with_raw_meaning(raw_turn(told), [second])
    assert moved.event_time is None


def test_a_calendar_day_with_a_clock_time_is_one_booking_of_a_recurring_kind() -> None:
    """ "The annual service, Thursday 13 March at 9:30" is one booking though the kind of thing
    recurs; "every Thursday at 9:30" or "the annual fair at 9:30 on Thursdays" stays a routine
    (round 20, AV2)."""
    second = verdict(kind=Category.IDENTITY_SELF_CONCEPT)
    second.kind_scores[Category.OBLIGATIONS] = 0.48  # type: ignore[index]
    (booked,) = with_raw_meaning(
        raw_turn("booked the car's annual service: Thursday 13 March, 09:30"), [second]
    )
    assert booked.event_time == datetime(2025, 3, 13, 9, 30, tzinfo=UTC)
    for text in ("every Thursday at 9:30 I swim", "the annual fair opens at 9:30 on Thursdays"):
        (routine,) = with_raw_meaning(raw_turn(text), [second])
        assert routine.event_time is None, text
