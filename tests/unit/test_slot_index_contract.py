"""The SlotIndex contract in process: the in-memory index and the Redis one on fakeredis.

fakeredis with `lupa` runs the adapter's Lua scripts, so the Redis code path is exercised
without a server; tests/integration/test_redis_slots.py runs the same contract on a real one.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import fakeredis
import pytest
import redis
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.slot_index_contract import RedisSlotIndexContract, SlotIndexContract, edge
from workers.ports import SlotEntry, SlotIndex
from workers.stores.memory_slots import InMemorySlotIndex
from workers.stores.redis_slots import RedisSlotIndex
from workers.stores.sqlite_slots import SqliteSlotIndex


class TestInMemorySlotIndex(SlotIndexContract):
    @pytest.fixture
    def index(self) -> Iterator[SlotIndex]:
        index = InMemorySlotIndex()
        yield index
        index.close()


class TestSqliteSlotIndex(SlotIndexContract):
    @pytest.fixture
    def index(self, tmp_path: Path) -> Iterator[SlotIndex]:
        index = SqliteSlotIndex(tmp_path / "slots.sqlite")
        yield index
        index.close()


class TestSqliteSlotIndexCachingEverySlot(SlotIndexContract):
    """The same contract with every slot kept parsed between reads (workers/stores/
    slot_cache.py; by default only big ones are): the cache must never change an answer."""

    @pytest.fixture
    def index(self, tmp_path: Path) -> Iterator[SlotIndex]:
        index = SqliteSlotIndex(tmp_path / "slots.sqlite", cache_min_edges=1)
        yield index
        index.close()


def test_sqlite_slot_cache_sees_another_connections_writes(tmp_path: Path) -> None:
    path = tmp_path / "slots.sqlite"
    reader = SqliteSlotIndex(path, cache_min_edges=1)
    writer = SqliteSlotIndex(path, cache_min_edges=1)
    try:
        writer.add_many("alice", [SlotEntry("s", edge("e1")), SlotEntry("s", edge("e2"))])
        assert [e.edge_id for e in reader.read_many("alice", ["s"])["s"].members] == ["e1", "e2"]
        writer.add("alice", "s", edge("e3"))  # the reader holds "s" parsed: it must look again
        assert [e.edge_id for e in reader.members("alice", "s")] == ["e1", "e2", "e3"]
        writer.remove("alice", "e1")
        assert [e.edge_id for e in reader.read_many("alice", ["s"])["s"].members] == ["e2", "e3"]
        writer.delete_user("alice")
        assert reader.members("alice", "s") == []
    finally:
        reader.close()
        writer.close()


def test_sqlite_slot_cache_hands_out_copies(tmp_path: Path) -> None:
    index = SqliteSlotIndex(tmp_path / "slots.sqlite", cache_min_edges=1)
    try:
        index.add_many("alice", [SlotEntry("s", edge("e1"))])
        index.read_many("alice", ["s"])["s"].members.clear()  # a caller's own list
        index.members("alice", "s").append(edge("zz"))
        assert [e.edge_id for e in index.members("alice", "s")] == ["e1"]
    finally:
        index.close()


def test_sqlite_slot_index_survives_reopen(tmp_path: Path) -> None:
    first = SqliteSlotIndex(tmp_path / "slots.sqlite")
    first.add("alice", "s", edge("e1"))
    first.close()
    again = SqliteSlotIndex(tmp_path / "slots.sqlite")
    try:
        assert [e.edge_id for e in again.members("alice", "s")] == ["e1"]
        assert again.add("alice", "s", edge("e2"))[0] == 2
    finally:
        again.close()


class TestFakeRedisSlotIndex(RedisSlotIndexContract):
    @pytest.fixture(params=[False, True], ids=["bytes", "decoded"])
    def client(self, request: pytest.FixtureRequest) -> Iterator[redis.Redis]:
        client = fakeredis.FakeRedis(server=fakeredis.FakeServer(), decode_responses=request.param)
        yield client
        client.close()

    @pytest.fixture
    def prefix(self) -> str:
        return "fr-test"

    @pytest.fixture
    def index(self, client: redis.Redis, prefix: str) -> SlotIndex:
        # Not closed here: the index closes the client it was given, the fixture does too.
        return RedisSlotIndex(client, prefix=prefix)


# Differential check: any sequence of operations gives the same answers on both indexes.
_USERS = st.sampled_from(["u", "{u}", "%7Bu%7D"])
_SLOTS = st.sampled_from(["a", "b:{c}"])
_EDGES = st.sampled_from(["e1", "e2", "e3"])
_OPS = st.lists(
    st.one_of(
        st.tuples(st.just("add"), _USERS, _SLOTS, _EDGES, st.integers(0, 3)),
        st.tuples(st.just("add_retraction"), _USERS, _SLOTS, _EDGES, st.integers(0, 3)),
        st.tuples(st.just("remove"), _USERS, _EDGES),
        st.tuples(st.just("delete_user"), _USERS),
    ),
    max_size=25,
)


@settings(max_examples=60, deadline=None)
@given(ops=_OPS)
def test_redis_and_memory_agree(ops: list[tuple[object, ...]]) -> None:
    client = fakeredis.FakeRedis(server=fakeredis.FakeServer())
    indexes: list[SlotIndex] = [InMemorySlotIndex(), RedisSlotIndex(client)]
    try:
        for op in ops:
            match op:
                case ("add" | "add_retraction" as name, str(user), str(slot), str(eid), int(m)):
                    answers = [getattr(i, name)(user, slot, edge(eid, user, m)) for i in indexes]
                case ("remove", str(user), str(eid)):
                    answers = [i.remove(user, eid) for i in indexes]
                case ("delete_user", str(user)):
                    answers = [i.delete_user(user) for i in indexes]
                case _:
                    raise AssertionError(op)
            assert answers[0] == answers[1], op
        for user in ["u", "{u}", "%7Bu%7D"]:
            slots = [i.slots(user) for i in indexes]
            assert slots[0] == slots[1]
            for slot in ["a", "b:{c}"]:
                assert indexes[0].members(user, slot) == indexes[1].members(user, slot)
                assert indexes[0].retractions(user, slot) == indexes[1].retractions(user, slot)
    finally:
        for index in indexes:
            index.close()
