"""The Faust app of the distributed deployment: agents wired to topics, nothing more.

The agents call the same `workers/` code as the embedded deployment (through the
transport-neutral handlers in workers/distributed/). Error policy, per message:
* input that cannot be processed (does not parse, fails validation, a rule raises) goes to
  `fr.dlq` with topic, partition, offset and the reason; the stream goes on;
* a store or broker failure (`StorageError`) is retried with backoff, without acking, so
  nothing is lost while Redis or Kafka is away.
The offset is acknowledged once the handler's output was produced and acknowledged.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

import faust

from schemas.streams import ALL_TOPICS, COMMANDS, EDGES, TURNS
from streams.topics import Topics
from workers.distributed.extraction import ExtractionHandler
from workers.distributed.lifecycle import Handled, LifecycleHandler
from workers.distributed.messages import Outgoing, Received, brief, dead_letter
from workers.errors import StorageError

log = logging.getLogger(__name__)

#: Longest wait between retries of a message whose store or broker failed.
MAX_BACKOFF_S = 10.0


def create_app(
    bootstrap: str,
    topics: Topics,
    partitions: int,
    group: str,
    *,
    extraction: ExtractionHandler | None = None,
    lifecycle: LifecycleHandler | None = None,
) -> faust.App:
    """A Faust app whose agents run the given handlers (None: that role is not run here)."""
    app = faust.App(
        group,
        broker=f"kafka://{bootstrap}",
        key_serializer="raw",
        value_serializer="raw",
        web_enabled=False,
        autodiscover=False,
        store="memory://",
        topic_partitions=partitions,
        topic_disable_leader=True,
        topic_allow_declare=False,  # `ensure_topics` creates them (confluent admin)
        consumer_auto_offset_reset="earliest",
        producer_acks=-1,
        producer_compression_type=None,
        broker_commit_interval=1.0,
        # A worker that died (kill -9) is noticed within seconds, not the 60 s default.
        broker_session_timeout=10.0,
        broker_heartbeat_interval=1.0,
    )
    by_name = {
        logical: app.topic(
            topics.name(logical), key_type=bytes, value_type=bytes, partitions=partitions
        )
        for logical in ALL_TOPICS
    }

    async def produce(outgoing: list[Outgoing]) -> None:
        pending = [await by_name[o.topic].send(key=o.key.encode(), value=o.value) for o in outgoing]
        for future in pending:
            await future  # acknowledged by the broker (acks=all) before the offset moves on

    async def process(message: Received, handle: Callable[[Received], Handled]) -> None:
        delay = 0.2
        while True:
            try:
                handled = handle(message)
            except StorageError as exc:
                log.warning("%s: %s; retrying in %.1f s", message.position, exc, delay)
                await asyncio.sleep(delay)
                delay = min(delay * 2, MAX_BACKOFF_S)
                continue
            except Exception as exc:  # a poison message must not stop the partition
                log.exception("%s: processing failed", message.position)
                handled = Handled([dead_letter(message, f"processing failed: {brief(exc)}")])
            await produce(handled.outgoing)
            if handled.confirm is not None:
                handled.confirm()
            return

    if extraction is not None:
        turns_handler = extraction

        @app.agent(by_name[TURNS], name="frecall-extraction")
        async def extract(stream: faust.StreamT[bytes]) -> None:
            async for event in stream.events():
                message = _received(event)
                await process(message, lambda m: Handled(turns_handler.handle_turns([m])))

    if lifecycle is not None:
        lifecycle_handler = lifecycle

        @app.agent(by_name[EDGES], name="frecall-lifecycle")
        async def apply_edges(stream: faust.StreamT[bytes]) -> None:
            async for event in stream.events():
                await process(_received(event), lifecycle_handler.handle_edge)

        @app.agent(by_name[COMMANDS], name="frecall-commands")
        async def apply_commands(stream: faust.StreamT[bytes]) -> None:
            async for event in stream.events():
                await process(_received(event), lifecycle_handler.handle_command)

    return app


def _received(event: faust.EventT[bytes]) -> Received:
    message = event.message
    key = message.key
    return Received(
        topic=message.topic,
        partition=message.partition,
        offset=message.offset,
        key=key.decode("utf-8", errors="replace") if isinstance(key, bytes) else None,
        value=message.value if isinstance(message.value, bytes) else b"",
    )
