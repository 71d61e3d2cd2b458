"""Payloads of the distributed pipeline's derived topics (docs/architecture.md, "The two
deployments").

`fr.turns` carries `TurnEvent`, `fr.edges` `EdgeEvent`, `fr.commands` `ForgetCommand`
(schemas/events.py). The two below are derived: `fr.transitions` announces which facts a
lifecycle worker changed (the indexer projects them into the vector index; anyone may
audit them), `fr.dlq` says what a worker could not process, where it came from and why —
without the input itself (see `DeadLetter`).
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from schemas.events import UserId, UtcDatetime

#: Topic names (keyed by user id: one user's messages stay in order on one partition).
TURNS = "fr.turns"
EDGES = "fr.edges"
TRANSITIONS = "fr.transitions"
COMMANDS = "fr.commands"
DLQ = "fr.dlq"
ALL_TOPICS = (TURNS, EDGES, TRANSITIONS, COMMANDS, DLQ)


class StateChange(BaseModel):
    """One fact's lifecycle transition (`from_state` None: the fact is new)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    edge_id: str
    from_state: str | None
    to_state: str
    cause: str | None = None


class FactsChanged(BaseModel):
    """A lifecycle worker committed changes to these facts of one user.

    Consumers read the facts' current records from the fact store (Redis) rather than
    trusting the message, so that duplicated, re-ordered or replayed announcements converge:
    `edge_ids` present there are upserted, absent ones deleted. `forget_user` erases the
    user; `receipt` is what a forget removed (per store), for the caller.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    schema_version: Literal[1] = 1
    user_id: UserId
    edge_ids: tuple[str, ...] = ()
    transitions: tuple[StateChange, ...] = ()
    forget_user: bool = False
    command_id: str | None = None
    receipt: dict[str, int] | None = None
    #: Where the cause came from: "topic/partition/offset".
    source: str = ""


class DeadLetter(BaseModel):
    """A message a worker could not process: its origin and the kind of problem.

    Version 2 keeps none of the user's words: a Kafka topic cannot forget one user's
    records, so the raw value and the detailed reason (which may quote the input) are kept
    with the user's dead letters in Redis, where a forget erases them
    (workers/stores/redis_dead_letters.py, field `<topic>:<partition>/<offset>`). `raw` is
    there only in version 1 letters, written before.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    schema_version: Literal[1, 2] = 2
    topic: str
    partition: int = Field(ge=0)
    offset: int = Field(ge=0)
    key: str | None = None
    reason: str = Field(description="the kind of problem, e.g. `not a turn` (no input quoted)")
    raw: str | None = None
    at: UtcDatetime
