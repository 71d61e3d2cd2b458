"""A later change statement naming an earlier unslotted turn's value supersedes it (issue 11).

"I'm an ML engineer at Google, Gemini memory team" (no fact extracted: only the raw turn) …
months later "I left Google last month and joined Anthropic": the old turn is superseded by
the statement that names its value as ended (workers/lifecycle/change_naming.py). Witnesses,
the guards (an unrelated turn sharing a common word is not touched), order, duplication and
forget independence.
"""

from __future__ import annotations

from datetime import UTC, datetime

import numpy as np
from hypothesis import settings

from schemas.categories import Category, LifecycleState
from schemas.events import EdgeEvent
from schemas.policy import load_policy
from tests.unit.edge_helpers import axis, edge, near
from tests.unit.lifecycle_properties import (
    assert_delivery_order_free,
    assert_forget_converges,
    given_deliveries,
    given_forgets,
)
from tests.unit.test_retraction_retargeting import raw, service, states
from workers.lifecycle.change_naming import is_change, named_words, names, shared_words
from workers.query.explain import reasons

POLICY = load_policy()
S = LifecycleState
NAMED = POLICY.association.change_named_cosine

JOB = axis(0)
HOBBY = axis(1)


def keyed(edge_id: str, day: float, slot: str, text: str, vector: np.ndarray) -> EdgeEvent:
    e = edge(edge_id, day=day, slot=slot, update="replace", vector=vector, text=text,
             category=Category.IDENTITY_SELF_CONCEPT)  # fmt: skip
    return e.model_copy(update={"source_turns": (edge_id.split("#")[0],)})


def test_a_changed_value_in_unseen_words_supersedes_the_old_unslotted_turn() -> None:
    """Without the mechanism the old raw turn stays active: no slot, said before."""
    svc, vectors = service()
    svc.apply(raw("s1/job#raw", 0, "context: I'm an ML engineer at Google, memory team", JOB))
    svc.apply(keyed("s2/new#0", 300, "user.employer", "User works at Anthropic",
                    near(JOB, 0.2, 6)))  # fmt: skip
    svc.apply(
        raw(
            "s2/new#raw",
            300,
            "I left Google last month and joined Anthropic",
            near(JOB, NAMED + 0.07, 5),
        ).model_copy(update={"episodic_of": ("s2/new#0",)})
    )
    records = {r.edge_id: r for r in vectors.scroll("u1")}
    old = records["s1/job#raw"].lifecycle
    assert old.state is S.SUPERSEDED and old.superseded_by == "s2/new#raw"
    assert old.named_by is not None and old.named_by.words == ("googl",)
    assert records["s2/new#0"].lifecycle.state is S.ACTIVE
    assert records["s2/new#raw"].lifecycle.state is S.ACTIVE
    terms = {"decay": 1.0, "validity": 1.0, "numeric_rescue": 0.0, "blend": 1.0, "floor": 0.0,
             "omega": 1.0, "rho": 1.0, "mask": 1.0, "direction": 1.0}  # fmt: skip
    why = reasons(records["s1/job#raw"], "superseded", terms, datetime(2026, 1, 1, tzinfo=UTC),
                  POLICY)  # fmt: skip
    assert why[0].startswith("superseded by s2/new#raw")
    assert any("names it as ended" in line and "googl" in line for line in why)


def test_what_is_not_a_change_statement() -> None:
    """Negated cessations, a locative "left", and a replacement that names no old value
    (left out: on LoCoMo it superseded hundreds of unrelated turns) name nothing."""
    assert named_words("I'll never forget the day my youngest took her first steps") == set()
    assert named_words("I'm not gonna give up on my dreams") == set()
    assert named_words("that's me on the left in the photo") == set()
    assert named_words("minor figures changed their recipe, bonsoy oat instead") == set()
    assert named_words("we dropped off the cake at the party") == set()
    assert named_words("I quit the choir after ten years") == {"choir"}
    # Weighed, not made (Appendix F: both values stand): a hedge, a condition, a question.
    assert named_words("kinda thinking about quitting my job at the bank") == set()
    assert named_words("I might give up the garden this year") == set()
    assert named_words("if I left Google I'd lose my stock") == set()
    assert named_words("should I quit the choir?") == set()
    assert named_words("I was thinking about it and I quit the choir") == {"choir"}
    assert named_words("We left Berlin last month, we're in Lyon now") == {"berlin"}  # not when
    assert named_words("forget the Husky Lakes camp, the ground slumped") == {
        "husky",
        "lak",
        "camp",
    }


def test_the_guards() -> None:
    change = raw("s5/c#raw", 50, "I gave up gardening because of my knees", near(HOBBY, 0.6, 5))
    assert named_words(change.text) == {"garden"}  # the clause ends at "because"
    assert is_change(change)
    assert not is_change(raw("s5/d#raw", 50, "my knees hurt today", HOBBY))
    old = raw("s1/g#raw", 0, "I spend my mornings in the garden", HOBBY)
    assert names(change, old, POLICY) is not None
    # An extractor's paraphrase is not the user's statement: only raw turns name.
    paraphrase = keyed("s5/c#0", 50, "hobby.gardening", "User gave up gardening", HOBBY)
    assert not is_change(paraphrase) and names(paraphrase, old, POLICY) is None
    # An unrelated turn sharing a word the statement does not name as ended: untouched.
    knees = raw("s1/k#raw", 1, "a stretching routine for stiff knees?", HOBBY)
    assert names(change, knees, POLICY) is None
    # A named word, but not similar enough.
    weak = raw("s1/w#raw", 2, "the garden centre opens at nine", near(HOBBY, NAMED - 0.05, 6))
    weak_change = change.model_copy(update={"embedding": raw("x", 0, "x", HOBBY).embedding})
    assert names(weak_change, weak, POLICY) is None
    # Later, same turn, keyed, or quarantined: never.
    later = raw("s6/g#raw", 60, "the garden is lovely", HOBBY)
    same_turn = raw("s5/c#x", 50, "garden", HOBBY).model_copy(update={"source_turns": ("s5/c",)})
    slotted = keyed("s1/h#0", 0, "hobby.gardening", "User gardens", HOBBY)
    for other in (later, same_turn, slotted):
        assert names(change, other, POLICY) is None
    assert names(change.model_copy(update={"quarantined": True}), old, POLICY) is None


def test_an_unrelated_turn_sharing_a_common_word_is_not_touched() -> None:
    svc, vectors = service()
    svc.apply(raw("s1/shop#raw", 0, "I want to write a small sign for the shop window", JOB))
    svc.apply(raw("s2/chat#raw", 1, "he is a good boy, a little lazy on Mondays", HOBBY))
    svc.apply(raw("s3/left#raw", 30, "Burak left to open his own shop, good for him",
                  near(JOB, 0.05, 5)))  # fmt: skip
    assert set(states(vectors).values()) == {S.ACTIVE}


def test_a_change_names_a_turn_by_the_head_of_what_ended() -> None:
    """LoCoMo: "since I moved from my home country" superseded "to give kids a loving home"
    by the word "home"; the thing that ended is a country."""
    assert shared_words("since I moved from my home country", "give kids a loving home") == set()
    assert shared_words("since I moved from my home country", "my home country is Sweden") == {
        "hom",
        "country",
    }
    assert shared_words("we stopped doing the bear tours", "I run polar bear tours") == {
        "bear",
        "tour",
    }
    assert shared_words("I quit smoking finally", "I smoke a pack a day") == {"smok"}
    # Another instance of the head is not the one the turn is about.
    assert shared_words("forget about the second cafe, rents are mad", "prices at my cafe") == set()
    assert shared_words("I sold the new van", "we use the van for deliveries") == set()
    assert shared_words("I sold the new van", "bought a new van, white") == {"new", "van"}
    svc, vectors = service()
    svc.apply(raw("s1/kids#raw", 0, "I'll make sure these kids have a safe and loving home", JOB))
    svc.apply(raw("s2/moved#raw", 30, "since I moved from my home country", near(JOB, 0.1, 5)))
    assert set(states(vectors).values()) == {S.ACTIVE}
    # A retraction of a second shop leaves the turn about the shop the user has.
    svc.apply(raw("s3/prices#raw", 40, "prices at my cafe this year: flat white 5.20", HOBBY))
    svc.apply(raw("s4/off#raw", 60, "forget about the second cafe, the rents are mad",
                  near(HOBBY, 0.9, 5)))  # fmt: skip
    assert set(states(vectors).values()) == {S.ACTIVE}


def test_what_ended_said_as_the_subject() -> None:
    """The other word order of a cessation: the thing first, then that it is over."""
    assert named_words("the dissertation is finally over!!") == {"dissertation"}
    assert named_words("ok so the bakery job has been behind me since june") == {"bakery", "job"}
    assert named_words("Priya and I split up in the spring") == {"priya"}
    assert named_words("update: jonas and me called it quits") == {"jona"}
    assert named_words("me and marta parted ways over the summer") == {"marta"}
    assert named_words("so yeah, the lisbon move is off the table") == {"lisbon", "mov"}
    # A container noun ("stuff", "thing", "idea", "era") is not the thing: the word before is.
    assert named_words("so forget all the kayak stuff, the car can't take a roof rack") == {"kayak"}
    assert named_words("the food-truck era is over!") == {"food", "truck"}
    assert named_words("I gave up the whole sourdough thing") == {"sourdough"}
    assert named_words("ugh, forget the whole thing") == set()  # names what the context does
    assert named_words("honestly i'm so over kombucha, water kefir now") == {"kombucha"}
    assert named_words("put in my notice at the bakery yesterday") == {"bakery"}
    # Not a cessation of a value: a place, a mood, a pronoun, a denial, a weighed one.
    for text in (
        "the kids are over at my mum's",
        "the storm was over for a day, then back",
        "I'm over the moon about it",
        "I'm over at Dana's tonight",
        "it's over, thank god",
        "the dissertation is not over yet",
        "the dissertation isn't over",
        "is the dissertation over?",
        "maybe the dissertation is finally over",
        "my grandpa is dead",
        "me and marta went out for tapas",
    ):
        assert named_words(text) == set(), text


def test_an_ending_said_as_the_subject_supersedes_the_old_turn() -> None:
    """Saying "Priya and I split up" ends "Priya and I have been together a year" (no slot, said
    before); an unrelated turn sharing no head stays current."""
    svc, vectors = service()
    svc.apply(raw("s1/p#raw", 0, "Priya and I have been together a year now", JOB))
    svc.apply(raw("s1/c#raw", 1, "what's a good gift for a coworker?", near(JOB, 0.5, 7)))
    svc.apply(raw("s2/s#raw", 40, "Priya and I split up in the spring, it was mutual",
                  near(JOB, NAMED + 0.1, 5)))  # fmt: skip
    lc = {r.edge_id: r.lifecycle for r in vectors.scroll("u1")}
    assert lc["s1/p#raw"].state is S.SUPERSEDED and lc["s1/p#raw"].superseded_by == "s2/s#raw"
    assert lc["s1/p#raw"].named_by is not None and lc["s1/p#raw"].named_by.words == ("priya",)
    assert lc["s1/c#raw"].state is S.ACTIVE and lc["s2/s#raw"].state is S.ACTIVE
    # "the whole sourdough thing": the thing is sourdough, and the turn about it is named.
    svc.apply(raw("s1/b#raw", 2, "my sourdough starter is finally bubbling", HOBBY))
    svc.apply(raw("s3/g#raw", 50, "I gave up the whole sourdough thing, too much work",
                  near(HOBBY, 0.6, 3)))  # fmt: skip
    lc = {r.edge_id: r.lifecycle for r in vectors.scroll("u1")}
    assert lc["s1/b#raw"].superseded_by == "s3/g#raw"


def test_a_continuation_denied_names_what_stopped() -> None:
    """The aspectual negation family of "no longer": "no more X" and "not … anymore" (the
    verb's object, or the activity itself when the verb has none). A verb alone, a light verb,
    a pronoun or a weighed ending names nothing; a list of endings is not a denial."""
    assert named_words("no more padel, my elbow is done") == {"padel"}
    assert named_words("not tutoring anymore, the agency folded") == {"tutor"}
    assert named_words("i don't drink energy drinks any more") == {"energy", "drink"}
    assert named_words("no more mondays at the warehouse, no more overtime") >= {"overtim"}
    for text in (
        "I can't take it anymore",  # a pronoun
        "not going anymore, too far",  # a light verb
        "I don't care anymore",  # a verb without an object or activity
        "maybe no more padel?",  # weighed, asked
        "I will not give up, no more excuses",  # the ending itself denied
    ):
        assert named_words(text) == set(), text


def test_a_continuation_denied_supersedes_the_old_turn() -> None:
    """Without the family the turn about the tutoring stays current after "not tutoring
    anymore"; the turn about the agency's rent, sharing no head, stays either way."""
    svc, vectors = service()
    svc.apply(raw("s1/t#raw", 0, "I tutor maths three evenings a week for pocket money", JOB))
    svc.apply(raw("s1/r#raw", 1, "the agency raised its rent", near(JOB, 0.5, 7)))
    svc.apply(raw("s2/n#raw", 40, "not tutoring anymore, I need my evenings back",
                  near(JOB, NAMED + 0.1, 5)))  # fmt: skip
    lc = {r.edge_id: r.lifecycle for r in vectors.scroll("u1")}
    assert lc["s1/t#raw"].state is S.SUPERSEDED and lc["s1/t#raw"].superseded_by == "s2/n#raw"
    assert lc["s1/r#raw"].state is S.ACTIVE and lc["s2/n#raw"].state is S.ACTIVE


STREAM = [
    raw("s1/job#raw", 0, "I'm an ML engineer at Google, memory team", JOB),
    raw("s1/chat#raw", 1, "what's a good tea for the evening?", near(JOB, 0.5, 7)),
    raw("s2/garden#raw", 2, "I spend my mornings in the garden", HOBBY),
    keyed(
        "s3/new#0", 30, "user.employer", "User left Google and joined Anthropic", near(JOB, 0.4, 5)
    ),
    raw("s3/new#raw", 30, "I left Google and joined Anthropic", near(JOB, 0.35, 6)).model_copy(
        update={"episodic_of": ("s3/new#0",)}
    ),
    raw("s4/hobby#raw", 40, "gave up gardening, watercolor now", near(HOBBY, 0.45, 8)),
    raw("s5/garden#raw", 50, "quit the garden club too", near(HOBBY, 0.6, 9)),
    raw("s6/club#raw", 60, "the garden club is over for me, too far to drive", near(HOBBY, 0.8, 4)),
    raw("s7/pad#raw", 61, "padel on tuesdays keeps me sane", near(HOBBY, 0.7, 3)),
    raw("s8/no#raw", 70, "no more padel, my elbow gave out", near(HOBBY, 0.75, 2)),
]


@settings(max_examples=60, deadline=None)
@given_deliveries(STREAM, 3)
def test_order_and_duplication_do_not_change_the_outcome(
    order: list[EdgeEvent], repeats: list[EdgeEvent]
) -> None:
    vectors = assert_delivery_order_free(service, STREAM, [*order, *repeats])
    lc = {r.edge_id: r.lifecycle for r in vectors.scroll("u1")}
    assert lc["s1/job#raw"].superseded_by == "s3/new#raw"  # the user's words, not the fact's
    assert lc["s2/garden#raw"].superseded_by == "s4/hobby#raw"
    # "quit the garden club" names a club: the turn about gardening has no club in it.
    assert lc["s4/hobby#raw"].state is S.ACTIVE
    assert lc["s1/chat#raw"].state is S.ACTIVE
    # "the garden club is over" (what ended as the subject) names the club turn.
    assert lc["s5/garden#raw"].superseded_by == "s6/club#raw"
    # "no more padel": the continuation denied names the padel turn.
    assert lc["s7/pad#raw"].superseded_by == "s8/no#raw"


@settings(max_examples=30, deadline=None)
@given_forgets(STREAM)
def test_a_forget_converges_to_never_having_seen_the_fact(
    order: list[EdgeEvent], forgotten: str
) -> None:
    assert_forget_converges(service, STREAM, order, forgotten)
