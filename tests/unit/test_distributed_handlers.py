"""The distributed handlers' logic, on fakeredis (same Lua scripts) and on the in-memory
fakes of the same ports: idempotency keys, re-announcement after a crash, tombstones, dead
letters, and the indexer's projection."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import fakeredis
import pytest

from schemas.events import EdgeEvent, Embedding, ForgetCommand, TurnEvent
from schemas.policy import load_policy
from schemas.streams import DLQ, EDGES, TRANSITIONS, DeadLetter, FactsChanged
from workers.distributed.extraction import ExtractionHandler
from workers.distributed.indexer import Indexer
from workers.distributed.lifecycle import LifecycleHandler
from workers.distributed.messages import Outgoing, Received, Rejections
from workers.embedding.hashing import HashingEmbedder
from workers.errors import StorageError
from workers.extraction.rules import RuleExtractor
from workers.inputs import EdgeInput
from workers.lifecycle.bulk import BulkLifecycle
from workers.lifecycle.service import LifecycleService
from workers.ports import SlotIndex
from workers.stores.dead_letters import InMemoryDeadLetters
from workers.stores.memory_archive import InMemoryArchive
from workers.stores.memory_facts import InMemoryFactStore
from workers.stores.memory_ledger import InMemoryDeliveryLedger
from workers.stores.memory_slots import InMemorySlotIndex
from workers.stores.memory_turns import InMemoryTurnContext
from workers.stores.memory_vectors import InMemoryVectorIndex
from workers.stores.redis_archive import RedisArchive
from workers.stores.redis_dead_letters import RedisDeadLetters
from workers.stores.redis_facts import RedisFactStore
from workers.stores.redis_ledger import RedisDeliveryLedger
from workers.stores.redis_slots import RedisSlotIndex
from workers.stores.redis_turns import RedisTurnContext

STORY = Path(__file__).resolve().parents[2] / "frecall" / "demo" / "story.jsonl"
EMBEDDER = HashingEmbedder()
#: After the story's ingest times: a whole-user erasure takes everything up to it.
T_FORGET = datetime(2027, 1, 1, tzinfo=UTC)


def edge(row: dict[str, object]) -> EdgeEvent:
    event = EdgeInput.model_validate(row).to_event(load_policy(None), datetime.now(UTC), None)
    vector = EMBEDDER.embed([event.text])[0]
    return event.model_copy(update={"embedding": Embedding.from_array(EMBEDDER.model_id, vector)})


def story() -> list[EdgeEvent]:
    return [edge(json.loads(line)) for line in STORY.read_text().splitlines()]


def user_turn(user: str, turn_id: str, text: str, at: datetime) -> TurnEvent:
    return TurnEvent(
        user_id=user, session_id="s", turn_id=turn_id, role="user", text=text, timestamp=at
    )


LISBON = "I live in Lisbon and I work as a nurse."


def received(value: bytes, offset: int = 0, topic: str = EDGES) -> Received:
    return Received(topic, 0, offset, "maya", value)


@dataclass
class Ports:
    """One set of the distributed ports: the Redis adapters on fakeredis, or the fakes."""

    facts: RedisFactStore | InMemoryFactStore
    ledger: RedisDeliveryLedger | InMemoryDeliveryLedger
    context: RedisTurnContext | InMemoryTurnContext
    slots: SlotIndex
    letters: RedisDeadLetters | InMemoryDeadLetters
    archive: RedisArchive | InMemoryArchive

    def service(self) -> LifecycleService:
        return LifecycleService(self.slots, self.facts, load_policy(None))

    @property
    def reject(self) -> Rejections:
        return Rejections(self.letters)

    def handler(self, service: LifecycleService | None = None) -> LifecycleHandler:
        return LifecycleHandler(
            service or self.service(),
            self.facts,
            self.ledger,
            self.context,
            self.reject,
            self.archive,
        )


def on_redis(
    facts: type[RedisFactStore] = RedisFactStore, slots: type[RedisSlotIndex] = RedisSlotIndex
) -> Ports:
    client = fakeredis.FakeRedis()
    return Ports(
        facts(client, "t"),
        RedisDeliveryLedger(client, "t"),
        RedisTurnContext(client, "t"),
        slots(client, "t"),
        RedisDeadLetters(client, "t.kept"),
        RedisArchive(client, "t.kept", "t"),
    )


def in_memory() -> Ports:
    ledger = InMemoryDeliveryLedger()
    return Ports(
        InMemoryFactStore(ledger),
        ledger,
        InMemoryTurnContext(),
        InMemorySlotIndex(),
        InMemoryDeadLetters(),
        InMemoryArchive(),
    )


Stores = tuple[LifecycleHandler, RedisFactStore | InMemoryFactStore, LifecycleService]


@pytest.fixture(params=["redis", "memory"])
def stores(request: pytest.FixtureRequest) -> Stores:
    ports = on_redis() if request.param == "redis" else in_memory()
    service = ports.service()
    return ports.handler(service), ports.facts, service


def announced(handled_outgoing: list[Outgoing]) -> FactsChanged:
    (out,) = handled_outgoing
    assert out.topic == TRANSITIONS and out.key == "maya"
    return FactsChanged.model_validate_json(out.value)


def test_an_edge_is_announced_once_and_a_redelivery_is_skipped(stores: Stores) -> None:
    handler, facts, _ = stores
    first = story()[0]
    handled = handler.handle_edge(received(first.model_dump_json().encode()))
    change = announced(handled.outgoing)
    assert change.edge_ids == (first.edge_id,)
    assert [t.to_state for t in change.transitions] == ["active"]
    assert handled.confirm is not None
    handled.confirm()  # produced and acknowledged
    again = handler.handle_edge(received(first.model_dump_json().encode(), offset=9))
    assert again.outgoing == [] and facts.count("maya") == 1


def test_an_edge_applied_but_never_announced_is_announced_in_full(stores: Stores) -> None:
    handler, _, _ = stores
    edges = story()
    istanbul, london = edges[0], next(e for e in edges if e.edge_id == "city-london")
    for e in (istanbul, london):
        handler.handle_edge(received(e.model_dump_json().encode())).confirm()
    maybe = next(e for e in edges if e.edge_id == "city-london-maybe")
    crashed = handler.handle_edge(received(maybe.model_dump_json().encode()))
    assert crashed.confirm is not None  # ... and the worker died before producing
    redelivered = announced(
        handler.handle_edge(received(maybe.model_dump_json().encode())).outgoing
    )
    assert redelivered.transitions == ()  # nothing left to change ...
    # ... yet every fact of the slot is announced, so the indexer catches up.
    assert {"city-istanbul", "city-london", "city-london-maybe"} <= set(redelivered.edge_ids)


@pytest.mark.parametrize("ports", [on_redis, in_memory])
def test_malformed_edges_become_dead_letters_without_their_words(
    ports: Callable[[], Ports],
) -> None:
    stores = ports()
    handler = stores.handler()
    bare = story()[0].model_copy(update={"embedding": None})
    raws = (
        b"\xff{",
        b'{"kind": "edge", "text": "Maya lives in Lisbon"}',
        bare.model_dump_json().encode(),
    )
    for offset, raw in enumerate(raws):
        (out,) = handler.handle_edge(received(raw, offset=offset)).outgoing
        assert out.topic == DLQ
        letter = DeadLetter.model_validate_json(out.value)
        assert (letter.topic, letter.partition, letter.offset) == (EDGES, 0, offset)
        assert letter.reason in {"not an edge event", "edge has no embedding"}
        # fr.dlq cannot forget: it keeps no input, and no reason that quotes it.
        assert letter.raw is None and b"Lisbon" not in out.value and b"Istanbul" not in out.value
    kept = stores.letters.of("maya")  # the words, where a forget reaches them
    assert [d["position"] for d in kept] == ["0/0", "0/1", "0/2"]
    assert "Lisbon" in kept[1]["raw"] and kept[1]["reason"].startswith("not an edge event: ")
    assert stores.facts.count("maya") == 0


@pytest.mark.parametrize("ports", [on_redis, in_memory])
def test_forget_reaches_the_archive_and_the_dead_letters(ports: Callable[[], Ports]) -> None:
    stores = ports()
    handler = stores.handler()
    edges = story()
    for e in edges[:4]:
        handler.handle_edge(received(e.model_dump_json().encode())).confirm()
    handler.handle_edge(received(b"not json", offset=9))
    stores.letters.put_for("bob", EDGES, "0/10", "not an edge event", "{}")
    compacted = [
        r for r in stores.facts.scroll("maya") if r.edge_id in {"rent-950", "job-engineer"}
    ]
    stores.archive.append([(r, "superseded", r.edge.ingest_time) for r in compacted], T_FORGET)
    one = ForgetCommand(command_id="c1", user_id="maya", edge_id="rent-950", issued_at=T_FORGET)
    receipt = announced(handler.handle_command(received(one.model_dump_json().encode())).outgoing)
    assert receipt.receipt == {"fact_store": 1, "slot_index": 1, "archive": 1}
    everything = ForgetCommand(command_id="c2", user_id="maya", edge_id=None, issued_at=T_FORGET)
    handled = handler.handle_command(received(everything.model_dump_json().encode()))
    receipt = announced(handled.outgoing)
    assert receipt.receipt is not None
    assert (receipt.receipt["archive"], receipt.receipt["dead_letters"]) == (1, 1)
    assert stores.archive.records("maya") == [] and stores.letters.of("maya") == []
    assert len(stores.letters.of("bob")) == 1  # another user's letters stay
    # A redelivered command finds nothing left; the first attempt's receipt is kept.
    handler.handle_command(received(everything.model_dump_json().encode()))
    assert stores.ledger.receipt("maya", "c2") == receipt.receipt


def test_forget_tombstones_late_copies_and_returns_a_receipt(stores: Stores) -> None:
    handler, facts, _ = stores
    edges = story()
    for e in edges[:5]:
        handler.handle_edge(received(e.model_dump_json().encode())).confirm()
    command = ForgetCommand(
        command_id="c1", user_id="maya", edge_id=None, issued_at=datetime.now(UTC)
    )
    change = announced(
        handler.handle_command(received(command.model_dump_json().encode())).outgoing
    )
    assert change.forget_user and change.command_id == "c1"
    assert change.receipt is not None and change.receipt["fact_store"] == 5
    # A copy of an erased edge still in flight stays out.
    assert handler.handle_edge(received(edges[0].model_dump_json().encode())).outgoing == []
    assert facts.count("maya") == 0


def test_the_indexer_projects_the_fact_store_whatever_the_message_order(stores: Stores) -> None:
    handler, facts, _ = stores
    announcements = []
    for e in story():
        handled = handler.handle_edge(received(e.model_dump_json().encode()))
        announcements += handled.outgoing
        handled.confirm()
    vectors = InMemoryVectorIndex()
    indexer = Indexer(facts, vectors)
    for out in reversed(announcements + announcements[:3]):  # re-ordered and duplicated
        indexer.handle(Received(TRANSITIONS, 0, 0, "maya", out.value))
    indexed = {r.edge_id: r.lifecycle for r in vectors.scroll("maya")}
    assert indexed == {r.edge_id: r.lifecycle for r in facts.scroll("maya")}
    assert indexer.wait_indexed("maya", ["city-london"], timeout=0.1)
    assert not indexer.wait_indexed("maya", ["no-such-fact"], timeout=0.1)


@pytest.mark.parametrize("ports", [on_redis, in_memory])
def test_extraction_yields_embedded_edges_and_dead_letters_bad_turns(
    ports: Callable[[], Ports],
) -> None:
    stores = ports()
    context = stores.context
    handler = ExtractionHandler(RuleExtractor(), EMBEDDER, context, stores.ledger, stores.reject)
    turn = user_turn("bob", "t1", LISBON, datetime(2026, 1, 1, tzinfo=UTC))
    good = Received("fr.turns", 1, 7, "bob", turn.model_dump_json().encode())
    bad = Received("fr.turns", 1, 8, "bob", b'{"user_id": "bob"}')
    out = handler.handle_turns([good, bad])
    letters = [DeadLetter.model_validate_json(o.value) for o in out if o.topic == DLQ]
    assert [(d.offset, d.reason.startswith("not a turn")) for d in letters] == [(8, True)]
    edges = [EdgeEvent.model_validate_json(o.value) for o in out if o.topic == EDGES]
    assert len(edges) >= 2 and all(e.embedding is not None for e in edges)
    assert edges[-1].episodic  # the raw turn comes last, after its facts
    # A redelivered turn yields the same edge ids (the lifecycle folds them away).
    again = [EdgeEvent.model_validate_json(o.value) for o in handler.handle_turns([good])]
    assert [e.edge_id for e in again] == [e.edge_id for e in edges]
    assert [t.turn_id for t in context.recent_all(turn)] == ["t1"]


def test_user_ids_with_glob_and_tag_characters_stay_apart() -> None:
    client = fakeredis.FakeRedis()
    facts = RedisFactStore(client, "t")
    context = RedisTurnContext(client, "t")
    base = story()[0]
    for user in ("a*", "abc", "{x}", "p%7B"):
        edge = base.model_copy(update={"user_id": user})
        turn = user_turn(user, "t1", "hello", datetime(2026, 1, 1, tzinfo=UTC))
        context.add(turn)
        service = LifecycleService(
            RedisSlotIndex(client, "t"),
            facts,
            load_policy(None),
        )
        service.apply(edge)
    assert facts.users() == ["a*", "abc", "p%7B", "{x}"]
    facts.delete_user("a*")
    context.forget_user("a*")
    assert facts.users() == ["abc", "p%7B", "{x}"]
    probe = user_turn("abc", "t2", "again", datetime(2026, 1, 2, tzinfo=UTC))
    assert [t.turn_id for t in context.recent(probe)] == ["t1"]  # not erased with "a*"


class _FlakyCommit(RedisFactStore):
    """A fact store whose next commit dies (a worker killed between two steps)."""

    fail_next = False

    def commit(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        if self.fail_next:
            self.fail_next = False
            raise StorageError("redis", "commit", "killed")
        return super().commit(*args, **kwargs)


def _city_story() -> tuple[LifecycleHandler, _FlakyCommit, dict[str, EdgeEvent]]:
    ports = on_redis(facts=_FlakyCommit)
    facts = ports.facts
    assert isinstance(facts, _FlakyCommit)
    handler = ports.handler()
    edges = {e.edge_id: e for e in story()}
    for name in ("city-istanbul", "city-london"):
        handler.handle_edge(received(edges[name].model_dump_json().encode())).confirm()  # type: ignore[misc]
    return handler, facts, edges


def _forget(edge_id: str | None, at: datetime | None = None) -> Received:
    command = ForgetCommand(
        command_id="c-" + str(edge_id),
        user_id="maya",
        edge_id=edge_id,
        issued_at=at or datetime.now(UTC),
    )
    return received(command.model_dump_json().encode(), topic="fr.commands")


def test_a_forget_killed_before_its_commit_finishes_on_redelivery() -> None:
    handler, facts, _ = _city_story()
    facts.fail_next = True
    with pytest.raises(StorageError):
        handler.handle_command(_forget("city-london"))  # London deleted, Istanbul not yet back
    handled = handler.handle_command(_forget("city-london"))  # redelivered
    states = {r.edge_id: r.lifecycle.state.value for r in facts.scroll("maya")}
    assert states["city-istanbul"] == "active" and "city-london" not in states
    assert "city-istanbul" in announced(handled.outgoing).edge_ids
    handled.confirm()  # type: ignore[misc]


def test_a_forget_that_died_before_announcing_announces_the_slot_again() -> None:
    handler, _, _ = _city_story()
    handler.handle_command(_forget("city-london"))  # committed, never produced
    again = announced(handler.handle_command(_forget("city-london")).outgoing)
    assert {"city-london", "city-istanbul"} <= set(again.edge_ids)


def test_a_whole_user_forget_keeps_what_was_said_after_it() -> None:
    handler, facts, edges = _city_story()
    later = edges["diet-vegetarian"].model_copy(
        update={"ingest_time": datetime(2030, 1, 1, tzinfo=UTC), "edge_id": "said-later"}
    )
    handler.handle_edge(received(later.model_dump_json().encode())).confirm()  # type: ignore[misc]
    cutoff = datetime(2029, 1, 1, tzinfo=UTC)
    change = announced(handler.handle_command(_forget(None, cutoff)).outgoing)
    assert change.forget_user
    assert [r.edge_id for r in facts.scroll("maya")] == ["said-later"]
    # Delivered again (after the later edge): still only the earlier facts go.
    handler.handle_command(_forget(None, cutoff))
    assert [r.edge_id for r in facts.scroll("maya")] == ["said-later"]


@pytest.mark.parametrize("ports", [on_redis, in_memory])
def test_a_commit_racing_an_erasure_does_not_write_the_erased_fact(
    ports: Callable[[], Ports],
) -> None:
    stores = ports()
    facts, service = stores.facts, stores.service()
    first = story()[0]
    # Worker B checked `erased` before A's tombstone landed, then applies:
    stores.ledger.tombstone("maya", None, datetime(2099, 1, 1, tzinfo=UTC))
    service.apply(first)
    assert facts.count("maya") == 0


@pytest.mark.parametrize("ports", [on_redis, in_memory])
def test_session_context_is_what_came_before_even_on_redelivery(ports: Callable[[], Ports]) -> None:
    context = ports().context
    turns = [
        user_turn("bob", f"t{i}", f"turn {i}", datetime(2026, 1, 1, 10, i, tzinfo=UTC))
        for i in range(4)
    ]
    for turn in turns:
        context.add(turn)
    assert [t.turn_id for t in context.recent(turns[1])] == ["t0"]  # not t2, t3
    assert [t.turn_id for t in context.recent(turns[3])] == ["t0", "t1", "t2"]


@pytest.mark.parametrize("ports", [on_redis, in_memory])
def test_a_conditional_delete_refuses_after_a_change(ports: Callable[[], Ports]) -> None:
    stores = ports()
    facts, service = stores.facts, stores.service()
    edges = story()
    service.apply(edges[0])
    snapshot = facts.snapshot("maya")
    service.apply(edges[1])  # a worker changed the user meanwhile
    assert not facts.delete_if("maya", snapshot, [edges[0].edge_id])
    assert facts.count("maya") == 2
    assert facts.delete_if("maya", facts.snapshot("maya"), [edges[0].edge_id])
    assert facts.count("maya") == 1


class _FlakySlots(RedisSlotIndex):
    """A slot index that dies after `fail_after` removals (a worker killed mid-erasure)."""

    fail_after: int | None = None

    def remove(self, user_id: str, edge_id: str) -> list[str]:
        if self.fail_after is not None:
            if self.fail_after == 0:
                self.fail_after = None
                raise StorageError("redis", "remove", "killed")
            self.fail_after -= 1
        return super().remove(user_id, edge_id)


@pytest.mark.parametrize("killed_after", [0, 1, 5, 12])
def test_a_whole_user_forget_killed_midway_finishes_on_redelivery(killed_after: int) -> None:
    def run(crash: int | None) -> dict[str, str]:
        ports = on_redis(slots=_FlakySlots)
        facts, slots = ports.facts, ports.slots
        assert isinstance(slots, _FlakySlots)
        handler = ports.handler()
        edges = story()
        later = edges[8].model_copy(  # "maybe London", said after the erasure
            update={"ingest_time": datetime(2030, 1, 1, tzinfo=UTC), "edge_id": "said-later"}
        )
        for e in [*edges, later]:
            handler.handle_edge(received(e.model_dump_json().encode())).confirm()  # type: ignore[misc]
        slots.fail_after = crash
        command = _forget(None, datetime(2029, 1, 1, tzinfo=UTC))
        if crash is not None:
            with pytest.raises(StorageError):
                handler.handle_command(command)
        handler.handle_command(command).confirm()  # type: ignore[misc]
        vectors = InMemoryVectorIndex()
        Indexer(facts, vectors).sync("maya", [r.edge_id for r in facts.scroll("maya")])
        state = {r.edge_id: r.lifecycle.state.value for r in facts.scroll("maya")}
        assert {r.edge_id: r.lifecycle.state.value for r in vectors.scroll("maya")} == state
        members = {m.edge_id for s in slots.slots("maya") for m in slots.members("maya", s)}
        assert members <= set(state) | {"said-later"}
        return state

    assert run(killed_after) == run(None) == {"said-later": "active"}


def test_a_redelivered_turn_gets_its_first_extraction_even_from_a_fickle_llm() -> None:
    from workers.extraction.model import ExtractedFact

    class Fickle:
        """An extractor that answers differently each time (an LLM at temperature > 0)."""

        calls = 0

        def extract(self, turn: TurnEvent, context: object) -> list[ExtractedFact]:
            self.calls += 1
            texts = ["User lives in Lisbon", "User works as a nurse"][: self.calls]
            return [
                ExtractedFact.model_validate(
                    {
                        "text": t,
                        "categories": {"IDENTITY_SELF_CONCEPT": 1.0},
                        "confidence": 0.9,
                        "update": "accumulate",
                    }
                )
                for t in texts
            ]

    stores = on_redis()
    context = stores.context
    extractor = Fickle()
    handler = ExtractionHandler(
        extractor,  # type: ignore[arg-type]
        EMBEDDER,
        context,
        stores.ledger,
        stores.reject,
    )
    turn = user_turn("bob", "t1", LISBON, datetime(2026, 1, 1, tzinfo=UTC))
    message = Received("fr.turns", 0, 1, "bob", turn.model_dump_json().encode())
    first = [o.value for o in handler.handle_turns([message])]
    again = [o.value for o in handler.handle_turns([message])]
    assert first == again and extractor.calls == 1
    context.forget_user("bob")  # erasure takes the cached extraction too
    assert context.extracted(turn) is None


@pytest.mark.parametrize("ports", [on_redis, in_memory])
def test_a_batch_in_bulk_ends_where_one_message_at_a_time_does(
    ports: Callable[[], Ports],
) -> None:
    edges = story()
    raws = [e.model_dump_json().encode() for e in edges]
    raws = [*raws[:5], b"\xff{", *raws[5:], raws[2]]  # a dead letter, a duplicate
    single, many = ports(), ports()
    for offset, raw in enumerate(raws):
        handled = single.handler().handle_edge(received(raw, offset))
        if handled.confirm is not None:
            handled.confirm()
    bulk = BulkLifecycle(many.slots, many.facts, load_policy(None))
    handler = LifecycleHandler(
        many.service(), many.facts, many.ledger, many.context, many.reject, many.archive, bulk
    )
    results = handler.handle_edges([received(raw, n) for n, raw in enumerate(raws)])
    outgoing = [o for r in results for o in r.outgoing]
    assert [o.topic for o in outgoing] == [DLQ, TRANSITIONS]  # one announcement per user
    change = FactsChanged.model_validate_json(outgoing[1].value)
    assert set(change.edge_ids) == {e.edge_id for e in edges}
    assert change.source == "fr.edges/0/0"
    # Applied but never announced (the worker died before producing): announced again, in
    # full, with nothing left to change.
    redelivered = handler.handle_edges([received(raw, n) for n, raw in enumerate(raws)])
    again_out = [o for r in redelivered for o in r.outgoing if o.topic == TRANSITIONS]
    (again_change,) = [FactsChanged.model_validate_json(o.value) for o in again_out]
    assert again_change.transitions == () and set(again_change.edge_ids) == set(change.edge_ids)
    for r in results:
        if r.confirm is not None:
            r.confirm()
    assert list(many.facts.scroll("maya")) and sorted(
        r.model_dump_json() for r in many.facts.scroll("maya")
    ) == sorted(r.model_dump_json() for r in single.facts.scroll("maya"))
    assert all(many.ledger.processed("maya", e.edge_id) for e in edges)
    # A redelivery of the batch is skipped: nothing to apply, nothing to announce.
    again = handler.handle_edges([received(raw, n) for n, raw in enumerate(raws)])
    assert [o.topic for r in again for o in r.outgoing] == [DLQ]
