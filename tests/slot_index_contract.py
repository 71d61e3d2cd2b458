"""The `SlotIndex` contract, written once and run against every implementation.

A test module subclasses `SlotIndexContract` (or `RedisSlotIndexContract`) in a class named
`Test…` and provides an `index` fixture returning a fresh, empty index; the Redis variant also
needs `client` (a Redis client on the index's database) and `prefix` (the index's key prefix).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from datetime import UTC, datetime, timedelta

import pytest
from redis.crc import key_slot

from schemas.events import EdgeEvent
from workers.errors import StorageError
from workers.ports import SlotEdges, SlotEntry, SlotIndex
from workers.stores.redis_client import RedisClient
from workers.stores.redis_slots import RedisSlotIndex

T0 = datetime(2024, 3, 1, 12, 0, tzinfo=UTC)

# Users and slot keys that stress key building: hash-tag braces, the key separator, the escape
# character itself (and its escaped forms, which must stay distinct users), non-ASCII text.
SPECIAL_USERS = ["{u}", "a}b", "a%7Db", "a%b", "u:1", "用户-ü", "{", "}{"]
SPECIAL_SLOTS = ["{x}", "a:b", "slot:edge:", "versions", "ünï€ode", "}", "with space"]


def edge(edge_id: str, user: str = "alice", minutes: int = 0, text: str | None = None) -> EdgeEvent:
    return EdgeEvent(
        edge_id=edge_id,
        user_id=user,
        text=text or f"fact {edge_id}",
        categories="PREFERENCES_HABITS",
        ingest_time=T0 + timedelta(minutes=minutes),
        slot_key="user:city",
    )


def ids(edges: list[EdgeEvent]) -> list[str]:
    return [e.edge_id for e in edges]


class SlotIndexContract:
    """What every `SlotIndex` promises (workers/ports.py)."""

    def test_empty(self, index: SlotIndex) -> None:
        assert index.members("alice", "s") == []
        assert index.retractions("alice", "s") == []
        assert index.slots("alice") == []
        assert index.remove("alice", "nope") == []
        assert index.delete_user("alice") == 0

    def test_add_returns_version_and_all_members(self, index: SlotIndex) -> None:
        first = edge("e1")
        assert index.add("alice", "s", first) == (1, [first])
        version, members = index.add("alice", "s", edge("e2", minutes=1))
        assert version == 2
        assert ids(members) == ["e1", "e2"]
        assert members[0] == first  # the stored event round-trips unchanged
        assert ids(index.members("alice", "s")) == ["e1", "e2"]
        assert index.slots("alice") == ["s"]

    def test_add_is_idempotent_on_edge_id(self, index: SlotIndex) -> None:
        index.add("alice", "s", edge("e1"))
        index.add("alice", "s", edge("e2", minutes=1))
        # Same edge_id again, even with other content: no change, same version, first copy kept.
        version, members = index.add("alice", "s", edge("e1", minutes=5, text="changed"))
        assert version == 2
        assert members == [edge("e1"), edge("e2", minutes=1)]
        assert index.add("alice", "s", edge("e2", minutes=1))[0] == 2

    def test_members_sorted_by_ingest_time_then_edge_id(self, index: SlotIndex) -> None:
        for edge_id, minutes in [("d", 3), ("c", 1), ("b", 1), ("a", 2), ("z", 0)]:
            index.add("alice", "s", edge(edge_id, minutes=minutes))
        assert ids(index.members("alice", "s")) == ["z", "b", "c", "a", "d"]
        assert ids(index.add("alice", "s", edge("y", minutes=0))[1]) == [
            "y",
            "z",
            "b",
            "c",
            "a",
            "d",
        ]

    def test_retractions_are_kept_apart_and_share_the_slot_version(self, index: SlotIndex) -> None:
        assert index.add("alice", "s", edge("m1"))[0] == 1
        version, retractions = index.add_retraction("alice", "s", edge("r2", minutes=2))
        assert version == 2
        assert ids(retractions) == ["r2"]
        assert index.add_retraction("alice", "s", edge("r1", minutes=1)) == (
            3,
            [edge("r1", minutes=1), edge("r2", minutes=2)],
        )
        assert index.add_retraction("alice", "s", edge("r1", minutes=1))[0] == 3  # no-op
        assert ids(index.members("alice", "s")) == ["m1"]
        assert ids(index.retractions("alice", "s")) == ["r1", "r2"]
        # An edge may be both a member and a retraction of a slot.
        assert index.add("alice", "s", edge("r1", minutes=1))[0] == 4

    def test_retraction_only_slot_is_listed(self, index: SlotIndex) -> None:
        index.add_retraction("alice", "gone", edge("r"))
        assert index.slots("alice") == ["gone"]
        assert index.members("alice", "gone") == []

    def test_versions_strictly_increase_on_change_only(self, index: SlotIndex) -> None:
        seen = [index.add("alice", "s", edge(f"e{i}", minutes=i))[0] for i in range(5)]
        assert seen == [1, 2, 3, 4, 5]
        assert index.add("alice", "s", edge("e0"))[0] == 5
        assert index.remove("alice", "e3") == ["s"]
        assert index.remove("alice", "e3") == []  # no-op: no bump
        assert index.add("alice", "s", edge("e9", minutes=9))[0] == 7
        # Slots count independently.
        assert index.add("alice", "t", edge("e1"))[0] == 1

    def test_remove_from_every_slot_as_member_and_retraction(self, index: SlotIndex) -> None:
        index.add("alice", "a", edge("x"))
        index.add("alice", "a", edge("keep", minutes=1))
        index.add("alice", "b", edge("x"))
        index.add_retraction("alice", "c", edge("x"))
        index.add_retraction("alice", "c", edge("keep"))
        index.add("alice", "d", edge("other"))
        assert index.remove("alice", "x") == ["a", "b", "c"]
        assert ids(index.members("alice", "a")) == ["keep"]
        assert index.members("alice", "b") == []
        assert ids(index.retractions("alice", "c")) == ["keep"]
        assert index.slots("alice") == ["a", "c", "d"]  # "b" is empty now
        assert index.remove("alice", "x") == []
        # Each touched slot moved on by exactly one version, untouched ones did not.
        assert index.add("alice", "a", edge("n"))[0] == 4
        assert index.add("alice", "b", edge("n"))[0] == 3
        assert index.add_retraction("alice", "c", edge("n"))[0] == 4
        assert index.add("alice", "d", edge("n"))[0] == 2

    def test_remove_then_add_again(self, index: SlotIndex) -> None:
        index.add("alice", "s", edge("e"))
        index.remove("alice", "e")
        assert index.add("alice", "s", edge("e")) == (3, [edge("e")])

    def test_delete_user(self, index: SlotIndex) -> None:
        index.add("alice", "a", edge("1"))
        index.add("alice", "b", edge("2"))
        index.add_retraction("alice", "c", edge("3"))
        index.add("alice", "d", edge("4"))
        index.remove("alice", "4")
        index.add("bob", "a", edge("1", user="bob"))
        assert index.delete_user("alice") == 3
        assert index.slots("alice") == []
        assert index.members("alice", "a") == []
        assert index.retractions("alice", "c") == []
        assert index.remove("alice", "1") == []
        assert index.delete_user("alice") == 0
        assert ids(index.members("bob", "a")) == ["1"]
        # The user can start over.
        assert ids(index.add("alice", "a", edge("5"))[1]) == ["5"]

    def test_tenant_isolation(self, index: SlotIndex) -> None:
        users = ["alice", "bob", *SPECIAL_USERS]
        for n, user in enumerate(users):
            for i in range(n + 1):
                index.add(user, "s", edge(f"e{i}", user=user, minutes=i))
        for n, user in enumerate(users):
            members = index.members(user, "s")
            assert len(members) == n + 1
            assert {m.user_id for m in members} == {user}
        assert index.remove("bob", "e0") == ["s"]
        assert ids(index.members("alice", "s")) == ["e0"]
        assert index.delete_user("alice") == 1
        assert len(index.members("bob", "s")) == 1

    @pytest.mark.parametrize("user", SPECIAL_USERS)
    def test_special_characters(self, index: SlotIndex, user: str) -> None:
        for n, slot in enumerate(SPECIAL_SLOTS):
            assert index.add(user, slot, edge(f"{{id}}:{n}", user=user)) == (
                1,
                [edge(f"{{id}}:{n}", user=user)],
            )
            index.add_retraction(user, slot, edge("ret:ü", user=user))
        assert index.slots(user) == sorted(SPECIAL_SLOTS)
        for slot in SPECIAL_SLOTS:
            assert ids(index.retractions(user, slot)) == ["ret:ü"]
        assert index.remove(user, "ret:ü") == sorted(SPECIAL_SLOTS)
        assert index.slots(user) == sorted(SPECIAL_SLOTS)
        assert index.remove(user, "{id}:0") == [SPECIAL_SLOTS[0]]
        assert index.slots(user) == sorted(SPECIAL_SLOTS[1:])
        assert index.delete_user(user) == len(SPECIAL_SLOTS) - 1
        assert index.slots(user) == []

    def test_add_many_is_one_add_per_entry(self, index: SlotIndex) -> None:
        index.add("alice", "s", edge("e0"))
        entries = [
            SlotEntry("s", edge("e1", minutes=2)),
            SlotEntry("s", edge("e0", minutes=9, text="changed")),  # stored already: kept
            SlotEntry("t", edge("e2", minutes=1)),
            SlotEntry("t", edge("e1", minutes=2), retraction=True),
            SlotEntry("t", edge("e2", minutes=1)),  # twice in one call: once
            SlotEntry("~episode:e1", edge("e3")),
        ]
        index.add_many("alice", entries)
        index.add_many("alice", [])
        got = index.read_many("alice", ["t", "s", "nothing", "~episode:e1", "s"])
        assert list(got) == ["t", "s", "nothing", "~episode:e1"]
        assert got["s"] == SlotEdges([edge("e0"), edge("e1", minutes=2)], [])
        assert got["t"] == SlotEdges([edge("e2", minutes=1)], [edge("e1", minutes=2)])
        assert got["nothing"] == SlotEdges([], [])
        assert ids(got["~episode:e1"].members) == ["e3"]
        assert index.slots("alice") == ["s", "t", "~episode:e1"]
        # Versions as one `add` per entry leaves them: s 2, t 2 (a member, a retraction).
        assert index.add("alice", "s", edge("e4", minutes=3))[0] == 3
        assert index.add_retraction("alice", "t", edge("e5", minutes=3))[0] == 3
        assert index.remove("alice", "e1") == ["s", "t"]
        with pytest.raises(ValueError):
            index.add_many("alice", [SlotEntry("s", edge("x", user="bob"))])

    def test_rejects_mixed_tenants(self, index: SlotIndex) -> None:
        with pytest.raises(ValueError):
            index.add("alice", "s", edge("e", user="bob"))
        with pytest.raises(ValueError):
            index.add_retraction("alice", "s", edge("e", user="bob"))
        with pytest.raises(ValueError):
            index.slots("")
        assert index.slots("alice") == []


class RedisSlotIndexContract(SlotIndexContract):
    """The contract plus what only the Redis layout promises."""

    def test_user_keys_share_one_cluster_slot(
        self, index: SlotIndex, client: RedisClient, prefix: str
    ) -> None:
        users = ["alice", *SPECIAL_USERS]
        for user in users:
            for slot in SPECIAL_SLOTS:
                index.add(user, slot, edge("m", user=user))
                index.add_retraction(user, slot, edge("r", user=user))
            index.add(user, "s", edge("gone", user=user))
            index.remove(user, "gone")
        by_tag: dict[bytes, set[int]] = defaultdict(set)
        counts: Counter[bytes] = Counter()
        for key in client.scan_iter(match=f"{prefix}:*", count=1000):
            raw = key if isinstance(key, bytes) else key.encode()
            tag = raw[raw.index(b"{") + 1 : raw.index(b"}")]  # Redis's hash-tag rule
            by_tag[tag].add(key_slot(raw))
            counts[tag] += 1
        # Per user: a members and a retractions hash per slot key, the versions hash, the
        # slots set and two edge sets ("gone" left nothing behind).
        assert sorted(counts.values()) == [2 * len(SPECIAL_SLOTS) + 4] * len(users), counts
        assert all(len(cluster_slots) == 1 for cluster_slots in by_tag.values()), by_tag
        assert all(tag for tag in by_tag)  # an empty tag would hash the whole key
        for user in users:
            index.delete_user(user)
        assert list(client.scan_iter(match=f"{prefix}:*")) == []

    def test_redis_errors_become_storage_errors(
        self, index: SlotIndex, client: RedisClient, prefix: str
    ) -> None:
        client.set(f"{prefix}:{{alice}}:slot:s", "not a hash")
        with pytest.raises(StorageError) as info:
            index.add("alice", "s", edge("e"))
        assert info.value.store == "redis"
        assert info.value.operation == "add"
        with pytest.raises(StorageError):
            index.members("alice", "s")

    def test_corrupt_records_become_storage_errors(
        self, index: SlotIndex, client: RedisClient, prefix: str
    ) -> None:
        index.add("alice", "s", edge("e"))
        client.hset(f"{prefix}:{{alice}}:slot:s", "bad", '{"edge_id": "bad"}')
        with pytest.raises(StorageError, match="corrupt"):
            index.members("alice", "s")

    def test_prefix_must_not_contain_braces(self, client: RedisClient) -> None:
        with pytest.raises(ValueError):
            RedisSlotIndex(client, prefix="fr{x}")
