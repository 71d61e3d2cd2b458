"""Compaction: which facts are archivable at T, and what archiving does to the store."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest

from schemas.categories import Category, LifecycleState
from schemas.events import EdgeEvent, Embedding
from schemas.policy import load_policy
from schemas.query import QueryRequest
from schemas.records import FactRecord, Lifecycle
from tests.unit.edge_helpers import T0, edge
from workers.embedding.hashing import HashingEmbedder
from workers.lifecycle.compaction import archivable, compact, expires_at
from workers.lifecycle.service import LifecycleService
from workers.query.service import QueryService
from workers.stores.archive import Archive
from workers.stores.memory_slots import InMemorySlotIndex
from workers.stores.memory_vectors import InMemoryVectorIndex

POLICY = load_policy()
RULES = POLICY.compaction
S = LifecycleState
C = Category
BUFFER = timedelta(hours=POLICY.expiry_buffer_hours)


def day(n: float) -> timedelta:
    return timedelta(days=n)


def rec(e: EdgeEvent, state: S = S.ACTIVE, at_day: float | None = None) -> FactRecord:
    at = None if at_day is None else T0 + day(at_day)
    lc = Lifecycle(
        state=state,
        superseded_by="x" if state is S.SUPERSEDED else None,
        superseded_at=at if state is S.SUPERSEDED else None,
        retracted_by="x" if state is S.RETRACTED else None,
        retracted_at=at if state is S.RETRACTED else None,
        duplicate_of="x" if state is S.DUPLICATE else None,
    )
    return FactRecord(edge=e, lifecycle=lc)


def decide(records: list[FactRecord], at_day: float) -> dict[str, str]:
    return {a.edge_id: a.reason for a in archivable(records, T0 + day(at_day), POLICY)}


LOGISTICS = C.LOGISTICAL_CONTEXT


@pytest.mark.parametrize(
    ("records", "at_day", "expected"),
    [
        # superseded: kept for the retention period, archived after it
        ([rec(edge("a", slot="s1"), S.SUPERSEDED, 10), rec(edge("b", slot="s1"), S.SUPERSEDED, 20),
          rec(edge("c", slot="s1", day=20))], 10 + RULES.superseded_days - 1, {}),
        # ... except the slot's latest superseded value while its current value is live
        ([rec(edge("a", slot="s1"), S.SUPERSEDED, 10), rec(edge("b", slot="s1"), S.SUPERSEDED, 20),
          rec(edge("c", slot="s1", day=20))], 20 + RULES.superseded_days + 1,
         {"a": "superseded"}),
        # retracted after its own retention; the cancellation record itself is active
        ([rec(edge("plan", slot="trip"), S.RETRACTED, 5),
          rec(edge("off", slot="trip.cancelled", day=5, retracts=("trip",)))],
         5 + RULES.retracted_days + 1, {"plan": "retracted"}),
        ([rec(edge("plan", slot="trip"), S.RETRACTED, 5)], 5 + RULES.retracted_days - 1, {}),
        # duplicates: folded into their original at once, archived after a short while
        ([rec(edge("dup", slot="s2", day=3), S.DUPLICATE), rec(edge("orig", slot="s2"))],
         3 + RULES.duplicate_days + 1, {"dup": "duplicate"}),
        # an event-time fact: expired after event + buffer, archived expired_days later
        ([rec(edge("dentist", slot="appt", category=C.OBLIGATIONS, event_day=30))],
         30 + BUFFER.days + RULES.expired_days + 1, {"dentist": "expired"}),
        ([rec(edge("dentist", slot="appt", category=C.OBLIGATIONS, event_day=30))],
         30 + BUFFER.days + RULES.expired_days - 1, {}),
        # event time on a non-event-time category: never expires
        ([rec(edge("bday", slot="b", category=C.RELATIONAL_BONDS, event_day=30))], 2000, {}),
        # mostly identity (soft membership < 0.5 in event-time categories): never expires
        ([rec(edge("m", slot="m", category={"IDENTITY_SELF_CONCEPT": 0.7,
                                             "LOGISTICAL_CONTEXT": 0.3}, event_day=1))],
         2000, {}),
        # active and quarantined facts stay, however old
        ([rec(edge("old", slot="s3")), rec(edge("q", slot=None, quarantined=True),
                                          S.QUARANTINED)], 5000, {}),
        # once the slot's current value has expired, its last superseded value goes too
        ([rec(edge("t1", slot="trip", category=LOGISTICS, event_day=10), S.SUPERSEDED, 5),
          rec(edge("t2", slot="trip", day=5, category=LOGISTICS, event_day=12))],
         max(12 + BUFFER.days + RULES.expired_days, 5 + RULES.superseded_days) + 1,
         {"t1": "superseded", "t2": "expired"}),
        # facts stated after T are never touched
        ([rec(edge("late", slot="s4", day=400), S.SUPERSEDED, 401)], 300, {}),
    ],
)  # fmt: skip
def test_archivable_decisions(
    records: list[FactRecord], at_day: float, expected: dict[str, str]
) -> None:
    assert decide(records, at_day) == expected


def test_keep_last_superseded_can_be_turned_off() -> None:
    policy = POLICY.model_copy(
        update={"compaction": RULES.model_copy(update={"keep_last_superseded": False})}
    )
    records = [rec(edge("a", slot="s"), S.SUPERSEDED, 1), rec(edge("b", slot="s", day=1))]
    got = archivable(records, T0 + day(1 + RULES.superseded_days + 1), policy)
    assert [a.edge_id for a in got] == ["a"]


def test_expiry_matches_the_scorer_rule() -> None:
    e = edge("x", category=C.OBLIGATIONS, event_day=3)
    assert expires_at(rec(e), POLICY) == T0 + day(3) + BUFFER
    assert expires_at(rec(edge("y", category=C.OBLIGATIONS)), POLICY) is None


# --- end to end over the in-memory stores -------------------------------------------------

EMBEDDER = HashingEmbedder(dim=64)
USER = "u1"


def fact(
    edge_id: str,
    text: str,
    at_day: float,
    slot: str | None,
    category: Category = C.PREFERENCES_HABITS,
    **fields: object,
) -> EdgeEvent:
    vector = EMBEDDER.embed([text])[0]
    return EdgeEvent(
        edge_id=edge_id,
        user_id=USER,
        text=text,
        categories=category,  # type: ignore[arg-type]
        slot_key=slot,
        update=fields.pop("update", "replace"),  # type: ignore[arg-type]
        ingest_time=T0 + day(at_day),
        embedding=Embedding.from_array(EMBEDDER.model_id, vector),
        **fields,  # type: ignore[arg-type]
    )


COFFEE = ["espresso", "cold brew", "green tea", "matcha", "oat flat whites", "black coffee"]


def history() -> list[EdgeEvent]:
    """A year: a coffee habit changing every two months, trips that expire, a dropped plan."""
    out = [
        fact(f"coffee{i}", f"User drinks {drink} every morning", 60 * i, "user.coffee")
        for i, drink in enumerate(COFFEE)
    ]
    out += [
        fact(f"trip{i}", f"User flies to {city} for a conference", 40 * i + 1, f"trip.{i}",
             C.LOGISTICAL_CONTEXT, event_time=T0 + day(40 * i + 10))
        for i, city in enumerate(["Oslo", "Rome", "Lima", "Kyoto", "Perth"])
    ]  # fmt: skip
    out += [
        fact("dog", "User is getting a dog", 20, "pet.plan", C.PROJECTS_ENDEAVORS),
        fact("nodog", "The dog plan is off", 25, "pet.plan.cancelled", C.PROJECTS_ENDEAVORS,
             retracts=("pet.plan",)),
        fact("chess", "User plays chess at the club on Sundays", 3, "hobby.chess",
             C.HOBBIES_RECREATION, update="accumulate"),
        fact("sister", "User's sister Lena lives in Porto", 4, "rel.sister",
             C.RELATIONAL_BONDS, update="accumulate"),
    ]  # fmt: skip
    return out


def _apply_all(edges: list[EdgeEvent]) -> tuple[LifecycleService, InMemoryVectorIndex]:
    vectors = InMemoryVectorIndex()
    service = LifecycleService(InMemorySlotIndex(), vectors, POLICY)
    for e in edges:
        service.apply(e)
    return service, vectors


CURRENT_QUESTIONS = [
    "What does the user drink every morning?",
    "Does the user play chess?",
    "Where does the user's sister live?",
    "Is the user getting a dog?",
]


def _top(vectors: InMemoryVectorIndex, as_of_day: float) -> list[list[str]]:
    queries = QueryService(vectors, EMBEDDER, POLICY)
    return [
        [
            r.edge_id
            for r in queries.query(
                QueryRequest(user_id=USER, query=q, as_of=T0 + day(as_of_day), k=3)
            ).results
        ]
        for q in CURRENT_QUESTIONS
    ]


def test_compaction_bounds_the_store_and_keeps_current_answers(tmp_path: Path) -> None:
    _, vectors = _apply_all(history())
    when = 500
    before_top = _top(vectors, when)
    before = vectors.count(USER)
    archive = Archive(tmp_path / "archive.jsonl")
    report = compact(vectors, archive, [USER], T0 + day(when), POLICY)

    left = {r.edge_id: r.lifecycle.state for r in vectors.scroll(USER)}
    # Coffee: the current value and the one before it stay; trips long past are gone.
    assert {k for k in left if k.startswith("coffee")} == {"coffee4", "coffee5"}
    assert not any(k.startswith("trip") for k in left)
    assert "dog" not in left and {"nodog", "chess", "sister"} <= set(left)
    assert report.archived == before - len(left) == len(archive.records())
    assert report.by_reason == {"superseded": 4, "expired": 5, "retracted": 1}
    # Nothing is lost: the archive holds whole records, embeddings included.
    assert all(r.edge.embedding is not None for r in archive.records())
    assert _top(vectors, when) == before_top
    # A second run at the same time has nothing left to do.
    assert compact(vectors, archive, [USER], T0 + day(when), POLICY).archived == 0


def test_later_ingest_into_a_compacted_slot_does_not_resurrect(tmp_path: Path) -> None:
    service, vectors = _apply_all(history())
    compact(vectors, Archive(tmp_path / "a.jsonl"), [USER], T0 + day(500), POLICY)
    service.apply(fact("coffee6", "User drinks chai lattes every morning", 510, "user.coffee"))
    # Also a late-arriving retraction of the dropped plan's slot (touches the archived fact).
    service.apply(fact("nodog2", "Forget the dog idea", 511, "pet.plan.cancelled2",
                       C.PROJECTS_ENDEAVORS, retracts=("pet.plan",)))  # fmt: skip
    left = {r.edge_id: r.lifecycle.state for r in vectors.scroll(USER)}
    assert {k for k in left if k.startswith("coffee")} == {"coffee4", "coffee5", "coffee6"}
    assert left["coffee6"] is S.ACTIVE and left["coffee5"] is S.SUPERSEDED
    assert "dog" not in left
    # The slot index kept every member, so the state of what remains is still exact.
    full = _apply_all([*history(), *[fact("coffee6", "User drinks chai lattes every morning",
                                          510, "user.coffee")]])[1]  # fmt: skip
    exact = {r.edge_id: r.lifecycle for r in full.scroll(USER)}
    for r in vectors.scroll(USER):
        if r.edge_id in exact:
            assert r.lifecycle == exact[r.edge_id]


def test_archive_redact_erases_a_users_records(tmp_path: Path) -> None:
    _, vectors = _apply_all(history())
    archive = Archive(tmp_path / "archive.jsonl")
    compact(vectors, archive, [USER], T0 + day(500), POLICY)
    n = len(archive.records())
    assert archive.redact(USER, "coffee0") == 1
    assert len(archive.records()) == n - 1
    assert archive.redact(USER) == n - 1
    assert archive.records() == []


def test_a_long_expired_fact_stays_archived_when_its_slot_changes(tmp_path: Path) -> None:
    service, vectors = _apply_all(history())
    compact(vectors, Archive(tmp_path / "a.jsonl"), [USER], T0 + day(500), POLICY)
    assert "trip0" not in {r.edge_id for r in vectors.scroll(USER)}
    # Still active in its slot (expiry is a matter of time, not state) — yet archived.
    service.apply(fact("trip0-hotel", "User also booked a hotel in Oslo", 505, "trip.0",
                       C.LOGISTICAL_CONTEXT, update="accumulate"))  # fmt: skip
    left = {r.edge_id for r in vectors.scroll(USER)}
    assert "trip0-hotel" in left and "trip0" not in left
