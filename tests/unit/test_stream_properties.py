"""Order-independence and erasure over generated edge streams, down to the rankings.

The streams reach what a one-slot, replace-only stream does not (issue 12): several slots,
replace / accumulate / soft updates, retractions across slots, near-duplicates, event-time
categories whose events expire, raw turns that inherit their facts' state, several users,
and forget commands — and the object compared is both the export and the full JSON of
query results at times in the past and the future.

* any permutation and duplication of a stream gives the same exports and query results;
* forgetting facts and a user gives what never ingesting them gives.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from hypothesis import given, settings
from hypothesis import strategies as st

from schemas.categories import Category
from schemas.events import EdgeEvent, Embedding, ForgetCommand
from schemas.policy import load_policy
from schemas.query import QueryRequest
from tests.unit.edge_helpers import T0
from workers.embedding.hashing import HashingEmbedder
from workers.export import dumps_stable, export_user
from workers.lifecycle.service import LifecycleService
from workers.query.service import QueryService
from workers.stores.memory_slots import InMemorySlotIndex
from workers.stores.memory_vectors import InMemoryVectorIndex

POLICY = load_policy()
EMBEDDER = HashingEmbedder()
USERS = ("u1", "u2")

#: slot → (category, the words its facts use, whether its facts carry an event time)
SLOTS: dict[str | None, tuple[Category, tuple[str, ...], bool]] = {
    "user.city": (Category.IDENTITY_SELF_CONCEPT, ("lives in Lisbon", "lives in Porto"), False),
    "user.diet": (Category.PREFERENCES_HABITS, ("eats fish", "is vegetarian"), False),
    "pet.dog.plan": (Category.PROJECTS_ENDEAVORS, ("plans to adopt a dog",), False),
    "pet.dog.outcome": (Category.PROJECTS_ENDEAVORS, ("the dog plan is off",), False),
    "appointment.dentist": (Category.OBLIGATIONS, ("dentist appointment", "dentist visit"), True),
    "trip.lisbon": (Category.LOGISTICAL_CONTEXT, ("flight to Lisbon",), True),
    None: (Category.HOBBIES_RECREATION, ("plays guitar", "drinks coffee in Lisbon"), False),
}
RETRACTING = {"pet.dog.outcome": ("pet.dog.plan",), "user.diet": ("trip.lisbon",)}
QUESTIONS = ("where does she live", "dentist", "dog", "Lisbon coffee")
AS_OFS = (T0 + timedelta(days=5), T0 + timedelta(days=45), T0 + timedelta(days=400))


@st.composite
def fact(draw: st.DrawFn, user: str, n: int) -> EdgeEvent:
    slot = draw(st.sampled_from(list(SLOTS)))
    category, phrases, timed = SLOTS[slot]
    text = f"{user} {draw(st.sampled_from(phrases))}"  # repeated texts: near-duplicates, ties
    day = draw(st.integers(0, 60))
    retracts = RETRACTING.get(slot or "", ()) if draw(st.booleans()) else ()
    event = T0 + timedelta(days=draw(st.integers(-10, 90))) if timed else None
    return EdgeEvent(
        edge_id=f"{user}-f{n:02d}",
        user_id=user,
        text=text,
        categories=category.value,  # type: ignore[arg-type]
        slot_key=slot,
        update=draw(st.sampled_from(["replace", "replace", "accumulate", "soft"])),
        confidence=draw(st.sampled_from([0.4, 0.8, 1.0])),
        ingest_time=T0 + timedelta(days=day),
        event_time=event,
        retracts=retracts,
        quarantined=draw(st.integers(0, 19)) == 0,
        embedding=Embedding.from_array(EMBEDDER.model_id, EMBEDDER.embed([text])[0]),
    )


@st.composite
def streams(draw: st.DrawFn) -> list[EdgeEvent]:
    edges: list[EdgeEvent] = []
    for user in USERS:
        facts = [draw(fact(user, n)) for n in range(draw(st.integers(2, 9)))]
        edges += facts
        # Raw turns: each keeps the words of one or two facts and inherits their state.
        for t in range(draw(st.integers(0, 2))):
            picked = st.lists(st.sampled_from(range(len(facts))), min_size=1, max_size=2)
            of = [facts[i] for i in sorted(set(draw(picked)))]
            text = " and ".join(f.text for f in of)
            edges.append(
                EdgeEvent(
                    edge_id=f"{user}-t{t}",
                    user_id=user,
                    text=text,
                    categories=Category.OTHER.value,  # type: ignore[arg-type]
                    ingest_time=max(f.ingest_time for f in of),
                    update="accumulate",
                    episodic=True,
                    episodic_of=tuple(f.edge_id for f in of),
                    embedding=Embedding.from_array(EMBEDDER.model_id, EMBEDDER.embed([text])[0]),
                )
            )
    return edges


@dataclass
class Memory:
    """The lifecycle stage and the query service over one set of in-memory stores."""

    lifecycle: LifecycleService
    vectors: InMemoryVectorIndex
    queries: QueryService

    @classmethod
    def empty(cls) -> Memory:
        vectors = InMemoryVectorIndex()
        return cls(
            LifecycleService(InMemorySlotIndex(), vectors, POLICY),
            vectors,
            QueryService(vectors, EMBEDDER, POLICY),
        )

    def of(self, edges: list[EdgeEvent]) -> Memory:
        for e in edges:
            self.lifecycle.apply(e)
        return self

    def observed(self) -> dict[str, tuple[str, list[str]]]:
        """Per user: the export, and the full JSON of every question at every time."""
        return {
            user: (
                dumps_stable(export_user(self.vectors, user)),
                [
                    self.queries.query(
                        QueryRequest(user_id=user, query=q, as_of=at, k=10)
                    ).model_dump_json()
                    for q in QUESTIONS
                    for at in AS_OFS
                ],
            )
            for user in USERS
        }


@settings(max_examples=250, deadline=None)
@given(streams(), st.randoms(use_true_random=False))
def test_any_permutation_and_duplication_gives_the_same_exports_and_rankings(
    stream: list[EdgeEvent],
    rnd,  # type: ignore[no-untyped-def]
) -> None:
    expected = Memory.empty().of(stream).observed()
    shuffled = stream + rnd.sample(stream, rnd.randint(0, len(stream)))
    rnd.shuffle(shuffled)
    assert Memory.empty().of(shuffled).observed() == expected


def _forget(user: str, edge_id: str | None) -> ForgetCommand:
    at = datetime(2027, 1, 1, tzinfo=UTC)
    return ForgetCommand(command_id=f"c-{edge_id}", user_id=user, edge_id=edge_id, issued_at=at)


@settings(max_examples=250, deadline=None)
@given(streams(), st.data(), st.booleans())
def test_forget_is_never_ingested(
    stream: list[EdgeEvent], data: st.DataObject, whole_user: bool
) -> None:
    ids = sorted(e.edge_id for e in stream)
    erased = data.draw(st.sets(st.sampled_from(ids), min_size=1, max_size=max(1, len(ids) // 3)))
    live = Memory.empty().of(stream)
    for e in stream:
        if e.edge_id in erased:
            live.lifecycle.forget(_forget(e.user_id, e.edge_id))
    if whole_user:
        live.lifecycle.forget(_forget("u2", None))
    kept = [e for e in stream if e.edge_id not in erased and not (whole_user and e.user_id == "u2")]
    assert live.observed() == Memory.empty().of(kept).observed()


def test_the_streams_reach_what_a_one_slot_replace_stream_does_not() -> None:
    """Not a property: a census of the generated streams, so that the strategy cannot
    quietly stop reaching soft and accumulating updates, retractions across slots, expiry,
    raw turns, quarantine and several slots."""
    seen: dict[str, int] = {}

    def count(kind: str) -> None:
        seen[kind] = seen.get(kind, 0) + 1

    # A census, not a property: derandomized so that a rare draw cannot fail CI.
    @settings(max_examples=200, deadline=None, database=None, derandomize=True)
    @given(streams())
    def census(stream: list[EdgeEvent]) -> None:
        count("streams")
        slots = {e.slot_key for e in stream if not e.episodic}
        if len(slots) >= 3:
            count("three slots or more")
        for e in stream:
            count(e.update.value)
            if e.retracts:
                count("retraction across slots")
            if e.episodic:
                count("raw turn")
            if e.quarantined:
                count("quarantined")
            if e.event_time is not None and e.event_time + timedelta(hours=336) < AS_OFS[1]:
                count("expired by a query time")

    census()
    wanted = ("replace", "accumulate", "soft", "retraction across slots", "raw turn")
    for kind in (*wanted, "quarantined", "expired by a query time"):
        assert seen.get(kind, 0) >= 20, (kind, seen)
    assert seen["three slots or more"] >= seen["streams"] // 2, seen
