"""What the distributed deployment keeps outside any generation, where a forget reaches it:
the archive of compacted facts and the dead letters (on fakeredis, which runs the Lua)."""

from __future__ import annotations

from datetime import timedelta

import fakeredis
import pytest

from schemas.records import FactRecord
from tests.unit.edge_helpers import T0, edge
from workers.stores.memory_archive import InMemoryArchive
from workers.stores.redis_archive import RedisArchive
from workers.stores.redis_dead_letters import RedisDeadLetters
from workers.stores.redis_ledger import RedisDeliveryLedger


def record(edge_id: str, day: float, user: str = "u1") -> FactRecord:
    return FactRecord(edge=edge(edge_id, day=day, user=user))


def test_the_archive_skips_what_the_ledger_erased_so_a_racing_forget_wins() -> None:
    client = fakeredis.FakeRedis()
    ledger = RedisDeliveryLedger(client, "fr")
    archive = RedisArchive(client, "fr.kept", "fr")
    ledger.tombstone("u1", "b", T0)  # erased by id
    ledger.tombstone("u2", None, T0 + timedelta(days=5))  # the user, as of day 5
    rows = [record("a", 1), record("b", 2), record("c", 3, "u2"), record("d", 9, "u2")]
    archive.append([(r, "superseded", r.edge.ingest_time) for r in rows], T0)
    assert [r.edge_id for r in archive.records("u1")] == ["a"]
    assert [r.edge_id for r in archive.records("u2")] == ["d"]  # said after the erasure


@pytest.mark.parametrize(
    "make", [lambda: RedisArchive(fakeredis.FakeRedis(), "k", "g"), InMemoryArchive]
)
def test_redaction_by_fact_by_user_and_up_to_a_time(make) -> None:  # type: ignore[no-untyped-def]
    archive = make()
    rows = [record("a", 1), record("b", 2), record("c", 8), record("x", 1, "u2")]
    archive.append([(r, "expired", r.edge.ingest_time) for r in rows], T0)
    assert archive.redact("u1", "b") == 1 and archive.redact("u1", "b") == 0
    assert archive.redact("u1", None, up_to=T0 + timedelta(days=5)) == 1  # a, not c
    assert [r.edge_id for r in archive.records("u1")] == ["c"]
    assert archive.redact("u1") == 1 and archive.records("u1") == []
    assert [r.edge_id for r in archive.records("u2")] == ["x"]


def test_dead_letters_are_kept_per_user_once_per_position_and_erased_with_the_user() -> None:
    letters = RedisDeadLetters(fakeredis.FakeRedis(), "fr.kept", clock=lambda: T0)
    letters.put_for("u1", "fr.edges", "0/7", "not an edge event: …", "garbage")
    letters.put_for("u1", "fr.edges", "0/7", "not an edge event: …", "garbage")  # redelivered
    letters.put("turns.jsonl", "3", "text: field required", '{"user_id": "u2"}')
    letters.put("turns.jsonl", "4", "invalid JSON", "{not json")
    assert [d["raw"] for d in letters.of("u1")] == ["garbage"]
    assert [d["position"] for d in letters.of("u2")] == ["3"]
    assert [d["raw"] for d in letters.of(None)] == ["{not json"]  # names no user
    assert letters.redact_user("u1") == 1 and letters.of("u1") == []
    assert letters.redact_user("u1") == 0 and len(letters.of("u2")) == 1
