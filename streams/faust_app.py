"""The Faust app of the distributed deployment: agents wired to topics, nothing more.

The agents call the same `workers/` code as the embedded deployment (through the
transport-neutral handlers in workers/distributed/). Error policy, per message:
* input that cannot be processed (does not parse, fails validation, a rule raises) goes to
  `fr.dlq` with topic, partition, offset and the reason; the stream goes on;
* a store or broker failure (`StorageError`) is retried with backoff, without acking, so
  nothing is lost while Redis or Kafka is away.
Messages are taken in small batches; a batch's offsets are acknowledged once its output
was produced and acknowledged by the broker (at-least-once; the handlers are idempotent).
The producer is not idempotent (faust-streaming enables that only with transactions): a
broker failure mid-send may duplicate an output message, which changes nothing downstream
(docs/architecture.md, "Delivery guarantees").
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import AsyncIterator, Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import NoReturn, cast

import faust

from schemas.streams import ALL_TOPICS, COMMANDS, EDGES, TURNS
from streams.topics import Topics
from workers.distributed.extraction import ExtractionHandler
from workers.distributed.lifecycle import Handled, LifecycleHandler
from workers.distributed.messages import Outgoing, Received, Rejections
from workers.errors import StorageError, brief

log = logging.getLogger(__name__)

#: Longest wait between retries of a message whose store or broker failed.
MAX_BACKOFF_S = 10.0
#: Exit status of a worker that stopped with a batch it could not process (EX_SOFTWARE).
EXIT_UNPROCESSED = 70
#: Messages handled together (one embedding call, one round of broker acks) …
BATCH = 64
#: … or fewer, when no more arrive within this many seconds.
BATCH_WAIT_S = 0.01
#: Edges handled together by the lifecycle agent: applied in bulk, each user's slots
#: resolved once per batch (LifecycleHandler.handle_edges); no embedding to bound it.
EDGE_BATCH = 256


def create_app(
    bootstrap: str,
    topics: Topics,
    partitions: int,
    group: str,
    reject: Rejections,
    *,
    extraction: ExtractionHandler | None = None,
    lifecycle: LifecycleHandler | None = None,
    datadir: str | None = None,
) -> faust.App:
    """A Faust app whose agents run the given handlers (None: that role is not run here).

    `reject`: where a message that makes a handler raise goes (`fr.dlq`, its words kept
    where a forget reaches them). `datadir`: where Faust keeps its little local state
    (created if missing).
    """
    datadir = datadir or "frecall-data/faust"
    Path(datadir).mkdir(parents=True, exist_ok=True)
    app = faust.App(
        group,
        broker=f"kafka://{bootstrap}",
        key_serializer="raw",
        value_serializer="raw",
        web_enabled=False,
        autodiscover=False,
        store="memory://",
        # Faust keeps a little local state; in the deployment's data dir, not the cwd.
        datadir=datadir,
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

    # One thread per role: the event loop keeps serving the consumer while a batch is
    # handled, and the edges and commands agents (the same partitions, co-assigned) never
    # run at once — an apply and a forget of one user stay in order within a worker.
    lifecycle_thread = ThreadPoolExecutor(1, thread_name_prefix="lifecycle")
    extraction_thread = ThreadPoolExecutor(1, thread_name_prefix="extraction")

    async def process(
        messages: list[Received],
        handle: Callable[[list[Received]], list[Handled]],
        thread: ThreadPoolExecutor,
    ) -> None:
        """Handle a batch (in a thread: the event loop keeps serving the consumer), produce
        its output, wait for the broker's acks, then confirm — retried until it succeeds.

        Nothing may escape from here: faust acknowledges a `take_events` batch when the
        loop body is left, even by an exception, and the batch would be committed without
        being processed. Handling is idempotent, so a retry from the top is safe.
        """
        delay = 0.2
        while True:
            try:
                loop = asyncio.get_running_loop()
                results = await loop.run_in_executor(thread, handle, messages)
                await produce([o for handled in results for o in handled.outgoing])
                for handled in results:
                    if handled.confirm is not None:
                        await loop.run_in_executor(thread, handled.confirm)
                return
            except asyncio.CancelledError:
                _abandon(messages, "cancelled")
            except Exception as exc:
                if app.should_stop:
                    _abandon(messages, f"stopping while it fails ({brief(exc)})")
                log.warning("%s…: %s; retrying in %.1f s", messages[0].position, exc, delay)
                await asyncio.sleep(delay)
                delay = min(delay * 2, MAX_BACKOFF_S)

    def one_by_one(
        handle: Callable[[Received], Handled],
    ) -> Callable[[list[Received]], list[Handled]]:
        """Per message; a poison message becomes a dead letter instead of stopping all."""

        def run(messages: list[Received]) -> list[Handled]:
            out = []
            for message in messages:
                try:
                    out.append(handle(message))
                except StorageError:
                    raise
                except Exception as exc:
                    log.exception("%s: processing failed", message.position)
                    kind = f"processing failed ({type(exc).__name__})"
                    out.append(Handled([reject(message, kind, brief(exc))]))
            return out

        return run

    if extraction is not None:
        turns_handler = extraction

        def extract_batch(messages: list[Received]) -> list[Handled]:
            # One embedding call per batch; a turn that breaks the batch is retried alone.
            try:
                return [Handled(turns_handler.handle_turns(messages))]
            except StorageError:
                raise
            except Exception:
                return one_by_one(lambda m: Handled(turns_handler.handle_turns([m])))(messages)

        @app.agent(by_name[TURNS], name="frecall-extraction")
        async def extract(stream: faust.StreamT[bytes]) -> None:
            async for events in _batches(stream):
                await process([_received(e) for e in events], extract_batch, extraction_thread)

    if lifecycle is not None:
        edges_one_by_one = one_by_one(lifecycle.handle_edge)
        edges_handler = lifecycle

        def edges_batch(messages: list[Received]) -> list[Handled]:
            # The batch at once (LifecycleHandler.handle_edges); a message that breaks it
            # is found, and dead-lettered, one message at a time.
            try:
                return edges_handler.handle_edges(messages)
            except StorageError:
                raise
            except Exception:
                log.exception("%s…: batch failed; one message at a time", messages[0].position)
                return edges_one_by_one(messages)

        commands_batch = one_by_one(lifecycle.handle_command)

        @app.agent(by_name[EDGES], name="frecall-lifecycle")
        async def apply_edges(stream: faust.StreamT[bytes]) -> None:
            async for events in _batches(stream, EDGE_BATCH):
                await process([_received(e) for e in events], edges_batch, lifecycle_thread)

        @app.agent(by_name[COMMANDS], name="frecall-commands")
        async def apply_commands(stream: faust.StreamT[bytes]) -> None:
            async for events in _batches(stream):
                await process([_received(e) for e in events], commands_batch, lifecycle_thread)

    return app


def _abandon(messages: list[Received], why: str) -> NoReturn:
    """Leave at once, without acknowledging the batch (nor committing its offsets): it is
    redelivered to whichever worker takes the partition. A clean exit would ack it."""
    log.critical("%s…: batch of %d not processed, %s; exiting", messages[0].position,
                 len(messages), why)  # fmt: skip
    logging.shutdown()
    os._exit(EXIT_UNPROCESSED)


def run_worker(app: faust.App, loglevel: str) -> None:
    """Run the app's agents until SIGINT/SIGTERM (Faust's worker: joins the consumer group,
    commits offsets, leaves the group on a clean stop)."""
    from faust.worker import Worker

    worker = Worker(app, loglevel=loglevel, quiet=True)
    worker.spinner = None  # a terminal spinner: escape codes in every log file
    worker.execute_from_commandline()


def _batches(
    stream: faust.StreamT[bytes], size: int = BATCH
) -> AsyncIterator[Sequence[faust.EventT[bytes]]]:
    """Batches of events, acknowledged after the loop body ran (faust's `StreamT` protocol
    does not declare `take_events`; every stream it hands an agent is a `Stream`)."""
    return cast("faust.Stream[bytes]", stream).take_events(size, within=BATCH_WAIT_S)


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
