"""A pastime told as what the user habitually does is a Hobbies fact (issue 11, round 24, AV5).

Sentences written for this test (none from a paper-turn telling). The reading is grammatical:
habitual aspect, the user the subject, no duty or daily care; the fact is additive and
slot-less (Table 1 row 6, A.7.2) and lends the raw turn no category.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from schemas.categories import Category, UpdateSemantics
from schemas.events import EdgeEvent, TurnEvent
from schemas.records import FactRecord, Lifecycle
from workers.extraction.classify import PASTIME_MARGIN, _reads_as_pastime
from workers.extraction.model import ExtractedFact
from workers.extraction.patterns_pastimes import only_in_factless_turns, reads_as_pastime
from workers.extraction.prototypes import Verdict
from workers.extraction.recurrence import marks_recurrence
from workers.extraction.rules import RuleExtractor
from workers.extraction.stage import edges_for_turn
from workers.query import set_questions
from workers.query.candidates import MergedCandidate

AT = datetime(2026, 3, 2, 18, tzinfo=UTC)


def _turn(text: str) -> TurnEvent:
    return TurnEvent(user_id="u", session_id="s", turn_id="t", role="user", text=text, timestamp=AT)


@pytest.mark.parametrize(
    "clause",
    [
        "most Sundays I'm out on the lake in the kayak",
        "Saturdays: pottery at the community studio",
        "I've been whittling spoons in the garage",
        "every other weekend we walk a stretch of the coast path",
        "kayaking on the estuary twice a week",
        "in the evenings I play the piano for an hour",
    ],
)
def test_an_activity_told_with_its_habitual_aspect_reads_as_a_pastime(clause: str) -> None:
    assert reads_as_pastime(clause)


@pytest.mark.parametrize(
    "clause",
    [
        "I take the 8:10 bus to work every weekday",  # a commute
        "my brother plays darts every Friday",  # someone else's routine
        "the printer jams every morning",  # a thing's
        "I always forget where I put my keys",  # a frequency adverb characterises
        "I'm on metformin every day",  # a regimen
        "I drink two espressos every morning",  # daily care, a taste its family keys
        "I went to the lake with the kayak",  # no habitual aspect
        "please remind me every Friday to water the plants",  # a request
    ],
)
def test_a_duty_someone_elses_routine_or_a_one_off_is_no_pastime(clause: str) -> None:
    assert not reads_as_pastime(clause)


def test_frequency_adverbs_alone_mark_no_pastimes_recurrence() -> None:
    assert marks_recurrence("I always forget my keys")
    assert not marks_recurrence("I always forget my keys", adverbs=False)
    assert marks_recurrence("I swim every Tuesday", adverbs=False)


def test_the_extractor_yields_an_additive_slotless_hobbies_fact_only_when_enabled() -> None:
    turn = _turn("Most Sundays I'm out on the lake in the kayak. Any tips for a headwind?")
    facts = RuleExtractor(pastimes=True).extract(turn)
    pastimes = [f for f in facts if f.prototype == "pastime"]
    assert len(pastimes) == 1
    fact = pastimes[0]
    assert fact.categories == {Category.HOBBIES_RECREATION: 1.0}
    assert fact.slot_key is None and fact.update is UpdateSemantics.ACCUMULATE
    assert fact.confidence < 0.95  # an accumulate fact supersedes only at >= 0.95 (App. Z)
    assert "kayak" in fact.text
    assert not [f for f in RuleExtractor().extract(turn) if f.prototype == "pastime"]


def test_another_familys_reading_of_the_clause_wins() -> None:
    # the leisure family keys a named hobby; the pastime reading of the same words yields
    facts = RuleExtractor(pastimes=True).extract(_turn("I play chess every Tuesday evening"))
    assert [f.slot_key for f in facts] == ["hobby.chess"]


def test_a_pastime_lends_the_raw_turn_no_category() -> None:
    turn = _turn("most Sundays I'm out on the lake in the kayak")
    fact = ExtractedFact(
        text="Most Sundays User is out on the lake in the kayak",
        categories={Category.HOBBIES_RECREATION: 1.0},
        confidence=0.9,
        update=UpdateSemantics.ACCUMULATE,
        prototype="pastime",
    )
    edges = edges_for_turn(turn, [fact])
    raw = [e for e in edges if e.episodic]
    assert raw and all(e.categories == {Category.OTHER: 1.0} for e in raw)
    assert all(e.episodic_of == (edges[0].edge_id,) for e in raw if e.edge_id.endswith("#raw"))


def _verdict(hobby: float, other: float) -> Verdict:
    kinds = {Category.HOBBIES_RECREATION: hobby, Category.HEALTH_WELLBEING: other,
             Category.OTHER: 0.99}  # fmt: skip
    return Verdict({Category.HOBBIES_RECREATION: 1.0}, None, 0.0, kinds, {}, kinds)


def test_the_prototypes_keep_a_pastime_unless_they_clearly_read_another_kind() -> None:
    assert _reads_as_pastime(_verdict(0.40, 0.40 + PASTIME_MARGIN - 0.01))
    assert not _reads_as_pastime(_verdict(0.40, 0.40 + PASTIME_MARGIN + 0.01))
    assert _reads_as_pastime(_verdict(0.40, 0.30))  # Other is no kind: its 0.99 is not read


@pytest.mark.parametrize(
    "clause",
    [
        "I've been doing great",  # a state, not an activity
        "we went camping two weekends ago",  # counted periods name a date
        "I've heard about her a lot lately",  # "lately" alone is no routine
    ],
)
def test_a_state_or_a_counted_period_is_no_habitual_aspect(clause: str) -> None:
    assert not reads_as_pastime(clause)


def _fact(prototype: str | None, category: Category = Category.HOBBIES_RECREATION) -> ExtractedFact:
    return ExtractedFact(
        text="User does a thing", categories={category: 1.0}, confidence=0.9,
        update=UpdateSemantics.ACCUMULATE, prototype=prototype,
    )  # fmt: skip


def test_a_pastime_is_read_only_in_a_turn_nothing_else_was_read_in() -> None:
    # a turn with a fact of its own lives and dies with it: a never-superseded pastime drawn
    # from it would keep its raw turn current (a stale answer once that fact is replaced)
    alone = [_fact("pastime")]
    assert only_in_factless_turns(alone) == alone
    beside = only_in_factless_turns(
        [_fact("check", Category.IDENTITY_SELF_CONCEPT), _fact("pastime")]
    )
    assert [f.prototype for f in beside] == ["check"]
    habit = only_in_factless_turns([_fact("decide"), _fact("habit")])
    assert [f.prototype for f in habit] == ["decide", "require"]


def _merged(edge_id: str, turn: str, *, episodic: bool, of: tuple[str, ...] = (),
            slot: str | None = None,
            category: Category = Category.HOBBIES_RECREATION) -> MergedCandidate:  # fmt: skip
    edge = EdgeEvent(
        edge_id=edge_id, user_id="u", text=edge_id, categories=category, slot_key=slot,
        ingest_time=AT, episodic=episodic, episodic_of=of, source_turns=(turn,),
    )  # fmt: skip
    return MergedCandidate(FactRecord(edge=edge, lifecycle=Lifecycle()), 0.5, ("dense",), None)


def test_a_raw_turn_told_again_by_its_pastime_fact_leaves_the_first_places() -> None:
    merged = [
        _merged("kayak#0", "kayak", episodic=False),
        _merged("chess#0", "chess", episodic=False, slot="hobby.chess"),
        _merged("kayak#raw", "kayak", episodic=True, of=("kayak#0",), category=Category.OTHER),
        _merged("chess#raw", "chess", episodic=True, of=("chess#0",), category=Category.OTHER),
        _merged("work#raw", "work", episodic=True, category=Category.OTHER),
    ]
    hobbies = Category.HOBBIES_RECREATION
    assert set_questions.turns_told_again(range(5), merged, hobbies, 5) == {2}
    # a keyed hobby's turn keeps its place (round 17's rule governs it after the top 5), and
    # so does every turn for a question of another kind
    assert (
        set_questions.turns_told_again(range(5), merged, Category.IDENTITY_SELF_CONCEPT, 5) == set()
    )
    # the fact below its turn: the turn came first, nothing is told again above it
    assert set_questions.turns_told_again([2, 0, 1, 3, 4], merged, hobbies, 5) == set()


def test_a_states_gerund_as_subject_is_no_activity() -> None:
    assert not reads_as_pastime("Having that photo on my desk reminds me of them every day")
    assert reads_as_pastime("Bouldering at the climbing wall every Thursday")
