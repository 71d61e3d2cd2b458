"""What a distributed handler receives and emits: transport-neutral, so the domain logic
runs the same under Faust, a confluent-kafka loop, or a unit test."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from schemas.streams import DLQ, DeadLetter
from workers.distributed.ports import UserDeadLetters


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


#: Characters of a rejected message kept in its dead letter: a letter stays bounded whatever
#: came in.
RAW_KEPT = 100_000


class Rejections:
    """What a worker cannot process: a letter to `fr.dlq` naming the message (topic,
    partition, offset, key) and the kind of problem, and — kept apart, where a forget
    reaches it — the raw value with the full reason, in the dead letters of the user the
    message is keyed by (docs/architecture.md, "Forget")."""

    def __init__(self, letters: UserDeadLetters) -> None:
        self.letters = letters

    def __call__(self, message: Received, kind: str, detail: str = "") -> Outgoing:
        raw = message.text()
        if len(raw) > RAW_KEPT:
            raw = raw[:RAW_KEPT] + f"…[{len(raw) - RAW_KEPT} more characters]"
        reason = f"{kind}: {detail}" if detail else kind
        self.letters.put_for(
            message.key, message.topic, f"{message.partition}/{message.offset}", reason, raw
        )
        letter = DeadLetter(
            topic=message.topic,
            partition=message.partition,
            offset=message.offset,
            key=message.key,
            reason=kind,
            at=datetime.now(UTC),
        )
        return Outgoing(DLQ, message.key or "", letter.model_dump_json().encode())
