"""The distributed pipeline's ports: the fact store many workers share and the delivery
ledger. With `TurnContext` (workers/ports.py) they split what one Redis class used to hold,
so that the handlers depend on what they use, and unit tests run them on in-memory fakes.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Protocol

from workers.ports import DeadLetters, FactStore


class SharedFactStore(FactStore, Protocol):
    """The record of lifecycle state in the distributed deployment (the vector index is a
    projection of it, written by the indexer). Every write bumps the user's version, so
    `commit` and `delete_if` refuse to act on a stale snapshot.

    `commit` never writes a fact the ledger has tombstoned (by id, or ingested before its
    user's erasure), checked in the same atomic step: an apply that raced a forget cannot
    bring the fact back. Adapters: `RedisFactStore`; fake: `InMemoryFactStore`.
    """

    def delete_if(self, user_id: str, snapshot: int, edge_ids: Sequence[str]) -> bool:
        """Delete if nothing changed the user's facts since `snapshot`; False otherwise."""

    def users(self) -> list[str]:
        """Every user with a fact (a scan: for maintenance jobs), sorted."""

    def count(self, user_id: str) -> int: ...

    def close(self) -> None: ...


class DeliveryLedger(Protocol):
    """What makes at-least-once delivery exactly-once in effect, per user.

    * processed ids: edges whose effects were applied *and announced* (a redelivery is
      skipped);
    * tombstones: erased edge ids, and the time of the last whole-user erasure (a late copy
      of an erased edge stays out; `SharedFactStore.commit` checks them too);
    * erasure bookkeeping: the slots an erasure must re-resolve, kept until its announcement
      is out, so that a redelivered command finishes what the first attempt began;
    * receipts: what an erasure removed, for whichever serving process answers the caller.

    Adapters: `RedisDeliveryLedger`; fake: `InMemoryDeliveryLedger`.
    """

    def processed(self, user_id: str, edge_id: str) -> bool: ...

    def mark_processed(self, user_id: str, *edge_ids: str) -> None:
        """Mark edges as applied and announced (one call for a batch: one round trip)."""

    def forget_processed(self, user_id: str) -> None:
        """Drop the user's processed ids (an erasure left nothing of the user: the same
        edges may be sent again later and must then be applied)."""

    def tombstone(self, user_id: str, edge_id: str | None, at: datetime) -> None:
        """Remember an erasure of one edge, or (edge_id None) of the user as of `at`."""

    def erased(self, user_id: str, edge_id: str | None, ingest_time: datetime) -> bool:
        """Whether an edge was erased: by id, or with its user at or after `ingest_time`
        (edge_id None: only the user's erasure is asked about)."""

    def settled(
        self, user_id: str, edges: Sequence[tuple[str, datetime]]
    ) -> list[tuple[bool, bool]]:
        """(`erased`, `processed`) of each (edge id, ingest time), in one call (a batch's
        checks: one round trip)."""

    def remember_slots(self, user_id: str, command_id: str, slots: Sequence[str]) -> list[str]:
        """Store the slots an erasure must re-resolve: the first call stores `slots`, a
        redelivered command gets the stored list back."""

    def forget_slots(self, user_id: str, command_id: str) -> None: ...

    def put_receipt(self, user_id: str, command_id: str, removed: dict[str, int]) -> None:
        """Keep what an erasure removed (the first attempt's counts: a redelivered command
        finds nothing left and would report zeros)."""

    def receipt(self, user_id: str, command_id: str) -> dict[str, int] | None: ...


class UserDeadLetters(DeadLetters, Protocol):
    """Dead letters kept per user where a forget reaches them (the distributed deployment:
    `fr.dlq` itself keeps none of the input). Adapter: `RedisDeadLetters`; fake:
    `InMemoryDeadLetters`."""

    def put_for(
        self, user_id: str | None, source: str, position: str, reason: str, raw: str
    ) -> None:
        """Keep a rejected input of `user_id` (None: of the user its raw JSON names)."""

    def of(self, user_id: str | None) -> list[dict[str, str]]:
        """The letters of a user (None: those that name no user), oldest first."""


class RedactableArchive(Protocol):
    """The archive of compacted facts, where a forget reaches it. Adapter: `RedisArchive`."""

    def redact(
        self, user_id: str, edge_id: str | None = None, up_to: datetime | None = None
    ) -> int:
        """Erase one archived fact, or the user's (ingested up to `up_to`); how many."""
