"""What a distributed handler receives and emits: transport-neutral, so the domain logic
runs the same under Faust, a confluent-kafka loop, or a unit test."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from schemas.streams import DLQ, DeadLetter


@dataclass(frozen=True, slots=True)
class Received:
    """One consumed message and where it came from."""

    topic: str
    partition: int
    offset: int
    key: str | None
    value: bytes

    @property
    def position(self) -> str:
        return f"{self.topic}/{self.partition}/{self.offset}"

    def text(self) -> str:
        return self.value.decode("utf-8", errors="replace")


@dataclass(frozen=True, slots=True)
class Outgoing:
    """A message to produce, keyed by user id (per-user order on one partition)."""

    topic: str
    key: str
    value: bytes


#: Characters of a rejected message kept in its dead letter: the letter must stay under the
#: broker's message size limit (1 MB by default) whatever came in.
RAW_KEPT = 100_000


def dead_letter(message: Received, reason: str) -> Outgoing:
    """`fr.dlq` entry for a message that cannot be processed (topic, partition, offset)."""
    raw = message.text()
    if len(raw) > RAW_KEPT:
        raw = raw[:RAW_KEPT] + f"…[{len(raw) - RAW_KEPT} more characters]"
    letter = DeadLetter(
        topic=message.topic,
        partition=message.partition,
        offset=message.offset,
        key=message.key,
        reason=reason,
        raw=raw,
        at=datetime.now(UTC),
    )
    return Outgoing(DLQ, message.key or "", letter.model_dump_json().encode())
