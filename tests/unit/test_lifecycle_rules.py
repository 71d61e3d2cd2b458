"""Table tests of the lifecycle rules, and the order-independence property."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from schemas.categories import Category, LifecycleState
from schemas.events import EdgeEvent
from schemas.policy import load_policy
from tests.unit.edge_helpers import edge, vec
from workers.lifecycle.rules import group_key, resolve_slot

POLICY = load_policy()
S = LifecycleState


def states(members: list[EdgeEvent], retractions: list[EdgeEvent] = ()) -> dict[str, S]:  # type: ignore[assignment]
    return {k: v.state for k, v in resolve_slot(members, retractions, POLICY).items()}


def test_hard_supersession_in_replace_category() -> None:
    result = resolve_slot([edge("pizza", day=0), edge("sushi", day=1)], [], POLICY)
    assert result["pizza"].state is S.SUPERSEDED
    assert result["pizza"].superseded_by == "sushi"
    assert result["sushi"].state is S.ACTIVE


def test_a72_slot_keys_decide_competition() -> None:
    """Same visible tuples; only the slot key says whether to supersede (A.7.2)."""
    same = [edge("u", day=0, slot="user.food_pref"), edge("v", day=29, slot="user.food_pref")]
    diff = (
        [edge("u", day=0, slot="user.food_pref")],
        [edge("v", day=29, slot="office_party.catering")],
    )
    assert states(same) == {"u": S.SUPERSEDED, "v": S.ACTIVE}
    assert states(diff[0]) == {"u": S.ACTIVE} and states(diff[1]) == {"v": S.ACTIVE}


def test_soft_update_keeps_old_value_active_with_pressure() -> None:
    istanbul = edge("istanbul", slot="user.current_city", category=Category.IDENTITY_SELF_CONCEPT)
    thinking = edge(
        "london?",
        day=5,
        slot="user.current_city",
        update="soft",
        confidence=0.4,
        category=Category.IDENTITY_SELF_CONCEPT,
    )
    moved = edge(
        "london",
        day=9,
        slot="user.current_city",
        confidence=0.97,
        category=Category.IDENTITY_SELF_CONCEPT,
    )
    soft = resolve_slot([istanbul, thinking], [], POLICY)
    assert soft["istanbul"].state is S.ACTIVE
    assert [p.gamma for p in soft["istanbul"].soft_pressures] == [
        0.2
    ]  # confidence 0.4 × soft_gamma_scale 0.5
    hard = resolve_slot([istanbul, thinking, moved], [], POLICY)
    assert hard["istanbul"].state is S.SUPERSEDED and hard["london?"].state is S.SUPERSEDED
    assert hard["london"].state is S.ACTIVE


def test_accumulate_category_needs_095_to_supersede() -> None:
    a = edge("works_google", slot="user.employer", category=Category.IDENTITY_SELF_CONCEPT)
    b = edge(
        "joined_x",
        day=3,
        slot="user.employer",
        confidence=0.9,
        category=Category.IDENTITY_SELF_CONCEPT,
    )
    c = edge(
        "joined_y",
        day=6,
        slot="user.employer",
        confidence=0.96,
        category=Category.IDENTITY_SELF_CONCEPT,
    )
    assert states([a, b]) == {"works_google": S.ACTIVE, "joined_x": S.ACTIVE}
    assert states([a, b, c])["works_google"] is S.SUPERSEDED


def test_accumulate_edges_without_values_add_up() -> None:
    a = edge("fishing", slot="hobby", update="accumulate", category=Category.HOBBIES_RECREATION)
    b = edge(
        "climbing", day=2, slot="hobby", update="accumulate", category=Category.HOBBIES_RECREATION
    )
    assert states([a, b]) == {"climbing": S.ACTIVE, "fishing": S.ACTIVE}


def _employer(edge_id: str, day: float, value: str, confidence: float, **kw: object) -> EdgeEvent:
    return edge(
        edge_id,
        day=day,
        slot="user.employer",
        update="accumulate",
        category=Category.IDENTITY_SELF_CONCEPT,
        value=value,
        confidence=confidence,
        **kw,  # type: ignore[arg-type]
    )


def test_table1_accumulate_contradiction_at_095_supersedes() -> None:
    """Table 1 row 1: "Works at Google" → "Joined Anthropic" in an accumulate slot (App. Z:
    threshold 0.95). Witness of failure class 1: on main both employers stayed active."""
    google = _employer("google", 0, "Google", 0.9)
    anthropic = _employer("anthropic", 30, "Anthropic", 0.95)
    result = resolve_slot([anthropic, google], [], POLICY)
    assert result["google"].state is S.SUPERSEDED
    assert result["google"].superseded_by == "anthropic"
    assert result["anthropic"].state is S.ACTIVE


def test_accumulate_contradiction_below_095_is_soft() -> None:
    google = _employer("google", 0, "Google", 0.9)
    hint = _employer("consulting", 10, "consulting", 0.8)
    result = resolve_slot([google, hint], [], POLICY)
    assert result["google"].state is S.ACTIVE and result["consulting"].state is S.ACTIVE
    assert [p.by for p in result["google"].soft_pressures] == ["consulting"]
    assert result["google"].soft_pressures[0].gamma == 0.8 * POLICY.supersession.soft_gamma_scale


def test_accumulate_same_value_is_a_repeated_mention_whatever_the_words() -> None:
    google = _employer("google", 0, "Google", 0.9, text="works at Google")
    still = _employer("still", 40, " google ", 1.0, text="still at google, loves the team")
    result = resolve_slot([google, still], [], POLICY)
    assert result["still"].state is S.DUPLICATE and result["still"].duplicate_of == "google"
    assert result["google"].mentions == 2 and result["google"].state is S.ACTIVE


def test_accumulate_commitment_settles_the_considered_value() -> None:
    """App. F: "thinking about moving to London" keeps Istanbul; "moved to London" (the same
    value, now committed) supersedes Istanbul and the tentative edge alike."""

    def city(edge_id: str, day: float, value: str, confidence: float, update: str) -> EdgeEvent:
        return edge(
            edge_id,
            day=day,
            slot="user.current_city",
            update=update,
            category=Category.IDENTITY_SELF_CONCEPT,
            value=value,
            confidence=confidence,
        )

    istanbul = city("istanbul", 0, "Istanbul", 0.9, "accumulate")
    maybe = city("maybe", 5, "London", 0.4, "soft")
    moved = city("moved", 9, "London", 0.95, "accumulate")
    assert states([istanbul, maybe]) == {"istanbul": S.ACTIVE, "maybe": S.ACTIVE}
    assert states([moved, maybe, istanbul]) == {
        "istanbul": S.SUPERSEDED,
        "maybe": S.SUPERSEDED,
        "moved": S.ACTIVE,
    }


def test_retraction_applies_even_when_it_arrives_first() -> None:
    plan = edge("dog_plan", slot="pet.dog.plan", category=Category.PROJECTS_ENDEAVORS)
    dead = edge("dog_dead", day=3, slot=None, retracts=("pet.dog.plan",))
    replan = edge("dog_again", day=10, slot="pet.dog.plan", category=Category.PROJECTS_ENDEAVORS)
    for order in ([plan, replan], [replan, plan]):
        result = resolve_slot(order, [dead], POLICY)
        assert result["dog_plan"].state is S.RETRACTED
        assert result["dog_plan"].retracted_by == "dog_dead"
        assert result["dog_again"].state is S.ACTIVE


def test_retraction_in_the_same_turn_applies() -> None:
    plan = edge("plan", day=1, slot="trip.japan.plan")
    dead = edge("scrap", day=1, slot="trip.japan.plan", retracts=("trip.japan.plan",))
    result = resolve_slot([plan, dead], [dead], POLICY)
    assert result["plan"].state is S.RETRACTED and result["scrap"].state is S.ACTIVE


def test_near_duplicates_fold_into_reinforcement_but_numerics_do_not() -> None:
    v = vec(7)
    a = edge("a", vector=v, update="accumulate")
    b = edge("b", day=2, vector=v, update="accumulate")
    result = resolve_slot([b, a], [], POLICY)
    assert result["b"].state is S.DUPLICATE and result["b"].duplicate_of == "a"
    assert result["a"].mentions == 2 and result["a"].last_mentioned_at == b.ingest_time
    rent1 = edge(
        "r1", vector=v, numeric=True, slot="user.rent", category=Category.FINANCIAL_MATERIAL
    )
    rent2 = edge(
        "r2", day=30, vector=v, numeric=True, slot="user.rent", category=Category.FINANCIAL_MATERIAL
    )
    assert states([rent1, rent2]) == {"r1": S.SUPERSEDED, "r2": S.ACTIVE}


def test_restating_a_superseded_value_reactivates_it_instead_of_deduplicating() -> None:
    v = vec(3)
    pizza1 = edge("pizza1", vector=v)
    sushi = edge("sushi", day=1)
    pizza2 = edge("pizza2", day=2, vector=v)
    assert states([pizza1, sushi, pizza2]) == {
        "pizza1": S.SUPERSEDED,
        "sushi": S.SUPERSEDED,
        "pizza2": S.ACTIVE,
    }


def test_quarantined_edges_never_take_part() -> None:
    a = edge("a")
    evil = edge("evil", day=1, quarantined=True)
    assert states([a, evil]) == {"a": S.ACTIVE, "evil": S.QUARANTINED}


def test_a_quarantined_edge_retracts_nothing() -> None:
    """An instruction-like turn that also "retracts" a slot is quarantined whole (B.5): it
    must not take a fact of the user out, whether it lands in the slot or comes in as one of
    the slot's retractions (a property search found it doing so, round 14)."""
    a = edge("a")
    evil = edge("evil", day=1, slot=None, quarantined=True, retracts=("user.food_preference",))
    assert states([a], [evil]) == {"a": S.ACTIVE}
    assert states([a, evil], [evil]) == {"a": S.ACTIVE, "evil": S.QUARANTINED}


def test_group_key_for_slotless_facts_is_text_derived() -> None:
    a = edge("a", slot=None, text="Has a  cat named Tom")
    b = edge("b", slot=None, text="has a cat named tom")
    assert group_key(a) == group_key(b) and group_key(a).startswith("~text:")
    assert group_key(edge("c", slot="User Current-City")) == "user_current_city"


EDGES = [
    edge("e0", day=0),
    edge("e1", day=1, update="soft", confidence=0.4),
    edge("e2", day=2, confidence=0.5),
    edge("e3", day=3, vector=vec(99)),
    edge("e4", day=4, vector=vec(99), update="accumulate"),
    edge("e5", day=5, update="accumulate"),
    edge("e5v", day=5, update="accumulate", value="sushi", confidence=0.97),
    edge("e5w", day=7, update="accumulate", value="ramen", confidence=0.9),
    edge("e5x", day=8, update="accumulate", value="Sushi"),
    edge("e6", day=5, numeric=True),
    edge("e7", day=6, quarantined=True),
]
RETRACTIONS = [
    edge("r0", day=2.5, slot=None, retracts=("user.food_preference",)),
    edge("r1", day=5.5, slot=None, retracts=("user.food_preference",)),
]


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.sampled_from(EDGES), min_size=1, max_size=12),
    st.lists(st.sampled_from(RETRACTIONS), max_size=3),
    st.randoms(use_true_random=False),
)
def test_any_permutation_and_duplication_gives_the_same_state(
    members: list[EdgeEvent],
    retractions: list[EdgeEvent],
    rnd,  # type: ignore[no-untyped-def]
) -> None:
    expected = resolve_slot(members, retractions, POLICY)
    shuffled = members + members[: rnd.randint(0, len(members))]
    rnd.shuffle(shuffled)
    again = retractions + retractions
    rnd.shuffle(again)
    assert resolve_slot(shuffled, again, POLICY) == expected


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.sampled_from(list(Category)), st.floats(0.01, 100.0), min_size=1))
def test_category_weights_round_trip_bit_for_bit(raw: dict[Category, float]) -> None:
    """Replay and store round trips re-validate events: normalization must be idempotent."""
    first = edge("x", category={k.value: v for k, v in raw.items()})
    again = EdgeEvent.model_validate_json(first.model_dump_json())
    assert again == first
    assert abs(sum(first.categories.values()) - 1.0) < 1e-9


def test_same_looking_facts_with_a_new_date_or_value_are_not_duplicates() -> None:
    """Two dentist visits or two wake-up times embed alike; they are still new facts."""
    v = vec(11)
    visit1 = edge(
        "visit1", vector=v, slot="appointment.dentist", event_day=30, category=Category.OBLIGATIONS
    )
    visit2 = edge(
        "visit2",
        day=40,
        vector=v,
        slot="appointment.dentist",
        event_day=400,
        category=Category.OBLIGATIONS,
    )
    assert states([visit1, visit2]) == {"visit1": S.SUPERSEDED, "visit2": S.ACTIVE}
    wake7 = EdgeEvent.model_validate({**edge("wake7", vector=v).model_dump(), "value": "7am"})
    wake6 = EdgeEvent.model_validate(
        {**edge("wake6", day=5, vector=v).model_dump(), "value": "6am"}
    )
    assert states([wake7, wake6]) == {"wake7": S.SUPERSEDED, "wake6": S.ACTIVE}
    again = EdgeEvent.model_validate(
        {**edge("wake6b", day=9, vector=v).model_dump(), "value": "6am"}
    )
    assert states([wake7, wake6, again])["wake6b"] is S.DUPLICATE
