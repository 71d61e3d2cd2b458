"""The contracts of the distributed pipeline's ports — `SharedFactStore`, `DeliveryLedger`,
`TurnContext` — written once and run against the Redis adapters and the in-memory fakes.

A test module subclasses `DeliveryPortsContract` in a class named `Test…` and provides a
`ports` fixture returning a fresh `DeliveryPorts` (the three stores on one backend, the fact
store honouring the ledger's tombstones).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import numpy as np

from schemas.events import EdgeEvent, TurnEvent
from schemas.records import FactRecord, Lifecycle
from workers.distributed.ports import DeliveryLedger, SharedFactStore
from workers.extraction.model import ExtractedFact
from workers.ports import IndexedFact, SparseVector, TurnContext

T0 = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
ODD_USERS = ["a*", "{x}", "p%7B", "用户", "u:1"]


@dataclass
class DeliveryPorts:
    facts: SharedFactStore
    ledger: DeliveryLedger
    turns: TurnContext


def fact(edge_id: str, user: str = "ana", minutes: int = 0) -> IndexedFact:
    edge = EdgeEvent(
        edge_id=edge_id,
        user_id=user,
        text=f"fact {edge_id}",
        categories="PREFERENCES_HABITS",
        ingest_time=T0 + timedelta(minutes=minutes),
    )
    return IndexedFact(
        FactRecord(edge=edge, lifecycle=Lifecycle()), np.zeros(4), SparseVector((), ())
    )


def turn(turn_id: str, minute: int, user: str = "ana", session: str = "s") -> TurnEvent:
    return TurnEvent(
        user_id=user,
        session_id=session,
        turn_id=turn_id,
        role="user",
        text=f"turn {turn_id}",
        timestamp=T0 + timedelta(minutes=minute),
    )


def ids(facts: SharedFactStore, user: str = "ana") -> list[str]:
    return sorted(r.edge_id for r in facts.scroll(user))


class DeliveryPortsContract:
    # --- SharedFactStore ------------------------------------------------------------------

    def test_a_commit_on_a_stale_snapshot_is_refused(self, ports: DeliveryPorts) -> None:
        facts = ports.facts
        stale = facts.snapshot("ana")
        assert facts.commit("ana", stale, [fact("e1")], {})
        assert facts.snapshot("ana") > stale
        assert not facts.commit("ana", stale, [fact("e2")], {})
        assert ids(facts) == ["e1"] and facts.count("ana") == 1
        retracted = Lifecycle.model_validate({"state": "retracted"})
        assert facts.commit("ana", facts.snapshot("ana"), [], {"e1": retracted, "nope": retracted})
        assert facts.get("ana", ["e1", "nope"])[0].lifecycle == retracted

    def test_a_commit_skips_what_the_ledger_erased(self, ports: DeliveryPorts) -> None:
        ports.ledger.tombstone("ana", "gone", T0)
        ports.ledger.tombstone("ana", None, T0 + timedelta(minutes=5))
        items = [fact("gone", minutes=10), fact("before", minutes=5), fact("after", minutes=6)]
        assert ports.facts.commit("ana", ports.facts.snapshot("ana"), items, {})
        assert ids(ports.facts) == ["after"]

    def test_delete_if_and_delete_user_change_the_version(self, ports: DeliveryPorts) -> None:
        facts = ports.facts
        facts.commit("ana", facts.snapshot("ana"), [fact("e1"), fact("e2")], {})
        snapshot = facts.snapshot("ana")
        assert facts.delete("ana", ["e2", "nope"]) == 1
        assert not facts.delete_if("ana", snapshot, ["e1"])
        assert facts.delete_if("ana", facts.snapshot("ana"), ["e1"]) and facts.count("ana") == 0
        facts.commit("ana", facts.snapshot("ana"), [fact("e3")], {})
        before = facts.snapshot("ana")
        assert facts.delete_user("ana") == 1 and facts.snapshot("ana") > before

    def test_users_are_listed_sorted_and_kept_apart(self, ports: DeliveryPorts) -> None:
        facts = ports.facts
        for user in ODD_USERS:
            facts.commit(user, facts.snapshot(user), [fact("e", user)], {})
        assert facts.users() == sorted(ODD_USERS)
        facts.delete_user("a*")
        assert facts.users() == sorted(set(ODD_USERS) - {"a*"})
        assert [r.edge.user_id for r in facts.scroll("{x}")] == ["{x}"]

    # --- DeliveryLedger -------------------------------------------------------------------

    def test_processed_ids(self, ports: DeliveryPorts) -> None:
        ledger = ports.ledger
        assert not ledger.processed("ana", "e1")
        ledger.mark_processed("ana", "e1")
        assert ledger.processed("ana", "e1") and not ledger.processed("bo", "e1")
        ledger.forget_processed("ana")
        assert not ledger.processed("ana", "e1")

    def test_tombstones_by_id_and_by_user_erasure_time(self, ports: DeliveryPorts) -> None:
        ledger = ports.ledger
        ledger.tombstone("ana", "e1", T0)
        ledger.tombstone("ana", None, T0)
        assert ledger.erased("ana", "e1", T0 + timedelta(days=1))  # by id: whenever said
        assert ledger.erased("ana", "e2", T0) and not ledger.erased("ana", "e2", T0 + timedelta(1))
        assert ledger.erased("ana", None, T0 - timedelta(1))
        assert not ledger.erased("ana", None, T0 + timedelta(1))
        assert not ledger.erased("bo", "e1", T0)

    def test_settled_is_erased_and_processed_of_each_edge(self, ports: DeliveryPorts) -> None:
        ledger = ports.ledger
        assert ledger.settled("ana", []) == []
        ledger.tombstone("ana", "e1", T0)
        ledger.tombstone("ana", None, T0)
        ledger.mark_processed("ana", "e3", "e4")
        later = T0 + timedelta(days=1)
        asked = [("e1", later), ("e2", T0), ("e2", later), ("e3", later), ("e4", T0)]
        got = ledger.settled("ana", asked)
        assert got == [(True, False), (True, False), (False, False), (False, True), (True, True)]
        assert got == [(ledger.erased("ana", e, t), ledger.processed("ana", e)) for e, t in asked]
        assert ledger.settled("bo", asked) == [(False, False)] * 5

    def test_erasure_bookkeeping_keeps_the_first_attempt(self, ports: DeliveryPorts) -> None:
        ledger = ports.ledger
        assert ledger.remember_slots("ana", "c1", ["s1", "s2"]) == ["s1", "s2"]
        assert ledger.remember_slots("ana", "c1", []) == ["s1", "s2"]  # a redelivery
        ledger.forget_slots("ana", "c1")
        assert ledger.remember_slots("ana", "c1", ["s3"]) == ["s3"]
        assert ledger.receipt("ana", "c1") is None
        ledger.put_receipt("ana", "c1", {"fact_store": 3, "slot_index": 2})
        ledger.put_receipt("ana", "c1", {"fact_store": 0, "slot_index": 0})
        assert ledger.receipt("ana", "c1") == {"fact_store": 3, "slot_index": 2}

    # --- TurnContext ----------------------------------------------------------------------

    def test_recent_is_what_came_before_even_on_redelivery(self, ports: DeliveryPorts) -> None:
        context = ports.turns
        turns = [turn(f"t{i}", i) for i in range(4)]
        for t in turns:
            context.add(t)
        context.add(turns[1])  # a redelivery is not added twice
        assert [t.turn_id for t in context.recent(turns[1])] == ["t0"]
        assert [t.turn_id for t in context.recent(turn("late", 2))] == ["t0", "t1", "t2"]
        assert context.recent(turn("t0", 0, session="other")) == []

    def test_extractions_are_kept_per_turn_and_erased_with_the_user(
        self, ports: DeliveryPorts
    ) -> None:
        context = ports.turns
        first, other = turn("t1", 0), turn("t1", 0, user="bo")
        facts = [
            ExtractedFact.model_validate(
                {"text": "User likes tea", "categories": {"PREFERENCES_HABITS": 1.0},
                 "confidence": 0.9, "update": "replace"}
            )
        ]  # fmt: skip
        assert context.extracted(first) is None
        context.remember_extracted(first, facts)
        context.remember_extracted(other, [])
        context.add(first)
        context.add(other)
        assert context.extracted(first) == facts
        context.forget_user("ana")
        assert context.extracted(first) is None and context.recent(turn("t2", 1)) == []
        assert context.extracted(other) == [] and len(context.recent(turn("t2", 1, "bo"))) == 1
